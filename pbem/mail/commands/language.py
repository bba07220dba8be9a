"""/language en|nl|de|fr: the language of the sender's pages and mails (this answer's rest included)."""

from __future__ import annotations

from pbem import accounts, i18n
from pbem.i18n import N_
from pbem.mail.commands import ACCOUNT, CommandError, Spec
from pbem.models import User


def check(args: tuple[str, ...]) -> None:
    if len(args) != 1:
        raise CommandError(N_("Write /language en, /language nl, /language de or /language fr."))


def run(context, command) -> None:
    code = command.args[0]
    try:
        with context.db.transaction() as s:
            language = accounts.set_language(s, s.get(User, context.user.id), code)
    except accounts.AccountError:
        raise CommandError(N_("%(code)s is not a language of pbem; there are %(languages)s."), code=repr(code),
                           languages=", ".join(f"{c} ({i18n.NAMES[c]})" for c in i18n.LANGUAGES)) from None
    context.answer.language = language  # the rest of the answer, and the mails from now on, speak it
    context.say(context.gettext("Your language is now %(name)s (%(code)s): the web pages and the mails speak it.",
                                name=i18n.NAMES[language], code=language))


COMMAND = Spec("language", 120, run, doors=frozenset({ACCOUNT}), changes=True, check=check,
               usage=N_("/language en|nl|de|fr"),
               help=N_("the language of your pages and mails (English, Nederlands,\nDeutsch, Français)"))
