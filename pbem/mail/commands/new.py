"""/new GAME [players=N] [colour=C] [hours=H|none] [timeout=P] [min_reliability=R] [bots=B level=L] [NAME=VALUE ...]:
open a table, the sender in its first seat.

`bots=B` seats B bots of level L (`level=`, easy by default) in the other seats (issue 37, as the web's
"Play against bots" does); a table they fill starts at once, and a game with bots is not rated.
`replace=N` declares the table's policy for abandoned seats: after N missed deadlines in a row, or when its
player leaves, a seat is offered to a replacement and a bot of that level plays it meanwhile.

It takes what the web's create form takes, with the same defaults (pbem.web.forms.create_form_for):
the seats (the title's fewest), the opener's colour (any), the time a move may take
(`tables.DEFAULT_TURN_HOURS`; `hours=none`: no deadline), what happens when it passes (`timeout=`,
"wait"), and the title's options by their names (the engine's defaults). The whole line is checked
when it is read: an unknown option or a value the option does not take is refused with the option's
name and the values it takes, and nothing is opened (nor asked to be confirmed).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import bots as bot_levels
import engine
from engine.core import OptionError
from pbem import games, mailkeys
from pbem.games.tables import DEFAULT_BOT_LEVEL, DEFAULT_TURN_HOURS, MAX_REPLACE_AFTER, PRESS_MODES
from pbem.i18n import N_
from pbem.mail.commands import ACCOUNT, CommandError, Spec
from renderers.i18n import colour_word

MAX_TURN_HOURS = 24 * 60  # as create_game and the web form allow
NO_DEADLINE = "none"
ANY_COLOUR = "any"
# The table talk's yes/no settings by their names in a /new line, and create_game's argument for each (the web
# form's check boxes, with the same defaults: spectators no, after_end yes, late_silent no).
PRESS_FLAGS = {"spectators": "press_spectators", "after_end": "press_after_end", "late_silent": "press_late_blocked"}
RATED = "rated"  # rated=yes: the table is rated (the web form's check box "Rated game"; default no)
# min_reliability=80: a player needs a reliability of at least 80% to take a seat (pbem.players.reliability; the
# web form's "Least reliability to join"; default none, as 0).
MIN_RELIABILITY = "min_reliability"
NO_MINIMUM = "none"
BOTS, LEVEL, REPLACE = "bots", "level", "replace"  # bots=2 level=easy: two of the other seats are bots of that level (issue 37)
YES_NO = {"yes": True, "no": False, "true": True, "false": False, "on": True, "off": False}
# What each timeout policy does, as the web's create form names it (the same words, the same catalogue).
POLICY_WORDS = {"wait": N_("wait (remind only)"), "skip": N_("skip the turn"),
                "random": N_("play a random legal move"), "resign": N_("resign the player")}


@dataclass(frozen=True)
class NewTable:
    """What a /new line asks for, checked: the title, the seats, the opener's colour, the pace, the options."""

    title: str
    players: int
    colour: str | None = None
    hours: int | None = DEFAULT_TURN_HOURS
    timeout: str = "wait"
    options: dict = field(default_factory=dict)
    press: dict = field(default_factory=dict)  # the table talk's settings (create_game's press, press_*)
    rated: bool = False  # the result changes the players' ratings (pbem.players.ratings)
    min_reliability: int | None = None  # whole percent a player needs to take a seat (None: anybody)
    bots: int = 0  # seats bots play (issue 37)
    bot_level: str | None = None  # their level (bots.LEVELS; None: the default)
    replace_after: int | None = None  # abandoned seats: missed deadlines before a bot plays the seat (None: never)


def _rules(word: str) -> engine.Rules:
    try:
        return engine.get(word.lower())
    except engine.UnknownGameError:
        raise CommandError(N_("There is no game called %(name)s; the games are: %(games)s."), name=repr(word[:40]),
                           games=", ".join(engine.names())) from None


def option_forms(rules: engine.Rules) -> str:
    """Every option /new takes for a title, each with the values it takes (English: the names and values
    are the same in every language, as the commands are)."""
    forms = [f"players ({rules.min_players}-{rules.max_players})",
             f"colour ({', '.join(rules.colours)}, {ANY_COLOUR})",
             f"hours (1-{MAX_TURN_HOURS}, {NO_DEADLINE})",
             f"timeout ({', '.join(games.TIMEOUT_POLICIES)})",
             f"press ({', '.join(PRESS_MODES)})"] + [f"{word} (yes, no)" for word in (*PRESS_FLAGS, RATED)] + [
             f"{MIN_RELIABILITY} (0-100, {NO_MINIMUM})"]
    for option in rules.describe()["options"]:
        if option["type"] == "bool":
            values = "yes, no"
        elif option["type"] == "choice":
            values = ", ".join(option["choices"])
        else:
            values = f"{option.get('minimum')}-{option.get('maximum')}"
        forms.append(f"{option['name']} ({values})")
    return "; ".join(forms)


def parse_new(args: tuple[str, ...]) -> NewTable:
    """The table a /new command asks for, or CommandError naming the option that is wrong and what it takes."""
    if not args:
        raise CommandError(N_("Write /new GAME [players=N], for example /new tongiaki players=3."))
    rules = _rules(args[0])
    given: dict[str, str] = {}
    for word in args[1:]:
        if "=" not in word:
            raise CommandError(N_("Options are NAME=VALUE, not %(word)s. The options of %(game)s: %(options)s."),
                               word=repr(word[:40]), game=rules.name, options=option_forms(rules))
        key, value = word.split("=", 1)
        key = key.strip().lower()
        key = "colour" if key == "color" else key
        if key in given:
            raise CommandError(N_("The option %(option)s is given twice."), option=key[:40])
        given[key] = value.strip()
    described = {option["name"] for option in rules.describe()["options"]}
    for key in given:
        if key not in {"players", "colour", "hours", "timeout", "press", RATED, MIN_RELIABILITY, BOTS, LEVEL, REPLACE,
                       *PRESS_FLAGS, *described}:
            raise CommandError(N_("%(game)s has no option %(option)s. Its options, with the values they take: "
                                  "%(options)s."), game=rules.name, option=repr(key[:40]), options=option_forms(rules))
    players = given.pop("players", str(rules.min_players))
    if not players.isdigit() or not rules.min_players <= int(players) <= rules.max_players:
        raise CommandError(N_("players= is the number of seats, %(least)d to %(most)d for %(game)s, not "
                              "%(value)s."), least=rules.min_players, most=rules.max_players, game=rules.name,
                           value=repr(players[:20]))
    colour = given.pop("colour", ANY_COLOUR).lower()
    if colour not in (*rules.colours, ANY_COLOUR):
        raise CommandError(N_("colour= is one of %(colours)s (or %(any)s), not %(value)s."),
                           colours=", ".join(rules.colours), any=ANY_COLOUR, value=repr(colour[:20]))
    hours: int | None = DEFAULT_TURN_HOURS
    if "hours" in given:
        value = given.pop("hours").lower()
        if value == NO_DEADLINE:
            hours = None
        elif value.isdigit() and 1 <= int(value) <= MAX_TURN_HOURS:
            hours = int(value)
        else:
            raise CommandError(N_("hours= is the time a move may take, in hours from 1 to %(most)d, or %(none)s for "
                                  "no deadline; not %(value)s."), most=MAX_TURN_HOURS, none=NO_DEADLINE,
                               value=repr(value[:20]))
    timeout = given.pop("timeout", "wait").lower()
    if timeout not in games.TIMEOUT_POLICIES:
        raise CommandError(N_("timeout= is what happens when a deadline passes: %(policies)s; not %(value)s."),
                           policies=", ".join(games.TIMEOUT_POLICIES), value=repr(timeout[:20]))
    press = {"press": given.pop("press", "full").lower()}
    if press["press"] not in PRESS_MODES:
        raise CommandError(N_("press= is what the table may say: %(modes)s (full: to the table and to some "
                              "players); not %(value)s."), modes=", ".join(PRESS_MODES), value=repr(press["press"][:20]))
    for word, argument in PRESS_FLAGS.items():
        if word in given:
            value = given.pop(word).lower()
            if value not in YES_NO:
                raise CommandError(N_("%(option)s= is yes or no, not %(value)s."), option=word, value=repr(value[:20]))
            press[argument] = YES_NO[value]
    rated = given.pop(RATED, "no").lower()
    if rated not in YES_NO:
        raise CommandError(N_("%(option)s= is yes or no, not %(value)s."), option=RATED, value=repr(rated[:20]))
    least = _min_reliability(given.pop(MIN_RELIABILITY, NO_MINIMUM))
    seated_bots, level = _bots(given.pop(BOTS, "0"), given.pop(LEVEL, None), int(players), YES_NO[rated])
    replace_after = _replace_after(given.pop(REPLACE, None), YES_NO[rated])
    try:
        rules.check_options(given)  # the title's options: each value as the option takes it (the engine says)
    except OptionError as error:
        raise CommandError(str(error), cause=error) from None
    return NewTable(rules.name, int(players), None if colour == ANY_COLOUR else colour, hours, timeout, given, press,
                    YES_NO[rated], least, seated_bots, level, replace_after)


def _replace_after(value: str | None, rated: bool) -> int | None:
    """The missed deadlines of a replace= value before a seat is offered and a bot plays it (None: no policy)."""
    if value is None:
        return None
    word = value.strip()
    if not word.isdigit() or not 1 <= int(word) <= MAX_REPLACE_AFTER:
        raise CommandError(N_("%(option)s= is how many missed deadlines in a row hand a seat to a bot until a "
                              "replacement takes it, 1 to %(most)d; not %(value)s."), option=REPLACE,
                           most=MAX_REPLACE_AFTER, value=repr(value[:20]))
    if rated:
        raise CommandError(N_("A game with bots is not rated; choose bots or a rated game, not both."))
    return int(word)


def _bots(count: str, level: str | None, players: int, rated: bool) -> tuple[int, str | None]:
    """The bots of a /new line (bots=B level=L): at most all seats but the opener's, a level there is, not rated."""
    word = count.strip()
    if not word.isdigit() or int(word) >= players:
        raise CommandError(N_("%(option)s= is how many of the other seats bots play, 0 to %(most)d at a table of "
                              "%(players)d; not %(value)s."), option=BOTS, most=players - 1, players=players,
                           value=repr(count[:20]))
    if level is not None and level.strip().lower() not in bot_levels.LEVELS:
        raise CommandError(N_("%(option)s= is the bots' level: %(levels)s; not %(value)s."), option=LEVEL,
                           levels=", ".join(bot_levels.LEVELS), value=repr(level[:20]))
    if int(word) and rated:
        raise CommandError(N_("A game with bots is not rated; choose bots or a rated game, not both."))
    return int(word), (level.strip().lower() if level is not None else None)


def _min_reliability(value: str) -> int | None:
    """The least reliability of a min_reliability= value: a whole percentage ("80" or "80%"); 0 or none: None."""
    word = value.strip().lower().removesuffix("%")
    if word == NO_MINIMUM:
        return None
    if not word.isdigit() or int(word) > 100:
        raise CommandError(N_("%(option)s= is the least reliability a player needs to join, a whole percentage from 1 "
                              "to 100 (0 or none: anybody); not %(value)s."), option=MIN_RELIABILITY,
                           value=repr(value[:20]))
    return int(word) or None


def check(args: tuple[str, ...]) -> None:
    parse_new(args)


def pace(context, hours: int | None) -> str:
    """How fast a table goes, as the web's lobby says it ("3 days a move", "no deadline")."""
    if not hours:
        return context.gettext("no deadline")
    days, rest = divmod(hours, 24)
    if rest == 0:
        return context.ngettext("%(num)d day a move", "%(num)d days a move", days)
    return context.ngettext("%(num)d hour a move", "%(num)d hours a move", hours)


def run(context, command) -> None:
    _ = context.gettext
    table = parse_new(command.args)
    game_id = games.create_game(context.db, table.title, context.user.id, table.players, table.options,
                                colour=table.colour, turn_hours=table.hours, timeout_policy=table.timeout,
                                rated=table.rated, min_reliability=table.min_reliability, bot_seats=table.bots,
                                bot_level=table.bot_level, replace_after=table.replace_after, **table.press)
    context.answer.game_id = game_id
    if table.bots and table.bots + 1 == table.players:
        context.say(context.ngettext("Game %(game)d (%(title)s) has started: you against %(num)d bot. Your turn comes "
                                     "by mail as in any game.",
                                     "Game %(game)d (%(title)s) has started: you against %(num)d bots. Your turn "
                                     "comes by mail as in any game.", table.bots, game=game_id, title=table.title))
        return
    free = games.view(context.db, game_id)["free_colours"]
    if table.colour:
        opened = _("Game %(game)d (%(title)s) is open with %(players)d seats and you in the first one, in "
                   "%(colour)s. Others join by sending the line", game=game_id, title=table.title,
                   players=table.players, colour=colour_word(context, table.colour.lower()))
    else:
        opened = _("Game %(game)d (%(title)s) is open with %(players)d seats and you in the first one. Others join "
                   "by sending the line", game=game_id, title=table.title, players=table.players)
    if table.hours:
        timing = _("Pace: %(pace)s (hours=%(hours)d); when a deadline passes: %(policy)s.",
                   pace=pace(context, table.hours), hours=table.hours, policy=_(POLICY_WORDS[table.timeout]))
    else:
        timing = _("Pace: no deadline (hours=none).")
    context.say(opened, "", f"  /join {game_id}", "",
                _("to their command address (or to %(address)s, then confirming by reply), or /join %(game)d COLOUR "
                  "for one of the free colours: %(colours)s.",
                  address=mailkeys.plain_address(context.settings.mail_domain), game=game_id, colours=", ".join(free)),
                _("Start it before it is full with /start %(game)d.", game=game_id),
                _("Invite players with /invite %(game)d ADDRESS.", game=game_id), timing,
                *([_("The game is rated: its result changes the players' ratings.")] if table.rated else []),
                *([_("Abandoned seats: after %(missed)d missed deadlines in a row, or when its player leaves, a seat "
                     "is offered to a replacement, and a bot (%(level)s) plays it until one takes it.",
                     missed=table.replace_after, level=table.bot_level or DEFAULT_BOT_LEVEL)]
                  if table.replace_after else []),
                *([_("A player needs a reliability of at least %(minimum)d%% to join (%(option)s=%(minimum)d).",
                     minimum=table.min_reliability, option=MIN_RELIABILITY)] if table.min_reliability else []))


COMMAND = Spec("new", 10, run, doors=frozenset({ACCOUNT}), changes=True, check=check,
               usage=N_("/new GAME [players=N] [colour=C] [NAME=VALUE ...]"),
               help=N_("open a table (games: %(titles)s), in colour C if you like;\nhours=H a move (none: no "
                       "deadline), timeout=wait|skip|random|resign,\npress=full|public|none, spectators=yes|no "
                       "(table talk),\nrated=yes|no (the result changes ratings),\nmin_reliability=R (the least reliability "
                       "to join, in %%),\nthe game's options (NAME=VALUE)"))
