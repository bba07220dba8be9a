"""/help: the commands (built from this package's registry) and how to move."""

from __future__ import annotations

from pbem.i18n import N_
from pbem.mail.commands import ACCOUNT, TURN, Spec, help_lines


def run(context, command) -> None:
    context.say(*help_lines(context.language))


COMMAND = Spec("help", 130, run, doors=frozenset({TURN, ACCOUNT}), usage=N_("/help"), help=N_("this text"))
