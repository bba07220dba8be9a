"""/games: the sender's games, with their state, whose turn it is and since when, and the deadline.

A running game names who is to move (the seat's name and colour, or "your turn"), since when (the
start of that turn, as the deadlines count it: `Game.turn_started_at`; else the last move, else the
start of the game), and its deadline when one is set; the moments are written in the reader's
language (`pbem.notify.wording.when`).
"""

from __future__ import annotations

from sqlalchemy import func, select

from pbem.i18n import N_
from pbem.mail.commands import ACCOUNT, Spec
from pbem.models import Game, GameStatus, MoveRecord, Seat
from pbem.notify import wording

STATUS_TEXT = {"open": N_("open"), "running": N_("running"), "finished": N_("finished"),
               "abandoned": N_("abandoned")}
TIME_FORM = "%Y-%m-%d %H:%M UTC"  # how an English answer writes a moment (the others: the locale's words)


def run(context, command) -> None:
    _ = context.gettext
    with context.db.sessions() as s:
        rows = s.execute(select(Game, Seat.number).join(Seat, Seat.game_id == Game.id)
                         .where(Seat.user_id == context.user.id).order_by(Game.id)).all()
        running = [game.id for game, _seat in rows if game.status == GameStatus.RUNNING.value]
        names, last = {}, {}
        if running:
            names = {(game_id, number): (name, colour) for game_id, number, name, colour in s.execute(
                select(Seat.game_id, Seat.number, Seat.display_name, Seat.colour).where(Seat.game_id.in_(running)))}
            last = dict(s.execute(select(MoveRecord.game_id, func.max(MoveRecord.created_at))
                                  .where(MoveRecord.game_id.in_(running)).group_by(MoveRecord.game_id)).all())
    if not rows:
        context.say(_("You have no games. Open one with /new GAME or join one with /join GAME-ID."))
        return
    lines = [_("Your games:")]
    for game, seat in rows:
        said = _(STATUS_TEXT[game.status]) if game.status in STATUS_TEXT else game.status
        line = context.ngettext("#%(game)d %(title)s: %(status)s, %(num)d move",
                                "#%(game)d %(title)s: %(status)s, %(num)d moves", game.version,
                                game=game.id, title=game.title, status=said)
        if game.status == GameStatus.RUNNING.value and game.to_move is not None:
            since = game.turn_started_at or last.get(game.id) or game.started_at
            at = wording.when(since, context.language, TIME_FORM) if since else "?"
            if game.to_move == seat:
                line += "; " + _("your turn since %(time)s", time=at)
            else:
                name, colour = names.get((game.id, game.to_move), ("?", None))
                who = f"{name} ({colour})" if colour else name
                line += "; " + _("%(name)s to move since %(time)s", name=who, time=at)
            if game.deadline is not None:
                line += "; " + _("deadline %(time)s", time=wording.when(game.deadline, context.language, TIME_FORM))
        lines.append(f"  {line}")
    context.say(*lines)


COMMAND = Spec("games", 80, run, doors=frozenset({ACCOUNT}), usage=N_("/games"),
               help=N_("your games: whose turn it is, since when, the deadline"))
