"""Why a move is not allowed: one sentence a player understands, for every IllegalMove.

`apply` and `parse` call `explain` only after a move failed the legality check; it never
decides legality itself, and never raises, whatever the move value holds.
"""

from __future__ import annotations

from engine.core import Move
from engine.discovery import moves as mv
from engine.discovery.state import Phase, State
from engine.discovery.tiles import ROTATIONS, SIDES, TILE_TYPES


def hand_text(hand) -> str:
    """'#4 and #17': the tiles a player holds."""
    return " and ".join(f"#{n}" for n in hand) or "no tile"




def explain(state: State, move: Move) -> str:
    """One sentence telling the player why this move is not allowed now."""
    try:
        return _explain(state, move)
    except Exception:  # a malformed move value: say what moves look like
        return f"That is not a move here; write {mv.EXAMPLES}."


def _ints(values) -> bool:
    return all(type(v) is int for v in values)


def _explain(state: State, move: Move) -> str:
    if state.phase is Phase.OVER:
        return "The game is over; no more moves can be made."
    kind, args = move.kind, move.args
    if kind not in mv.KINDS:
        return f"There is no move {kind!r}; the moves are place, deploy, remove and pass."
    if kind == mv.PLACE:
        if state.phase is Phase.FOLLOW:
            return "You have already placed your tile; now deploy a follower, remove one, or pass."
        size = 4 if state.double else 3
        if len(args) != size or not _ints(args):
            return ("Say which hidden tile you place: 'place #T X,Y R'." if state.double
                    else "A placement is 'place X,Y R', e.g. 'place 1,0 90'.")
        x, y, degrees = args[:3]
        if degrees not in ROTATIONS:
            return "The rotation is 0, 90, 180 or 270 degrees clockwise."
        hand = sorted(set(state.hands[state.seat])) if state.double else [state.current]
        number = args[3] if state.double else state.current
        if number not in hand:
            return f"You hold {hand_text(hand)}, not #{number}."
        if (x, y) in state.board.at:
            return f"Square {x},{y} already holds a tile."
        key = state.board.open.get((x, y))
        if key is None:
            return f"Square {x},{y} does not touch a placed tile along a side."
        tile = TILE_TYPES[number]
        k = degrees // 90
        if tile.canonical[k] != k and tile.canonical[k] in tile.match.get(key, ()):
            return f"Rotation {degrees} shows the tile as rotation {tile.canonical[k] * 90} does; write that."
        needs = ", ".join(f"{SIDES[d]} {_WORDS[c]}" for d, c in enumerate(key) if c != ".")
        fits = [str(r * 90) for r in tile.match.get(key, ())]
        where = f"it fits there only with rotation {' or '.join(fits)}" if fits else "it fits there in no rotation"
        return f"At {x},{y} the sides must match ({needs}); {where}."
    if state.phase is Phase.PLACE:
        return "First place your tile, e.g. 'place 1,0 90'."
    seat = state.seat
    if kind == mv.PASS:
        return "Write just 'pass'."
    if kind == mv.DEPLOY:
        number, _, _, k = state.board.tiles[state.placed]
        names = TILE_TYPES[number].names_at[k]
        if len(args) != 1 or args[0] not in names:
            return f"Deploy on one segment of the tile just placed: {', '.join(names)}."
        if state.supply(seat) == 0:
            return "You have no follower left in your supply; remove one or pass."
        terrain = TILE_TYPES[number].terrains[names.index(args[0])]
        return f"That {terrain.word} already holds a follower (D9); deploy only into an empty region."
    if len(args) != 3 or not _ints(args[:2]) or not isinstance(args[2], str):
        return "Say which follower to remove: 'remove X,Y SEGMENT', e.g. 'remove 0,0 E+W'."
    mine = [" ".join(mv.notation(m).split()[1:]) for m in state._legal if m.kind == mv.REMOVE]
    if not mine:
        return "You have no follower on the board to remove."
    return f"You have no follower at {args[0]},{args[1]} {args[2]}; yours are at {'; '.join(mine)}."


_WORDS = {"G": "grassland", "M": "mountain", "S": "sea"}
