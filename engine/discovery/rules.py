"""The rules of Carcassonne: The Discovery: setup, legal moves, apply, result (D1-D19).

The turn (D6) is two decisions: place the tile (D7), then deploy (D9), remove and score
(D10) or pass. Drawing (D5, D8, D18) happens inside `apply`, from the draw pile that the
state's Rng shuffled at setup, right after the previous turn ends, so the state always
shows the tile(s) the player to move must place. A preview (issue 31) stops at the end of
the turn, before that draw. The view is built in `view.py`; the text of moves in `moves.py`.
"""

from __future__ import annotations

from engine.core import (
    DRAW, NOT_A_POSITION, IllegalMove, Message, Move, Option, Order, Preview, Result, Rng, Rules, derive_seed, rank_by,
)
from engine.discovery import aliases, moves as mv, orders
from engine.discovery.reasons import explain, hand_text
from engine.discovery.state import COLOURS, Phase, Removal, State
from engine.discovery.tiles import DRAW_PILE, ROTATIONS, TILE_TYPES
from engine.discovery.view import build_view

EQUAL_TURNS_REMOVED = {2: 1, 3: 2, 4: 3, 5: 3}   # D19, as the digest corrects it for 5 players
HAND_SIZE = 2                                     # D18


class DiscoveryRules(Rules):
    """Carcassonne: The Discovery for 2 to 5 players, with the double-tile and equal-turns variants."""

    name = "discovery"
    title = "Carcassonne: The Discovery"
    version = "discovery-2"
    min_players = 2
    max_players = 5
    colours = COLOURS
    takes_orders = True
    command_aliases = aliases.ACTIONS  # the manuals' words for the commands (aliases.py)
    options = (
        Option("double", False, "Double tile: everyone keeps two hidden tiles and places one of them each turn."),
        Option("equal", False, "Equal number of turns: a few tiles are removed at the start so that everyone "
                               "places the same number."),
    )
    max_decisions = 2 * len(DRAW_PILE) + 2   # one placement and one follow-up decision per tile

    def option_presets(self) -> list[dict]:
        return [{}, {"double": True}, {"equal": True}, {"double": True, "equal": True}]

    # --- setup and turn order ------------------------------------------------------------

    def setup(self, players: int, options: dict, seed: int) -> State:
        self.check_players(players)
        options = self.check_options(options)
        colours = self.seat_colours(players, options)      # D1: one colour per player
        rng = Rng(seed)
        order = list(range(players))
        rng.shuffle(order)                                  # D5: seat order from the seed
        state = State(players, options["double"], options["equal"], tuple(order), rng, colours)
        deck = list(DRAW_PILE)
        rng.shuffle(deck)                                   # D5
        if state.equal:                                     # D19
            count = EQUAL_TURNS_REMOVED[players]
            state.removed = tuple((number, Removal.EQUAL_TURNS.value) for number in reversed(deck[-count:]))
            del deck[-count:]
        if state.double:                                    # D18: two hidden tiles each
            hands = [[] for _ in range(players)]
            for _ in range(HAND_SIZE):
                for seat in order:
                    hands[seat].append(deck.pop())
            state.hands = tuple(tuple(hand) for hand in hands)
        state.deck = tuple(deck)
        _begin_turn(state, 0)
        return _play_forced(state)

    def to_move(self, state: State) -> int | None:
        return state.seat

    # --- legal moves ---------------------------------------------------------------------

    def legal_moves(self, state: State) -> list[Move]:
        if state._legal is None:
            state._legal = _legal_moves(state)
        return list(state._legal)

    def apply(self, state: State, move: Move) -> State:
        return _advance(state, move, previewing=False)

    def apply_traced(self, state: State, move: Move) -> tuple[State, list]:
        """`apply`, and each decision it made by itself: (the position then, the only legal move)."""
        trace: list = []
        return _advance(state, move, previewing=False, trace=trace), trace

    def preview(self, state: State, move: Move) -> Preview:
        """The move and the decisions with one choice after it, up to the end of the turn: there the
        next tile would be drawn (or, with double tiles, a hand looked at), so the preview stops."""
        new = _advance(state, move, previewing=True)
        return Preview(new, new.chance)

    # --- text ----------------------------------------------------------------------------

    def parse(self, state: State, text: str) -> Move:
        kind, fields = mv.parse_text(text)
        if state.chance is not None:
            raise IllegalMove(NOT_A_POSITION)
        if state.phase is Phase.OVER:
            raise IllegalMove("The game is over; no more moves can be made.")
        if kind == mv.PLACE:
            move = _parse_place(state, *fields)
        elif kind == mv.PASS:
            move = mv.PASS_MOVE
        elif state.phase is not Phase.FOLLOW:
            raise IllegalMove("First place your tile, e.g. 'place 1,0 90'.")
        elif kind == mv.DEPLOY:
            number, _, _, k = state.board.tiles[state.placed]
            local = TILE_TYPES[number].segment_by_name(k, fields[0])
            if local is None:
                raise IllegalMove("The tile just placed has no segment %(segment)r; its segments are %(segments)s.",
                                  segment=fields[0], segments=", ".join(TILE_TYPES[number].names_at[k]))
            move = mv.deploy_move(TILE_TYPES[number].names_at[k][local])
        else:
            x, y, name = fields
            pid = state.board.at.get((x, y))
            if pid is None:
                raise IllegalMove("There is no tile at %(x)s,%(y)s.", x=x, y=y)
            number, _, _, k = state.board.tiles[pid]
            local = TILE_TYPES[number].segment_by_name(k, name)
            if local is None:
                raise IllegalMove("The tile at %(x)s,%(y)s has no segment %(segment)r; its segments are %(segments)s.",
                                  x=x, y=y, segment=name, segments=", ".join(TILE_TYPES[number].names_at[k]))
            move = mv.remove_move(x, y, TILE_TYPES[number].names_at[k][local])
        if not _is_legal(state, move):
            raise IllegalMove(explain(state, move))
        return move

    def notation(self, state: State, move: Move) -> str:
        return mv.notation(move)

    # --- standing orders (orders.py, docs/games/discovery.md) --------------------------

    def parse_order(self, state: State, seat: int, text: str) -> Order:
        return orders.parse_order(state, seat, text, self.parse)

    def order_notation(self, order: Order) -> str:
        return orders.order_notation(order)

    def order_move(self, state: State, seat: int, order: Order):
        return orders.order_move(state, seat, order, self.legal_moves(state))

    # --- views and results ---------------------------------------------------------------

    def view(self, state: State, seat: int | None) -> dict:
        legal = self.legal_moves(state) if seat is not None and seat == state.seat else None
        return build_view(self, state, seat, legal)

    def scores(self, state: State) -> list[int]:
        return list(state.scores)

    def result(self, state: State) -> Result | None:
        if state.phase is not Phase.OVER:
            return None
        scores = tuple(state.scores)
        final = list(state.final)
        details = {"final_scoring": final, "during_play": [s - f for s, f in zip(scores, final)]}
        reason = Message("The last tile has been placed.")
        return Result(scores, rank_by([(s,) for s in scores]), str(reason), details, message=reason)

    def state_to_json(self, state: State) -> dict:
        return state.to_json()

    def state_from_json(self, data: dict) -> State:
        return State.from_json(data)

    def resample_hidden(self, state: State, seat: int | None, seed: int) -> State:
        """Re-deal the draw pile and, with double tiles, every hand `seat` cannot see; new Rng."""
        rng = Rng(seed)
        new = state.copy()
        # Sorted first: the result depends only on what the seat sees and the seed (core).
        if not state.double:
            deck = sorted(state.deck)
            rng.shuffle(deck)
            new.deck = tuple(deck)
        else:
            hidden = [s for s in range(state.players) if s != seat]
            pool = list(state.deck)
            for s in hidden:
                pool.extend(state.hands[s])
            pool.sort()
            rng.shuffle(pool)
            hands = list(state.hands)
            mover = state.seat
            if mover in hidden and state.phase is Phase.PLACE:
                # The player to move has already thrown out tiles that fit nowhere (D8).
                board = state.board
                chosen = [i for i, number in enumerate(pool) if board.fits(TILE_TYPES[number])]
                chosen = chosen[:len(state.hands[mover])]
                hands[mover] = tuple(pool[i] for i in chosen)
                pool = [number for i, number in enumerate(pool) if i not in chosen]
                hidden.remove(mover)
            for s in hidden:
                size = len(state.hands[s])
                hands[s], pool = tuple(pool[:size]), pool[size:]
            new.hands = tuple(hands)
            new.deck = tuple(pool)
        new.rng = Rng(derive_seed(seed, "rng"))
        return new


# --- turn mechanics ----------------------------------------------------------------------


def _advance(state: State, move: Move, previewing: bool, trace: list | None = None) -> State:
    """The state after a legal move and the decisions with one choice after it (apply); a preview
    stops where the turn ends while a tile is still to be drawn or a hidden hand looked at."""
    if state.chance is not None:
        raise IllegalMove(NOT_A_POSITION)
    if not _is_legal(state, move):
        raise IllegalMove(explain(state, move))
    if previewing:
        state = state.copy()
        state.previewing = True
    new = _perform(state, move)
    new.events = ()
    new = _play_forced(new, trace)
    new.previewing = False
    return new


def _reveals(state: State, seat: int) -> bool:
    """Whether ending `seat`'s turn now draws from the pile or looks at a tile another seat holds
    (D8, D18): with neither, the rest of the game is decided by what `seat` already sees."""
    if state.deck:
        return True
    return state.double and any(state.hands[s] for s in range(state.players) if s != seat)


def _perform(state: State, move: Move) -> State:
    """A new state after one legal decision (D6-D11), with the next tile drawn when the turn ends."""
    seat = state.seat
    new = state.copy()
    kind, args = move.kind, move.args
    if kind == mv.PLACE:
        x, y, degrees = args[0], args[1], args[2]
        number = state.current if not state.double else args[3]
        new.board = state.board.place(number, x, y, degrees // 90)
        new.placed = len(new.board.tiles) - 1
        if state.double:
            hand = list(state.hands[seat])
            hand.remove(number)
            new.hands = _replace(state.hands, seat, tuple(hand))
        new.current = None
        new.phase = Phase.FOLLOW
        new.last = (seat, mv.notation(move), None)
        return new
    points = None
    if kind == mv.DEPLOY:                               # D9
        local = _placed_segment(state, args[0])
        new.followers = state.followers + ((seat, state.board.base[state.placed] + local),)
    elif kind == mv.REMOVE:                             # D10, D11
        g = _follower_segment(state, seat, args[0], args[1], args[2])
        points = state.board.value(g)
        followers = list(state.followers)
        followers.remove((seat, g))
        new.followers = tuple(followers)
        new.scores = _replace(state.scores, seat, state.scores[seat] + points)
    new.last = (seat, mv.notation(move), points)
    new.placed = None
    if state.previewing and _reveals(new, seat):         # issue 31: a preview shows no tile not drawn yet
        new.chance = DRAW
        return new
    if state.double and new.deck:                       # D18: draw to have two again
        new.hands = _replace(new.hands, seat, new.hands[seat] + (new.deck[-1],))
        new.deck = new.deck[:-1]
    _begin_turn(new, (state.turn + 1) % state.players)
    return new


def _play_forced(state: State, trace: list | None = None) -> State:
    """Make every decision that has exactly one legal choice (a tile that fits in one place only,
    a pass when no follower can go out or come back), each recorded in `events`.

    The player's own last move stays the state's `last`; the turn may pass to the next player.
    With two hidden tiles (D18) a placement is made only from a hand of one tile: from two tiles
    of the same type that fit in one place, an automatic move would tell the others the type of
    the tile still held.
    """
    while state.phase is not Phase.OVER and state.chance is None:
        if state.double and state.phase is Phase.PLACE and len(state.hands[state.seat]) > 1:
            return state
        if state._legal is None:
            state._legal = _legal_moves(state)
        if len(state._legal) != 1:
            return state
        only, seat = state._legal[0], state.seat
        if trace is not None:  # apply_traced (engine.core): the position and its one move
            trace.append((state, only))
        new = _perform(state, only)
        new.events = state.events + ((seat, only),)
        new.last = state.last
        state = new
    return state


def _replace(values: tuple, index: int, value) -> tuple:
    return values[:index] + (value,) + values[index + 1:]


def _begin_turn(state: State, turn: int) -> None:
    """Make order[turn] (or the next player who holds a tile) the player to move, drawing as D8 says."""
    board = state.board
    if not state.double:
        deck, removed = state.deck, state.removed
        while deck:
            number = deck[-1]
            deck = deck[:-1]
            if board.fits(TILE_TYPES[number]):
                state.deck, state.removed, state.current = deck, removed, number
                state.turn, state.phase = turn, Phase.PLACE
                return
            removed += ((number, Removal.UNPLACEABLE.value),)   # D8: out of the game, face up
        state.deck, state.removed = deck, removed
        _finish(state)
        return
    for step in range(state.players):
        index = (turn + step) % state.players
        seat = state.order[index]
        hand, checked = list(state.hands[seat]), []
        while hand:
            number = hand.pop(0)
            if board.fits(TILE_TYPES[number]):
                checked.append(number)
                continue
            state.removed += ((number, Removal.UNPLACEABLE.value),)
            if state.deck:
                hand.append(state.deck[-1])
                state.deck = state.deck[:-1]
        state.hands = _replace(state.hands, seat, tuple(checked))
        if checked:
            state.turn, state.phase = index, Phase.PLACE
            return
    _finish(state)


def _finish(state: State) -> None:
    """D15, D16: every follower still out scores its region as incomplete."""
    final = [0] * state.players
    for seat, g in state.followers:
        final[seat] += state.board.value(g, final=True)
    state.final = tuple(final)
    state.scores = tuple(s + f for s, f in zip(state.scores, final))
    state.phase = Phase.OVER
    state.current = None


def _is_legal(state: State, move: Move) -> bool:
    """Whether move is one of legal_moves(state), without listing every placement."""
    phase = state.phase
    if phase is Phase.PLACE:
        args = move.args
        if move.kind != mv.PLACE or len(args) != (4 if state.double else 3):
            return False
        for value in args:
            if type(value) is not int:
                return False
        if state.double:
            number = args[3]
            if number not in state.hands[state.seat]:
                return False
        else:
            number = state.current
        degrees = args[2]
        if degrees not in ROTATIONS:
            return False
        key = state.board.open.get((args[0], args[1]))
        return key is not None and degrees // 90 in TILE_TYPES[number].match.get(key, ())
    if phase is Phase.FOLLOW:
        if state._legal is None:
            state._legal = _legal_moves(state)
        return move in state._legal
    return False


def _legal_moves(state: State) -> list[Move]:
    if state.phase is Phase.OVER or state.chance is not None:
        return []
    board = state.board
    if state.phase is Phase.PLACE:
        squares = sorted(board.open.items())
        numbers = sorted(set(state.hands[state.seat])) if state.double else (None,)
        result = []
        append = result.append
        for number in numbers:
            match = TILE_TYPES[state.current if number is None else number].match
            table = mv.square_moves(number)
            for square, key in squares:
                rotations = match.get(key)
                if rotations:
                    moves = table.get(square) or mv.moves_at(table, square, number)
                    for k in rotations:
                        append(moves[k])
        return result
    seat = state.seat
    result = []
    number, x, y, k = board.tiles[state.placed]
    if state.supply(seat) > 0:                             # D9
        occupied = {board.find(g) for _, g in state.followers}
        base = board.base[state.placed]
        names = TILE_TYPES[number].names_at[k]
        for local, name in enumerate(names):
            if board.find(base + local) not in occupied:
                result.append(mv.deploy_move(name))
    for owner, g in state.followers:                       # D10
        if owner == seat:
            fx, fy, name = _follower_place(board, g)
            result.append(mv.remove_move(fx, fy, name))
    result.append(mv.PASS_MOVE)
    return result


def _follower_place(board, g: int) -> tuple[int, int, str]:
    pid = board.seg_tile[g]
    number, x, y, k = board.tiles[pid]
    return x, y, TILE_TYPES[number].names_at[k][g - board.base[pid]]


def _placed_segment(state: State, name: str) -> int:
    number, _, _, k = state.board.tiles[state.placed]
    return TILE_TYPES[number].names_at[k].index(name)


def _follower_segment(state: State, seat: int, x: int, y: int, name: str) -> int:
    for owner, g in state.followers:
        if owner == seat and _follower_place(state.board, g) == (x, y, name):
            return g
    raise IllegalMove("You have no follower there.")


def _parse_place(state: State, x: int, y: int, degrees: int, number: int | None) -> Move:
    if state.phase is not Phase.PLACE:
        raise IllegalMove("You have already placed your tile; now deploy a follower, remove one, or pass.")
    if not state.double:
        if number is not None and number != state.current:
            raise IllegalMove("Your tile is #%(tile)s, not #%(number)s.", tile=state.current, number=number)
        k = TILE_TYPES[state.current].canonical[degrees // 90]
        return mv.place_move(x, y, k * 90)
    hand = sorted(set(state.hands[state.seat]))
    if number is None:
        candidates = [n for n in hand if _fits_at(state, n, x, y, degrees)]
        if len(hand) == 1:
            number = hand[0]
        elif len(candidates) == 1:
            number = candidates[0]
        else:
            raise IllegalMove("Say which of your tiles you place: '%(first)s' or '%(second)s'.",
                              first=f"place #{hand[0]} {x},{y} {degrees}", second=f"place #{hand[1]} {x},{y} {degrees}")
    if number not in TILE_TYPES:
        raise IllegalMove("There is no tile #%(number)s; you hold %(hand)s.", number=number, hand=hand_text(hand))
    k = TILE_TYPES[number].canonical[degrees // 90]
    return mv.place_move(x, y, k * 90, number)


def _fits_at(state: State, number: int, x: int, y: int, degrees: int) -> bool:
    key = state.board.open.get((x, y))
    tile = TILE_TYPES[number]
    return key is not None and tile.canonical[degrees // 90] in tile.match.get(key, ())

