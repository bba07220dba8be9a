"""What happens after ships are placed: emigration, sailing, landing, chain moves (T10..T16, T20, T21).

The functions here change a freshly copied `State` in place (only by re-assigning its
fields) and append what happened to an event list; `rules.apply` owns the copy. The
infinite-chain search (T16) explores the positions a chain can reach without drawing a
tile; it runs only when no full beach has a jetty that leads to an empty hex, so the
common emigration costs one cached path look-up per jetty.
"""

from __future__ import annotations

from collections import deque

from engine.tongiaki.state import EMPTY, SHIPS_PER_PLAYER, Phase, Purpose, State
from engine.tongiaki.tiles import BEACH_COUNT, CROSS, ISLAND_COUNT, JETTIES, PLACES, STEP, TONGA

SEARCH_LIMIT = 20_000   # positions; beyond it a chain is taken to be finite (the rules say it is)
MAX_TURNS = 1_000       # safety valve: never reached in play (see docs, recorded decisions)

REASON_WATER = "The last water tile has been laid."
REASON_ISLAND = "The last island tile has been laid."
REASON_TURNS = f"The game reached the limit of {MAX_TURNS} turns."
REASON_STUCK = "No tile can be laid and the player to move has no action."


# ---------------------------------------------------------------------------------------
# Small tuple helpers


def put(beach: tuple, seat: int) -> tuple:
    return tuple(sorted(beach + (seat,)))


def take(beach: tuple, seat: int) -> tuple:
    i = beach.index(seat)
    return beach[:i] + beach[i + 1:]


def with_beach(ships: tuple, tid: int, b: int, beach: tuple) -> tuple:
    isl = ships[tid]
    return ships[:tid] + (isl[:b] + (beach,) + isl[b + 1:],) + ships[tid + 1:]


def with_island(ships: tuple, tid: int, island: tuple) -> tuple:
    return ships[:tid] + (island,) + ships[tid + 1:]


def add_supply(s: State, seats) -> None:
    supply = list(s.supply)
    for c in seats:
        supply[c] += 1
    s.supply = tuple(supply)


def full_on(ships: tuple, tid: int) -> list[tuple[int, int]]:
    places = PLACES[tid]
    return [(tid, b) for b, beach in enumerate(ships[tid]) if len(beach) == places[b]]


def full_anywhere(ships: tuple) -> list[tuple[int, int]]:
    found = []
    for tid in range(ISLAND_COUNT):
        if ships[tid]:
            found.extend(full_on(ships, tid))
    return found


def land_targets(island: tuple, tid: int, served: int) -> list[int]:
    """Beaches the next arriving ship may take (T13): first each beach with a free place once."""
    places = PLACES[tid]
    free = [b for b, beach in enumerate(island) if len(beach) < places[b]]
    unserved = [b for b in free if not served >> b & 1]
    return unserved or free


# ---------------------------------------------------------------------------------------
# Turn flow


def end_turn(s: State, ev: list) -> None:
    s.full = ()
    s.visited = ()
    s.forced = False
    s.landing = None
    s.turns += 1
    if s.turns >= MAX_TURNS:
        game_over(s, ev, REASON_TURNS)
        return
    s.seat = (s.seat + 1) % s.players
    s.phase = Phase.ACTION
    if not has_action(s, s.seat):
        game_over(s, ev, REASON_STUCK)


def has_action(s: State, seat: int) -> bool:
    """Whether `seat` has any action at the start of a turn (always, unless the map is sealed)."""
    if s.supply[seat] + sum(1 for k in s.kings if k == seat) < SHIPS_PER_PLAYER:
        return True  # a ship on a beach: expanding there is always possible
    if s.map.open_positions():
        return True
    return any(s.ships[t] and s.kings[t] < 0 for t in range(ISLAND_COUNT))


def game_over(s: State, ev: list, reason: str) -> None:
    s.phase = Phase.OVER
    s.reason = reason
    s.landing = None
    s.full = ()
    s.visited = ()
    s.forced = False
    ev.append(("end", reason))


def kind_left(pile: tuple, island: bool) -> bool:
    if island:
        return any(t < ISLAND_COUNT for t in pile)
    return any(t >= ISLAND_COUNT for t in pile)


def draw(s: State, ev: list, q: int, r: int, rot: int) -> tuple[int, bool]:
    """Lay the top tile of the pile at (q, r) with its red dot on world side `rot` (T3).

    Returns the tile and whether it was the last of its kind (T20).
    """
    tid = s.pile[0]
    s.pile = s.pile[1:]
    s.map = s.map.with_tile(tid, q, r, rot)
    island = tid < ISLAND_COUNT
    if island:
        s.ships = with_island(s.ships, tid, ((),) * BEACH_COUNT[tid])
    s.visited = ()
    s.forced = False
    ev.append(("draw", tid, q, r, rot))
    return tid, not kind_left(s.pile, island)


def begin_chain(s: State, ev: list, tid: int) -> None:
    """After an expansion or a T17 placement on island `tid`: end the turn (T10) or emigrate (T11)."""
    full = full_on(s.ships, tid)
    if not full:
        end_turn(s, ev)
        return
    s.full = tuple(full)
    s.visited = ()
    s.forced = False
    emigration_point(s, ev)


def emigration_point(s: State, ev: list) -> None:
    """The chain waits for the next emigration (T14), unless no beach is full or it is infinite (T16)."""
    if not s.full:
        end_turn(s, ev)
        return
    if s.ships in s.visited:
        s.forced = True  # the player went round a loop: from now on the shortest way out
    s.visited = s.visited + (s.ships,)
    s.phase = Phase.EMIGRATE
    if not escape_now(s):
        can_end, region = chain_can_end(s)
        if not can_end:
            infinite_chain(s, ev, region)


def escape_now(s: State) -> bool:
    """A full beach has a jetty whose fleet would reach an empty hex: the chain can end."""
    game_map = s.map
    for tid, b in s.full:
        fleet = s.ships[tid][b]
        colours = len(set(fleet))
        for d in JETTIES[tid][game_map.at[tid][2]][b]:
            kind, _, risk = game_map.path(tid, d)
            if kind == EMPTY and risk <= colours:
                return True
    return False


def emigrate(s: State, ev: list, tid: int, b: int, d: int) -> None:
    """All ships of a full beach set sail through one jetty (T11, T12)."""
    fleet = s.ships[tid][b]
    s.ships = with_beach(s.ships, tid, b, ())
    s.full = tuple(f for f in s.full if f != (tid, b))
    sail(s, ev, tid, d, fleet)


def sail(s: State, ev: list, origin: int, d: int, fleet: tuple) -> None:
    """Move a fleet out of island `origin` through world side d until it lands, sinks or the game ends."""
    colours = len(set(fleet))
    q, r, _ = s.map.at[origin]
    while True:
        dq, dr = STEP[d]
        q += dq
        r += dr
        entry = s.map.pos.get((q, r))
        if entry is None:
            rot = (d + 3) % 6
            tid, last = draw(s, ev, q, r, rot)
            if last and tid >= ISLAND_COUNT:
                s.at_sea = (tid, fleet)   # T21: the fleet stays at sea
                ev.append(("at_sea", tid, fleet))
                game_over(s, ev, REASON_WATER)
                return
            if last:
                s.final = True            # T21: land, then the game is over
            entry = (tid, rot)
        tid, rot = entry
        if tid < ISLAND_COUNT:
            if s.kings[tid] >= 0:       # T15: turned back to the island it set out from
                ev.append(("bounce", tid, origin))
                tid = origin
            begin_landing(s, ev, tid, fleet)
            return
        out, risk = CROSS[tid - ISLAND_COUNT][rot][(d + 3) % 6]
        if risk > colours:              # shipwreck: back to the owners
            ev.append(("wreck", tid, risk, fleet))
            add_supply(s, fleet)
            emigration_point(s, ev)
            return
        ev.append(("cross", tid, risk))
        d = out


def begin_landing(s: State, ev: list, tid: int, fleet: tuple) -> None:
    ev.append(("arrive", tid, fleet))
    s.landing = (tid, fleet, 0)
    s.phase = Phase.LAND
    landing_done(s, ev)


def land(s: State, ev: list, seat: int, b: int) -> None:
    """One arriving ship of colour `seat` onto beach b of the landing island (T13)."""
    tid, fleet, served = s.landing
    s.ships = with_beach(s.ships, tid, b, put(s.ships[tid][b], seat))
    s.landing = (tid, take(fleet, seat), served | 1 << b)
    landing_done(s, ev)


def landing_done(s: State, ev: list) -> None:
    """Finish the landing once every ship is placed or no place is free; then the chain goes on."""
    tid, fleet, served = s.landing
    if fleet and land_targets(s.ships[tid], tid, served):
        return
    if fleet:
        ev.append(("return", fleet))
        add_supply(s, fleet)
    s.landing = None
    if s.final:
        game_over(s, ev, REASON_ISLAND)
        return
    new = full_on(s.ships, tid)
    if new:
        s.full = tuple(sorted(set(s.full) | set(new)))
    emigration_point(s, ev)


def infinite_chain(s: State, ev: list, region: set[int]) -> None:
    """T16: the ships of the looping island go home, the tile leaves the game."""
    for tid in sorted(region):
        fleet = tuple(sorted(c for beach in s.ships[tid] for c in beach))
        add_supply(s, fleet)
        s.ships = with_island(s.ships, tid, ())
        s.map = s.map.without(tid)
        s.removed = s.removed + (tid,)
        ev.append(("infinite", tid, fleet))
    s.visited = ()
    s.forced = False
    s.full = tuple(full_anywhere(s.ships))
    if s.full:  # cannot happen: every full beach belongs to the region; kept for safety
        emigration_point(s, ev)
        return
    if not s.map.islands() or s.supply[s.seat] == SHIPS_PER_PLAYER:
        s.phase = Phase.TILE
        s.purpose = Purpose.RESTART
        if not s.map.open_positions():
            game_over(s, ev, REASON_STUCK)
        return
    end_turn(s, ev)


def lay_tile(s: State, ev: list, src: int, d: int) -> None:
    """T9/T16: the next tile goes next to side d of tile `src`; an island ends the search."""
    q, r, _ = s.map.at[src]
    dq, dr = STEP[d]
    tid, last = draw(s, ev, q + dq, r + dr, (d + 3) % 6)
    if tid < ISLAND_COUNT:
        s.phase = Phase.PLACE
        s.target = tid
        s.final = last
        return
    if last:
        game_over(s, ev, REASON_WATER)
    elif not s.map.open_positions():
        game_over(s, ev, REASON_STUCK)


def place_new(s: State, ev: list, b: int) -> None:
    """T9/T16: the player's one ship onto a beach of the island just drawn."""
    tid, seat = s.target, s.seat
    s.ships = with_beach(s.ships, tid, b, put(s.ships[tid][b], seat))
    s.supply = s.supply[:seat] + (s.supply[seat] - 1,) + s.supply[seat + 1:]
    s.target = -1
    if s.final:
        game_over(s, ev, REASON_ISLAND)
    else:
        end_turn(s, ev)


# ---------------------------------------------------------------------------------------
# The reachable positions of a chain (T16, and the way out after a repeated position)

ESCAPE = "escape"


def landing_outcomes(island: tuple, tid: int, fleet: tuple, served: int = 0) -> set[tuple]:
    """Every distinct island the landing of `fleet` can leave behind (T13), by any choices."""
    results, seen = set(), set()

    def visit(isl, rest, done):
        key = (isl, rest, done)
        if key in seen:
            return
        seen.add(key)
        targets = land_targets(isl, tid, done) if rest else ()
        if not targets:
            results.add(isl)
            return
        for seat in sorted(set(rest)):
            left = take(rest, seat)
            for b in targets:
                visit(isl[:b] + (put(isl[b], seat),) + isl[b + 1:], left, done | 1 << b)

    visit(island, fleet, served)
    return results


def emigration_result(s: State, ships: tuple, tid: int, b: int, d: int):
    """ESCAPE if this emigration draws a tile, else the positions it can lead to (no draw)."""
    fleet = ships[tid][b]
    base = with_beach(ships, tid, b, ())
    kind, target, risk = s.map.path(tid, d)
    if risk > len(set(fleet)):
        return [base]
    if kind == EMPTY:
        return ESCAPE
    dest = target if s.kings[target] < 0 else tid
    return [with_island(base, dest, isl) for isl in landing_outcomes(base[dest], dest, fleet)]


def _moves_of(s: State, ships: tuple):
    game_map = s.map
    for tid, b in full_anywhere(ships):
        for d in JETTIES[tid][game_map.at[tid][2]][b]:
            yield tid, b, d


def chain_can_end(s: State) -> tuple[bool, set[int]]:
    """Search the positions the chain can reach without drawing; (can it end?, islands involved)."""
    start = s.ships
    seen = {start}
    queue = deque([start])
    region = {tid for tid, _ in s.full}
    while queue:
        ships = queue.popleft()
        for tid, b, d in _moves_of(s, ships):
            result = emigration_result(s, ships, tid, b, d)
            if result is ESCAPE:
                return True, region
            for after in result:
                if not full_anywhere(after):
                    return True, region
                if after not in seen:
                    for t in range(ISLAND_COUNT):
                        if after[t] != ships[t]:
                            region.add(t)
                    seen.add(after)
                    queue.append(after)
                    if len(seen) > SEARCH_LIMIT:
                        return True, region
    return False, region


def distances(s: State, starts) -> dict | None:
    """Fewest emigrations to end the chain (or to draw a tile) from each reachable position."""
    succ, seen = {}, set(starts)
    queue = deque(seen)
    while queue:
        ships = queue.popleft()
        if not full_anywhere(ships):
            succ[ships] = ()
            continue
        nexts = []
        for tid, b, d in _moves_of(s, ships):
            result = emigration_result(s, ships, tid, b, d)
            if result is ESCAPE:
                nexts.append(ESCAPE)
                continue
            for after in result:
                nexts.append(after)
                if after not in seen:
                    seen.add(after)
                    queue.append(after)
                    if len(seen) > SEARCH_LIMIT:
                        return None
        succ[ships] = nexts
    preds: dict = {}
    for node, nexts in succ.items():
        for after in nexts:
            preds.setdefault(after, []).append(node)
    dist = {node: 0 for node, nexts in succ.items() if not nexts}
    dist[ESCAPE] = 0
    queue = deque(dist)
    while queue:
        node = queue.popleft()
        for before in preds.get(node, ()):
            if before not in dist:
                dist[before] = dist[node] + 1
                queue.append(before)
    return dist


INFINITE = 1 << 30


def shortest_emigrations(s: State, moves: list) -> list:
    """Forced mode: keep the emigrations (tid, b, d) that end the chain in the fewest steps."""
    results = [emigration_result(s, s.ships, tid, b, d) for tid, b, d in moves]
    starts = {after for res in results if res is not ESCAPE for after in res}
    dist = distances(s, starts)
    if dist is None:
        return moves
    values = [0 if res is ESCAPE else min(dist.get(after, INFINITE) for after in res) for res in results]
    best = min(values)
    return [m for m, v in zip(moves, values) if v == best]


def shortest_landings(s: State, moves: list) -> list:
    """Forced mode: keep the landing choices (seat, b) after which the chain can end soonest."""
    tid, fleet, served = s.landing
    island = s.ships[tid]
    outcomes = []
    for seat, b in moves:
        after = island[:b] + (put(island[b], seat),) + island[b + 1:]
        isles = landing_outcomes(after, tid, take(fleet, seat), served | 1 << b)
        outcomes.append([with_island(s.ships, tid, isl) for isl in isles])
    dist = distances(s, {o for group in outcomes for o in group})
    if dist is None:
        return moves
    values = [min(dist.get(o, INFINITE) for o in group) for group in outcomes]
    best = min(values)
    return [m for m, v in zip(moves, values) if v == best]


def tonga_on_board(s: State) -> bool:
    return s.map.at[TONGA] is not None
