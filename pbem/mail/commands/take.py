"""/take GAME-ID SEAT: take a seat offered to a replacement in a running game (issue 37 item 3).

The seat, its position, colour and turn become the sender's (`games.tables.take_seat`: the table's seat
checks apply); the previous player's private notes are not handed over. SEAT is the seat's number as the
lobby's "Seats to take over" and the volunteers' mail show it (1 for the first seat). It changes a table,
so a mail without a key only asks to confirm it.
"""

from __future__ import annotations

from pbem.games import tables
from pbem.i18n import N_
from pbem.mail.commands import ACCOUNT, CommandError, Spec


def seat_of(args: tuple[str, ...]) -> int:
    """The seat of a /take line, counted from 0 as the service counts (written counted from 1)."""
    if len(args) != 1 or not args[0].isdigit() or not 1 <= int(args[0]) <= 99:
        raise CommandError(N_("Write /take GAME-ID SEAT, with the seat's number as the offer shows it (/take 12 2), "
                              "not %(words)s."), words=repr(" ".join(args)[:60]))
    return int(args[0]) - 1


def check(args: tuple[str, ...]) -> None:
    seat_of(args)


def run(context, command) -> None:
    number = seat_of(command.args)
    tables.take_seat(context.db, command.game_id, number, context.user.id)
    context.answer.game_id = command.game_id
    context.say(context.gettext("You took seat %(seat)d of game %(game)d: the position is yours from now on, and "
                                "you get a turn mail when it is your turn.", seat=number + 1, game=command.game_id))


COMMAND = Spec("take", 34, run, doors=frozenset({ACCOUNT}), needs_game=True, changes=True, check=check,
               usage=N_("/take GAME-ID SEAT"),
               help=N_("take a seat offered to a replacement in a running game"),
               missing_game=N_("Write /take GAME-ID SEAT."))
