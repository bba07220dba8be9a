"""/say GAME-ID [@WHO ...] TEXT: a message to the table of a game, or to the players named first (pbem.talk)."""

from __future__ import annotations

from pbem import talk
from pbem.i18n import N_
from pbem.mail.commands import ACCOUNT, TURN, CommandError, Spec


def text_after(command) -> str:
    """The raw text of a command's line after its name and, if it was written, its game id: a message keeps
    its own spacing, which the command's words lose."""
    parts = command.line.split(None, 1)
    rest = parts[1] if len(parts) > 1 else ""
    if len(rest.split()) > len(command.args):  # the game id was written: it is not part of the text
        rest = rest.split(None, 1)[1] if len(rest.split(None, 1)) > 1 else ""
    return rest.strip()


def check(args: tuple[str, ...]) -> None:
    if not args:
        raise CommandError(N_("Write /say GAME-ID and your message, or /say GAME-ID @NAME your message."))


def run(context, command) -> None:
    _, names = talk.say(context.db, command.game_id, context.user.id, text_after(command), source="mail")
    if names:
        context.say(context.gettext("Your message went to %(names)s in game %(game)d.", names=", ".join(names),
                                    game=command.game_id))
    else:
        context.say(context.gettext("Your message went to the table of game %(game)d.", game=command.game_id))


COMMAND = Spec("say", 95, run, doors=frozenset({TURN, ACCOUNT}), needs_game=True, changes=True, check=check,
               missing_game=N_("Write /say GAME-ID and your message."),
               usage=N_("/say GAME-ID [@NAME ...] TEXT"),
               help=N_("a message to the table, or to the players named with @ (their name or colour)"))
