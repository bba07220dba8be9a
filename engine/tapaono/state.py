"""The Tapaono game state, its canonical JSON, and a builder for exact test positions.

A state is a small value: the board's owners as bytes (one byte per field: 0 free,
1 the first seat's marker, 2 the second seat's), the six piece positions, stocks, deck,
depots and the bookkeeping of the round in progress. `copy` is a flat attribute copy,
so `apply` can work on a fresh copy cheaply. A move's preview that stopped before a card is
drawn or the die rolled (`rules.preview`, issue 31) is a state too, marked by `chance`. This
module knows no rules: it neither checks positions for legality nor advances the game.
"""

from __future__ import annotations

from enum import IntEnum

from engine.core import Move, to_tuple

from .board import CARD_BY_LABEL, DECK, FIELDS, INDEX, LABELS, MARKERS


COLOURS = ("red", "blue")  # the seats' colours unless the game's option `colours` says otherwise


class Phase(IntEnum):
    """Which decision the player to move is making."""

    ANSWER = 0    # answer the opponent's mode-change proposal (P17)
    MOVE = 1      # phase 1: move pieces (P5-P7)
    CARD = 2      # phase 2: a drawn command card needs a decision (P8)
    DICE = 3      # phase 3: roll for a piece or end the phase (P9)
    TAKE = 4      # phase 3: choose the fields a roll acts on (P9)
    CONQUEST = 5  # phase 4: conquest by command, proposals, end of the round (P11, P17)
    OVER = 6


class Mode:
    """The four game modes (P13-P16), as their option values."""

    NORMAL = "normal"
    FAST = "fast"
    ABSOLUTE = "absolute"
    FREE = "free"
    ALL = ("normal", "fast", "absolute", "free")


SPAWN = -1  # a piece's position while it is in its spawn

SLOTS = ("mode", "options", "owner", "pos", "stock", "deck", "used", "depots", "held", "turn",
         "rounds", "phase", "done", "rolled", "transport", "entered", "moving", "steps", "commands",
         "pending", "last_roll", "proposal", "proposed", "quiet", "changed", "seed", "counter", "over",
         "last", "drawn", "supply", "cfg", "events", "previewing", "chance")


class State:
    """One position. Treat as immutable outside `rules.apply` (which mutates fresh copies only).

    pos[seat * 3 + piece] is a field index or SPAWN; done/rolled/transport are bit masks over
    the three pieces of the seat to move; pending describes a card or roll decision.
    """

    __slots__ = SLOTS + ("_legal",)

    def copy(self) -> "State":
        """A shallow copy (every slot but the legal-move cache), written out: copies are made on every apply."""
        o = State.__new__(State)
        o.mode = self.mode
        o.options = self.options
        o.owner = self.owner
        o.pos = self.pos
        o.stock = self.stock
        o.deck = self.deck
        o.used = self.used
        o.depots = self.depots
        o.held = self.held
        o.turn = self.turn
        o.rounds = self.rounds
        o.phase = self.phase
        o.done = self.done
        o.rolled = self.rolled
        o.transport = self.transport
        o.entered = self.entered
        o.moving = self.moving
        o.steps = self.steps
        o.commands = self.commands
        o.pending = self.pending
        o.last_roll = self.last_roll
        o.proposal = self.proposal
        o.proposed = self.proposed
        o.quiet = self.quiet
        o.changed = self.changed
        o.seed = self.seed
        o.counter = self.counter
        o.over = self.over
        o.last = self.last
        o.drawn = self.drawn
        o.supply = self.supply
        o.cfg = self.cfg
        o.events = self.events
        o.previewing = self.previewing
        o.chance = self.chance
        o._legal = None
        return o


def new_state(mode: str, options: dict, seed: int, deck: tuple, markers: int = MARKERS) -> State:
    """The raw opening position (first seat to move, nothing settled yet)."""
    st = State.__new__(State)
    st.mode = mode
    st.options = options
    st.owner = bytes(len(FIELDS))
    st.pos = (SPAWN,) * 6
    st.stock = (markers, markers)
    st.deck = tuple(deck)
    st.used = ()
    st.depots = ((), ())
    st.held = ()
    st.turn = 0
    st.rounds = (1, 0)
    st.phase = Phase.MOVE
    st.done = st.rolled = st.transport = 0
    st.entered = False
    st.moving = -1
    st.steps = 0
    st.commands = 0
    st.pending = None
    st.last_roll = None
    st.proposal = None
    st.proposed = False
    st.quiet = 0
    st.changed = False
    st.seed = seed
    st.counter = 0
    st.over = None
    st.last = None
    st.drawn = None
    st.supply = markers
    st.cfg = None
    st.events = ()
    st.previewing = False  # only while rules.preview works on a copy: stop before a draw or a roll
    st.chance = None       # a preview stopped before (DRAW,) or (ROLL, piece); never in play
    st._legal = None
    return st


# ---------------------------------------------------------------------------------------
# JSON


_TO_TEXT = bytes.maketrans(b"\x00\x01\x02", b"012")
_FROM_TEXT = bytes.maketrans(b"012", b"\x00\x01\x02")


def _cards(codes) -> list:
    return [LABELS[c] for c in codes]


def _codes(labels) -> tuple:
    return tuple(int(CARD_BY_LABEL[label]) for label in labels)


def state_to_json(st: State, rng_json: list) -> dict:
    """The canonical JSON of a state (everything, including the hidden deck order and rng)."""
    data = {
        "mode": st.mode,
        "options": dict(st.options),
        "owner": st.owner.translate(_TO_TEXT).decode("ascii"),
        "pos": list(st.pos),
        "stock": list(st.stock),
        "deck": _cards(st.deck),
        "used": _cards(st.used),
        "depots": [_cards(d) for d in st.depots],
        "held": _cards(st.held),
        "turn": st.turn,
        "rounds": list(st.rounds),
        "phase": Phase(st.phase).name.lower(),
        "done": st.done,
        "rolled": st.rolled,
        "transport": st.transport,
        "entered": st.entered,
        "moving": st.moving,
        "steps": st.steps,
        "commands": st.commands,
        "pending": _to_list(st.pending),
        "last_roll": _to_list(st.last_roll),
        "proposal": _to_list(st.proposal),
        "proposed": st.proposed,
        "quiet": st.quiet,
        "changed": st.changed,
        "rng": rng_json,
        "over": st.over,
        "last": None if st.last is None else [st.last[0], st.last[1].to_json()],
        "drawn": _to_list(st.drawn),
        "supply": st.supply,
        "events": [[seat, move.to_json()] for seat, move in st.events],
    }
    if st.chance is not None:  # only a stopped preview: the states of games never hold it
        data["chance"] = _to_list(st.chance)
    return data


def state_from_json(data: dict) -> State:
    """Rebuild a state from `state_to_json` output."""
    st = State.__new__(State)
    st.mode = data["mode"]
    st.options = dict(data["options"])
    st.owner = data["owner"].encode("ascii").translate(_FROM_TEXT)
    st.pos = tuple(data["pos"])
    st.stock = tuple(data["stock"])
    st.deck = _codes(data["deck"])
    st.used = _codes(data["used"])
    st.depots = tuple(_codes(d) for d in data["depots"])
    st.held = _codes(data["held"])
    st.turn = data["turn"]
    st.rounds = tuple(data["rounds"])
    st.phase = Phase[data["phase"].upper()]
    st.done = data["done"]
    st.rolled = data["rolled"]
    st.transport = data["transport"]
    st.entered = data["entered"]
    st.moving = data["moving"]
    st.steps = data["steps"]
    st.commands = data["commands"]
    st.pending = to_tuple(data["pending"])
    st.last_roll = to_tuple(data["last_roll"])
    st.proposal = to_tuple(data["proposal"])
    st.proposed = data["proposed"]
    st.quiet = data["quiet"]
    st.changed = data["changed"]
    st.seed = int(data["rng"][0], 16)
    st.counter = int(data["rng"][1])
    st.over = data["over"]
    st.last = None if data["last"] is None else (data["last"][0], Move.from_json(data["last"][1]))
    st.drawn = to_tuple(data["drawn"])
    st.supply = data["supply"]
    # States stored by rules version tapaono-1 have no events: nothing was decided automatically.
    st.events = tuple((seat, Move.from_json(move)) for seat, move in data.get("events", ()))
    st.previewing = False
    st.chance = to_tuple(data.get("chance"))
    st.cfg = None
    st._legal = None
    return st


def _to_list(value):
    if isinstance(value, tuple):
        return [_to_list(v) for v in value]
    return value


# ---------------------------------------------------------------------------------------
# Exact positions for tests


def build(mode: str, options: dict, *, owner: dict | None = None,
          pieces: tuple | list | None = None, stock=None, deck=None, used=(),
          depots=((), ()), held=(), turn: int = 0, rounds=(4, 4), phase: Phase = Phase.MOVE,
          seed: int = 1, **extra) -> State:
    """A position laid out by hand: owner maps (q, r) to seat, pieces lists six (q, r) or None.

    `options` are the game's complete, checked options (`rules.position` checks them).
    Without `stock`, each player has 100 markers less those laid on the board.
    Cards are given as labels ('raid') or Card values; `extra` sets any other State slot.
    The position is not settled: `effects.settle(state)` advances it to the next decision.
    """
    st = new_state(mode, options, seed, DECK if deck is None else _card_codes(deck))
    board = bytearray(len(FIELDS))
    for coord, seat in (owner or {}).items():
        board[INDEX[coord]] = seat + 1
    st.owner = bytes(board)
    if pieces is not None:
        st.pos = tuple(SPAWN if p is None else INDEX[p] for p in pieces)
    st.stock = tuple(stock) if stock is not None else (MARKERS - board.count(1), MARKERS - board.count(2))
    st.used = _card_codes(used)
    st.depots = tuple(tuple(sorted(_card_codes(d))) for d in depots)
    st.held = tuple(sorted(_card_codes(held)))
    st.turn = turn
    st.rounds = tuple(rounds)
    st.phase = Phase(phase)
    for name, value in extra.items():
        setattr(st, name, value)
    return st


def _card_codes(cards) -> tuple:
    return tuple(int(CARD_BY_LABEL[c]) if isinstance(c, str) else int(c) for c in cards)
