"""/confirm CODE: confirm an address (read by pbem.mail.account.unverified for an address without an account)."""

from __future__ import annotations

from pbem.i18n import N_
from pbem.mail.commands import ACCOUNT, CommandError, Spec


def check(args: tuple[str, ...]) -> None:
    if len(args) != 1:
        raise CommandError(N_("Write /confirm CODE with the code from the confirmation mail."))


def run(context, command) -> None:
    context.say(context.gettext("Your address is already confirmed."))


COMMAND = Spec("confirm", 140, run, doors=frozenset({ACCOUNT}), check=check)
