"""/notify every|turn|digest|none|resume: which mails the sender gets, or mail again after bounces stopped it."""

from __future__ import annotations

from pbem.i18n import N_
from pbem.mail import addresses
from pbem.mail.commands import ACCOUNT, NOTIFY_CHOICES, CommandError, Spec
from pbem.models import User

NOTIFY_TEXT = {"every": N_("after every move"), "turn": N_("when it is your turn"), "digest": N_("once a day"),
               "none": N_("never (the web page still shows your games)")}


def check(args: tuple[str, ...]) -> None:
    if len(args) != 1 or args[0].lower() not in NOTIFY_CHOICES:
        raise CommandError(N_("Write /notify every, /notify turn, /notify digest, /notify none or /notify resume."))


def run(context, command) -> None:
    _ = context.gettext
    choice, user = command.args[0].lower(), context.user
    with context.db.transaction() as s:
        if choice == "resume":
            addresses.resume(s, user.email)
        else:
            s.get(User, user.id).notify = choice
    if choice == "resume":
        context.say(_("Mail to %(address)s is on again: the notifications that bounces had stopped are sent again "
                      "(if they bounce three more times, they stop again).", address=user.email))
    else:
        context.say(_("You now get mail: %(when)s.", when=_(NOTIFY_TEXT[choice])))


COMMAND = Spec("notify", 90, run, doors=frozenset({ACCOUNT}), changes=True, check=check,
               usage=N_("/notify every|turn|digest|none"),
               help=N_("which mails you get (/notify resume: mail again\nafter bounces stopped it)"))
