"""The daily digest: one mail a day to players who chose it (User.notify == "digest").

It lists every game where it is the player's turn, with the legal moves and that seat's
reply address for each (a digest covers several games, so the addresses are in the text
rather than in Reply-To), in the player's language (the template `digest.txt`). The worker's
beat calls `queue_digests` (daily or more often: a player gets at most one digest per DIGEST_EVERY).
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from pbem import config, games, i18n
from pbem.db import Database
from pbem import mailkeys
from pbem.notify import outbox, wording
from pbem.models import Game, OutboundMail, Seat, User, utcnow

DIGEST_EVERY = timedelta(hours=20)


def queue_digests(db: Database, settings=None) -> int:
    """Write the digests that are due; returns how many."""
    settings = settings or config.load()
    with db.sessions() as s:
        rows = s.execute(select(User.id, Game.id, Seat.number, Seat.token_nonce)
                         .join(Seat, Seat.user_id == User.id).join(Game, Game.id == Seat.game_id)
                         .where(User.notify == "digest", Game.status == "running", Game.to_move == Seat.number,
                                Seat.resigned.is_(False))
                         .order_by(User.id, Game.id)).all()
    by_user: dict[int, list[tuple[int, int, str]]] = {}
    for uid, game_id, seat, nonce in rows:
        by_user.setdefault(uid, []).append((game_id, seat, nonce))
    written = 0
    for uid, waiting in by_user.items():
        if not _due(db, uid):
            continue  # checked before the views are built: the sweep calls this every minute
        with db.sessions() as s:
            language = s.scalar(select(User.language).where(User.id == uid))
        t = i18n.texts(language)
        games_waiting = []
        for game_id, seat, nonce in waiting:
            data = games.view(db, game_id, uid)
            address = mailkeys.encode_reply(settings.secret_key, settings.mail_domain, game_id, seat,
                                          data["version"], nonce)
            games_waiting.append({"id": game_id, "title": data["title"], "data": data, "address": address})
        with db.transaction() as s:
            user = s.scalars(select(User).where(User.id == uid).with_for_update()).one()
            last = s.scalars(select(OutboundMail.created_at).where(OutboundMail.user_id == uid,
                                                                    OutboundMail.kind == "digest")
                             .order_by(OutboundMail.created_at.desc()).limit(1)).first()
            if last is not None and utcnow() - last < DIGEST_EVERY:
                continue
            outbox.queue(s, kind="digest", recipient=user.email, user_id=uid, language=t.language,
                         subject="[pbem] " + t.ngettext("your turn in %(num)d game", "your turn in %(num)d games",
                                                        len(games_waiting)),
                         body=wording.render("digest.txt", language, waiting=games_waiting))
            written += 1
    return written


def _due(db: Database, uid: int) -> bool:
    """Whether a day has passed since the user's last digest (checked again under the lock)."""
    with db.sessions() as s:
        last = s.scalars(select(OutboundMail.created_at).where(OutboundMail.user_id == uid, OutboundMail.kind == "digest")
                         .order_by(OutboundMail.created_at.desc()).limit(1)).first()
    return last is None or utcnow() - last >= DIGEST_EVERY
