"""/join GAME-ID [COLOUR]: take a seat at an open table, in a free colour if asked for."""

from __future__ import annotations

from pbem import games
from pbem.i18n import N_
from pbem.mail.commands import ACCOUNT, CommandError, Spec
from renderers.i18n import colour_word


def parse_join(args: tuple[str, ...]) -> str | None:
    """The colour of a /join command: `/join 12`, `/join 12 blue` or `/join 12 colour=blue` (None: any)."""
    if not args:
        return None
    if len(args) > 1:
        raise CommandError(N_("Write /join GAME-ID or /join GAME-ID COLOUR, not %(words)s."),
                           words=repr(" ".join(args)[:60]))
    word = args[0]
    if "=" in word:
        key, word = word.split("=", 1)
        if key.strip().lower() not in ("colour", "color"):
            raise CommandError(N_("/join takes only a colour (colour=blue), not %(key)s."), key=repr(key[:20]))
    return word.strip().lower() or None


def run(context, command) -> None:
    _ = context.gettext
    joined = games.join_game(context.db, command.game_id, context.user.id, parse_join(command.args))
    context.answer.game_id = command.game_id
    if joined["started"]:
        context.say(_("You joined game %(game)d as %(colour)s. The table is full and the game has started; the "
                      "first player gets a turn mail.", game=command.game_id,
                      colour=colour_word(context, joined["colour"])))
    elif joined["colour"]:
        context.say(_("You joined game %(game)d in %(colour)s. The game starts when the table is full; the seat "
                      "order is drawn then.", game=command.game_id,
                      colour=colour_word(context, joined["colour"])))
    else:
        context.say(_("You joined game %(game)d with no colour asked for: you get one of those left. The game "
                      "starts when the table is full; the seat order is drawn then.", game=command.game_id))


COMMAND = Spec("join", 20, run, doors=frozenset({ACCOUNT}), needs_game=True, changes=True,
               usage=N_("/join GAME-ID [COLOUR]"),
               help=N_("take a seat, in a free colour if you like (or colour=C);\nthe game starts when it is full"))
