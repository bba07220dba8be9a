"""/start GAME-ID: start one's own table before it is full."""

from __future__ import annotations

from pbem import games
from pbem.i18n import N_
from pbem.mail.commands import ACCOUNT, Spec


def run(context, command) -> None:
    games.start_game(context.db, command.game_id, context.user.id)
    context.answer.game_id = command.game_id
    context.say(context.gettext("Game %(game)d has started; the first player gets a turn mail.",
                                game=command.game_id))


COMMAND = Spec("start", 30, run, doors=frozenset({ACCOUNT}), needs_game=True, changes=True,
               usage=N_("/start GAME-ID"), help=N_("start your table before it is full"))
