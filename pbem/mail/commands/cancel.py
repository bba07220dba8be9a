"""/cancel GAME-ID: drop the sender's standing orders in a game."""

from __future__ import annotations

from pbem import games
from pbem.i18n import N_
from pbem.mail.commands import ACCOUNT, TURN, Spec


def run(context, command) -> None:
    dropped = games.cancel_orders(context.db, command.game_id, context.user.id)
    context.say(context.gettext("Your standing orders in game %(game)d are dropped (%(count)d).",
                                game=command.game_id, count=dropped))


COMMAND = Spec("cancel", 70, run, doors=frozenset({TURN, ACCOUNT}), needs_game=True, changes=True,
               usage=N_("/cancel GAME-ID"), help=N_("drop your standing orders there"))
