"""The commands a mail may carry: one module each in this package, found by a registry, read line by line.

Each module of this package defines `COMMAND`, a `Spec`: the command's name, the doors it is
run at (TURN: a reply through a turn key, for that seat's game and turn; ACCOUNT: the user's
command key, a confirmed request, or a read-only mail without a key), whether it names a game,
whether it changes the account or a table (then a mail without a key only asks to confirm it),
how it is written and what it does (for /help), and `run`. Adding a command is adding a module,
as Mailman 3's commands are (`src/mailman/commands/eml_*.py`); `registry()` finds them, and
/help is built from them (`help_lines`).

In a reply to a turn mail the game id may be left out and a line without a slash is a move in
the game's notation (`Command("play")`, read by pbem.mail.turns). The subject may carry one
command: a "/" command anywhere after the original subject, or (in a reply to a turn mail) a
bare move in place of our subject's text. What a command may do through which key is decided
by the doors (docs/security.md); here the lines are only read. The commands are English in
every language (a German player writes /help too); what is said about them (the help, the
reasons a line is refused) is translated where the answer is written (`CommandError.text`).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

import engine
from pbem import i18n
from pbem.i18n import N_
from pbem.notify import wording
from pbem.reasons import Refusal

MAX_LINES = 20  # lines read from one mail; the rest are counted as not read
TURN, ACCOUNT = "turn", "account"  # the doors a command is run at
HELP_COLUMN = 43  # where the text of each command starts in /help
NOTIFY_CHOICES = ("every", "turn", "digest", "none", "resume")

HELP_HEAD = N_('Commands (one per line, in the body or the subject, each with its "/"):')
HELP_FOOT = N_("""Send commands to your command address (at the foot of every mail from pbem), from your own
address. To move, reply to your turn mail with the move on the first line (the game id is
not needed there); several decisions of one turn may stand on several lines, and reading
stops at the first line that is no move or command ("Thanks!"). Replies to a turn mail also
take /move NOTATION, /board, /moves, /orders, /cancel and /resign, for that game and that turn
only. A line that is no move yet but a choice for later in your turn ("take 1 -1,2 0,2" after a
roll still to come, "roll all") is kept as a standing order: the game's page of rules lists them.""")

_PREFIX = re.compile(r"^\s*((re|aw|sv|fw|fwd|wg|tr|antw)\s*(\[\d+\])?\s*:\s*|\[pbem[^\]]*\]\s*)+", re.I)
# What the values in our own subjects (pbem.notify.wording.SUBJECTS) look like, to find them in a reply's
# subject: a game or move number, a deadline (English: 2026-11-23T10:00:00Z; the others end in " UTC"), a name.
_SUBJECT_VALUES = {"game": r"\d+", "move": r"\d+", "deadline": r"(?:.{1,60}? UTC|\S+)", "name": r".{1,80}"}
_GAME_ID = re.compile(r"^#?(\d{1,12})$")


class CommandError(Refusal):
    """A line that is no command we know, or a command written wrongly or where it cannot run; the message
    says how to write it or where to send it.

    Raised with an English message marked for the catalogues (`N_`) and its named values
    (`pbem.reasons.Refusal`); `str(error)` is the English, `text(language)` the message in a
    reader's language.
    """


class TurnOnlyError(CommandError):
    """A command of a turn (a move, a resignation) sent where no turn key is: the answer lists the games
    where the reader is to move, each with its key."""


@dataclass(frozen=True)
class Command:
    """One line read as a command: its name (a Spec's, or "play" for a bare move in a reply), its words
    after the name and the game id, the line, and its place in the mail (for the moves' keys)."""

    name: str
    args: tuple[str, ...]
    line: str
    game_id: int | None = None
    index: int = 0


@dataclass(frozen=True)
class Spec:
    """One command: how it is read, where it runs, what /help says of it, and what it does.

    `run(context, command)` does it, with the door's context (pbem.mail.account.Context for ACCOUNT,
    pbem.mail.turns.Turn for TURN: both have `door`, `db`, `settings`, `user`, `answer`, `language`,
    `gettext` and `say`); it raises CommandError (or a pbem.games error) to refuse, and adds what it
    has to say with `context.say(...)`. The door reports the line as done, unless `reports` (the
    command reports itself: a move says which move it made).
    """

    name: str
    order: int  # its place in /help (and in the list of commands a mail asked to confirm)
    run: Callable[[Any, Command], None]
    doors: frozenset[str] = frozenset({ACCOUNT})
    needs_game: bool = False
    changes: bool = False  # changes the account or a table: a mail without a key only asks to confirm it
    usage: str | None = None  # N_: how it is written, in /help (None: not listed there)
    help: str | None = None  # N_: what it does, in /help (lines after the first are indented to HELP_COLUMN)
    check: Callable[[tuple[str, ...]], None] | None = None  # refuses words written wrongly, at reading
    missing_game: str = N_("Write /%(name)s GAME-ID.")
    reports: bool = False


_REGISTRY: dict[str, Spec] = {}
_FOUND = threading.Event()  # set once the package's modules are all in _REGISTRY
_FINDING = threading.Lock()


def registry() -> dict[str, Spec]:
    """Every command, by name: the `COMMAND` of each module of this package, and those `register`ed.

    Found once, under a lock: a thread that asks while another is still importing the modules waits
    for the whole registry (a half-filled one answered "There is no command /new" in the soak)."""
    if not _FOUND.is_set():
        with _FINDING:
            if not _FOUND.is_set():
                for module in pkgutil.iter_modules(__path__):
                    spec = getattr(importlib.import_module(f"{__name__}.{module.name}"), "COMMAND", None)
                    if spec is not None:
                        _REGISTRY.setdefault(spec.name, spec)
                _FOUND.set()
    return _REGISTRY


def register(spec: Spec) -> Spec:
    """Add a command (a module of this package is found by itself; this is for a command defined elsewhere)."""
    registry()[spec.name] = spec
    _subject_command.cache_clear()
    return spec


def unregister(name: str) -> None:
    registry().pop(name, None)
    _subject_command.cache_clear()


def spec(name: str) -> Spec:
    return registry()[name]


def names() -> list[str]:
    """The commands' names in the order /help lists them."""
    return [s.name for s in sorted(registry().values(), key=lambda s: (s.order, s.name))]


def help_lines(language: str, titles: str | None = None) -> list[str]:
    """/help in `language`: every listed command with its form and what it does, then how to move.
    `titles` fills the games a /new can open (by default, every title of the site)."""
    t = i18n.texts(language)
    if titles is None:
        titles = ", ".join(engine.names()) or t.gettext("none yet")  # every registered title (engine.registry)
    lines = [t.gettext(HELP_HEAD)]
    for command in sorted(registry().values(), key=lambda s: (s.order, s.name)):
        if command.usage is None:
            continue
        head, text = f"  {t.gettext(command.usage)}", t.gettext(command.help or "", titles=titles).split("\n")
        if len(head) < HELP_COLUMN:
            head, text = head.ljust(HELP_COLUMN) + text[0], text[1:]
        lines += [head] + [" " * HELP_COLUMN + line for line in text]
    return lines + t.gettext(HELP_FOOT).split("\n")


# --------------------------------------------------------------------------------------
# Reading


@lru_cache(maxsize=1)
def _subject_command() -> re.Pattern:
    return re.compile(r"(?:^|\s)(/(?:%s)\b.*)$" % "|".join(map(re.escape, names())), re.I)


def subject_command(subject: str | None) -> str | None:
    """The "/" command in a subject line, if it carries one: after "Re:" and our subject, or alone."""
    text = _PREFIX.sub("", subject or "").strip()
    if text.startswith("/"):
        return text
    found = _subject_command().search(text)
    return found[1].strip() if found else None


@lru_cache(maxsize=1)
def _our_subjects() -> re.Pattern:
    """The texts of our own subjects (pbem.notify.wording.SUBJECTS) in every language, which a reply
    repeats after "Re:"; and the bare "your turn" of older mails."""
    forms = []
    for language in i18n.LANGUAGES:
        for message in wording.SUBJECTS.values():
            parts = re.split(r"%\((\w+)\)[sd]", i18n.texts(language).gettext(message))
            forms.append("".join(_SUBJECT_VALUES[part] if odd else re.escape(part)
                                 for odd, part in zip([False, True] * len(parts), parts)))
    forms.append("your turn")  # after the forms with a move number: those are tried first
    return re.compile(r"^(?:%s)(?:\s|$)" % "|".join(dict.fromkeys(forms)), re.I)


def subject_move(subject: str | None) -> str | None:
    """What a reply's subject says besides "Re:" and our own subject's text: a bare move, maybe."""
    text = _our_subjects().sub("", _PREFIX.sub("", subject or "").strip(), count=1).strip()
    return text if text and not text.startswith("/") else None


def first_word(line: str) -> str:
    """The first word of a line, lowercased (the verb of a move in every game's notation)."""
    words = line.split(maxsplit=1)
    return words[0].lower() if words else ""


def lines_of(subject: str | None, body: str) -> list[str]:
    """The non-empty lines to read: a subject command first, then the body's lines."""
    lines = []
    command = subject_command(subject)
    if command:
        lines.append(command)
    lines += [line.strip() for line in body.split("\n") if line.strip()]
    return lines


def parse(line: str, reply_game: int | None, index: int = 0) -> Command:
    """Read one line; `reply_game` is the game of the turn key, if the mail came through one
    (its game is then the default of the commands that name one, and a bare line is a move)."""
    if not line.startswith("/"):
        if reply_game is None:
            raise CommandError(N_("Commands start with '/'; to move, reply to your turn mail. "
                                  "Send /help for the list."))
        return Command("play", (line,), line, reply_game, index)
    words = line[1:].split()
    name = words[0].lower() if words else ""
    args = tuple(words[1:])
    command = registry().get(name)
    if command is None:
        raise CommandError(N_("There is no command /%(name)s; send /help for the list."), name=name)
    game_id = None
    if command.needs_game:
        match = _GAME_ID.match(args[0]) if args else None
        if match:
            game_id, args = int(match[1]), args[1:]
        elif reply_game is not None:
            game_id = reply_game
        else:
            raise CommandError(command.missing_game, name=name)
    if command.check is not None:
        command.check(args)
    return Command(name, args, line, game_id, index)
