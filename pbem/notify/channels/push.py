"""The Web Push channel: "your turn" and "you are mentioned" in the browsers a reader subscribed (pbem.notify.push).

It takes the turn notices of readers with a subscribed browser (`User.has_push`, read with the
seat: nothing more is asked of the database inside the move) while the game runs, and posts the
job `pbem.send_push` (user, game, move number) after the commit; and the message notices that
name their reader (`@name`, issue 34), whoever is to move, as the job (user, game, move number,
message). Delivering it is
`push.send_turn`: nothing when the turn is over by then, and a browser that got this very push is
skipped, so a job delivered twice pushes once. A push is a nudge beside the turn mail, which
carries the news and is stored: nothing of a push is stored, so the sweep has none to post again.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy.orm import Session

from pbem import jobs
from pbem.config import Settings
from pbem.db import Database
from pbem.models import GameStatus
from pbem.notify import push
from pbem.notify.channels import Notice


class PushChannel:
    """News in the browser: a turn notice to a reader with subscriptions becomes one job."""

    name = "push"
    task = push.SEND_PUSH

    def take(self, s: Session, notice: Notice) -> None:
        game = notice.game
        if not notice.user.has_push:
            return
        if notice.kind == "message" and notice.mentioned:
            jobs.after_commit(s, push.SEND_PUSH, notice.user.id, game.id, game.version, notice.message.id)
        elif notice.kind == "turn" and game.status == GameStatus.RUNNING.value:
            jobs.after_commit(s, push.SEND_PUSH, notice.user.id, game.id, game.version)

    def deliver(self, db: Database, settings: Settings, user_id: int, game_id: int, version: int,
                message_id: int | None = None) -> int:
        contact = f"pbem@{settings.mail_domain}"
        if message_id is not None:
            return push.send_mention(db, settings.data_dir, contact, user_id, message_id)
        return push.send_turn(db, settings.data_dir, contact, user_id, game_id, version)

    def due(self, db: Database, settings: Settings) -> Iterable[tuple]:
        return ()
