"""/note GAME-ID TEXT: a private note on a game, read by its author only (pbem.talk)."""

from __future__ import annotations

from pbem import talk
from pbem.i18n import N_
from pbem.mail.commands import ACCOUNT, TURN, CommandError, Spec
from pbem.mail.commands.say import text_after


def check(args: tuple[str, ...]) -> None:
    if not args:
        raise CommandError(N_("Write /note GAME-ID and your note."))


def run(context, command) -> None:
    talk.write_note(context.db, command.game_id, context.user.id, text_after(command))
    context.say(context.gettext("Your note on game %(game)d is kept; only you can read it.", game=command.game_id))


COMMAND = Spec("note", 96, run, doors=frozenset({TURN, ACCOUNT}), needs_game=True, changes=True, check=check,
               missing_game=N_("Write /note GAME-ID and your note."),
               usage=N_("/note GAME-ID TEXT"), help=N_("a private note on a game, for you alone"))
