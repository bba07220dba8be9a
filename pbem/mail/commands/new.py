"""/new GAME [players=N] [colour=C] [hours=H] [NAME=VALUE ...]: open a table, the sender in its first seat."""

from __future__ import annotations

from pbem import games, mailkeys
from pbem.i18n import N_
from pbem.mail.commands import ACCOUNT, CommandError, Spec


def check(args: tuple[str, ...]) -> None:
    if not args:
        raise CommandError(N_("Write /new GAME [players=N], for example /new tongiaki players=3."))


def parse_new(args: tuple[str, ...]) -> tuple[str, int, dict, str | None, int | None]:
    """The title, players, options, colour and hours per turn of a /new command."""
    title, rest = args[0].lower(), args[1:]
    players, colour, hours, options = 2, None, None, {}
    for word in rest:
        if "=" not in word:
            raise CommandError(N_("Options are NAME=VALUE, not %(word)s."), word=repr(word))
        key, value = word.split("=", 1)
        key = key.strip().lower()
        if key == "players":
            if not value.isdigit():
                raise CommandError(N_("players= takes a number, not %(value)s."), value=repr(value))
            players = int(value)
        elif key in ("colour", "color"):
            colour = value
        elif key == "hours":
            if not value.isdigit():
                raise CommandError(N_("hours= takes a number, not %(value)s."), value=repr(value))
            hours = int(value)
        else:
            options[key] = value
    return title, players, options, colour, hours


def run(context, command) -> None:
    _ = context.gettext
    title, players, options, colour, hours = parse_new(command.args)
    game_id = games.create_game(context.db, title, context.user.id, players, options, colour=colour, turn_hours=hours)
    context.answer.game_id = game_id
    free = games.view(context.db, game_id)["free_colours"]
    if colour and colour.strip().lower() != "any":
        opened = _("Game %(game)d (%(title)s) is open with %(players)d seats and you in the first one, in "
                   "%(colour)s. Others join by sending the line", game=game_id, title=title, players=players,
                   colour=colour.strip().lower())
    else:
        opened = _("Game %(game)d (%(title)s) is open with %(players)d seats and you in the first one. Others join "
                   "by sending the line", game=game_id, title=title, players=players)
    context.say(opened, "", f"  /join {game_id}", "",
                _("to their command address (or to %(address)s, then confirming by reply), or /join %(game)d COLOUR "
                  "for one of the free colours: %(colours)s.",
                  address=mailkeys.plain_address(context.settings.mail_domain), game=game_id, colours=", ".join(free)),
                _("Start it before it is full with /start %(game)d.", game=game_id))


COMMAND = Spec("new", 10, run, doors=frozenset({ACCOUNT}), changes=True, check=check,
               usage=N_("/new GAME [players=N] [colour=C] [NAME=VALUE ...]"),
               help=N_("open a table (games: %(titles)s), in colour C if you like"))
