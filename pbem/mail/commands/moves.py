"""/moves GAME-ID: the sender's legal moves, when it is their turn (with the board)."""

from __future__ import annotations

from pbem import games
from pbem.i18n import N_
from pbem.mail import answers
from pbem.mail.commands import ACCOUNT, TURN, CommandError, Spec


def run(context, command) -> None:
    if context.door == TURN:
        data = context.current()
    else:
        data = games.view(context.db, command.game_id, context.user.id, language=context.user.language)
    if not data.get("legal_moves"):
        raise CommandError(N_("It is not your turn in game %(game)d, so you have no moves to make."),
                           game=command.game_id)
    if context.door == TURN:
        context.board_asked = True
    else:
        answers.position(context.db, context.settings, data, context.answer, turn_key=False)


COMMAND = Spec("moves", 50, run, doors=frozenset({TURN, ACCOUNT}), needs_game=True,
               usage=N_("/moves GAME-ID"), help=N_("your legal moves, when it is your turn"))
