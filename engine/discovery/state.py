"""The state of a game of Carcassonne: The Discovery, and its canonical JSON.

A state is treated as a value: `apply` copies it (`copy()` is shallow; the board is
replaced, never changed, when a tile is placed) so that old states stay valid. The JSON
holds the placements, not the regions: `from_json` rebuilds the board by placing the
tiles again, which keeps the JSON small and canonical. A move's preview that stopped before
the next draw (`rules.preview`, issue 31) is a state too, marked by `chance`.
"""

from __future__ import annotations

from enum import Enum

from engine.core import Move, Rng
from engine.discovery.board import Board, start_board
from engine.discovery.tiles import START_TILE

FOLLOWERS = 4          # playable followers per player; the fifth marks the score (D1)
COLOURS = ("blue", "red", "green", "yellow", "purple")   # D1: five colours; seat i's unless chosen otherwise


class Phase(Enum):
    """The decision the player to move has to take."""

    PLACE = "place"      # place the drawn (or a chosen hidden) tile
    FOLLOW = "follow"    # deploy, remove or pass
    OVER = "over"


class Removal(Enum):
    """Why a tile left the game face up."""

    UNPLACEABLE = "unplaceable"    # D8
    EQUAL_TURNS = "equal turns"    # D19


class State:
    """Everything about one game; `board` holds the tiles and regions."""

    __slots__ = ("players", "colours", "double", "equal", "order", "turn", "phase", "rng", "deck", "current",
                 "hands", "board", "followers", "scores", "final", "removed", "last", "placed", "events", "previewing",
                 "chance", "_legal")

    def __init__(self, players: int, double: bool, equal: bool, order: tuple, rng: Rng,
                 colours: tuple | None = None):
        self.players = players
        self.colours = tuple(colours) if colours is not None else COLOURS[:players]  # per seat
        self.double = double              # D18: two hidden tiles per player
        self.equal = equal                # D19: equal number of turns
        self.order = order                # seats in playing order (D5)
        self.turn = 0                     # index into order of the player to move
        self.phase = Phase.PLACE
        self.rng = rng
        self.deck: tuple = ()             # draw pile; the next tile is the last one
        self.current: int | None = None   # base game: the drawn tile, public
        self.hands: tuple | None = ((),) * players if double else None  # D18: hidden tiles per seat
        self.board: Board = start_board(START_TILE)
        self.followers: tuple = ()        # (seat, global segment) in deploy order
        self.scores: tuple = (0,) * players
        self.final: tuple | None = None   # points from the final scoring (D16), once over
        self.removed: tuple = ()          # (tile number, Removal value) face up beside the board
        self.last: tuple | None = None    # (seat, move as JSON, points scored or None)
        self.placed: int | None = None    # placement index of the tile placed this turn
        self.events: tuple = ()           # (seat, Move) the engine decided itself since the last move
        self.previewing = False           # only while rules.preview works on a copy: stop before a draw
        self.chance: str | None = None    # a preview stopped before this (engine.core.DRAW); never in play
        self._legal = None

    def copy(self) -> "State":
        other = State.__new__(State)
        other.players, other.double, other.equal, other.order = self.players, self.double, self.equal, self.order
        other.colours = self.colours
        other.turn, other.phase, other.rng, other.deck = self.turn, self.phase, self.rng.copy(), self.deck
        other.current, other.hands, other.board, other.followers = self.current, self.hands, self.board, self.followers
        other.scores, other.final, other.removed, other.last = self.scores, self.final, self.removed, self.last
        other.placed = self.placed
        other.events = self.events
        other.previewing, other.chance = self.previewing, self.chance
        other._legal = None
        return other

    @property
    def seat(self) -> int | None:
        """The seat to move, or None once the game is over (or in a preview stopped before a draw)."""
        return None if self.phase is Phase.OVER or self.chance is not None else self.order[self.turn]

    def supply(self, seat: int) -> int:
        return FOLLOWERS - sum(1 for owner, _ in self.followers if owner == seat)

    # --- JSON ----------------------------------------------------------------------

    def to_json(self) -> dict:
        board = self.board
        followers = []
        for seat, g in self.followers:
            pid = board.seg_tile[g]
            followers.append([seat, pid, g - board.base[pid]])
        data = {
            "players": self.players,
            "options": {"double": self.double, "equal": self.equal},
            "order": list(self.order),
            "turn": self.turn,
            "phase": self.phase.value,
            "rng": self.rng.to_json(),
            "deck": list(self.deck),
            "current": self.current,
            "hands": None if self.hands is None else [list(hand) for hand in self.hands],
            "placements": [list(p) for p in board.tiles],
            "followers": followers,
            "scores": list(self.scores),
            "final": None if self.final is None else list(self.final),
            "removed": [[number, reason] for number, reason in self.removed],
            "last": None if self.last is None else [self.last[0], self.last[1], self.last[2]],
            "placed": self.placed,
            "events": [[seat, move.to_json()] for seat, move in self.events],
        }
        if self.colours != COLOURS[:self.players]:  # only chosen colours: default games keep their states
            data["colours"] = list(self.colours)
        if self.chance is not None:  # only a stopped preview: the states of games never hold it
            data["chance"] = self.chance
        return data

    @classmethod
    def from_json(cls, data: dict) -> "State":
        options = data["options"]
        state = cls(data["players"], bool(options["double"]), bool(options["equal"]),
                    tuple(data["order"]), Rng.from_json(data["rng"]), data.get("colours"))
        board = Board()
        for number, x, y, k in data["placements"]:
            board._add(number, x, y, k)
        state.board = board
        state.turn = data["turn"]
        state.phase = Phase(data["phase"])
        state.deck = tuple(data["deck"])
        state.current = data["current"]
        state.hands = None if data["hands"] is None else tuple(tuple(hand) for hand in data["hands"])
        state.followers = tuple((seat, board.base[pid] + local) for seat, pid, local in data["followers"])
        state.scores = tuple(data["scores"])
        state.final = None if data["final"] is None else tuple(data["final"])
        state.removed = tuple((number, reason) for number, reason in data["removed"])
        last = data["last"]
        state.last = None if last is None else (last[0], _to_tuple(last[1]), last[2])
        state.placed = data["placed"]
        # States stored by rules version discovery-1 have no events: nothing was decided automatically.
        state.events = tuple((seat, Move.from_json(move)) for seat, move in data.get("events", ()))
        state.chance = data.get("chance")
        return state


def _to_tuple(value):
    if isinstance(value, list):
        return tuple(_to_tuple(v) for v in value)
    return value
