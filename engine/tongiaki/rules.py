"""Tongiaki's rules object: legal moves, apply, parse and notation, result (T1..T23).

`legal_moves` is computed once per state and cached in it together with what each move
does, so `apply` never re-derives a move from its text. Decisions that have exactly one
legal choice (an only full beach with an only jetty, the only way to land a ship, the last
free Tonga beach of the setup, an only open position) are taken by the engine inside `apply`
and reported as "auto" events. `preview` does the same up to the first tile drawn (issue 31).
A game plays under the rules version it began with (`for_version`; the state names it, issue 40).
"""

from __future__ import annotations

from itertools import combinations

from engine.core import NOT_A_POSITION, ChanceAhead, IllegalMove, Preview, Result, Rng, Rules, rank_by
from engine.tongiaki import aliases, chain, moves, orders, state as st, view as views
from engine.tongiaki.beaches import land_targets, put, take, with_beach, with_island
from engine.tongiaki.state import COLOURS, Phase, Purpose, State
from engine.tongiaki.tiles import BEACH_COUNT, ISLAND_COUNT, NAMES, PLACES, TILE_COUNT, TONGA

VERSION = st.LATEST  # and the older versions it still plays: st.VERSIONS


# ---------------------------------------------------------------------------------------
# Legal moves: (moves in a stable order, what each one does)


def _legal(s: State) -> tuple[list, list]:
    if s.cache is None:
        s.cache = ([], []) if s.chance is not None else _compute(s)  # a stopped preview: nobody moves
    return s.cache


def _compute(s: State) -> tuple[list, list]:
    phase = s.phase
    if phase == Phase.ACTION:
        return _action_moves(s)
    ms: list = []
    ws: list = []
    if phase == Phase.EMIGRATE:
        if s.plan:  # tongiaki-2: after a loop the engine plays its line out of the chain
            options = [s.plan[0][:3]]
        else:  # since tongiaki-3 no move that only brings the chain back to a position it had (issue 40)
            options = chain.open_emigrations(s)
        for tid, b, d in options:
            ms.append(moves.EMIGRATE[tid][b][d])
            ws.append(("emigrate", tid, b, d))
    elif phase == Phase.LAND:
        tid, fleet, served = s.landing
        island = s.ships[tid]
        land = moves.LAND
        targets = land_targets(island, tid, served)
        options = [(seat, b) for seat in sorted(set(fleet)) for b in targets]
        if s.repeatable or (s.repeatable is None and s.visited and s.version != st.V2):  # may repeat a position
            options = chain.fresh_landings(s, options)
        if s.aim is not None and s.aim[0] == tid:  # tongiaki-2: the line out of a loop lands exactly so
            goal = s.aim[1]
            options = [(seat, b) for seat, b in options if goal[b].count(seat) > island[b].count(seat)][:1] or options
        for seat, b in options:
            ms.append(land[s.colours[seat]][tid][b])
            ws.append(("land", seat, b))
    elif phase == Phase.TILE:
        return moves.tile_moves(s.map)
    elif phase == Phase.PLACE:
        tid = s.target
        for b, beach in enumerate(s.ships[tid]):
            if len(beach) < PLACES[tid][b]:
                ms.append(moves.PLACE1[tid][b])
                ws.append(("new", b))
    elif phase == Phase.SETUP:
        for b, beach in enumerate(s.ships[TONGA]):
            if len(beach) < 2:
                ms.append(moves.PLACE1[TONGA][b])
                ws.append(("setup", b))
    return ms, ws


def _action_moves(s: State) -> tuple[list, list]:
    seat, ships, kings = s.seat, s.ships, s.kings
    supply = s.supply[seat]
    mine = []
    for tid in s.map.island_ids:
        count = total = 0
        for beach in ships[tid]:
            if beach:
                total += len(beach)
                if seat in beach:
                    count += beach.count(seat)
        if count:
            mine.append((tid, count, total - count))
    ms: list = []
    ws: list = []
    if not mine:
        _no_ship_moves(s, ms, ws)  # T17
    elif supply:
        for tid, count, _ in mine:  # T7, T19
            nb = BEACH_COUNT[tid]
            more, what = moves.EXPAND_LISTS[tid][min(count, nb, supply)]
            ms.extend(more)
            ws.extend(what)
    else:
        sources = [(t, b) for t, _, _ in mine for b, beach in enumerate(ships[t]) if seat in beach]
        shifts = [("shift", tid, b, src, src_b) for tid, _, _ in mine for b in range(BEACH_COUNT[tid])
                  for src, src_b in sources if src != tid or src_b != b]  # T18
        ms.extend([moves.shift(*what[1:]) for what in shifts])
        ws.extend(shifts)
    if mine and kings.count(seat) < 2:  # T8
        for tid, _, others in mine:
            if tid != TONGA and not others:
                ms.append(moves.KING[tid])
                ws.append(("king", tid))
    if s.map.has_open():  # T9
        ms.append(moves.SETTLE)
        ws.append(("settle",))
    return ms, ws


def _no_ship_moves(s: State, ms: list, ws: list) -> None:
    """T17: two ships on TONGA, or one on another island that is not a king island."""
    ships = s.ships
    if ships[TONGA]:
        free = [b for b, beach in enumerate(ships[TONGA]) if len(beach) < PLACES[TONGA][b]]
        for pair in combinations(free, 2):
            ms.append(moves.PLACE2[pair])
            ws.append(("place", TONGA, pair))
    for tid in range(1, ISLAND_COUNT):
        if ships[tid] and s.kings[tid] < 0:
            for b, beach in enumerate(ships[tid]):
                if len(beach) < PLACES[tid][b]:
                    ms.append(moves.PLACE1[tid][b])
                    ws.append(("place", tid, (b,)))


# ---------------------------------------------------------------------------------------
# Doing a move


def _do(s: State, ev: list, what: tuple) -> None:
    kind = what[0]
    seat = s.seat
    if kind == "emigrate":
        chain.emigrate(s, ev, what[1], what[2], what[3])
    elif kind == "land":
        chain.land(s, ev, what[1], what[2])
    elif kind == "expand" or kind == "place":
        tid, beaches = what[1], what[2]
        isl = list(s.ships[tid])
        for b in beaches:
            isl[b] = put(isl[b], seat)
        s.ships = with_island(s.ships, tid, tuple(isl))
        s.supply = s.supply[:seat] + (s.supply[seat] - len(beaches),) + s.supply[seat + 1:]
        chain.begin_chain(s, ev, tid)
    elif kind == "shift":
        _, tid, b, src, src_b = what
        s.ships = with_beach(s.ships, src, src_b, take(s.ships[src][src_b], seat))
        s.ships = with_beach(s.ships, tid, b, put(s.ships[tid][b], seat))
        chain.begin_chain(s, ev, tid)
    elif kind == "setup":
        s.ships = with_beach(s.ships, TONGA, what[1], put(s.ships[TONGA][what[1]], seat))
        s.supply = s.supply[:seat] + (s.supply[seat] - 1,) + s.supply[seat + 1:]
        s.placed += 1
        if s.placed == 2 * s.players:
            s.phase = Phase.ACTION
            s.seat = 0
        else:
            s.seat = s.placed % s.players
    elif kind == "king":
        tid = what[1]
        count = sum(len(beach) for beach in s.ships[tid])
        s.ships = with_island(s.ships, tid, ((),) * BEACH_COUNT[tid])
        s.kings = s.kings[:tid] + (seat,) + s.kings[tid + 1:]
        s.supply = s.supply[:seat] + (s.supply[seat] + count - 1,) + s.supply[seat + 1:]
        chain.end_turn(s, ev)
    elif kind == "settle":
        back = 0
        ships = list(s.ships)
        for tid, isl in enumerate(ships):
            if any(seat in beach for beach in isl):
                back += sum(beach.count(seat) for beach in isl)
                ships[tid] = tuple(tuple(c for c in beach if c != seat) for beach in isl)
        s.ships = tuple(ships)
        s.supply = s.supply[:seat] + (s.supply[seat] + back,) + s.supply[seat + 1:]
        s.phase = Phase.TILE
        s.purpose = Purpose.SETTLE
    elif kind == "tile":
        chain.lay_tile(s, ev, what[1], what[2])
    elif kind == "new":
        chain.place_new(s, ev, what[1])
    else:  # pragma: no cover - _compute produces no other kind
        raise AssertionError(kind)


_BY_VERSION: dict = {}  # older rules versions, made when a game of one is met (for_version)


class TongiakiRules(Rules):
    """Tongiaki (Thomas Rauscher, Schmidt Spiele 2004) for 2 to 6 players."""

    name = "tongiaki"
    title = "Tongiaki"
    version = VERSION
    min_players = 2
    max_players = 6
    colours = COLOURS
    takes_orders = True
    command_aliases = aliases.ACTIONS  # the manuals' words for the commands (aliases.py)
    options = ()
    max_decisions = 100_000

    def __init__(self, version: str = VERSION):
        if version not in st.VERSIONS:
            raise ValueError(f"no Tongiaki rules version {version!r}")
        self.version = version

    def for_version(self, version):
        """The rules of `version` if this engine still plays it (st.VERSIONS), else these."""
        if version == self.version or version not in st.VERSIONS:
            return self
        if version not in _BY_VERSION:
            _BY_VERSION[version] = TongiakiRules(version)
        return _BY_VERSION[version]

    def setup(self, players, options, seed):
        self.check_players(players)
        self.check_options(options)
        colours = self.seat_colours(players, options)  # T1: one colour per player
        rng = Rng(seed)
        pile = list(range(1, TILE_COUNT))  # T2: 15 islands and 16 water tiles; TONGA is laid
        rng.shuffle(pile)
        return st.new_state(players, tuple(pile), rng, colours=colours, version=self.version)

    def to_move(self, state):
        return None if state.phase == Phase.OVER or state.chance is not None else state.seat

    def legal_moves(self, state):
        return list(_legal(state)[0])

    def apply(self, state, move):
        return self._advance(state, move, False)

    def apply_traced(self, state, move):
        """`apply`, and each decision it made by itself: (the position then, the only legal move)."""
        trace: list = []
        return self._advance(state, move, False, trace), trace

    def preview(self, state, move):
        """The move and the decisions with one choice after it, up to the first tile drawn from the
        pile (a fleet sailing to an empty hex, a tile laid at an open position): the preview stops there."""
        s = self._advance(state, move, True)
        return Preview(s, None if s.chance is None else s.chance[0])

    def _advance(self, state, move, previewing, trace=None):
        if state.chance is not None:
            raise IllegalMove(NOT_A_POSITION)
        legal, whats = _legal(state)
        what = None
        for i, known in enumerate(legal):  # moves handed out by legal_moves come back as the same objects
            if known is move:
                what = whats[i]
                break
        else:
            if move in legal:
                what = whats[legal.index(move)]
        if what is None:
            raise IllegalMove(views.why_illegal(state, move, legal))
        s = state.copy()
        s.previewing = previewing
        ev: list = []
        s.last = (state.seat, move)
        try:
            _do(s, ev, what)
            while s.phase != Phase.OVER:
                legal, whats = _compute(s)
                if not legal and s.phase == Phase.EMIGRATE:  # each way on repeats a position (T16, issue 40)
                    chain.no_way_on(s, ev)
                    continue
                if len(legal) != 1:
                    s.cache = (legal, whats)
                    break
                only = legal[0]
                if trace is not None:  # apply_traced: the position as it stands, for the contract suite
                    point = s.copy()
                    point.events = tuple(ev)
                    trace.append((point, only))
                ev.append(("auto", s.seat, only.kind, only.args))
                _do(s, ev, whats[0])
        except ChanceAhead:  # a preview before a tile is drawn: the state stays as it is there
            s.cache = None
        s.previewing = False
        s.events = tuple(ev)
        return s

    def parse(self, state, text):
        if state.chance is not None:
            raise IllegalMove(NOT_A_POSITION)
        legal = _legal(state)[0]
        if state.phase == Phase.OVER:
            raise IllegalMove("The game is over; no more moves can be made.")
        kinds = sorted({m.kind for m in legal}, key=moves.KINDS.index)
        here = [NAMES[t] for t in state.map.islands()]
        move = moves.parse(text, state.colours, here, kinds)
        if move not in legal:
            raise IllegalMove(views.why_illegal(state, move, legal))
        return move

    def notation(self, state, move):
        return moves.notation(move)

    # --- standing orders (orders.py, docs/games/tongiaki.md) ----------------------------

    def parse_order(self, state, seat, text):
        return orders.parse_order(state, seat, text, _legal(state)[0])

    def order_notation(self, order):
        return orders.order_notation(order)

    def order_move(self, state, seat, order):
        return orders.order_move(state, seat, order, _legal(state))

    def order_examples(self, state, seat):
        return orders.order_examples(state, seat)

    def view(self, state, seat):
        return views.view(state, seat, self.result(state))

    def scores(self, state):
        return views.tally(state)[0]

    def result(self, state):
        if state.phase != Phase.OVER:
            return None
        scores, islands, used = views.tally(state)
        # T23: points, then islands present on, then fewest ships on the board.
        ranks = rank_by([(scores[p], islands[p], -used[p]) for p in range(state.players)])
        details = {"islands": islands, "ships_on_board": used, "colours": list(state.colours)}
        return Result(tuple(scores), ranks, state.reason, details, message=chain.REASONS.get(state.reason))

    def state_to_json(self, state):
        return st.to_json(state)

    def state_from_json(self, data):
        return st.from_json(data)

    def resample_hidden(self, state, seat, seed):
        """Only the order of the pile is hidden (from everyone); re-shuffle it and the seed."""
        rng = Rng(seed)
        pile = sorted(state.pile)  # sorted first: the result depends only on what the seat sees (core)
        rng.shuffle(pile)
        new = state.copy()
        new.pile = tuple(pile)
        new.rng = tuple(rng.to_json())
        return new

    # --- for tests and tools ---------------------------------------------------------

    def build(self, players, **kwargs):
        """An exact position at the start of a turn, under these rules' version; see `state.build`."""
        return st.build(players, **{"version": self.version, **kwargs})

    def move(self, state, text):
        """Parse and apply in one step (tests, tools)."""
        return self.apply(state, self.parse(state, text))

