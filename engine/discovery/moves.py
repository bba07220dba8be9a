"""Moves of Carcassonne: The Discovery: their values, their text notation, and parsing.

Decisions (D6): `place X,Y R` (square, rotation in degrees clockwise); in the double-tile
variant `place #T X,Y R` also names which hidden tile (type number T); then `deploy SEG`
(a segment of the tile just placed, named by the sides it touches, e.g. `N+E`, or by
its terrain when it touches no side: `sea`), `remove X,Y SEG`, or `pass`.
Parsing only reads the text; whether the move is legal is for the rules to say.
"""

from __future__ import annotations

import re

from engine.core import IllegalMove, Move, normalize_text
from engine.discovery import aliases
from engine.discovery.tiles import ROTATIONS

PLACE, DEPLOY, REMOVE, PASS = "place", "deploy", "remove", "pass"
KINDS = (PLACE, DEPLOY, REMOVE, PASS)
PASS_MOVE = Move(PASS, ())

_PLACE_RE = re.compile(r"^place\s+(?:(?:tile\s*)?#?\s*(\d{1,4})\s+)?(?:at\s+)?([+-]?\d{1,4})\s*,\s*([+-]?\d{1,4})\s+"
                       r"(?:r(?:ot(?:ation)?)?\s*)?(\d{1,4})$")
_REMOVE_RE = re.compile(r"^remove\s+(?:from\s+)?([+-]?\d{1,4})\s*,\s*([+-]?\d{1,4})\s+(.+)$")
_DEPLOY_RE = re.compile(r"^deploy\s+(?:on\s+)?(.+)$")
_MOVES: dict = {}
_SQUARES: dict = {}


def place_move(x: int, y: int, degrees: int, tile: int | None = None) -> Move:
    """The (shared, immutable) move value for a placement; `tile` only in the double-tile variant."""
    key = (x, y, degrees, tile)
    move = _MOVES.get(key)
    if move is None:
        move = Move(PLACE, (x, y, degrees) if tile is None else (x, y, degrees, tile))
        _MOVES[key] = move
    return move


def square_moves(tile: int | None) -> dict:
    """square -> the four placements of `tile` there (rotations 0, 90, 180, 270), made once and shared.

    Missing squares are filled in by `moves_at`; the table lives for the whole process.
    """
    table = _SQUARES.get(tile)
    if table is None:
        table = _SQUARES[tile] = {}
    return table


def moves_at(table: dict, square: tuple[int, int], tile: int | None) -> tuple[Move, ...]:
    moves = table[square] = tuple(place_move(square[0], square[1], degrees, tile) for degrees in ROTATIONS)
    return moves


def deploy_move(name: str) -> Move:
    return Move(DEPLOY, (name,))


def remove_move(x: int, y: int, name: str) -> Move:
    return Move(REMOVE, (x, y, name))


def notation(move: Move) -> str:
    """The text of a move, as the legal-move lists and logs show it."""
    args = move.args
    if move.kind == PLACE:
        text = f"{args[0]},{args[1]} {args[2]}"
        return f"place #{args[3]} {text}" if len(args) == 4 else f"place {text}"
    if move.kind == DEPLOY:
        return f"deploy {args[0]}"
    if move.kind == REMOVE:
        return f"remove {args[0]},{args[1]} {args[2]}"
    return PASS


def parse_text(text: str) -> tuple:
    """Split a move's text into (kind, fields); raises IllegalMove naming the valid forms.

    place -> (x, y, degrees, tile or None); deploy -> (segment text,);
    remove -> (x, y, segment text); pass -> ().
    """
    words = normalize_text(text)
    head = words.split(" ", 1)[0] if words else ""
    if head not in KINDS and aliases.kind(head) in KINDS:  # leggen, zetten, entfernen ... (aliases.py)
        words = aliases.kind(head) + words[len(head):]
        head = aliases.kind(head)
    if head == PASS and words == PASS:
        return PASS, ()
    if head == PLACE:
        found = _PLACE_RE.match(words)
        if not found:
            raise IllegalMove("Write a placement as 'place X,Y R' with R 0, 90, 180 or 270, not %(text)s.",
                              text=_quote(text))
        tile, x, y, degrees = found.groups()
        if int(degrees) not in ROTATIONS:
            raise IllegalMove("The rotation is 0, 90, 180 or 270 degrees clockwise, not %(degrees)s.", degrees=degrees)
        return PLACE, (int(x), int(y), int(degrees), None if tile is None else int(tile))
    if head == DEPLOY:
        found = _DEPLOY_RE.match(words)
        if found:
            return DEPLOY, (aliases.segment(found.group(1)),)
        raise IllegalMove("Write 'deploy' and the segment by its sides (e.g. 'deploy N+E') "
                          "or its terrain ('deploy sea').")
    if head == REMOVE:
        found = _REMOVE_RE.match(words)
        if found:
            x, y, name = found.groups()
            return REMOVE, (int(x), int(y), aliases.segment(name))
        raise IllegalMove("Write 'remove X,Y' and the segment of your follower, e.g. 'remove 0,0 E+W'.")
    raise IllegalMove("Unknown move %(text)s; write place 1,0 90, deploy N+E, deploy sea, remove 0,0 E+W or pass.",
                      text=_quote(text))


def _quote(text: str) -> str:
    text = " ".join(str(text).split())
    return repr(text if len(text) <= 40 else text[:37] + "...")
