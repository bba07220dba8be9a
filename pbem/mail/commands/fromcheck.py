"""/fromcheck on|off: whether a turn key is taken only from the seat's registered address."""

from __future__ import annotations

from pbem.i18n import N_
from pbem.mail.commands import ACCOUNT, CommandError, Spec
from pbem.models import User


def check(args: tuple[str, ...]) -> None:
    if len(args) != 1 or args[0].lower() not in ("on", "off"):
        raise CommandError(N_("Write /fromcheck on or /fromcheck off."))


def run(context, command) -> None:
    on = command.args[0].lower() == "on"
    with context.db.transaction() as s:
        s.get(User, context.user.id).from_check = on
    if on:
        context.say(context.gettext("Moves are now taken only from %(address)s.", address=context.user.email))
    else:
        context.say(context.gettext("Moves are now taken only from any address that holds the reply address of "
                                    "your turn."))


COMMAND = Spec("fromcheck", 100, run, doors=frozenset({ACCOUNT}), changes=True, check=check,
               usage=N_("/fromcheck on|off"), help=N_("accept moves from other addresses of yours"))
