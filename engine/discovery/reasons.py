"""Why a move is not allowed: one sentence a player understands, for every IllegalMove.

`apply` and `parse` call `explain` only after a move failed the legality check; it never
decides legality itself, and never raises, whatever the move value holds.
"""

from __future__ import annotations

from engine.core import Listing, Message, Move, join_and, join_or
from engine.discovery import moves as mv
from engine.discovery.state import Phase, State
from engine.discovery.tiles import ROTATIONS, SIDES, TILE_TYPES, Terrain

NO_TILE = Message("no tile")  # a hand that holds none


def hand_text(hand) -> Message | str:
    """'#4 and #17': the tiles a player holds."""
    return join_and([f"#{n}" for n in hand]) if hand else NO_TILE


def explain(state: State, move: Move) -> Message:
    """One sentence telling the player why this move is not allowed now."""
    try:
        return _explain(state, move)
    except Exception:  # a malformed move value: say what moves look like
        return Message("That is not a move here; write place 1,0 90, deploy N+E, deploy sea, remove 0,0 E+W or pass.")


def _ints(values) -> bool:
    return all(type(v) is int for v in values)


def _explain(state: State, move: Move) -> Message:
    if state.phase is Phase.OVER:
        return Message("The game is over; no more moves can be made.")
    kind, args = move.kind, move.args
    if kind not in mv.KINDS:
        return Message("There is no move %(kind)r; the moves are place, deploy, remove and pass.", kind=kind)
    if kind == mv.PLACE:
        if state.phase is Phase.FOLLOW:
            return Message("You have already placed your tile; now deploy a follower, remove one, or pass.")
        size = 4 if state.double else 3
        if len(args) != size or not _ints(args):
            return (Message("Say which hidden tile you place: 'place #T X,Y R'.") if state.double
                    else Message("A placement is 'place X,Y R', e.g. 'place 1,0 90'."))
        x, y, degrees = args[:3]
        if degrees not in ROTATIONS:
            return Message("The rotation is 0, 90, 180 or 270 degrees clockwise.")
        hand = sorted(set(state.hands[state.seat])) if state.double else [state.current]
        number = args[3] if state.double else state.current
        if number not in hand:
            return Message("You hold %(hand)s, not #%(number)s.", hand=hand_text(hand), number=number)
        if (x, y) in state.board.at:
            return Message("Square %(x)s,%(y)s already holds a tile.", x=x, y=y)
        key = state.board.open.get((x, y))
        if key is None:
            return Message("Square %(x)s,%(y)s does not touch a placed tile along a side.", x=x, y=y)
        tile = TILE_TYPES[number]
        k = degrees // 90
        if tile.canonical[k] != k and tile.canonical[k] in tile.match.get(key, ()):
            return Message("Rotation %(rotation)s shows the tile as rotation %(same)s does; write that.",
                           rotation=degrees, same=tile.canonical[k] * 90)
        needs = Listing(_SIDE_SHOWS[Terrain(c)](SIDES[d]) for d, c in enumerate(key) if c != ".")
        fits = [str(r * 90) for r in tile.match.get(key, ())]
        if fits:
            return Message("At %(x)s,%(y)s the sides must match (%(needs)s); it fits there only with rotation "
                           "%(rotations)s.", x=x, y=y, needs=needs, rotations=join_or(fits))
        return Message("At %(x)s,%(y)s the sides must match (%(needs)s); it fits there in no rotation.", x=x, y=y,
                       needs=needs)
    if state.phase is Phase.PLACE:
        return Message("First place your tile, e.g. 'place 1,0 90'.")
    seat = state.seat
    if kind == mv.PASS:
        return Message("Write just 'pass'.")
    if kind == mv.DEPLOY:
        number, _, _, k = state.board.tiles[state.placed]
        names = TILE_TYPES[number].names_at[k]
        if len(args) != 1 or args[0] not in names:
            return Message("Deploy on one segment of the tile just placed: %(segments)s.", segments=", ".join(names))
        if state.supply(seat) == 0:
            return Message("You have no follower left in your supply; remove one or pass.")
        return _TAKEN[TILE_TYPES[number].terrains[names.index(args[0])]]
    if len(args) != 3 or not _ints(args[:2]) or not isinstance(args[2], str):
        return Message("Say which follower to remove: 'remove X,Y SEGMENT', e.g. 'remove 0,0 E+W'.")
    mine = [" ".join(mv.notation(m).split()[1:]) for m in state._legal if m.kind == mv.REMOVE]
    if not mine:
        return Message("You have no follower on the board to remove.")
    return Message("You have no follower at %(x)s,%(y)s %(segment)s; yours are at %(yours)s.", x=args[0], y=args[1],
                   segment=args[2], yours="; ".join(mine))


# What a side of an open square shows (the terrain it must match, D7), and a region that holds a
# follower already (D9): one message per terrain.
_SIDE_SHOWS = {
    Terrain.GRASSLAND: lambda side: Message("%(side)s grassland", side=side),
    Terrain.MOUNTAIN: lambda side: Message("%(side)s mountain", side=side),
    Terrain.SEA: lambda side: Message("%(side)s sea", side=side),
}
_TAKEN = {
    Terrain.GRASSLAND: Message("That grassland already holds a follower (D9); deploy only into an empty region."),
    Terrain.MOUNTAIN: Message("That mountain already holds a follower (D9); deploy only into an empty region."),
    Terrain.SEA: Message("That sea already holds a follower (D9); deploy only into an empty region."),
}
