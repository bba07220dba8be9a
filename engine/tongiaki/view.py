"""What players see: the view (schema in docs/games/tongiaki.md), the score tally and error reasons.

Nothing here changes a state. The only hidden information in Tongiaki is the order of the
pile, and no function here reads it: the view shows how many tiles of each kind are left.
The view of a move's preview that stopped before a tile is drawn (issue 31) has nobody to
move and says where the tile would go under `stopped_before`.
"""

from __future__ import annotations

from engine.core import STOPPED_BEFORE, Message, Move
from engine.tongiaki import chain, moves
from engine.tongiaki.beaches import land_targets
from engine.tongiaki.state import SHIPS_PER_PLAYER, Phase, Purpose, State
from engine.tongiaki.tiles import (
    ISLAND_COUNT, ISLAND_KEYS, JETTIES, KEY_TO_TILE, NAMES, PLACES, SIDE_NAMES, STEP, TONGA, VALUES, WATER_COUNT,
    WATER_DATA, world_side,
)

PHASE_NAMES = {p: p.name.lower() for p in Phase}
PHASE_KINDS = {
    Phase.SETUP: {"place"}, Phase.ACTION: {"expand", "king", "settle", "place"}, Phase.EMIGRATE: {"emigrate"},
    Phase.LAND: {"land"}, Phase.TILE: {"tile"}, Phase.PLACE: {"place"}, Phase.OVER: set(),
}


def tally(s: State) -> tuple[list[int], list[int], list[int]]:
    """Per seat: points (T22), islands present on, ships on the board (king island = 1 ship) (T23)."""
    present = [set() for _ in range(s.players)]
    for tid in range(ISLAND_COUNT):
        for beach in s.ships[tid]:
            for c in beach:
                present[c].add(tid)
        if s.kings[tid] >= 0:
            present[s.kings[tid]].add(tid)
    scores = [sum(VALUES[t] for t in isles) for isles in present]
    islands = [len(isles) for isles in present]
    used = [SHIPS_PER_PLAYER - s.supply[p] for p in range(s.players)]
    return scores, islands, used


def _colours(s: State, seats) -> list[str]:
    return [s.colours[c] for c in seats]


def _tile(s: State, tid: int, q: int, r: int, rot: int) -> dict:
    data = {"tile": NAMES[tid], "q": q, "r": r, "rotation": rot,
            "red_dot": None if tid == TONGA else SIDE_NAMES[rot]}
    if tid < ISLAND_COUNT:
        data["kind"] = "island"
        data["value"] = VALUES[tid]
        data["king"] = s.colours[s.kings[tid]] if s.kings[tid] >= 0 else None
        data["beaches"] = [
            {"beach": b + 1, "places": PLACES[tid][b], "jetties": [SIDE_NAMES[d] for d in JETTIES[tid][rot][b]],
             "ships": _colours(s, beach), "full": len(beach) == PLACES[tid][b]}
            for b, beach in enumerate(s.ships[tid])
        ]
    else:
        data["kind"] = "water"
        data["tracks"] = [
            {"sides": [SIDE_NAMES[world_side(rot, a)], SIDE_NAMES[world_side(rot, b)]], "risk": risk}
            for a, b, risk in WATER_DATA[tid - ISLAND_COUNT][1]
        ]
    return data


def _event(s: State, e: tuple) -> dict:
    kind = e[0]
    if kind == "draw":
        return {"event": "draw", "tile": NAMES[e[1]], "q": e[2], "r": e[3], "rotation": e[4]}
    if kind == "cross":
        return {"event": "cross", "tile": NAMES[e[1]], "risk": e[2]}
    if kind == "wreck":
        return {"event": "shipwreck", "tile": NAMES[e[1]], "risk": e[2], "ships": _colours(s, e[3])}
    if kind == "bounce":
        return {"event": "turned_back", "king_island": NAMES[e[1]], "to": NAMES[e[2]]}
    if kind in ("arrive", "at_sea", "infinite"):
        name = {"arrive": "arrive", "at_sea": "at_sea", "infinite": "infinite_chain"}[kind]
        return {"event": name, "tile": NAMES[e[1]], "ships": _colours(s, e[2])}
    if kind == "return":
        return {"event": "return", "ships": _colours(s, e[1])}
    if kind == "auto":
        return {"event": "auto", "colour": s.colours[e[1]], "move": moves.notation(Move(e[2], e[3]))}
    return {"event": "end", "reason": e[1]}


def _pending(s: State) -> dict | None:
    phase = s.phase
    if phase == Phase.OVER or s.chance is not None:
        return None
    data = {"decision": PHASE_NAMES[phase], "colour": s.colours[s.seat]}
    if phase == Phase.SETUP:
        data["round"] = s.placed // s.players + 1
    elif phase == Phase.ACTION:
        on_board = SHIPS_PER_PLAYER - s.supply[s.seat] - s.kings.count(s.seat)
        data["no_ship_on_board"] = on_board == 0
        data["all_ships_on_board"] = s.supply[s.seat] == 0
    elif phase == Phase.EMIGRATE:
        data["full_beaches"] = [
            {"island": NAMES[t], "beach": b + 1, "jetties": [SIDE_NAMES[d] for d in JETTIES[t][s.map.at[t][2]][b]],
             "ships": _colours(s, s.ships[t][b])}
            for t, b in s.full
        ]
        data["engine_ends_chain"] = bool(s.plan)
    elif phase == Phase.LAND:
        tid, fleet, served = s.landing
        data["island"] = NAMES[tid]
        data["fleet"] = _colours(s, fleet)
        data["served"] = [b + 1 for b in range(len(PLACES[tid])) if served >> b & 1]
        data["beaches"] = [b + 1 for b in land_targets(s.ships[tid], tid, served)]
        data["last_tile"] = s.final
        data["engine_ends_chain"] = bool(s.plan)
    elif phase == Phase.TILE:
        data["purpose"] = "settlement" if s.purpose == Purpose.SETTLE else "infinite_chain"
        data["open"] = []
        for tid, d in s.map.open_positions():
            q, r, _ = s.map.at[tid]
            data["open"].append({"tile": NAMES[tid], "side": SIDE_NAMES[d], "q": q + STEP[d][0], "r": r + STEP[d][1]})
    elif phase == Phase.PLACE:
        data["purpose"] = "settlement" if s.purpose == Purpose.SETTLE else "infinite_chain"
        data["island"] = NAMES[s.target]
        data["last_tile"] = s.final
    return data


def view(s: State, seat: int | None, result) -> dict:
    """The JSON-ready picture of the game for `seat` (everyone sees the same: only the pile order is hidden)."""
    scores, islands, used = tally(s)
    pile_islands = sum(1 for t in s.pile if t < ISLAND_COUNT)
    pile_water = len(s.pile) - pile_islands
    laid = s.map.tiles()
    last = None
    if s.last is not None:
        last = {"colour": s.colours[s.last[0]], "seat": s.last[0], "move": moves.notation(s.last[1])}
    view = {
        "game": "tongiaki",
        "viewer": seat,
        "players": s.players,
        "colours": list(s.colours),
        "phase": PHASE_NAMES[s.phase],
        "to_move": None if s.phase == Phase.OVER or s.chance is not None else s.seat,
        "turn": s.turns,
        "tiles": [_tile(s, *t) for t in laid],
        "seats": [
            {"seat": p, "colour": s.colours[p], "supply": s.supply[p], "ships_on_board": used[p],
             "king_islands": [NAMES[t] for t in range(ISLAND_COUNT) if s.kings[t] == p],
             "islands": islands[p], "score": scores[p]}
            for p in range(s.players)
        ],
        "pile": {"size": len(s.pile), "islands": pile_islands, "water": pile_water},
        "drawn": {"islands": ISLAND_COUNT - 1 - pile_islands, "water": WATER_COUNT - pile_water},
        "on_table": {"islands": sum(1 for t in laid if t[0] < ISLAND_COUNT),
                     "water": sum(1 for t in laid if t[0] >= ISLAND_COUNT)},
        "removed": [NAMES[t] for t in s.removed],
        "pending": _pending(s),
        "at_sea": None if s.at_sea is None else {"tile": NAMES[s.at_sea[0]], "ships": _colours(s, s.at_sea[1])},
        "last_move": last,
        "events": [_event(s, e) for e in s.events],
        "scores": scores,
        "result": None if result is None else result.to_json(),
    }
    if s.chance is not None:  # a preview stopped where a tile is drawn: where it goes, and the fleet waiting there
        _, q, r, fleet = s.chance
        view[STOPPED_BEFORE] = {"chance": s.chance[0], "q": q, "r": r, "ships": _colours(s, fleet)}
    return view


# ---------------------------------------------------------------------------------------
# Why a move is not legal (one sentence)

# What the phase asks for instead (T5, T7-T9, T11, T13, T9/T16): a whole clause, after a colon.
NEEDS = {
    Phase.SETUP: Message("it is setup: place one ship on a Tonga beach with fewer than 2 ships"),
    Phase.ACTION: Message("it is the start of a turn: expand, become king or settle"),
    Phase.EMIGRATE: Message("a beach is full and its ships must emigrate first"),
    Phase.LAND: Message("the arriving ships must land first"),
    Phase.TILE: Message("you must choose where the next tile goes"),
    Phase.PLACE: Message("you must place your ship on the new island"),
}


def _not_now(kind: str, need: Message, examples: str) -> Message:
    """'You cannot <do that> now: <what the phase needs> (<legal moves>).', one sentence per kind."""
    params = {"need": need, "moves": examples}
    if kind == "place":
        return Message("You cannot place a ship now: %(need)s (%(moves)s).", **params)
    if kind == "expand":
        return Message("You cannot expand now: %(need)s (%(moves)s).", **params)
    if kind == "king":
        return Message("You cannot become king now: %(need)s (%(moves)s).", **params)
    if kind == "settle":
        return Message("You cannot make a new settlement now: %(need)s (%(moves)s).", **params)
    if kind == "emigrate":
        return Message("You cannot emigrate now: %(need)s (%(moves)s).", **params)
    if kind == "land":
        return Message("You cannot land a ship now: %(need)s (%(moves)s).", **params)
    return Message("You cannot lay a tile now: %(need)s (%(moves)s).", **params)


def _examples(legal: list) -> str:
    texts = [moves.notation(m) for m in legal[:4]]
    return ", ".join(texts) + (", ..." if len(legal) > 4 else "")


def _island_of(move: Move) -> int | None:
    args = move.args
    key = args[1] if move.kind == "land" and len(args) > 1 else (args[0] if args else None)
    return ISLAND_KEYS.get(key) if isinstance(key, str) else None


def _repeats(s: State, move: Move) -> bool:
    """Whether a move the rules allow but for the no-repeat rule of a chain (issue 40) was refused for it."""
    args = move.args
    if move.kind == "emigrate" and s.phase == Phase.EMIGRATE and len(args) == 3:
        tid, b, side = _island_of(move), args[1], args[2]
        if tid is None or not isinstance(b, int) or side not in SIDE_NAMES or (tid, b - 1) not in s.full:
            return False
        d = SIDE_NAMES.index(side)
        return d in JETTIES[tid][s.map.at[tid][2]][b - 1] and chain.repeats_emigration(s, tid, b - 1, d)
    if move.kind == "land" and s.phase == Phase.LAND and len(args) == 3:
        tid, fleet, served = s.landing
        seat = s.colours.index(args[0]) if args[0] in s.colours else -1
        b = args[2] - 1 if isinstance(args[2], int) else -1
        if _island_of(move) != tid or seat not in fleet or b not in land_targets(s.ships[tid], tid, served):
            return False
        return not chain.fresh_landings(s, [(seat, b)])
    return False


def why_illegal(s: State, move: Move, legal: list) -> Message:
    """A one-sentence reason that a player understands, with what is possible instead."""
    if s.phase == Phase.OVER:
        return Message("The game is over; no more moves can be made.")
    if not isinstance(move, Move):
        return Message("That is not a move; you can: %(moves)s.", moves=_examples(legal))
    kind = move.kind
    kinds_now = {m.kind for m in legal}
    if kind == "settle" and kind in PHASE_KINDS[s.phase] and "settle" not in kinds_now:
        return Message("A new settlement needs an open position for the next tile, and there is none.")
    tid = _island_of(move)
    colour = s.colours[s.seat]
    if kind not in moves.KINDS:
        return Message("Unknown move %(kind)r; you can: %(moves)s.", kind=kind[:20], moves=_examples(legal))
    if kind not in PHASE_KINDS[s.phase] or (kind == "place" and s.phase == Phase.ACTION and "place" not in kinds_now):
        return _not_now(kind, NEEDS[s.phase], _examples(legal))
    if tid is not None and s.map.at[tid] is None:
        return Message("%(island)s is not on the board; you can: %(moves)s.", island=NAMES[tid], moves=_examples(legal))
    if kind == "expand" and tid is not None:
        if s.kings[tid] >= 0:
            return Message("%(island)s is a king island: nobody may expand there.", island=NAMES[tid])
        if not any(s.seat in beach for beach in s.ships[tid]):
            return Message("You (%(colour)s) have no ship on %(island)s to expand from.", colour=colour,
                           island=NAMES[tid])
        if s.supply[s.seat] == 0:
            return Message("All your 15 ships are on the board: move one, e.g. %(moves)s.", moves=_examples(legal))
        return Message("On %(island)s you place one new ship on each of exactly that many beaches: %(moves)s.",
                       island=NAMES[tid], moves=_examples(legal))
    if kind == "king" and tid is not None:
        if tid == TONGA:
            return Message("Tonga can never become a king island.")
        if s.kings.count(s.seat) >= 2:
            return Message("You already have two king islands, the most a player may found.")
        return Message("You can become king only where you have ships and nobody else has any, not on %(island)s.",
                       island=NAMES[tid])
    if kind == "emigrate":
        if s.plan:
            return Message("The chain went round in a circle, so the engine plays it out: %(moves)s.",
                           moves=_examples(legal))
        if _repeats(s, move):
            return Message("That emigration can only bring the chain back to a position it already had (the same "
                           "ships on the same beaches), and a chain never repeats a position: %(moves)s.",
                           moves=_examples(legal))
        return Message("Only full beaches emigrate, through their own jetties: %(moves)s.", moves=_examples(legal))
    if kind == "land":
        if s.aim is not None:
            return Message("The chain went round in a circle, so the engine plays it out: %(moves)s.",
                           moves=_examples(legal))
        if _repeats(s, move):
            return Message("That landing can only bring the chain back to a position it already had (the same ships "
                           "on the same beaches), and a chain never repeats a position: %(moves)s.",
                           moves=_examples(legal))
        return Message("Each beach with a free place takes one arriving ship before any takes a second: %(moves)s.",
                       moves=_examples(legal))
    if kind == "tile":
        key = move.args[0] if move.args else None
        if isinstance(key, str) and key in KEY_TO_TILE and s.map.at[KEY_TO_TILE[key]] is None:
            return Message("%(island)s is not on the board; you can: %(moves)s.", island=NAMES[KEY_TO_TILE[key]],
                           moves=_examples(legal))
        return Message("A tile goes on an empty hex next to a jetty or a track end: %(moves)s.",
                       moves=_examples(legal))
    if kind == "place" and s.phase == Phase.ACTION:
        return Message("With no ship on the board you place two ships on Tonga or one on another island: %(moves)s.",
                       moves=_examples(legal))
    return Message("That move is not possible here; you can: %(moves)s.", moves=_examples(legal))
