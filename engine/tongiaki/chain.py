"""What happens after ships are placed: emigration, sailing, landing, chain moves (T10..T16, T20, T21).

The functions here change a freshly copied `State` in place (only by re-assigning its
fields) and append what happened to an event list; `rules.apply` owns the copy. They do
not decide anything a player decides: the moves come from `rules`; `open_emigrations` and
`fresh_landings` tell it which moves of a chain do not bring it back to a position it had
(rules version tongiaki-3, issue 40). The one place that reveals something hidden is `draw`
(the top of the pile): a preview stops there (issue 31).
"""

from __future__ import annotations

from engine.core import DRAW, ChanceAhead, Message
from engine.tongiaki import search
from engine.tongiaki.beaches import full_on, land_targets, put, take, with_beach, with_island
from engine.tongiaki.state import EMPTY, SHIPS_PER_PLAYER, V2, Phase, Purpose, State
from engine.tongiaki.tiles import BEACH_COUNT, CROSS, ISLAND_COUNT, JETTIES, PLACES, STEP

CAPACITY = tuple(map(sum, PLACES))  # places on each island's beaches together (water tiles: none)

MAX_TURNS = 1_000  # safety valve, never reached in play (docs: recorded decisions)

REASON_WATER = Message("The last water tile has been laid.")
REASON_ISLAND = Message("The last island tile has been laid.")
REASON_TURNS = Message("The game reached the limit of %(turns)s turns.", turns=MAX_TURNS)
REASON_STUCK = Message("No tile can be laid and the player to move has no action.")
# The state keeps the English sentence (as results and archives do); its Message, by that sentence.
REASONS = {str(reason): reason for reason in (REASON_WATER, REASON_ISLAND, REASON_TURNS, REASON_STUCK)}


def add_supply(s: State, seats) -> None:
    supply = list(s.supply)
    for c in seats:
        supply[c] += 1
    s.supply = tuple(supply)


# ---------------------------------------------------------------------------------------
# Turn flow


def end_turn(s: State, ev: list) -> None:
    """The next seat's turn begins (or the game ends at the safety limit)."""
    s.full = ()
    s.visited = ()
    s.plan = ()
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
    if s.map.has_open():
        return True
    return any(s.ships[t] and s.kings[t] < 0 for t in range(ISLAND_COUNT))


def game_over(s: State, ev: list, reason: Message) -> None:
    s.phase = Phase.OVER
    s.reason = str(reason)
    s.landing = None
    s.full = ()
    s.visited = ()
    s.plan = ()
    ev.append(("end", str(reason)))


def kind_left(pile: tuple, island: bool) -> bool:
    if island:
        return any(t < ISLAND_COUNT for t in pile)
    return any(t >= ISLAND_COUNT for t in pile)


def draw(s: State, ev: list, q: int, r: int, rot: int, fleet: tuple = ()) -> tuple[int, bool]:
    """Lay the top tile of the pile at (q, r) with its red dot on world side `rot` (T3).

    Returns the tile and whether it was the last of its kind (T20). In a preview nothing is
    drawn: the state keeps where the tile would go and the fleet sailing there (ChanceAhead).
    """
    if s.previewing:
        s.chance = (DRAW, q, r, fleet)
        raise ChanceAhead(DRAW)
    tid = s.pile[0]
    s.pile = s.pile[1:]
    s.map = s.map.with_tile(tid, q, r, rot)
    island = tid < ISLAND_COUNT
    if island:
        s.ships = with_island(s.ships, tid, ((),) * BEACH_COUNT[tid])
    s.visited = ()
    s.plan = ()
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
    s.plan = ()
    emigration_point(s, ev)


def emigration_point(s: State, ev: list) -> None:
    """The chain waits for the next emigration (T14), unless no beach is full or it is endless (T16)."""
    if not s.full:
        end_turn(s, ev)
        return
    if s.version == V2:
        _emigration_point_v2(s, ev)
        return
    s.visited = s.visited + (s.ships,)
    s.phase = Phase.EMIGRATE
    if escape_now(s):
        return  # a fleet can sail into the unknown: a tile is drawn, nothing repeats
    if not search.quick_end(s):
        found = search.endless(s) if len(s.visited) == 1 else search.endless(s, search.AGAIN_LIMITS)
        if found.line is None and found.exhausted:
            infinite_chain(s, ev, found.region)
    # When every emigration would repeat a position, the rules find no move here: `no_way_on`.


def _emigration_point_v2(s: State, ev: list) -> None:
    """Rules version tongiaki-2: after the chain came back to a position, the engine plays a line out."""
    repeated = s.ships in s.visited
    s.visited = s.visited + (s.ships,)
    s.phase = Phase.EMIGRATE
    if s.plan or (not repeated and (escape_now(s) or search.quick_end(s))):
        return  # the chain can end (the engine's line out of a loop ends it for sure)
    found = search.endless(s)
    if found.line is None:
        if found.exhausted:
            infinite_chain(s, ev, found.region)
    elif repeated and not s.plan:
        s.plan = found.line  # the player went round a loop: the engine plays a line out of it


# ---------------------------------------------------------------------------------------
# No position twice in a chain (since tongiaki-3, issue 40; docs: recorded decision 3)
#
# The positions of a chain between two draws are `ships` tuples, one recorded at each emigration
# point (`visited`). A move is not offered when, whatever the choices after it, the chain comes
# back to one of them; so no position repeats, there are finitely many, and every chain ends.


def _earlier(s: State) -> tuple:
    """The positions this chain already had (the current one included); none under tongiaki-2."""
    return s.visited if s.version != V2 else ()


def _candidates(earlier: tuple, ships: tuple, tid: int) -> set:
    """Island `tid` of each earlier position that equals `ships` on every other island."""
    before, after = ships[:tid], ships[tid + 1:]
    return {pos[tid] for pos in earlier if pos[:tid] == before and pos[tid + 1:] == after}


def open_emigrations(s: State) -> list[tuple[int, int, int]]:
    """The emigrations (island, beach, side) offered now (T11): every jetty of every full beach, but since
    tongiaki-3 none whose fleet can only land so that the chain is back at a position it had."""
    earlier = _earlier(s)
    game_map, kings = s.map, s.kings
    found = []
    for tid, b in s.full:
        jetties = JETTIES[tid][game_map.at[tid][2]][b]
        island = s.ships[tid]
        # A fleet landing on another island can bring back only a position where this beach is empty.
        # One that comes home (turned back, or round to its own island) only one with this island's
        # other beaches as they are now.
        elsewhere = [pos for pos in earlier if not pos[tid][b]]
        if not elsewhere and (len(earlier) < 2 and _room_elsewhere(island, tid, b)):
            # Nothing to come back to (always so under tongiaki-2); or, at the chain's first emigration,
            # only this position, which a fleet coming home does not have to land as (its first ship may
            # take another beach).
            found += [(tid, b, d) for d in jetties]
            continue
        fleet = island[b]
        colours = len(set(fleet))
        home = None  # this island in the positions that equal this one elsewhere: a fleet turned back may repeat
        for d in jetties:
            kind, target, risk = game_map.path(tid, d)
            # A fleet that reaches an empty hex draws a tile; a shipwreck sends the ships home, and a
            # chain never gains ships, so the board then has fewer than at any position before.
            if kind != EMPTY and risk <= colours:
                dest = target if kings[target] < 0 else tid  # T15: turned back to where it set out from
                if dest == tid:  # back home (turned back, or sailed round to its own island)
                    if home is None:
                        home = _candidates(earlier, s.ships, tid)
                        if home == {island} and _room_elsewhere(island, tid, b):
                            home = set()
                    if home and search.every_landing_in(island[:b] + ((),) + island[b + 1:], tid, fleet, 0, home):
                        continue
                elif elsewhere and _lands_elsewhere_only_as_before(s, elsewhere, tid, b, dest, fleet):
                    continue
            found.append((tid, b, d))
    return found


def repeats_emigration(s: State, tid: int, b: int, d: int) -> bool:
    """Whether sailing beach b of island tid through side d brings the chain back to a position it
    had, however the fleet lands (T12, T13, T15)."""
    return (tid, b, d) not in open_emigrations(s)


def _room_elsewhere(island: tuple, tid: int, b: int) -> bool:
    """Whether a beach of island tid other than b has a free place."""
    return any(len(there) < places for j, (there, places) in enumerate(zip(island, PLACES[tid])) if j != b)


def _lands_elsewhere_only_as_before(s: State, earlier: list, tid: int, b: int, dest: int, fleet: tuple) -> bool:
    """Whether the fleet of beach b of island tid, landing on another island `dest`, can only land so that
    the board is one of the `earlier` positions (those of the chain with that beach empty)."""
    base = with_beach(s.ships, tid, b, ())
    avoid = _candidates(earlier, base, dest)
    return bool(avoid) and search.every_landing_in(base[dest], dest, fleet, 0, avoid)


def _landing_candidates(s: State, tid: int, origin: int, beach: int) -> frozenset:
    """Island `tid` of each position the chain had that a landing of the fleet from `beach` of island
    `origin` could bring back: the same ships on every other island (so, unless the fleet came back
    to `origin`, with that beach empty)."""
    earlier = s.visited if tid == origin else [pos for pos in s.visited if not pos[origin][beach]]
    return _as_many_ships(s, frozenset(_candidates(earlier, s.ships, tid))) if earlier else frozenset()


def _as_many_ships(s: State, islands) -> frozenset:
    """Those of `islands` with as many ships as island s.landing[0] has once the landing fleet is ashore
    (every ship lands while a place is free, the rest go home: T13). The others can never come out of
    this landing, and most landings are then left with none to check."""
    tid, fleet, _ = s.landing
    ashore = min(CAPACITY[tid], sum(map(len, s.ships[tid])) + len(fleet))
    return frozenset(island for island in islands if sum(map(len, island)) == ashore)


def fresh_landings(s: State, options: list) -> list:
    """The (seat, beach) landings after which some way of landing the rest of the fleet gives a
    position the chain did not have yet (T13)."""
    earlier = _earlier(s)
    if not earlier:
        return options
    tid, fleet, served = s.landing
    if s.repeatable is None:  # not worked out when the landing began (a state read from JSON): now
        s.repeatable = _as_many_ships(s, _candidates(earlier, s.ships, tid))
    if not s.repeatable:
        return options
    island = s.ships[tid]
    # Only earlier islands with at least as many ships on every beach can still come out of this landing
    # (kept for its next ships: ships only ever arrive, so an island ruled out stays ruled out).
    avoid = s.repeatable = frozenset(search.could_become(island, s.repeatable))
    if not avoid:
        return options
    memo: dict = {}
    return [(seat, b) for seat, b in options
            if all(len(island[b]) >= len(other[b]) for other in avoid)  # one ship more there than in each
            or not search.every_landing_in(island[:b] + (put(island[b], seat),) + island[b + 1:], tid,
                                           take(fleet, seat), served | 1 << b, avoid, memo)]


def no_way_on(s: State, ev: list) -> None:
    """T16 (issue 40): every emigration of every full beach would bring the chain back to a position it
    had, so no choice allowed can end it; the islands it went round leave the game."""
    infinite_chain(s, ev, went_round(s))


def went_round(s: State) -> set:
    """The islands a chain with no way on went round (T16, issue 40): those whose ships changed since
    the chain began, and those with a full beach."""
    first = s.visited[0]
    region = {tid for tid, _ in s.full}
    for pos in s.visited[1:]:
        region.update(t for t in range(ISLAND_COUNT) if pos[t] != first[t])
    return region


def escape_now(s: State) -> bool:
    """A full beach has a jetty whose fleet would reach an empty hex: the chain can end."""
    game_map = s.map
    for tid, b in s.full:
        colours = len(set(s.ships[tid][b]))
        for d in JETTIES[tid][game_map.at[tid][2]][b]:
            kind, _, risk = game_map.path(tid, d)
            if kind == EMPTY and risk <= colours:
                return True
    return False


def emigrate(s: State, ev: list, tid: int, b: int, d: int) -> None:
    """All ships of a full beach set sail through one jetty (T11, T12)."""
    if s.plan:  # the move is the plan's next step (rules offer nothing else)
        s.aim = s.plan[0][3]
        s.plan = s.plan[1:]
    fleet = s.ships[tid][b]
    s.ships = with_beach(s.ships, tid, b, ())
    s.full = tuple(f for f in s.full if f != (tid, b))
    sail(s, ev, tid, d, fleet, b)


def sail(s: State, ev: list, origin: int, d: int, fleet: tuple, beach: int) -> None:
    """Move a fleet out of beach `beach` of island `origin` through world side d until it lands, sinks or
    the game ends."""
    colours = len(set(fleet))
    q, r, _ = s.map.at[origin]
    while True:
        dq, dr = STEP[d]
        q += dq
        r += dr
        entry = s.map.pos.get((q, r))
        if entry is None:
            rot = (d + 3) % 6
            tid, last = draw(s, ev, q, r, rot, fleet)
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
            begin_landing(s, ev, tid, fleet, origin, beach)
            return
        out, risk = CROSS[tid - ISLAND_COUNT][rot][(d + 3) % 6]
        if risk > colours:              # shipwreck: back to the owners
            ev.append(("wreck", tid, risk, fleet))
            add_supply(s, fleet)
            emigration_point(s, ev)
            return
        ev.append(("cross", tid, risk))
        d = out


def begin_landing(s: State, ev: list, tid: int, fleet: tuple, origin: int, beach: int) -> None:
    ev.append(("arrive", tid, fleet))
    s.landing = (tid, fleet, 0)
    s.repeatable = _landing_candidates(s, tid, origin, beach) if s.version != V2 and s.visited else None
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
    s.aim = None
    if s.final:
        game_over(s, ev, REASON_ISLAND)
        return
    new = full_on(s.ships, tid)
    if new:
        s.full = tuple(sorted(set(s.full) | set(new)))
    emigration_point(s, ev)


def infinite_chain(s: State, ev: list, region) -> None:
    """T16: the ships of the looping islands go back to their owners and the tiles leave the game."""
    for x in sorted(region):
        fleet = tuple(sorted(c for beach in s.ships[x] for c in beach))
        add_supply(s, fleet)
        s.ships = with_island(s.ships, x, ())
        s.map = s.map.without(x)
        s.removed = s.removed + (x,)
        ev.append(("infinite", x, fleet))
    s.visited = ()
    s.plan = ()
    s.full = ()
    if not s.map.islands() or s.supply[s.seat] == SHIPS_PER_PLAYER:
        s.phase = Phase.TILE
        s.purpose = Purpose.RESTART
        if not s.map.has_open():
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
    elif not s.map.has_open():
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


