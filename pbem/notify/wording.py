"""The texts of our mails: Jinja templates (`pbem/notify/templates/`) rendered in the reader's language.

`render(name, language, **values)` writes one template with the catalogue of the reader's
language (pbem.i18n: `_`, `gettext` and `ngettext` in a template are Jinja's i18n extension,
newstyle: named values as keywords, as Flask-Babel's); pybabel extracts the templates with the
code (babel.cfg). The templates hold the sentences and the layout; what a sentence needs that
is more than a value of the view (the board in words, the moves grouped, the final standings,
a time in the reader's words) comes from the helpers here, which every template may call.

Text that reads on a phone: short lines, the legal moves one per line (grouped by their first
word and shortened when there are many), and a link to the game page. What stays as it is stands
inside translated sentences: a finished game's reason (the engine's), and the moves, which are
notation. The subjects are short sentences of `SUBJECTS`, translated where a mail is written.

The game mails (turn, move, result) are written from a seat's view (the dict of games.view /
games.seat_view_at) by `pbem.notify.view_text`; the reminder, a player late and the digest by the
code that queues them. The line-list functions below (`turn_block`, `position_lines`,
`moves_block`) give the same parts of a mail as lines, for the answers to mailed commands.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

import jinja2
from babel.dates import format_skeleton

import renderers.text
import renderers.text.events
from pbem import i18n
from pbem.games import log
from pbem.i18n import N_
from pbem.notify.outbox import BASE_URL

TEMPLATES = Path(__file__).resolve().parent / "templates"
MAX_LISTED_MOVES = 40  # up to this many, every move on its own line
GROUP_SHOWN = 8  # above it, this many per group of moves that start with the same word
TEXT_VALUE_MAX = 200  # a board entry longer than this in JSON is only counted in a text mail
LEGAL_HEADER = "Your legal moves"  # the English heading of the legal moves (tests read mails by it)
ISO_TIME = "%Y-%m-%dT%H:%M:%SZ"  # how the English mails write a moment

# What follows "[pbem #N Title]" in the subjects of our mails. A reply repeats it after "Re:",
# so pbem.mail.commands removes it, in every language, before it looks for a move there.
# Every mail about a game has the subject "game": one per game and reader, so that mail clients
# show the game as one thread (issue 33, item 10; `thread_subject`); what the mail is about (the
# move, whose turn) is in its text and its X-Pbem-* headers. The other game subjects are those of
# mails sent before, kept so that replies to them are still read.
SUBJECTS = {
    "game": N_("game %(game)d"),
    "turn": N_("your turn (move %(move)d)"),
    "move": N_("move %(move)d played"),
    "result": N_("game over"),
    "reminder": N_("reminder: your move by %(deadline)s"),
    "late": N_("%(name)s is late"),
    "answer": N_("your mail"),
    "ask": N_("please confirm your commands"),
    "code": N_("confirm your address"),
    "confirmed": N_("your address is confirmed"),
}


def subject(kind: str, language: str, **values) -> str:
    """The text of a subject of ours (SUBJECTS) in a reader's language."""
    return i18n.texts(language).gettext(SUBJECTS[kind], **values)


def game_subject(game_id: int, title: str, text: str) -> str:
    return f"[pbem #{game_id} {title}] {text}"


def thread_subject(game_id: int, title: str, language: str | None) -> str:
    """The subject of every mail about a game to a reader ("[pbem #12 Tongiaki] game 12"): the same for
    the whole game, so that Gmail, Outlook and Thunderbird keep its mails in one thread (answers add "Re: ")."""
    return game_subject(game_id, title, subject("game", language or i18n.DEFAULT, game=game_id))


def when(at: datetime | str, language: str, english: str = ISO_TIME) -> str:
    """A moment (UTC) written out for a reader: in English as the mails have always written it
    (`english`, a strftime form), in the other languages in the locale's words and order
    ("Di., 17. Nov. 2026, 09:00 UTC"). A text is a time as games.view gives it."""
    if isinstance(at, str):
        at = log.parse_time(at)
    locale = i18n.texts(language).language
    if locale == i18n.DEFAULT:
        return at.strftime(english)
    aware = at.replace(tzinfo=timezone.utc)
    return f"{format_skeleton('yMMMEd', aware, tzinfo=timezone.utc, locale=locale)}, {aware:%H:%M} UTC"


def game_link(game_id: int) -> str:
    return f"{BASE_URL}/games/{game_id}"


# --- the templates ---------------------------------------------------------------------------------


def render(template: str, language: str | None, /, **values) -> str:
    """One template of `pbem/notify/templates/` ("turn.txt", "parts/moves.txt") in a reader's language,
    with `values`; exactly the text the template writes (no line break added or taken)."""
    return environment(language).get_template(template).render(**values)


def lines(template: str, language: str | None, /, **values) -> list[str]:
    """A template whose every line ends with a line break, as a list of its lines."""
    return render(template, language, **values).split("\n")[:-1]


def environment(language: str | None) -> jinja2.Environment:
    """The Jinja environment of a reader's language (English for one pbem does not speak)."""
    return _environment(i18n.normalize(language) or i18n.DEFAULT)


@lru_cache(maxsize=len(i18n.LANGUAGES))
def _environment(code: str) -> jinja2.Environment:
    """One per language, made on first use, so that a template is compiled once per process and language
    (what that saves: docs/mail.md, "Sending"); the templates ship with the package, so none is
    looked at again. The whitespace options are babel.cfg's too, so that pybabel reads the same msgids."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), extensions=["jinja2.ext.i18n"],
                             autoescape=False, undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True, keep_trailing_newline=True, auto_reload=False)
    env.install_gettext_translations(i18n.translator(code), newstyle=True)  # type: ignore[attr-defined]
    env.globals.update(
        language=code, MAX_LISTED_MOVES=MAX_LISTED_MOVES, GROUP_SHOWN=GROUP_SHOWN, game_link=game_link,
        move_groups=move_groups, board_entries=board_entries, standings=standings, seat_name=seat_name,
        when=lambda at, english=ISO_TIME: when(at, code, english),
        board_words=lambda data: board_words(data, code), since_lines=lambda data: since_lines(data, code))
    return env


# --- what the templates call -------------------------------------------------------------------------


def move_groups(moves: list[str]) -> list[tuple[str, list[str]]]:
    """The moves grouped by their first word, in the order the words first come."""
    groups: OrderedDict[str, list[str]] = OrderedDict()
    for move in moves:
        groups.setdefault(move.split(" ", 1)[0], []).append(move)
    return list(groups.items())


def board_entries(board: dict | None) -> list[tuple[str, str | None, int]]:
    """A short text form of a view's board for text-only mail readers: (key, text, count) per entry.

    Single values and short lists are shown as they are; the large structures (tiles, fields,
    islands) would be pages of JSON nobody reads in a mail, so their text is None and they are
    counted (`count`), and left to the board picture and the game page.
    """
    entries = []
    for key, value in (board or {}).items():
        text = value if isinstance(value, str) else json.dumps(value, separators=(", ", ": "), sort_keys=True)
        large = len(text) > TEXT_VALUE_MAX and isinstance(value, (list, dict))
        entries.append((key, None if large else text, len(value) if large else 0))
    return entries


def board_words(data: dict, language: str) -> list[str] | None:
    """The position in words (renderers.text: standing, what happened, the places the moves name) in the
    reader's language, or None for a view without a board or a title without a text board."""
    board = data.get("board")
    if not board:
        return None
    try:
        return renderers.text.board_text(data["title"], board, names=[seat["name"] for seat in data["seats"]],
                                         seat=data.get("my_seat"), legal_moves=data.get("legal_moves") or [],
                                         recent=data.get("recent") or [], texts=i18n.texts(language),
                                         news="since" not in data)  # parts/since.txt tells them whole
    except renderers.text.TextError:
        return None


def standings(data: dict) -> list[tuple[object, str, object]]:
    """A finished game's (rank, name, score) per seat, best rank first (seats of one rank in seat order)."""
    result = data.get("result") or {}
    names = {seat["seat"]: seat["name"] for seat in data["seats"]}
    ranks, scores = result.get("ranks", []), result.get("scores", [])
    return [(ranks[n], names[n], scores[n]) for n in sorted(names, key=lambda n: ranks[n])]


def seat_name(data: dict, seat: int | None) -> str | None:
    """The name of a seat of the view, or None."""
    return next((x["name"] for x in data["seats"] if x["seat"] == seat), None)


# --- parts of a mail as lines (the answers to mailed commands put them together) ------------------------


def moves_block(moves: list[str], language: str) -> list[str]:
    """The legal moves as lines: all of them, or grouped by first word and shortened."""
    return lines("parts/moves.txt", language, moves=moves)


def legal_header(count: int, language: str) -> str:
    """The heading of the list of legal moves ("Your legal moves (4):")."""
    return i18n.texts(language).gettext("Your legal moves (%(count)d):", count=count)


def turn_block(data: dict, language: str, reply: bool = True) -> list[str]:
    """The legal moves, the standing orders one may write and, with `reply`, how to answer this mail."""
    return lines("parts/turn.txt", language, data=data, reply=reply)


def position_lines(data: dict, language: str) -> list[str]:
    """The position in words, then the last moves in notation; for a title without a text board, the
    players and the view. All in the reader's language but the notation."""
    return lines("parts/position.txt", language, data=data)


def command_footer(command_address: str, language: str) -> str:
    """The footer of every mail to a user: their command address (a key: see docs/security.md)."""
    return render("command_footer.txt", language, command_address=command_address)


def since_lines(data: dict, language: str) -> dict:
    """What happened since the reader's last decision (issue 33 item 6), in words, for parts/since.txt: "lines"
    (renderers.text.events, at most SINCE_LINES with the heading and a note) and "left", the earlier moves
    that did not fit. Nothing for a view without "since" (games.seat_view_at gives it for a seat)."""
    since = data.get("since") or {}
    if not since.get("moves"):
        return {"lines": [], "left": since.get("left_out", 0)}
    names = [seat["name"] for seat in data["seats"]]
    told, left = renderers.text.events.since_text(since["moves"], names=names, seat=data.get("my_seat"),
                                                  texts=i18n.texts(language),
                                                  room=renderers.text.events.SINCE_LINES - 2)
    return {"lines": told, "left": left + since.get("left_out", 0)}
