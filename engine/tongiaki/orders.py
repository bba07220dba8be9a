"""Tongiaki's standing orders: choices a player writes before the tiles their fleets will draw.

After an expansion, fleets sail into hexes not yet explored (T12): which tile comes, and so
where the ships land and which beaches fill up next, is chance. A player by mail writes their
preferences at once and the engine applies them to every such decision of the turn
(docs/games/tongiaki.md, "Standing orders"):

    land red blue 2 1 3     each arriving ship: the first listed colour in the fleet, onto the first
                            listed beach that may take it (no beaches named: in number order)
    emigrate NE N SE        each emigration: the first listed side through which a full beach can
                            sail (beaches in the order of the board: by island, then number)
    tile NE N               each next tile of a new settlement: on the first listed open side of the
                            tile drawn last
    place 2 1 3             the ship on the island just drawn: the first listed beach with room
    any move                that move, when it is legal (emigrate Samoa 2 NE, land red Fiji 1, ...)

The first four stay for the whole turn; an order that finds no legal choice gives None (the
player is asked). This module reads, writes and applies orders; it changes no state.
"""

from __future__ import annotations

from engine.core import IllegalMove, Message, Move, Order, OrderError, OrderNotNeeded, normalize_text

from . import aliases, moves, view
from .state import Phase, State
from .tiles import KEY_TO_TILE, NAMES, SIDE_NAMES

EXACT, LAND, EMIGRATE, TILE, PLACE = "exact", "land", "emigrate", "tile", "place"
MAX_BEACHES = 6  # Tonga's; a drawn island has at most 3
SAILING = (Phase.ACTION, Phase.EMIGRATE, Phase.LAND)            # a fleet may still sail this turn
TILING = SAILING + (Phase.TILE,)                                 # a tile may still be laid by choice (T9, T16)
PLACING = TILING + (Phase.PLACE,)                                # a ship may still go onto a drawn island
WINDOWS = {LAND: SAILING, EMIGRATE: SAILING, TILE: TILING, PLACE: PLACING}
TOO_LATE = {SAILING: Message("No fleet sails in the rest of this turn."),
            TILING: Message("No tile is laid by choice in the rest of this turn."),
            PLACING: Message("No island is drawn in the rest of this turn.")}
ONCE = {"side": Message("Name each side only once."), "beach": Message("Name each beach only once."),
        "colour": Message("Name each colour only once.")}


# ---------------------------------------------------------------------------------------
# Reading an order


def parse_order(s: State, seat: int, text: str, legal: list) -> Order:
    """The order `seat` writes; OrderError if it can never apply in the rest of this turn.

    `legal` is the list of legal moves now (the decision that is made now is checked at once).
    """
    if s.phase == Phase.OVER:
        raise OrderNotNeeded("The game is over; no more orders can be given.")
    if seat != s.seat:  # the turn ended (after the expansion, a shipwreck, the last landing): not needed
        raise OrderNotNeeded("Standing orders are given in your own turn, for what comes after the tiles it draws.")
    words = normalize_text(str(text).replace(",", " ")).split()
    if not words:
        raise OrderError("Write an order, e.g. land red blue 2 1, emigrate NE N, tile N, place 2 1 or a move.")
    head, rest = aliases.kind(words[0]), words[1:]  # the English command of an alias (aliases.py)
    if rest and head in (LAND, EMIGRATE, TILE, PLACE) and _preference(head, rest, s.colours):
        if s.phase not in WINDOWS[head]:
            raise OrderNotNeeded(TOO_LATE[WINDOWS[head]])
        return _preference_order(head, rest, s.colours)
    try:
        here = [NAMES[t] for t in s.map.islands()]
        kinds = sorted({m.kind for m in legal}, key=moves.KINDS.index)
        move = moves.parse(text, s.colours, here, kinds)
    except IllegalMove as error:
        raise OrderError(error.message) from None
    _check_exact(s, move, legal)
    return Order(EXACT, (move.kind, move.args))


def _preference(head: str, rest: list[str], colours: tuple) -> bool:
    """Whether the words are a preference list (no island named) rather than a move."""
    if head == LAND:
        return all(w in colours or w.isdigit() for w in rest)
    if head == PLACE:
        return all(w.isdigit() for w in rest)
    return all(aliases.side(w) is not None for w in rest)


def _preference_order(head: str, rest: list[str], colours: tuple) -> Order:
    if head in (EMIGRATE, TILE):
        sides = tuple(SIDE_NAMES[aliases.side(w)] for w in rest)
        _once(sides, "side")
        return Order(head, sides)
    first_number = next((k for k, w in enumerate(rest) if w.isdigit()), len(rest))
    named, numbers = tuple(rest[:first_number]), rest[first_number:]
    if not all(w.isdigit() for w in numbers):
        raise OrderError("Write the colours first, then the beaches: land %(colours)s 2 1.",
                         colours=" ".join(colours[:2]))
    beaches = tuple(int(w) for w in numbers)
    _once(beaches, "beach")
    top = MAX_BEACHES if head == LAND else 3
    wrong = [b for b in beaches if not 1 <= b <= top]
    if wrong and head == PLACE:
        raise OrderError("Beaches are numbered 1 to %(top)s on a drawn island, not %(beach)s.", top=top, beach=wrong[0])
    if wrong:
        raise OrderError("Beaches are numbered 1 to %(top)s, not %(beach)s.", top=top, beach=wrong[0])
    if head == PLACE:
        return Order(PLACE, beaches)
    if not named:
        raise OrderError("Name the colours in the order their ships land, e.g. land %(colours)s 2 1.",
                         colours=" ".join(colours[:2]))
    _once(named, "colour")
    return Order(LAND, (named, beaches))


def _once(items: tuple, what: str) -> None:
    if len(set(items)) != len(items):
        raise OrderError(ONCE[what])


def _check_exact(s: State, move: Move, legal: list) -> None:
    """Refuse a move order whose decision cannot come any more this turn (or is made now, otherwise)."""
    kind = move.kind
    if move in legal:
        return
    window = WINDOWS.get(kind)
    if kind == PLACE and s.phase in TILING and KEY_TO_TILE[move.args[0]] not in s.map.islands():
        return  # the ship for an island that may still be drawn (T9, T16)
    if window is None or kind == PLACE:  # the action, or a placement decided now
        raise OrderError(view.why_illegal(s, move, legal))
    if s.phase not in window:
        raise OrderNotNeeded(TOO_LATE[window])


# ---------------------------------------------------------------------------------------
# Writing and applying an order


def order_notation(order: Order) -> str:
    """The text of an order (preference lists in the order written)."""
    kind, args = order.kind, order.args
    if kind == EXACT:
        return moves.notation(Move(args[0], args[1]))
    if kind == LAND:
        return " ".join((LAND, *args[0], *map(str, args[1])))
    return " ".join((kind, *map(str, args)))


def order_move(s: State, seat: int, order: Order, legal: tuple[list, list]) -> tuple[Move, Order | None] | None:
    """The legal move the order makes now for `seat` and what is left of it, or None.

    `legal` is (moves, what each does) as the rules compute them.
    """
    if s.phase == Phase.OVER or s.seat != seat:
        return None
    found, whats = legal
    kind, args = order.kind, order.args
    if kind == EXACT:
        move = Move(args[0], args[1])
        return (found[found.index(move)], None) if move in found else None
    doing = dict(zip(whats, found))
    if kind == LAND and s.phase == Phase.LAND:
        beaches = [b - 1 for b in args[1]] or range(MAX_BEACHES)
        wanted = (("land", s.colours.index(c), b) for c in args[0] for b in beaches)
    elif kind == EMIGRATE and s.phase == Phase.EMIGRATE:
        wanted = (what for d in args for what in whats if what[3] == SIDE_NAMES.index(d))
    elif kind == TILE and s.phase == Phase.TILE:
        drawn = [e[1] for e in s.events if e[0] == "draw"]
        wanted = (("tile", drawn[-1], SIDE_NAMES.index(d)) for d in args) if drawn else ()
    elif kind == PLACE and s.phase == Phase.PLACE:
        wanted = (("new", b - 1) for b in args)
    else:
        return None
    for what in wanted:
        if what in doing:
            return doing[what], (None if kind == PLACE else order)
    return None


def order_examples(s: State, seat: int) -> list[Order]:
    """One order of each form that can still apply this turn, filled in for this position."""
    if s.phase in (Phase.OVER, Phase.SETUP) or seat != s.seat:
        return []
    own = s.colours[seat]
    found = []
    if s.phase in SAILING:
        found.append(Order(LAND, ((own,) + tuple(c for c in s.colours if c != own), ())))
        found.append(Order(EMIGRATE, SIDE_NAMES))
    if s.phase in TILING:
        found.append(Order(TILE, SIDE_NAMES))
    found.append(Order(PLACE, (1, 2, 3)))
    return found
