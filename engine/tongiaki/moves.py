"""Tongiaki moves: the move values, their text form (notation) and the parser for typed text.

Every decision is one `Move(kind, args)`; island arguments are lower-case keys without
spaces ("rapanui"), beaches are numbered 1.. in the digest's order, sides are "N".."NW":

    place (island, (beach, ...))               setup, T17 placements, the ship of T9/T16
    expand (island, (beach, ...))              T7; T18: expand (island, (beach,), from_island, from_beach)
    king (island,)                             T8
    settle ()                                  T9
    emigrate (island, beach, side)             T11
    land (colour, island, beach)               T13
    tile (island or water letter, side)        T9/T16: lay the next tile next to that tile's side

The moves the engine can offer are built once here and shared (they are immutable). The
parser only checks the form of a text; whether the move is legal is the rules' business.
"""

from __future__ import annotations

from engine.core import IllegalMove, Message, Move, normalize_text
from engine.tongiaki import aliases
from engine.tongiaki.state import COLOURS
from engine.tongiaki.tiles import (
    BEACH_COUNT, BEACH_SETS, ISLAND_COUNT, ISLAND_KEYS, KEY_TO_TILE, KEYS, NAMES, SIDE_NAMES,
    TILE_COUNT,
)

KINDS = ("place", "expand", "king", "settle", "emigrate", "land", "tile")
NONE = Message("none")  # the islands on the board, when there are none (an infinite chain took the last)

SETTLE = Move("settle", ())
KING = tuple(Move("king", (KEYS[t],)) for t in range(ISLAND_COUNT))
PLACE1 = tuple(tuple(Move("place", (KEYS[t], (b + 1,))) for b in range(BEACH_COUNT[t])) for t in range(ISLAND_COUNT))
PLACE2 = {pair: Move("place", (KEYS[0], (pair[0] + 1, pair[1] + 1))) for pair in BEACH_SETS[6][2]}
EXPAND = tuple(
    {combo: Move("expand", (KEYS[t], tuple(b + 1 for b in combo)))
     for n in range(1, BEACH_COUNT[t] + 1) for combo in BEACH_SETS[BEACH_COUNT[t]][n]}
    for t in range(ISLAND_COUNT)
)
# Per island and number of new ships: (moves, what each does) for every choice of beaches (T7).
EXPAND_LISTS = tuple(
    (([], []),) + tuple(([EXPAND[t][combo] for combo in BEACH_SETS[BEACH_COUNT[t]][n]],
                         [("expand", t, combo) for combo in BEACH_SETS[BEACH_COUNT[t]][n]])
                        for n in range(1, BEACH_COUNT[t] + 1))
    for t in range(ISLAND_COUNT)
)
EMIGRATE = tuple(
    tuple(tuple(Move("emigrate", (KEYS[t], b + 1, SIDE_NAMES[d])) for d in range(6)) for b in range(BEACH_COUNT[t]))
    for t in range(ISLAND_COUNT)
)
# Per colour name (a seat's colour is the game's choice, state.colours), island and beach.
LAND = {
    colour: tuple(tuple(Move("land", (colour, KEYS[t], b + 1)) for b in range(BEACH_COUNT[t]))
                  for t in range(ISLAND_COUNT))
    for colour in COLOURS
}
TILE = tuple(tuple(Move("tile", (KEYS[t], SIDE_NAMES[d])) for d in range(6)) for t in range(TILE_COUNT))
_SHIFTS: dict = {}


def tile_moves(game_map) -> tuple[list, list]:
    """(moves, what each does) for every open position of a map (T9, T16), cached in the map."""
    found = game_map.moves
    if found is None:
        spots = game_map.open_positions()
        found = game_map.moves = ([TILE[tid][d] for tid, d in spots], [("tile", tid, d) for tid, d in spots])
    return found


def shift(t: int, b: int, src: int, src_b: int) -> Move:
    """The T18 expansion: one of your ships from (src, src_b) onto beach b of island t."""
    key = (t, b, src, src_b)
    move = _SHIFTS.get(key)
    if move is None:
        move = _SHIFTS[key] = Move("expand", (KEYS[t], (b + 1,), KEYS[src], src_b + 1))
    return move


# ---------------------------------------------------------------------------------------
# Notation


def _name(key) -> str:
    tid = KEY_TO_TILE.get(key) if isinstance(key, str) else None
    return NAMES[tid] if tid is not None else str(key)


def notation(move: Move) -> str:
    """The text form of a move, as a player would type it."""
    kind, args = move.kind, move.args
    if kind == "settle":
        return "settle"
    if kind == "king":
        return f"king {_name(args[0])}"
    if kind in ("place", "expand"):
        text = f"{kind} {_name(args[0])} " + " ".join(str(b) for b in args[1])
        if len(args) == 4:
            text += f" from {_name(args[2])} {args[3]}"
        return text
    if kind == "emigrate":
        return f"emigrate {_name(args[0])} {args[1]} {args[2]}"
    if kind == "land":
        return f"land {args[0]} {_name(args[1])} {args[2]}"
    if kind == "tile":
        return f"tile {_name(args[0])} {args[1]}"
    return str(move)


# ---------------------------------------------------------------------------------------
# Parsing


class _Reader:
    """Reads the words of one command left to right, with errors that list what is valid."""

    def __init__(self, words: list[str], islands_here: list[str]):
        self.words = words
        self.i = 1
        self.islands_here = islands_here

    def more(self) -> bool:
        return self.i < len(self.words)

    def peek(self) -> str | None:
        return self.words[self.i] if self.more() else None

    def tile(self, water: bool = False) -> int:
        """An island name (with or without its space) or, if allowed, a water letter."""
        if not self.more():
            if water:
                raise IllegalMove("Name the tile; on the board: %(islands)s.", islands=self._listing())
            raise IllegalMove("Name the island; on the board: %(islands)s.", islands=self._listing())
        if self.i + 1 < len(self.words):
            joined = self.words[self.i] + self.words[self.i + 1]
            if joined in ISLAND_KEYS:
                self.i += 2
                return ISLAND_KEYS[joined]
        word = self.words[self.i]
        tid = ISLAND_KEYS.get(word)
        if tid is None and water and len(word) == 1:
            tid = KEY_TO_TILE.get(word)
        if tid is None and water:
            raise IllegalMove("There is no island or water tile %(word)r; on the board: %(islands)s.",
                              word=word[:20], islands=self._listing())
        if tid is None:
            raise IllegalMove("There is no island %(word)r; on the board: %(islands)s.", word=word[:20],
                              islands=self._listing())
        self.i += 1
        return tid

    def _listing(self) -> str | Message:
        names = self.islands_here
        return ", ".join(names[:16]) + (", ..." if len(names) > 16 else "") if names else NONE

    def number(self, tid: int, what: str = "beach") -> int:
        count = BEACH_COUNT[tid]
        word = self.peek()
        if word is None:
            raise IllegalMove("Name a beach of %(island)s: 1 to %(count)s.", island=NAMES[tid], count=count)
        if not word.isdigit() or not 1 <= int(word) <= count:
            raise IllegalMove("%(island)s has beaches 1 to %(count)s; %(word)r is not one of them.", island=NAMES[tid],
                              count=count, word=word[:20])
        self.i += 1
        return int(word)

    def numbers(self, tid: int) -> tuple[int, ...]:
        found = [self.number(tid)]
        while self.more() and self.peek().isdigit():
            found.append(self.number(tid))
        return tuple(found)

    def side(self) -> str:
        word = self.peek()
        if word is None:
            raise IllegalMove("Name the direction: N, NE, SE, S, SW or NW.")
        side = aliases.side(word)  # English, or the manuals' words (noordoost, SO, sud-est: aliases.py)
        if side is None:
            raise IllegalMove("A direction is one of N, NE, SE, S, SW or NW, not %(word)r.", word=word[:20])
        self.i += 1
        return SIDE_NAMES[side]

    def colour(self, colours: tuple[str, ...]) -> str:
        word = self.peek()
        if word is None:
            raise IllegalMove("Name the colour of the ship: %(colours)s.", colours=", ".join(colours))
        if word not in colours:
            raise IllegalMove("The colours in this game are %(colours)s, not %(word)r.", colours=", ".join(colours),
                              word=word[:20])
        self.i += 1
        return word

    def end(self, example: str) -> None:
        if self.more():
            extra = " ".join(self.words[self.i:])[:30]
            raise IllegalMove("Unexpected %(extra)r at the end; write it like %(example)r.", extra=extra,
                              example=example)


def parse(text: str, colours: tuple[str, ...], islands_here: list[str], kinds_now: list[str]) -> Move:
    """The move a text names (its form only); colours: the seats' colours. Case and extra spaces do not matter."""
    words = normalize_text(str(text).replace(",", " ")).split()
    if not words and not kinds_now:
        raise IllegalMove("Write a move, for example: nothing (the game is over).")
    if not words:
        raise IllegalMove("Write a move, for example: %(kinds)s.", kinds=", ".join(kinds_now))
    kind = words[0] if words[0] in KINDS else aliases.kind(words[0])  # vermeerderen, auswandern, débarquer ...
    if kind not in KINDS and not kinds_now:
        raise IllegalMove("Unknown command %(word)r; now you can: nothing: the game is over.", word=words[0][:20])
    if kind not in KINDS:
        raise IllegalMove("Unknown command %(word)r; now you can: %(kinds)s.", word=words[0][:20],
                          kinds=", ".join(kinds_now))
    read = _Reader(words, islands_here)
    if kind == "settle":
        read.end("settle")
        return SETTLE
    if kind == "king":
        tid = read.tile()
        read.end("king Fiji")
        return Move("king", (KEYS[tid],))
    if kind in ("place", "expand"):
        tid = read.tile()
        beaches = read.numbers(tid)
        if kind == "expand" and aliases.is_from(read.peek()):
            read.i += 1
            src = read.tile()
            src_beach = read.number(src)
            read.end("expand Samoa 2 from Tonga 3")
            return Move("expand", (KEYS[tid], beaches, KEYS[src], src_beach))
        read.end(f"{kind} Samoa 1 3")
        return Move(kind, (KEYS[tid], beaches))
    if kind == "emigrate":
        tid = read.tile()
        beach = read.number(tid)
        side = read.side()
        read.end("emigrate Samoa 2 NE")
        return Move("emigrate", (KEYS[tid], beach, side))
    if kind == "land":
        colour = read.colour(colours)
        tid = read.tile()
        beach = read.number(tid)
        read.end(f"land {colours[0]} Samoa 3")
        return Move("land", (colour, KEYS[tid], beach))
    tid = read.tile(water=True)
    side = read.side()
    read.end("tile Samoa NE")
    return Move("tile", (KEYS[tid], side))
