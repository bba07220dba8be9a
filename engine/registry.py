"""The one list of the titles pbem runs: each title's rules and what the site says about it.

A title is listed once, as a `Title` entry, as python-chess lists its variants with their
metadata (`chess.variant.VARIANTS`) and OpenSpiel's games call `register_game`: the `Rules`,
the sentence that says what the game is, the label and help of each option, the kinds of move
the game page previews by itself, the package that ships the rules pages, and the modules that
draw its board picture and write its board in words. The web, the mails, the API, the pictures
and the texts find a title only through its entry, so nothing else names it.

Where the entries come from: each package of `engine/` that exports `TITLE` is found by itself
(`pkgutil`, on first use), so a new game is a new package; a game that lives elsewhere (the
suite's counters game) is added with one `register(TITLE)`.

The renderers are found by the module names an entry gives (`picture`, `text_board`), never
imported here: the engine imports nothing of ours and nothing third-party, and does no I/O (the
rules pages are data files of a package the entry names; the web reads them). The words of an
entry are `engine.core.Message`s, English message ids of the `engine` catalogue (docs/i18n.md),
translated where a page shows them.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from dataclasses import dataclass, field

from engine.core import Message, Rules

__all__ = ["Title", "UnknownGameError", "entries", "entry", "get", "names", "register", "unregister"]


@dataclass(frozen=True)
class Title:
    """A game as pbem offers it: its rules and everything the site says or shows of it.

    rules          the game's `Rules` (its `name` is the registry's key, its `title` the display name)
    blurb          what the game is, in one sentence for someone who has never played it (None: nothing said)
    option_labels  option name -> the option's name on the create form and in the lobby
                   (an option without one is written out from its name: "stars_to_win" -> "Stars to win")
    option_help    option name -> the option's help on the create form (else the engine's `Option.help`)
    preview_words  the first words of the moves whose picture the game page asks for by itself,
                   turning through their choices (Discovery's "place": the tile in each rotation)
    rules_pages    the package whose data folder `docs/` holds the rules pages: `docs/<name>.md` in
                   English, `docs/<language>/<name>.md` translated (None: no rules page)
    picture        the module that draws the board picture (`renderers` calls it; None: no picture)
    text_board     the module that writes the board in words (`renderers.text`; None: none)
    """

    rules: Rules
    blurb: Message | None = None
    option_labels: dict[str, Message] = field(default_factory=dict)
    option_help: dict[str, Message] = field(default_factory=dict)
    preview_words: tuple[str, ...] = ()
    rules_pages: str | None = None
    picture: str | None = None
    text_board: str | None = None

    @property
    def name(self) -> str:
        return self.rules.name

    def __post_init__(self) -> None:
        known = {option.name for option in self.rules.options}
        for table in (self.option_labels, self.option_help):
            unknown = set(table) - known
            if unknown:
                raise ValueError(f"{self.rules.name} has no option {sorted(unknown)[0]!r}; its options are: "
                                 f"{', '.join(sorted(known)) or 'none'}")


class UnknownGameError(KeyError):
    """A game name that no title is registered for."""

    def __str__(self) -> str:
        return f"There is no game called {self.args[0]!r}; the games are: {', '.join(names())}."


_TITLES: dict[str, Title] = {}
_FOUND = threading.Event()  # set once the packages of engine/ have been looked through
_FINDING = threading.RLock()  # the web's threads may ask at once: one looks, the others wait for it


def _built_in() -> dict[str, Title]:
    """The entries, after the first call has added the `TITLE` of every package of engine/."""
    if not _FOUND.is_set():
        with _FINDING:
            if not _FOUND.is_set():
                import engine

                for module in pkgutil.iter_modules(engine.__path__):
                    if module.ispkg:
                        found = getattr(importlib.import_module(f"engine.{module.name}"), "TITLE", None)
                        if isinstance(found, Title):
                            _TITLES.setdefault(found.name, found)
                _FOUND.set()
    return _TITLES


def register(title: Title | Rules) -> Title:
    """Add a title (a package of engine/ is found by itself; this is for a game defined elsewhere).

    A bare `Rules` is a title with nothing said about it: no blurb, no rules page, no pictures.
    An entry of the same name is replaced.
    """
    if isinstance(title, Rules):
        title = Title(title)
    if not title.name or title.name != title.name.strip().lower():
        raise ValueError(f"a title's name is lower case without spaces around it, not {title.name!r}")
    _built_in()[title.name] = title
    return title


def unregister(name: str) -> Title | None:
    """Take a title off the list (tests); returns its entry, None if there was none."""
    return _built_in().pop(str(name).strip().lower(), None)


def names() -> list[str]:
    """The names of every registered title, sorted."""
    return sorted(_built_in())


def entries() -> list[Title]:
    """Every registered title's entry, sorted by name."""
    found = _built_in()
    return [found[name] for name in sorted(found)]


def entry(name: str) -> Title:
    """One title's entry; raises UnknownGameError for a name nobody registered."""
    found = _built_in().get(str(name).strip().lower())
    if found is None:
        raise UnknownGameError(name)
    return found


def get(name: str) -> Rules:
    """One title's rules; raises UnknownGameError for a name nobody registered."""
    return entry(name).rules
