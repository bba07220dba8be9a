"""Build exact positions (for tests, puzzles and analysis) without playing up to them.

`build_position` lays the start tile and the given tiles, puts followers out, and sets
whose turn it is and what they hold. It checks what a position must satisfy to be one
the rules could reach: every shared side matches (D7), at most 4 followers per player
and at most one follower per region when deployed (D9, in the given order). It does not
check the order the tiles could have been placed in.
"""

from __future__ import annotations

from engine.core import Rng
from engine.discovery.board import Board
from engine.discovery.state import FOLLOWERS, Phase, State
from engine.discovery.tiles import START_TILE, STEP, TILE_TYPES


class PositionError(ValueError):
    """A position the rules could not reach."""


def build_position(players: int = 2, tiles=(), followers=(), *, to_move: int = 0, current: int | None = None,
                   hands=None, deck=(), placed: tuple[int, int] | None = None, scores=None,
                   double: bool = False, equal: bool = False, shared: bool = False, seed: int = 1) -> State:
    """A state in which seat `to_move` places `current` (or a tile of `hands`), or, with
    `placed`, has placed the tile at that square and now deploys, removes or passes.

    tiles: (number, x, y, degrees) besides the start tile at 0,0; followers: (seat, x, y,
    segment name); deck: the draw pile, drawn from the end; seat order is 0, 1, 2, ...
    `shared` allows followers to be put into an occupied region (as regions that joined later).
    """
    state = State(players, double or hands is not None, equal, tuple(range(players)), Rng(seed))
    board = Board()
    board._add(START_TILE, 0, 0, 0)
    for number, x, y, degrees in tiles:
        if (x, y) in board.at:
            raise PositionError(f"two tiles at {x},{y}")
        _check_fit(board, TILE_TYPES[number], x, y, degrees // 90)
        board._add(number, x, y, degrees // 90)
    state.board = board
    out = []
    for seat, x, y, name in followers:
        pid = board.at[(x, y)]
        number, _, _, k = board.tiles[pid]
        local = TILE_TYPES[number].segment_by_name(k, name.lower())
        if local is None:
            raise PositionError(f"no segment {name} at {x},{y}")
        g = board.base[pid] + local
        if not shared and any(board.find(g) == board.find(h) for _, h in out):
            raise PositionError(f"the region at {x},{y} {name} already holds a follower")
        out.append((seat, g))
    state.followers = tuple(out)
    if any(state.supply(seat) < 0 for seat in range(players)):
        raise PositionError(f"a player has more than {FOLLOWERS} followers out")
    state.turn = to_move
    state.deck = tuple(deck)
    state.scores = tuple(scores) if scores is not None else (0,) * players
    if state.double:
        state.hands = tuple(tuple(hand) for hand in hands)
    if placed is not None:
        state.placed = board.at[placed]
        state.phase = Phase.FOLLOW
    else:
        state.current = current
        state.phase = Phase.PLACE
    return state


def _check_fit(board: Board, tile, x: int, y: int, k: int) -> None:
    sides = tile.sides_at[k]
    for d in range(4):
        dx, dy = STEP[d]
        other = board.at.get((x + dx, y + dy))
        if other is None:
            continue
        number, _, _, ok = board.tiles[other]
        facing = TILE_TYPES[number].sides_at[ok][(d + 2) % 4]
        if facing != sides[d]:
            raise PositionError(f"tile #{tile.number} at {x},{y} does not match #{number} on its {'NESW'[d]} side")
