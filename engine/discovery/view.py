"""What one seat (or a spectator) sees of a game: the JSON-ready view documented in docs/games/discovery.md.

Everything on the table is public: the board, followers, scores, removed tiles and, in
the base game, the drawn tile. Hidden are the order of the draw pile, the Rng, and in the
double-tile variant (D18) every hand but the viewer's own, together with the placements
those hidden tiles allow. The view of a move's preview that stopped before the next draw
(issue 31) has nobody to move and says so under `stopped_before`.
"""

from __future__ import annotations

from engine.core import STOPPED_BEFORE
from engine.discovery import moves as mv
from engine.discovery.state import Phase, State
from engine.discovery.tiles import SIDES, TILE_TYPES, Terrain


def describe_tile(number: int, k: int = 0) -> dict:
    """A tile type in rotation k: sides, segments and port cities, named as players write them."""
    sides, segments, cities = _template(number, k)
    return {"tile": number, "rotation": k * 90, "sides": sides,
            "segments": [{"name": name, "terrain": word, "sides": list(names)} for name, word, names in segments],
            "cities": [{"land": land, "sea": sea} for land, sea in cities]}


_TEMPLATES: dict = {}


def _template(number: int, k: int) -> tuple:
    """The fixed part of a tile's description, computed once per type and rotation."""
    found = _TEMPLATES.get((number, k))
    if found is None:
        tile = TILE_TYPES[number]
        names = tile.names_at[k]
        segments = tuple((names[i], terrain.word, tuple(SIDES[d] for d in range(4) if (d - k) % 4 in tile.seg_sides[i]))
                         for i, terrain in enumerate(tile.terrains))
        cities = tuple((names[land], names[sea]) for land, sea in tile.cities)
        found = _TEMPLATES[(number, k)] = (tile.sides_at[k], segments, cities)
    return found


def _board(state: State) -> list[dict]:
    board = state.board
    parent, r_open = board.parent, board.r_open
    tiles = []
    for pid, (number, x, y, k) in enumerate(board.tiles):
        sides, template, cities = _template(number, k)
        g = board.base[pid]
        segments = []
        for name, word, names in template:
            root = g
            while parent[root] != root:
                root = parent[root]
            segments.append({"name": name, "terrain": word, "region": root, "complete": r_open[root] == 0})
            g += 1
        tiles.append({"x": x, "y": y, "tile": number, "rotation": k * 90, "sides": sides, "segments": segments,
                      "cities": [{"land": land, "sea": sea} for land, sea in cities]})
    return tiles


def _placements(state: State, numbers) -> list[dict]:
    board = state.board
    result = []
    for number in numbers:
        match = TILE_TYPES[number].match
        for (x, y), key in sorted(board.open.items()):
            rotations = match.get(key)
            if rotations:
                result.append({"tile": number, "x": x, "y": y, "rotations": [k * 90 for k in rotations]})
    return result


def build_view(rules, state: State, seat: int | None, legal) -> dict:
    board = state.board
    over = state.phase is Phase.OVER
    followers = []
    for owner, g in state.followers:
        pid = board.seg_tile[g]
        number, x, y, k = board.tiles[pid]
        local = g - board.base[pid]
        terrain = TILE_TYPES[number].terrains[local]
        root = board.find(g)
        followers.append({
            "seat": owner, "x": x, "y": y, "segment": TILE_TYPES[number].names_at[k][local],
            "terrain": terrain.word, "role": terrain.follower, "region": root,
            "region_tiles": len(board.r_tiles[root]), "region_complete": board.r_open[root] == 0,
            "region_cities": board.cities(root) if terrain is not Terrain.GRASSLAND else 0,
            "value": board.value(g, final=over),
        })
    mover = state.seat
    if state.double:
        drawn = None
        hand = [describe_tile(n) for n in state.hands[seat]] if seat is not None else None
        hand_sizes = [len(h) for h in state.hands]
        visible = seat is not None and seat == mover and state.phase is Phase.PLACE
        placements = _placements(state, sorted(set(state.hands[seat]))) if visible else None
    else:
        drawn = describe_tile(state.current) if state.current is not None else None
        hand = hand_sizes = None
        placements = _placements(state, [state.current]) if state.phase is Phase.PLACE else []
    placed = None
    if state.placed is not None:
        _, x, y, _ = board.tiles[state.placed]
        placed = {"x": x, "y": y}
    last = None
    if state.last is not None:
        last = {"seat": state.last[0], "move": state.last[1], "points": state.last[2]}
    result = rules.result(state)
    view = {
        "game": rules.name,
        "players": state.players,
        "colours": list(state.colours),
        "options": {"double": state.double, "equal": state.equal},
        "order": list(state.order),
        "to_move": mover,
        "phase": state.phase.value,
        "viewer": seat,
        "board": _board(state),
        "open_squares": [{"x": x, "y": y, "sides": key} for (x, y), key in sorted(board.open.items())],
        "placed": placed,
        "drawn": drawn,
        "hand": hand,
        "hand_sizes": hand_sizes,
        "placements": placements,
        "followers": followers,
        "supply": [state.supply(s) for s in range(state.players)],
        "scores": list(state.scores),
        "tiles_left": len(state.deck),
        "removed": [{"tile": number, "reason": reason} for number, reason in state.removed],
        "last_move": last,
        "events": [{"event": "auto", "seat": seat, "move": mv.notation(move)} for seat, move in state.events],
        "legal_moves": [mv.notation(m) for m in legal] if legal is not None else None,
        "result": result.to_json() if result is not None else None,
    }
    if state.chance is not None:  # a preview stopped at the end of the turn: the next tile is not drawn yet
        view[STOPPED_BEFORE] = {"chance": state.chance}
    return view
