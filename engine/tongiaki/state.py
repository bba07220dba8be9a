"""The Tongiaki state: the map of laid tiles, ships on beaches, supplies, pile, pending decision.

States are values: `apply` copies one (`State.copy`, a shallow copy) and only ever
re-assigns fields with new tuples or a new `Map`, so the copies share everything that did
not change. `build` makes an exact position for tests. `to_json` / `from_json` give the
canonical JSON the service stores. A move's preview that stopped before a tile is drawn
(`rules.preview`, issue 31) is a state too, marked by `chance`. A state names the rules version
it is played under (`version`, issue 40), so a game goes on and replays under the version it
began with. This module does not know the rules of a turn.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Iterable, Mapping

from engine.core import IllegalMove, Move, Rng, to_tuple
from engine.tongiaki.tiles import (
    BEACH_COUNT, CROSS, ISLAND_COUNT, ISLANDS, JETTIES, KEY_TO_TILE, NAMES, PLACES, STEP, TILE_COUNT,
    TONGA,
)

SHIPS_PER_PLAYER = 15
COLOURS = ("blue", "green", "orange", "purple", "red", "yellow")
COLOUR_SEAT = {colour: seat for seat, colour in enumerate(COLOURS)}
EMPTY, ISLAND = 0, 1  # how a path ends: at an empty hex, or at an island

# The rules versions this engine plays (docs/games/tongiaki.md, recorded decision 3). Their
# difference is a chain that comes back to a position it already had: under tongiaki-2 the engine
# then played a line out of it; since tongiaki-3 a move that would repeat a position of the chain
# is not offered. States of tongiaki-2 were written before states named their version: a state
# without the field is one of tongiaki-2, and one of tongiaki-2 is written without it (the same
# bytes, so stored games keep their hashes).
V2 = "tongiaki-2"
V3 = "tongiaki-3"
VERSIONS = (V2, V3)
LATEST = V3


class Phase(IntEnum):
    """Which decision the state waits for."""

    SETUP = 0     # T5: a ship on TONGA
    ACTION = 1    # T7/T8/T9 (or T17): the turn's one action
    EMIGRATE = 2  # T11: a full beach and one of its jetties
    LAND = 3      # T13: one arriving ship onto a beach
    TILE = 4      # T9/T16: an open position for the next drawn tile
    PLACE = 5     # T9/T16: the beach for one ship on the island just drawn
    OVER = 6


class Purpose(IntEnum):
    """Why tiles are being drawn to open positions."""

    SETTLE = 0    # T9 new settlement
    RESTART = 1   # T16 after an infinite chain


# The world sides with a jetty, per island and rotation.
_ISLAND_SIDES = tuple(
    tuple(tuple(sorted({d for js in per_rot for d in js})) for per_rot in per_tile) for per_tile in JETTIES
)


_ALL_SIDES = tuple(range(6))


def _sides(tid: int, rot: int) -> tuple:
    """The world sides of a laid tile where a new tile may attach: jetties, or every track end."""
    return _ALL_SIDES if tid >= ISLAND_COUNT else _ISLAND_SIDES[tid][rot]


class Map:
    """The laid tiles: hex -> (tile, rotation), tile -> (q, r, rotation), with lazily cached paths.

    A Map is never changed once built; `with_tile` and `without` return new maps.
    """

    __slots__ = ("pos", "at", "_paths", "_open", "_hexes", "moves", "island_ids")

    def __init__(self, pos: dict, at: tuple):
        self.pos = pos
        self.at = at
        self._paths = {}
        self._open = None    # open positions (tile, side), by tile and side, once listed
        self._hexes = None   # the empty hex of each open position
        self.moves = None  # the tile moves of this map, filled in by moves.tile_moves
        self.island_ids = tuple(tid for tid in ISLANDS if at[tid] is not None)

    @classmethod
    def from_tiles(cls, tiles: Iterable[tuple[int, int, int, int]]) -> "Map":
        pos, at = {}, [None] * TILE_COUNT
        for tid, q, r, rot in tiles:
            if (q, r) in pos or at[tid] is not None:
                raise ValueError(f"tile {NAMES[tid]} or hex {(q, r)} used twice")
            pos[(q, r)] = (tid, rot)
            at[tid] = (q, r, rot)
        return cls(pos, tuple(at))

    def with_tile(self, tid: int, q: int, r: int, rot: int) -> "Map":
        pos = dict(self.pos)
        pos[(q, r)] = (tid, rot)
        at = list(self.at)
        at[tid] = (q, r, rot)
        new = Map(pos, tuple(at))
        if self._open is not None:  # the open positions change only around the new tile
            here = (q, r)
            found = [(spot, hex_) for spot, hex_ in zip(self._open, self._hexes) if hex_ != here]
            for d in _sides(tid, rot):
                there = (q + STEP[d][0], r + STEP[d][1])
                if there not in pos:
                    found.append(((tid, d), there))
            found.sort()
            new._open = tuple(spot for spot, _ in found)
            new._hexes = tuple(hex_ for _, hex_ in found)
        return new

    def without(self, tid: int) -> "Map":
        q, r, _ = self.at[tid]
        pos = dict(self.pos)
        del pos[(q, r)]
        at = list(self.at)
        at[tid] = None
        return Map(pos, tuple(at))

    def tiles(self) -> list[tuple[int, int, int, int]]:
        """(tile, q, r, rotation) for every laid tile, by tile id."""
        return [(tid, *where) for tid, where in enumerate(self.at) if where is not None]

    def islands(self) -> list[int]:
        return list(self.island_ids)

    def path(self, tid: int, side: int) -> tuple:
        """Where a fleet leaving island `tid` through world side `side` ends (T12), over laid tiles.

        Returns (EMPTY, (q, r, side entered from), max risk) or (ISLAND, island, max risk);
        max risk is the highest risk number crossed on the way (0: none).
        """
        key = tid * 6 + side
        found = self._paths.get(key)
        if found is None:
            q, r, _ = self.at[tid]
            risk_max, d, pos = 0, side, self.pos
            while True:
                dq, dr = STEP[d]
                q += dq
                r += dr
                entry = pos.get((q, r))
                if entry is None:
                    found = (EMPTY, (q, r, d), risk_max)
                    break
                t, rot = entry
                if t < ISLAND_COUNT:
                    found = (ISLAND, t, risk_max)
                    break
                d, risk = CROSS[t - ISLAND_COUNT][rot][(d + 3) % 6]
                if risk > risk_max:
                    risk_max = risk
            self._paths[key] = found
        return found

    def has_open(self) -> bool:
        """Whether any open position exists (T9); cheaper than listing them."""
        if self._open is not None:
            return bool(self._open)
        pos = self.pos
        for tid, where in enumerate(self.at):
            if where is not None:
                q, r, rot = where
                for d in _sides(tid, rot):
                    dq, dr = STEP[d]
                    if (q + dq, r + dr) not in pos:
                        return True
        return False

    def open_positions(self) -> tuple[tuple[int, int], ...]:
        """(tile, world side) pairs whose neighbour is empty: next to a jetty or a track end (T9)."""
        if self._open is None:
            found, hexes = [], []
            pos = self.pos
            for tid, where in enumerate(self.at):
                if where is None:
                    continue
                q, r, rot = where
                for d in _sides(tid, rot):
                    there = (q + STEP[d][0], r + STEP[d][1])
                    if there not in pos:
                        found.append((tid, d))
                        hexes.append(there)
            self._open = tuple(found)
            self._hexes = tuple(hexes)
        return self._open


class State:
    """One position of a game. Treat as immutable; `copy` before changing fields."""

    __slots__ = (
        "players", "colours", "phase", "seat", "placed", "map", "ships", "supply", "kings", "pile", "removed", "rng",
        "landing", "aim", "purpose", "target", "full", "visited", "plan", "final", "at_sea", "turns", "reason",
        "last", "events", "version", "previewing", "chance", "repeatable", "cache",
    )

    def copy(self) -> "State":  # replaced below by a generated, faster version
        raise NotImplementedError


_FIELDS = tuple(name for name in State.__slots__ if name != "cache")


def _make_copy():
    """A `copy` that assigns each field by name (several times faster than a loop of setattr)."""
    lines = ["def copy(self):", "    new = _new(State)"]
    lines += [f"    new.{name} = self.{name}" for name in _FIELDS]
    lines += ["    new.cache = None", "    return new"]
    scope = {"_new": object.__new__, "State": State}
    exec("\n".join(lines), scope)  # noqa: S102 - code built from the slot names above only
    scope["copy"].__doc__ = "A shallow copy whose fields can be re-assigned without touching this state."
    return scope["copy"]


State.copy = _make_copy()


def new_state(players: int, pile: tuple, rng: Rng, tiles=((TONGA, 0, 0, 0),), colours: tuple | None = None,
              version: str = LATEST) -> State:
    """A state at the start of setup (T5) with the given pile, top first; colours: one per seat;
    version: the rules version it is played under (one of VERSIONS)."""
    if version not in VERSIONS:
        raise ValueError(f"no Tongiaki rules version {version!r}")
    s = State.__new__(State)
    s.players = players
    s.colours = tuple(colours) if colours is not None else COLOURS[:players]
    s.phase = Phase.SETUP
    s.seat = 0
    s.placed = 0
    s.map = Map.from_tiles(tiles)
    ships = [()] * ISLAND_COUNT
    for tid, *_ in tiles:
        if tid < ISLAND_COUNT:
            ships[tid] = ((),) * BEACH_COUNT[tid]
    s.ships = tuple(ships)
    s.supply = (SHIPS_PER_PLAYER,) * players
    s.kings = (-1,) * ISLAND_COUNT
    s.pile = tuple(pile)
    s.removed = ()
    s.rng = tuple(rng.to_json())
    s.landing = None
    s.aim = None
    s.purpose = Purpose.SETTLE
    s.target = -1
    s.full = ()
    s.visited = ()
    s.plan = ()
    s.final = False
    s.at_sea = None
    s.turns = 0
    s.reason = None
    s.last = None
    s.events = ()
    s.version = version
    s.previewing = False  # only while rules.preview works on a copy: stop before a tile is drawn
    s.chance = None       # a preview stopped before (DRAW, q, r, fleet sailing there); never in play
    s.repeatable = None   # derived, never written: islands of earlier positions a landing may repeat (chain.py)
    s.cache = None
    return s


def tile_id(name: str) -> int:
    """The tile id of an island name or water letter, spaces and case ignored."""
    key = str(name).lower().replace(" ", "")
    if key not in KEY_TO_TILE:
        raise ValueError(f"no tile called {name!r}")
    return KEY_TO_TILE[key]


def _seats(ships, seat_of: Mapping[str, int] = COLOUR_SEAT) -> tuple:
    if isinstance(ships, str):
        ships = ships.split()
    return tuple(sorted(seat_of[c] if isinstance(c, str) else int(c) for c in ships))


def build(
    players: int,
    tiles: Iterable[tuple] = (("Tonga", 0, 0, 0),),
    ships: Mapping[tuple, object] | None = None,
    kings: Mapping[str, str] | None = None,
    pile: Iterable[str] | None = None,
    seat: int = 0,
    turns: int = 0,
    removed: Iterable[str] = (),
    colours: Iterable[str] | None = None,
    version: str = LATEST,
) -> State:
    """An exact position, at the start of `seat`'s turn (phase ACTION), for tests.

    tiles: (name, q, r, rotation) per laid tile (rotation = world side of the red dot).
    ships: {(island, beach number 1..): "red blue" or [colours]}; kings: {island: colour}.
    pile: tile names, top first (default: every tile not laid, islands first in data order).
    colours: the colour of each seat (default: the first `players` of COLOURS).
    version: the rules version (default: the latest).
    Supplies are what is left of 15 ships per player.
    """
    laid = [(tile_id(name), q, r, rot) for name, q, r, rot in tiles]
    gone = [tile_id(name) for name in removed]
    if pile is None:
        used = {t for t, *_ in laid} | set(gone)
        pile_ids = tuple(t for t in range(TILE_COUNT) if t not in used)
    else:
        pile_ids = tuple(tile_id(name) for name in pile)
    if not any(t < ISLAND_COUNT for t in pile_ids) or all(t < ISLAND_COUNT for t in pile_ids):
        raise ValueError("the pile needs an island and a water tile: the game ends when a kind runs out (T20)")
    s = new_state(players, pile_ids, Rng(0), laid, None if colours is None else tuple(colours), version)
    seat_of = {colour: n for n, colour in enumerate(s.colours)}
    island_ships = [list(isl) for isl in s.ships]
    for (name, beach), fleet in (ships or {}).items():
        tid = tile_id(name)
        if not island_ships[tid] or not 1 <= beach <= len(island_ships[tid]):
            raise ValueError(f"{name} beach {beach} is not on the board")
        island_ships[tid][beach - 1] = _seats(fleet, seat_of)
        if len(island_ships[tid][beach - 1]) >= PLACES[tid][beach - 1]:
            raise ValueError(f"{name} beach {beach} would be full at the start of a turn")
    s.ships = tuple(tuple(isl) for isl in island_ships)
    king_list = [-1] * ISLAND_COUNT
    for name, colour in (kings or {}).items():
        if not s.ships[tile_id(name)] or tile_id(name) == TONGA:
            raise ValueError(f"{name} cannot be a king island here")
        king_list[tile_id(name)] = seat_of[colour]
    s.kings = tuple(king_list)
    supply = [SHIPS_PER_PLAYER] * players
    for isl in s.ships:
        for beach in isl:
            for c in beach:
                supply[c] -= 1
    for owner in s.kings:
        if owner >= 0:
            supply[owner] -= 1
    if min(supply) < 0:
        raise ValueError("a player would have more than 15 ships")
    s.supply = tuple(supply)
    s.removed = tuple(gone)
    s.phase = Phase.ACTION
    s.placed = 2 * players
    s.seat = seat
    s.turns = turns
    return s


# ---------------------------------------------------------------------------------------
# JSON


def to_json(s: State) -> dict:
    data = {
        "players": s.players,
        "phase": int(s.phase),
        "seat": s.seat,
        "placed": s.placed,
        "tiles": [list(t) for t in s.map.tiles()],
        "ships": [[list(b) for b in isl] for isl in s.ships],
        "supply": list(s.supply),
        "kings": list(s.kings),
        "pile": list(s.pile),
        "removed": list(s.removed),
        "rng": list(s.rng),
        "landing": None if s.landing is None else [s.landing[0], list(s.landing[1]), s.landing[2]],
        "aim": _to_list(s.aim),
        "purpose": int(s.purpose),
        "target": s.target,
        "full": [list(f) for f in s.full],
        "visited": [[[list(b) for b in isl] for isl in v] for v in s.visited],
        "plan": _to_list(s.plan),
        "final": s.final,
        "at_sea": None if s.at_sea is None else [s.at_sea[0], list(s.at_sea[1])],
        "turns": s.turns,
        "reason": s.reason,
        "last": None if s.last is None else [s.last[0], s.last[1].to_json()],
        "events": [_to_list(e) for e in s.events],
    }
    if s.colours != COLOURS[:s.players]:  # only chosen colours: states of default games stay as they were
        data["colours"] = list(s.colours)
    if s.version != V2:  # states of tongiaki-2 stay as they were written (VERSIONS)
        data["version"] = s.version
    if s.chance is not None:  # only a stopped preview: the states of games never hold it
        data["chance"] = _to_list(s.chance)
    return data


def _to_list(value):
    if isinstance(value, tuple):
        return [_to_list(v) for v in value]
    return value


def from_json(data: dict) -> State:
    try:
        s = State.__new__(State)
        s.players = int(data["players"])
        s.colours = tuple(data["colours"]) if "colours" in data else COLOURS[:s.players]
        s.phase = Phase(data["phase"])
        s.seat = data["seat"]
        s.placed = data["placed"]
        s.map = Map.from_tiles(tuple(t) for t in data["tiles"])
        s.ships = to_tuple(data["ships"])
        s.supply = tuple(data["supply"])
        s.kings = tuple(data["kings"])
        s.pile = tuple(data["pile"])
        s.removed = tuple(data["removed"])
        s.rng = tuple(data["rng"])
        landing = data["landing"]
        s.landing = None if landing is None else (landing[0], tuple(landing[1]), landing[2])
        s.aim = to_tuple(data["aim"])
        s.purpose = Purpose(data["purpose"])
        s.target = data["target"]
        s.full = to_tuple(data["full"])
        s.visited = to_tuple(data["visited"])
        s.plan = to_tuple(data["plan"])
        s.final = bool(data["final"])
        s.at_sea = to_tuple(data["at_sea"])
        s.turns = data["turns"]
        s.reason = data["reason"]
        s.last = None if data["last"] is None else (data["last"][0], Move.from_json(data["last"][1]))
        s.events = to_tuple(data["events"])
        s.version = data.get("version", V2)
        if s.version not in VERSIONS:
            raise ValueError(f"no rules version {s.version!r}")
        s.previewing = False
        s.chance = to_tuple(data.get("chance"))
        s.repeatable = None
        s.cache = None
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise IllegalMove("That is not a Tongiaki state: %(error)s.", error=str(error)) from None
    return s


