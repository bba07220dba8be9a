"""Searches over the positions a chain can reach without drawing a tile (T16).

The emigration point (chain.emigration_point) asks two questions, rarely:
- Can this chain end at all? Cheap proofs first (`quick_end`, on ship counts); then
  `endless`, a best-first search. If no choices can end the chain, the islands it loops on
  leave the game (T16). The digest expects this only on a single island; random games also
  find closed groups of two islands fenced in by king islands, so the search is general.
- Under rules version tongiaki-2 only: after a chain came back to a position it already had
  (the player went round a loop), which line of play ends it? The engine then plays that line.
- Since tongiaki-3 (issue 40): would every landing of a fleet give a position the chain already
  had (`every_landing_in`)? Then the move is not offered.

Nothing here changes a state; positions are `ships` tuples (see beaches.py).
"""

from __future__ import annotations

from functools import lru_cache
from heapq import heappop, heappush
from itertools import combinations
from operator import le

from engine.tongiaki.beaches import full_on, land_targets, put, take, with_beach, with_island
from engine.tongiaki.state import EMPTY, State
from engine.tongiaki.tiles import JETTIES, PLACES

SEARCH_LIMIT = 5_000   # positions of the quick search (one colour order per landing pattern)
EXACT_LIMIT = 20_000   # positions of the exact search (every colour choice)
# Since tongiaki-3, later in a chain (no tile drawn since its first emigration, whose search found a way
# out): a chain can no longer go round for ever (it never repeats a position), so these searches only
# shorten one that wandered where it cannot end, and look at fewer positions (docs: recorded decision 2).
AGAIN_LIMITS = (500, 2_000)


def landing_outcomes(island: tuple, tid: int, fleet: tuple, served: int = 0) -> set[tuple]:
    """Every distinct island a landing of `fleet` can leave behind (T13), by any choices."""
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


def could_become(island: tuple, others) -> list:
    """The islands of `others` that landing ships on `island` could still give: as many ships or more on
    every beach (ships only ever arrive)."""
    counts = tuple(map(len, island))
    return [other for other in others if all(map(le, counts, map(len, other)))]


def every_landing_in(island: tuple, tid: int, fleet: tuple, served: int, avoid, memo: dict | None = None) -> bool:
    """Whether every way of landing `fleet` (T13) leaves the island as one of `avoid` (issue 40).

    Stops at the first landing that does not; `avoid` is small (islands of earlier positions).
    `memo` may be shared by calls with the same island, `tid` and `avoid` (the landings after each
    first ship of one fleet).
    """
    targets = land_targets(island, tid, served) if fleet else ()
    if not targets:
        return island in avoid
    live = could_become(island, avoid)
    # A first ship onto a beach that holds as many ships as in each of them already rules them all out.
    if not live or any(all(len(island[b]) >= len(other[b]) for other in live) for b in targets):
        return False
    avoid = set(live)
    memo = {} if memo is None else memo

    def only_avoided(isl, rest, done):
        key = (isl, rest, done)
        found = memo.get(key)
        if found is None:
            targets = land_targets(isl, tid, done) if rest else ()
            if not targets:
                found = isl in avoid
            elif not could_become(isl, avoid):
                found = False  # a beach already holds more ships than in each of them: no landing ends there
            else:
                found = all(only_avoided(isl[:b] + (put(isl[b], seat),) + isl[b + 1:], take(rest, seat), done | 1 << b)
                            for seat in sorted(set(rest)) for b in targets)
            memo[key] = found
        return found

    return only_avoided(island, fleet, served)


def quiet_landing(counts: list, tid: int, ships: int) -> list | None:
    """Ships added per beach by a landing of `ships` that fills no beach (T13), or None if none can.

    Colours do not matter for filling a beach, so this is decided on counts alone.
    """
    places = PLACES[tid]
    room = [places[b] - n for b, n in enumerate(counts)]
    free = [b for b, n in enumerate(room) if n > 0]
    added = [0] * len(room)
    if ships < len(free):  # one ship each on some beaches: those with 2+ free places
        roomy = [b for b in free if room[b] >= 2]
        if len(roomy) < ships:
            return None
        for b in roomy[:ships]:
            added[b] = 1
        return added
    if any(room[b] < 2 for b in free) or ships > sum(room[b] - 1 for b in free):
        return None
    left = ships - len(free)
    for b in free:
        extra = min(left, room[b] - 2)
        added[b] = 1 + extra
        left -= extra
    return added


def can_fill_towards_empty(s: State, counts: list, tid: int, fleet: tuple) -> bool:
    """Whether landing `fleet` can fill a beach whose jetty then surely reaches an empty hex."""
    places = PLACES[tid]
    room = [places[b] - n for b, n in enumerate(counts)]
    free = sum(1 for n in room if n > 0)
    ships = len(fleet)
    most = ships - free + 1 if ships >= free else 1  # the most ships one beach can get (T13)
    rot = s.map.at[tid][2]
    kinds = set(fleet)
    for b, jetties in enumerate(JETTIES[tid][rot]):
        if not 0 < room[b] <= most:
            continue
        there = s.ships[tid][b]
        if counts[b] == len(there):  # the colours already there are known
            colours = len(set(there)) + min(room[b], len(kinds - set(there)))
        else:
            colours = min(room[b], len(kinds))
        for d in jetties:
            kind, _, risk = s.map.path(tid, d)
            if kind == EMPTY and risk <= colours:
                return True
    return False


def quick_end(s: State) -> bool:
    """A cheap proof that the chain can end: each full beach in turn sails and lands filling nothing.

    Works on ship counts. False only means that the search (`endless`) must decide.
    """
    game_map = s.map
    counts: dict = {}

    def of(tid):
        if tid not in counts:
            counts[tid] = [len(beach) for beach in s.ships[tid]]
        return counts[tid]

    for tid, b in s.full:
        fleet = s.ships[tid][b]
        colours = len(set(fleet))
        for d in JETTIES[tid][game_map.at[tid][2]][b]:
            kind, target, risk = game_map.path(tid, d)
            if kind == EMPTY and risk <= colours:
                return True
            src = of(tid)
            src[b] = 0
            if risk > colours:  # shipwreck
                break
            dest = target if s.kings[target] < 0 else tid
            now = of(dest)
            added = quiet_landing(now, dest, len(fleet))
            if added is not None:
                for i, n in enumerate(added):
                    now[i] += n
                break
            if can_fill_towards_empty(s, now, dest, fleet):
                return True
            src[b] = len(fleet)
        else:
            return False
    return True


@lru_cache(maxsize=4096)
def _count_patterns(room: tuple, k: int) -> tuple:
    """Every legal vector of ships added per beach (T13) for `k` ships and the free places `room`."""
    free = [b for b, n in enumerate(room) if n > 0]
    if k < len(free):
        return tuple(tuple(1 if b in chosen else 0 for b in range(len(room))) for chosen in combinations(free, k))
    spare = [n - 1 if n > 0 else 0 for n in room]
    patterns = []

    def spread(b, left, acc):
        if b == len(room):
            if not left:
                patterns.append(tuple((1 if room[i] > 0 else 0) + acc[i] for i in range(len(room))))
            return
        for n in range(min(left, spare[b]), -1, -1):
            spread(b + 1, left - n, acc + [n])

    spread(0, min(k - len(free), sum(spare)), [])
    return tuple(patterns)


def count_landings(island: tuple, tid: int, fleet: tuple) -> list[tuple]:
    """One landing (T13) per pattern of ship counts per beach; ships go in seat order, beach by beach."""
    places = PLACES[tid]
    room = tuple(places[b] - len(beach) for b, beach in enumerate(island))
    results = []
    for counts in _count_patterns(room, len(fleet)):
        isl = list(island)
        i = 0
        for b, n in enumerate(counts):
            if n:
                isl[b] = tuple(sorted(isl[b] + fleet[i:i + n]))
                i += n
        results.append(tuple(isl))
    return results


class Outcome:
    """What a search over a chain's positions found."""

    __slots__ = ("line", "exhausted", "risky", "region")

    def __init__(self, line, exhausted, risky, region):
        self.line = line            # steps (tid, beach, side, landing) that end the chain, or None
        self.exhausted = exhausted  # every reachable position was seen (no limit hit)
        self.risky = risky          # some crossing on the way had a risk number of 2 or more
        self.region = region        # islands whose ships changed in some reachable position


def explore(s: State, landings=None, limit: int = SEARCH_LIMIT) -> Outcome:
    """Best-first search for a line of emigrations that ends the chain, without drawing a tile.

    A step is (tid, beach, side, landing); `landing` is (island, its beaches after the
    landing) or None (shipwreck, or the drawn tile that ends the search). Positions with
    fewer full beaches, then fewer ships, are tried first. `landings` lists the landings
    tried per fleet: `count_landings` (default; one per pattern of counts) or
    `landing_outcomes` (every colour choice, exact).
    """
    landings = landings or count_landings
    game_map, kings = s.map, s.kings
    parent = {s.ships: None}
    heap = [(0, 0, 0, s.ships, list(s.full))]
    counter = 0
    risky = False
    region = {tid for tid, _ in s.full}

    def line(ships, last):
        steps = [last] if last else []
        while parent[ships] is not None:
            ships, step = parent[ships]
            steps.append(step)
        return tuple(reversed(steps))

    while heap:
        _, total, _, ships, full = heappop(heap)
        for tid, b in full:
            fleet = ships[tid][b]
            colours = len(set(fleet))
            for d in JETTIES[tid][game_map.at[tid][2]][b]:
                kind, target, risk = game_map.path(tid, d)
                risky = risky or risk >= 2
                if risk <= colours and kind == EMPTY:
                    return Outcome(line(ships, (tid, b, d, None)), False, risky, region)
                base = with_beach(ships, tid, b, ())
                if risk > colours:
                    dest = tid
                    outcomes = [(base, None)]
                else:
                    dest = target if kings[target] < 0 else tid
                    region.add(dest)
                    isles = landings(base[dest], dest, fleet)
                    outcomes = [(with_island(base, dest, isl), (dest, isl))
                                for isl in (isles if isinstance(isles, list) else sorted(isles))]
                before = sum(len(x) for x in base[dest])
                others = [f for f in full if f[0] != dest and f != (tid, b)]
                for after, landing in outcomes:
                    if after in parent:
                        continue
                    parent[after] = (ships, (tid, b, d, landing))
                    after_full = sorted(others + full_on(after, dest))
                    if not after_full:
                        return Outcome(line(after, None), False, risky, region)
                    if len(parent) > limit:
                        return Outcome(None, False, risky, region)
                    counter += 1
                    ships_after = total - len(fleet) + sum(len(x) for x in after[dest]) - before
                    heappush(heap, (len(after_full), ships_after, counter, after, after_full))
    return Outcome(None, True, risky, region)


def endless(s: State, limits: tuple[int, int] = (SEARCH_LIMIT, EXACT_LIMIT)) -> Outcome:
    """T16: search whether any choices end the chain; `.line` is None if none can.

    The quick search lands fleets in one colour order per count pattern; only if it finds
    no way out while some crossing depends on the number of colours, the exact search
    tries every colour choice. A search that hits its limit counts as a way out.
    """
    found = explore(s, limit=limits[0])
    if found.line is None and found.exhausted and found.risky:
        found = explore(s, landing_outcomes, limits[1])
    return found
