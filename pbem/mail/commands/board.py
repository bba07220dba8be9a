"""/board GAME-ID: the board as the sender sees it (in a turn reply, added once at the end of the answer)."""

from __future__ import annotations

from pbem import games
from pbem.i18n import N_
from pbem.mail import answers
from pbem.mail.commands import ACCOUNT, TURN, Spec


def run(context, command) -> None:
    if context.door == TURN:
        context.board_asked = True  # the position is added once, at the end, from the latest view
        return
    data = games.view(context.db, command.game_id, context.user.id, language=context.user.language)
    answers.position(context.db, context.settings, data, context.answer, turn_key=False)


COMMAND = Spec("board", 40, run, doors=frozenset({TURN, ACCOUNT}), needs_game=True,
               usage=N_("/board GAME-ID"), help=N_("the board as you see it"))
