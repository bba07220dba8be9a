"""The texts of game mails, made from a seat's view (the dict of games.view / games.seat_view).

Text that reads on a phone: short lines, the legal moves one per line (grouped by
their first word and shortened when there are many), and a link to the game page.
"""

from __future__ import annotations

import json
from collections import OrderedDict

import renderers.text
from pbem.notify.outbox import BASE_URL

MAX_LISTED_MOVES = 40  # up to this many, every move on its own line
GROUP_SHOWN = 8  # above it, this many per group of moves that start with the same word
TEXT_VALUE_MAX = 200  # a board entry longer than this in JSON is only counted in a text mail
LEGAL_HEADER = "Your legal moves"


def game_link(game_id: int) -> str:
    return f"{BASE_URL}/games/{game_id}"


def command_footer(command_address: str) -> list[str]:
    """The footer of every mail to a user: their command address (a key: see docs/security.md)."""
    return ["-- ",
            "Your command address, for /games, /new, /join, /notify and /help",
            "(it takes commands from your own address only):",
            f"  {command_address}"]


def moves_block(moves: list[str]) -> list[str]:
    """The legal moves as lines: all of them, or grouped by first word and shortened."""
    if len(moves) <= MAX_LISTED_MOVES:
        return [f"  {m}" for m in moves]
    groups: OrderedDict[str, list[str]] = OrderedDict()
    for move in moves:
        groups.setdefault(move.split(" ", 1)[0], []).append(move)
    lines = []
    for word, members in groups.items():
        lines.append(f"  {word} ({len(members)} moves):")
        lines += [f"    {m}" for m in members[:GROUP_SHOWN]]
        if len(members) > GROUP_SHOWN:
            lines.append(f"    ... {len(members) - GROUP_SHOWN} more on the game page")
    return lines



def board_lines(board: dict | None) -> list[str]:
    """A short text form of a view's board for text-only mail readers.

    Single values and short lists are shown as they are; the large structures (tiles, fields,
    islands) would be pages of JSON nobody reads in a mail, so they are counted and left to
    the board picture and the game page.
    """
    if not board:
        return ["  (no board yet)"]
    lines = []
    for key, value in board.items():
        text = value if isinstance(value, str) else json.dumps(value, separators=(", ", ": "), sort_keys=True)
        if len(text) > TEXT_VALUE_MAX and isinstance(value, (list, dict)):
            text = f"({len(value)} entries: see the board picture or the game page)"
        lines.append(f"  {key}: {text}")
    return lines


def _players(data: dict) -> list[str]:
    lines = []
    for seat in data["seats"]:
        marks = " <- to move" if seat["seat"] == data.get("to_move") else ""
        marks += " (resigned)" if seat["resigned"] else ""
        me = " (you)" if seat["seat"] == data.get("my_seat") else ""
        lines.append(f"  {seat['name']}{me} [{seat['colour']}]{marks}")
    return lines


def _last(data: dict) -> list[str]:
    moves = data.get("last_moves") or []
    if not moves:
        return ["  (none yet)"]
    return [f"  {m['seq']}. {m['player']}: {m['notation']}" for m in moves]


def _footer(data: dict) -> list[str]:
    lines = [""]
    if data.get("deadline"):
        lines.append(f"Deadline: {data['deadline']}")
    if data.get("commitment"):
        lines.append(f"Seed commitment (SHA-256 of the seed, revealed at the end): {data['commitment']}")
    lines.append(f"Game page: {game_link(data['id'])}")
    return lines


def position_lines(data: dict) -> list[str]:
    """The position in words (renderers.text: standing, what happened, the places the moves name),
    then the last moves in notation; for a title without a text board, the players and the view."""
    board = data.get("board")
    names = [seat["name"] for seat in data["seats"]]
    try:
        text = renderers.text.board_text(data["title"], board, names=names, seat=data.get("my_seat"),
                                         legal_moves=data.get("legal_moves") or [],
                                         recent=data.get("recent") or []) if board else None
    except renderers.text.TextError:
        text = None
    if text is None:
        return (["Players:"] + _players(data) + ["", "Last moves:"] + _last(data) + ["", "Board:"]
                + board_lines(board))
    return text + ["", "Last moves:"] + _last(data)


def turn_block(data: dict) -> list[str]:
    moves = data.get("legal_moves") or []
    return ([f"{LEGAL_HEADER} ({len(moves)}):"] + moves_block(moves) + [""] + orders_block(data) + [
        "Reply to this mail with your move on the first line; several decisions of one",
        "turn may stand on several lines. The reply address is your seat's key: keep it."])


def orders_block(data: dict) -> list[str]:
    """What a player can write now for the rest of the turn (issue 20): standing orders for the
    decisions after chance, and one whole turn in one mail to copy. Empty when the game has none."""
    orders = data.get("order_examples") or []
    moves = data.get("legal_moves") or []
    if not orders or not moves:
        return []
    example = [moves[0]] + [order for order in orders if order != moves[0]]
    return (["You need not wait for what chance brings (a die, a card, a tile): after your",
             "move, write on the next lines your choices for what comes after it in this turn",
             "(standing orders; only you see them until they are played).",
             "Each is played when its decision comes; one that then finds no legal choice",
             "leaves the decision to you. The forms, filled in for this position:"]
            + [f"  {order}" for order in orders]
            + ["For example, this whole turn in one mail:"] + [f"  {line}" for line in example] + [""])


def turn_text(data: dict, title: str) -> str:
    head = [f"It is your turn in game {data['id']} ({title}), move {data['version'] + 1}.", ""]
    return "\n".join(head + turn_block(data) + [""] + position_lines(data) + _footer(data)) + "\n"


def move_text(data: dict, title: str) -> str:
    last = (data.get("last_moves") or [{}])[-1]
    to_move = next((x["name"] for x in data["seats"] if x["seat"] == data.get("to_move")), "nobody")
    head = [f"Game {data['id']} ({title}): {last.get('player')} played {last.get('notation')}. "
            f"{to_move} is to move.", ""]
    return "\n".join(head + position_lines(data) + _footer(data)) + "\n"


def result_text(data: dict, title: str) -> str:
    result = data.get("result") or {}
    names = {x["seat"]: x["name"] for x in data["seats"]}
    ranks, scores = result.get("ranks", []), result.get("scores", [])
    table = [f"  {ranks[n]}. {names[n]}: {scores[n]} points" for n in sorted(names, key=lambda n: ranks[n])]
    head = [f"Game {data['id']} ({title}) is over. {result.get('reason', '')}", "", "Final scores:"] + table + [""]
    seed = [f"The seed was {data['seed']}; its SHA-256 is the commitment {data['commitment']}."] if data.get(
        "seed") else []
    return "\n".join(head + seed + [""] + position_lines(data) + ["", f"Game page: {game_link(data['id'])}"]) + "\n"
