"""/games: the sender's games, with their state and whose turn it is."""

from __future__ import annotations

from sqlalchemy import select

from pbem.i18n import N_
from pbem.mail.commands import ACCOUNT, Spec
from pbem.models import Game, Seat

STATUS_TEXT = {"open": N_("open"), "running": N_("running"), "finished": N_("finished"),
               "abandoned": N_("abandoned")}


def run(context, command) -> None:
    _ = context.gettext
    with context.db.sessions() as s:
        rows = s.execute(select(Game.id, Game.title, Game.status, Game.version, Game.to_move, Seat.number)
                         .join(Seat, Seat.game_id == Game.id)
                         .where(Seat.user_id == context.user.id).order_by(Game.id)).all()
    if not rows:
        context.say(_("You have no games. Open one with /new GAME or join one with /join GAME-ID."))
        return
    lines = [_("Your games:")]
    for game_id, title, status, version, to_move, seat in rows:
        said = _(STATUS_TEXT[status]) if status in STATUS_TEXT else status
        if status == "running" and to_move == seat:
            line = context.ngettext("#%(game)d %(title)s: %(status)s, %(num)d move - your turn",
                                    "#%(game)d %(title)s: %(status)s, %(num)d moves - your turn", version,
                                    game=game_id, title=title, status=said)
        else:
            line = context.ngettext("#%(game)d %(title)s: %(status)s, %(num)d move",
                                    "#%(game)d %(title)s: %(status)s, %(num)d moves", version,
                                    game=game_id, title=title, status=said)
        lines.append(f"  {line}")
    context.say(*lines)


COMMAND = Spec("games", 80, run, doors=frozenset({ACCOUNT}), usage=N_("/games"), help=N_("your games"))
