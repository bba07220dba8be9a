"""/name NEW NAME: the name the other players see, within the rules for names of the web (pbem.accounts.names).

The words after /name are the name (several words are one name with single spaces). A name that
breaks a rule, is another player's or looks like one is refused with the reason, and nothing
changes. The new name is shown at the sender's open and running tables too; finished games keep
the name they were played under.
"""

from __future__ import annotations

from pbem.accounts import names
from pbem.i18n import N_
from pbem.mail.commands import ACCOUNT, CommandError, Spec
from pbem.models import User


def check(args: tuple[str, ...]) -> None:
    if not args:
        raise CommandError(N_("Write /name and the name after it: /name Anna Schmidt."))


def run(context, command) -> None:
    try:
        with context.db.transaction() as s:
            name = names.rename(s, s.get(User, context.user.id), " ".join(command.args))
    except names.DisplayNameError as error:
        raise CommandError(N_("Your name was not changed: %(reason)s"), reason=error) from None
    context.say(context.gettext("The other players see you as \"%(name)s\" now.", name=name))


COMMAND = Spec("name", 115, run, doors=frozenset({ACCOUNT}), changes=True, check=check,
               usage=N_("/name NEW NAME"),
               help=N_("the name the other players see (2 to 32 letters, digits,\nspaces and - _ . ')"))
