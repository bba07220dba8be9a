"""A webhook channel (Discord, Slack, Matrix), written as a site would add one: the whole channel is this module.

It follows `pbem.notify.channels.Channel` and nothing else of the service changes for it: the
notify package hands it every notice in the transaction of the change, the worker delivers its
jobs with its one delivery task under this channel's job name, and the sweep posts again what
it says is due. It takes the turn notices of the readers who gave a webhook address (`hooks`;
a site would keep the address with the user), and posts "your turn" as JSON through the checked
outgoing session (pbem.notify.outgoing: the address read once, nothing inside the site unless
PBEM_OUTGOING_ALLOW lets it), once per job. It stores nothing in the database: what it would
keep there (its undone deliveries) is `undone`, for the sweep.
"""

from __future__ import annotations

from pbem import jobs
from pbem.models import Game
from pbem.notify import outgoing, push


class WebhookChannel:
    name = "webhook"
    task = "pbem.send_webhook"

    def __init__(self, hooks: dict[int, str]):
        self.hooks = hooks  # user id -> webhook URL
        self.sent: set[tuple[int, int, int]] = set()  # the jobs delivered (a site keeps them with the address)
        self.undone: list[tuple[int, int, int]] = []  # the jobs a stored channel would find undone

    def take(self, s, notice) -> None:
        if notice.kind == "turn" and notice.user.id in self.hooks:
            jobs.after_commit(s, self.task, notice.user.id, notice.game.id, notice.game.version)

    def deliver(self, db, settings, user_id: int, game_id: int, version: int) -> str:
        if (user_id, game_id, version) in self.sent:
            return "already sent"
        with db.sessions() as s:
            game = s.get(Game, game_id)
            message = push.turn_message(s, game, user_id) if game is not None and game.version == version else None
        if message is None:
            return "over"
        outgoing.request("POST", self.hooks[user_id], schemes=("http", "https"),
                         json={"content": f"{message['title']}: {message['body']}"}).raise_for_status()
        self.sent.add((user_id, game_id, version))
        return "sent"

    def due(self, db, settings) -> list[tuple[int, int, int]]:
        return list(self.undone)
