"""Standing orders of Carcassonne: The Discovery: the follow-up decision written with the placement.

A turn (D6) is a placement, then deploy, remove or pass. The tile is drawn before the turn
begins, so no chance lies between the two decisions and a mail simply holds both moves. An
order lets a mail or a form give the follow-up before the placement is made:

    deploy N+E     deploy sea     after the placement: a follower on the segment of the placed tile
                                  that touches these sides (or the lake of that terrain), if it may go there
    remove 0,0 E+W                after the placement: take that follower back and score it
    pass

Nothing here stores orders or changes a state.
"""

from __future__ import annotations

from engine.core import IllegalMove, Move, Order, OrderError, OrderNotNeeded, join_or

from . import moves as mv
from .state import Phase, State
from .tiles import SIDES, TERRAIN_WORDS, TILE_TYPES

EXACT, DEPLOY = "exact", "deploy"


def parse_order(state: State, seat: int, text: str, parse) -> Order:
    """The order `seat` writes; OrderError if it can never apply in this turn.

    `parse(state, text)` is the rules' move parser: the follow-up decided now is checked at once.
    """
    if state.phase is Phase.OVER:
        raise OrderNotNeeded("The game is over; no more orders can be given.")
    if seat != state.seat:  # the turn ended: not needed
        raise OrderNotNeeded("Standing orders are given in your own turn, for the decision after your placement.")
    try:
        kind, fields = mv.parse_text(text)
        if state.phase is Phase.FOLLOW:  # the follow-up is decided now
            move = parse(state, text)
            return Order(EXACT, (move.kind, move.args))
    except IllegalMove as error:
        raise OrderError(error.message) from None
    if kind == mv.PLACE:
        raise OrderError("Place your tile with a move; an order is for the decision after the placement.")
    if kind == mv.PASS:
        return Order(EXACT, (mv.PASS, ()))
    if kind == mv.REMOVE:
        return Order(EXACT, (mv.REMOVE, _follower(state, seat, *fields)))
    return Order(DEPLOY, (_segment_words(state, seat, fields[0]),))


def _follower(state: State, seat: int, x: int, y: int, name: str) -> tuple:
    """The follower a `remove` names, as the move's arguments; it must be out already (D10)."""
    board = state.board
    pid = board.at.get((x, y))
    if pid is not None:
        number, _, _, k = board.tiles[pid]
        local = TILE_TYPES[number].segment_by_name(k, name)
        if local is not None and (seat, board.base[pid] + local) in state.followers:
            return (x, y, TILE_TYPES[number].names_at[k][local])
    shown = name if name in TERRAIN_WORDS else name.upper()
    raise OrderError("You have no follower at %(x)s,%(y)s %(segment)s: only a follower already out can be removed.",
                     x=x, y=y, segment=shown)


def _segment_words(state: State, seat: int, name: str) -> str:
    """A deploy order's segment, written the one way (`N+E`, `sea`), if a tile to place has it."""
    if state.supply(seat) == 0:
        raise OrderError("All your followers are out, so you cannot deploy this turn.")
    word = name.replace("lake", "sea").replace("island", "grassland")
    if word not in TERRAIN_WORDS:
        letters = set(word.replace("+", "").replace(",", "").replace("-", "").replace(" ", "").upper())
        word = "+".join(side for side in SIDES if side in letters)
        if not letters or not letters <= set(SIDES):
            raise OrderError("Name a segment by its sides (deploy N+E) or, for a lake, its terrain (deploy sea), "
                             "not %(segment)r.", segment=name)
    tiles = sorted(set(state.hands[seat])) if state.double else [state.current]
    if not any(TILE_TYPES[n].segment_by_name(k, word) is not None for n in tiles for k in range(4)):
        raise OrderError("Your tile %(tiles)s has no segment %(segment)s in any rotation.",
                         tiles=join_or([f"#{n}" for n in tiles]), segment=word)
    return word


def order_notation(order: Order) -> str:
    """The text of an order."""
    if order.kind == DEPLOY:
        return f"deploy {order.args[0]}"
    return mv.notation(Move(order.args[0], order.args[1]))


def order_move(state: State, seat: int, order: Order, legal: list) -> tuple[Move, Order | None] | None:
    """The legal follow-up move the order makes now for `seat`, or None."""
    if state.phase is not Phase.FOLLOW or state.seat != seat:
        return None
    if order.kind == DEPLOY:
        number, _, _, k = state.board.tiles[state.placed]
        local = TILE_TYPES[number].segment_by_name(k, order.args[0])
        if local is None:
            return None
        move = mv.deploy_move(TILE_TYPES[number].names_at[k][local])
    else:
        move = Move(order.args[0], order.args[1])
    return (move, None) if move in legal else None
