"""/orders GAME-ID: the sender's standing orders in a game (theirs alone: docs/security.md)."""

from __future__ import annotations

from pbem import games
from pbem.i18n import N_
from pbem.mail.commands import ACCOUNT, TURN, Spec


def run(context, command) -> None:
    _ = context.gettext
    queued = games.orders_of(context.db, command.game_id, context.user.id)
    if not queued:
        context.say(_("You have no standing orders in game %(game)d.", game=command.game_id))
    elif context.door == TURN:
        context.queued = queued  # listed once, at the end of the answer, as the turn left them
    else:
        context.say(_("Your standing orders in game %(game)d:", game=command.game_id),
                    *["  " + _("queued: %(order)s", order=order) for order in queued])


COMMAND = Spec("orders", 60, run, doors=frozenset({TURN, ACCOUNT}), needs_game=True,
               usage=N_("/orders GAME-ID"), help=N_("your standing orders there (only you see them)"))
