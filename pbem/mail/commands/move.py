"""/move GAME-ID NOTATION: a move, written as a command (in a reply to a turn mail a bare line is one too)."""

from __future__ import annotations

from pbem.i18n import N_
from pbem.mail.commands import TURN, CommandError, Spec


def check(args: tuple[str, ...]) -> None:
    if not args:
        raise CommandError(N_("Write /move GAME-ID NOTATION, for example /move 12 take 1."))


def run(turn, command) -> None:
    turn.play(command.index, command.line, " ".join(command.args), bare=False)


COMMAND = Spec("move", 150, run, doors=frozenset({TURN}), needs_game=True, check=check, reports=True,
               missing_game=N_("Write /move GAME-ID NOTATION."))
