"""The texts of game mails, made from a seat's view (the dict of games.view / games.seat_view).

Text that reads on a phone: short lines, the legal moves one per line (grouped by
their first word and shortened when there are many), and a link to the game page.

Every text is written in its reader's language (`language`, the recipient's `User.language`,
passed in by the code that writes the mail; pbem.i18n), the position in words too
(`renderers.text`, given the reader's messages). What stays as it is stands inside translated
sentences: a finished game's reason (the engine's), and the moves, which are notation.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from datetime import datetime, timezone

from babel.dates import format_skeleton

import renderers.text
from pbem import i18n
from pbem.games import log
from pbem.i18n import N_
from pbem.notify.outbox import BASE_URL

MAX_LISTED_MOVES = 40  # up to this many, every move on its own line
GROUP_SHOWN = 8  # above it, this many per group of moves that start with the same word
TEXT_VALUE_MAX = 200  # a board entry longer than this in JSON is only counted in a text mail
LEGAL_HEADER = "Your legal moves"  # the English heading of the legal moves (tests read mails by it)
ISO_TIME = "%Y-%m-%dT%H:%M:%SZ"  # how the English mails write a moment

# What follows "[pbem #N Title]" in the subjects of our mails. A reply repeats it after "Re:",
# so pbem.mail.commands removes it, in every language, before it looks for a move there.
SUBJECTS = {
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


def command_footer(command_address: str, language: str) -> list[str]:
    """The footer of every mail to a user: their command address (a key: see docs/security.md)."""
    _ = i18n.texts(language).gettext
    return ["-- ",
            _("Your command address, for /games, /new, /join, /notify and /help"),
            _("(it takes commands from your own address only):"),
            f"  {command_address}"]


def moves_block(moves: list[str], language: str) -> list[str]:
    """The legal moves as lines: all of them, or grouped by first word and shortened."""
    if len(moves) <= MAX_LISTED_MOVES:
        return [f"  {m}" for m in moves]
    t = i18n.texts(language)
    groups: OrderedDict[str, list[str]] = OrderedDict()
    for move in moves:
        groups.setdefault(move.split(" ", 1)[0], []).append(move)
    lines = []
    for word, members in groups.items():
        lines.append("  " + t.ngettext("%(word)s (%(num)d move):", "%(word)s (%(num)d moves):", len(members),
                                       word=word))
        lines += [f"    {m}" for m in members[:GROUP_SHOWN]]
        if len(members) > GROUP_SHOWN:
            lines.append("    " + t.gettext("... %(count)d more on the game page", count=len(members) - GROUP_SHOWN))
    return lines


def board_lines(board: dict | None, language: str) -> list[str]:
    """A short text form of a view's board for text-only mail readers.

    Single values and short lists are shown as they are; the large structures (tiles, fields,
    islands) would be pages of JSON nobody reads in a mail, so they are counted and left to
    the board picture and the game page.
    """
    t = i18n.texts(language)
    if not board:
        return ["  " + t.gettext("(no board yet)")]
    lines = []
    for key, value in board.items():
        text = value if isinstance(value, str) else json.dumps(value, separators=(", ", ": "), sort_keys=True)
        if len(text) > TEXT_VALUE_MAX and isinstance(value, (list, dict)):
            text = t.gettext("(%(count)d entries: see the board picture or the game page)", count=len(value))
        lines.append(f"  {key}: {text}")
    return lines


def _players(data: dict, language: str) -> list[str]:
    _ = i18n.texts(language).gettext
    lines = []
    for seat in data["seats"]:
        marks = " " + _("<- to move") if seat["seat"] == data.get("to_move") else ""
        marks += " " + _("(resigned)") if seat["resigned"] else ""
        me = " " + _("(you)") if seat["seat"] == data.get("my_seat") else ""
        lines.append(f"  {seat['name']}{me} [{seat['colour']}]{marks}")
    return lines


def _last(data: dict, language: str) -> list[str]:
    moves = data.get("last_moves") or []
    if not moves:
        return ["  " + i18n.texts(language).gettext("(none yet)")]
    return [f"  {m['seq']}. {m['player']}: {m['notation']}" for m in moves]


def _footer(data: dict, language: str) -> list[str]:
    _ = i18n.texts(language).gettext
    lines = [""]
    if data.get("deadline"):
        lines.append(_("Deadline: %(deadline)s", deadline=when(data["deadline"], language, "%Y-%m-%dT%H:%M:%S.%fZ")))
    if data.get("commitment"):
        lines.append(_("Seed commitment (SHA-256 of the seed, revealed at the end): %(commitment)s",
                       commitment=data["commitment"]))
    lines.append(_("Game page: %(link)s", link=game_link(data["id"])))
    return lines


def position_lines(data: dict, language: str) -> list[str]:
    """The position in words (renderers.text: standing, what happened, the places the moves name),
    then the last moves in notation; for a title without a text board, the players and the view.
    All in the reader's language but the notation."""
    t = i18n.texts(language)
    _ = t.gettext
    board = data.get("board")
    names = [seat["name"] for seat in data["seats"]]
    try:
        text = renderers.text.board_text(data["title"], board, names=names, seat=data.get("my_seat"),
                                         legal_moves=data.get("legal_moves") or [],
                                         recent=data.get("recent") or [], texts=t) if board else None
    except renderers.text.TextError:
        text = None
    if text is None:
        return ([_("Players:")] + _players(data, language) + ["", _("Last moves:")] + _last(data, language)
                + ["", _("Board:")] + board_lines(board, language))
    return text + ["", _("Last moves:")] + _last(data, language)


def legal_header(count: int, language: str) -> str:
    """The heading of the list of legal moves ("Your legal moves (4):")."""
    return i18n.texts(language).gettext("Your legal moves (%(count)d):", count=count)


def turn_block(data: dict, language: str, reply: bool = True) -> list[str]:
    """The legal moves, the standing orders one may write and, with `reply`, how to answer this mail."""
    _ = i18n.texts(language).gettext
    moves = data.get("legal_moves") or []
    lines = [legal_header(len(moves), language)] + moves_block(moves, language) + [""] + orders_block(data, language)
    if not reply:
        return lines[:-1]
    return lines + _("Reply to this mail with your move on the first line; several decisions of one\n"
                     "turn may stand on several lines. The reply address is your seat's key: keep it.").split("\n")


def orders_block(data: dict, language: str) -> list[str]:
    """What a player can write now for the rest of the turn (issue 20): standing orders for the
    decisions after chance, and one whole turn in one mail to copy. Empty when the game has none."""
    _ = i18n.texts(language).gettext
    orders = data.get("order_examples") or []
    moves = data.get("legal_moves") or []
    if not orders or not moves:
        return []
    example = [moves[0]] + [order for order in orders if order != moves[0]]
    return (_("You need not wait for what chance brings (a die, a card, a tile): after your\n"
              "move, write on the next lines your choices for what comes after it in this turn\n"
              "(standing orders; only you see them until they are played).\n"
              "Each is played when its decision comes; one that then finds no legal choice\n"
              "leaves the decision to you. The forms, filled in for this position:").split("\n")
            + [f"  {order}" for order in orders]
            + [_("For example, this whole turn in one mail:")] + [f"  {line}" for line in example] + [""])


def turn_text(data: dict, title: str, language: str) -> str:
    _ = i18n.texts(language).gettext
    head = [_("It is your turn in game %(game)d (%(title)s), move %(move)d.", game=data["id"], title=title,
              move=data["version"] + 1), ""]
    return "\n".join(head + turn_block(data, language) + [""] + position_lines(data, language)
                     + _footer(data, language)) + "\n"


def move_text(data: dict, title: str, language: str) -> str:
    _ = i18n.texts(language).gettext
    last = (data.get("last_moves") or [{}])[-1]
    to_move = next((x["name"] for x in data["seats"] if x["seat"] == data.get("to_move")), None)
    if to_move is None:
        head = _("Game %(game)d (%(title)s): %(player)s played %(move)s. Nobody is to move.", game=data["id"],
                 title=title, player=last.get("player"), move=last.get("notation"))
    else:
        head = _("Game %(game)d (%(title)s): %(player)s played %(move)s. %(next)s is to move.", game=data["id"],
                 title=title, player=last.get("player"), move=last.get("notation"), next=to_move)
    return "\n".join([head, ""] + position_lines(data, language) + _footer(data, language)) + "\n"


def result_text(data: dict, title: str, language: str) -> str:
    _ = i18n.texts(language).gettext
    result = data.get("result") or {}
    names = {x["seat"]: x["name"] for x in data["seats"]}
    ranks, scores = result.get("ranks", []), result.get("scores", [])
    table = ["  " + _("%(rank)s. %(name)s: %(score)s points", rank=ranks[n], name=names[n], score=scores[n])
             for n in sorted(names, key=lambda n: ranks[n])]
    # The reason is the engine's (English for now); the sentence around it is the reader's.
    head = [_("Game %(game)d (%(title)s) is over. %(reason)s", game=data["id"], title=title,
              reason=result.get("reason", "")), "", _("Final scores:")] + table + [""]
    seed = [_("The seed was %(seed)s; its SHA-256 is the commitment %(commitment)s.", seed=data["seed"],
              commitment=data["commitment"])] if data.get("seed") else []
    return "\n".join(head + seed + [""] + position_lines(data, language)
                     + ["", _("Game page: %(link)s", link=game_link(data["id"]))]) + "\n"
