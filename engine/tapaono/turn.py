"""A player's round (P5-P12) and the ends of a game (P13-P17): legal decisions and their effects.

`legal(state)` lists the decisions of the player to move, `perform(state, move)` carries
out one legal decision on a fresh copy, and `settle(state)` advances the copy past
everything that needs no decision (a phase with nothing left to do, pieces that cannot
move going home, the end of a round) until the next real decision or the end of the game.
Parsing, views and results are rules.py's business.
"""

from __future__ import annotations

from itertools import combinations
from typing import NamedTuple

from engine.core import Rng

from .board import (COMMANDS_PER_ROUND, DEPOT_SIZE, ENTRY_ROUNDS, FIELDS, INDEX, INNER_STARS, IS_STAR,
                    KEEPABLE, NEIGHBOURS, OUTER_STARS, SPAWN_ENTRIES, STAR_RING, STARS, Card)
from .moves import (ACCEPT, DECLINE, END, JUMP, KEEP, LAND, MOVE_TO, PROPOSE, RECALL, REMOVE, ROLL, SKIP,
                    STOP, TRANSPORT, USE, conquer, take)
from .state import SPAWN, Mode, Phase, State

QUIET_LIMIT = 20  # rounds in a row without a marker placed or removed end the game (recorded decision)
GOAL_NORMAL = 5   # P13
MOVE, CARD, DICE, TAKE, CONQUEST, ANSWER, OVER = (Phase.MOVE, Phase.CARD, Phase.DICE, Phase.TAKE,
                                                   Phase.CONQUEST, Phase.ANSWER, Phase.OVER)
KEEPABLE_CODES = frozenset(int(c) for c in KEEPABLE)
SORTED_RING = {s: tuple(sorted(STAR_RING[s])) for s in STARS}
SORTED_NEIGHBOURS = tuple(tuple(sorted(n for n in ns if not IS_STAR[n])) for ns in NEIGHBOURS)
ON_STAR = IS_STAR + (False,)  # indexed by a piece position: SPAWN (-1) is no star
T_CODE, SIX_CODE, THREE_CODE = int(Card.TRANSPORT), int(Card.CONQUER_SIX), int(Card.CONQUER_THREE)


class Config(NamedTuple):
    """What the current mode means for the rules (P13-P16)."""

    goal: int             # stars to surround to win; 0 = no star goal
    counting: tuple       # the stars that count for the goal
    commands: bool        # command cards in play
    recycle: bool         # used cards are reshuffled into a new deck
    deck_end: bool        # the game ends after the round in which the deck ran out
    absolute: bool        # the game ends when a player has no markers left
    mode_change: bool     # P17 proposals allowed


_CONFIGS: dict = {}


def config(mode: str, options: dict) -> Config:
    """The Config of a mode under a game's options (memoised)."""
    key = (mode, options["stars_to_win"], options["commands"], options["counting_stars"],
           options["deck_end"], options["mode_change"])
    found = _CONFIGS.get(key)
    if found is None:
        change = options["mode_change"]
        if mode == Mode.NORMAL:
            found = Config(GOAL_NORMAL, STARS, True, True, False, False, change)
        elif mode == Mode.FAST:
            found = Config(0, STARS, True, False, True, False, change)
        elif mode == Mode.ABSOLUTE:
            found = Config(0, STARS, True, True, False, True, change)
        else:
            counting = {"all": STARS, "inner": INNER_STARS, "outer": OUTER_STARS}[options["counting_stars"]]
            found = Config(options["stars_to_win"], counting, options["commands"], not options["deck_end"],
                           options["deck_end"], False, change)
        _CONFIGS[key] = found
    return found


def surrounded(owner: bytes, seat: int, stars: tuple) -> int:
    """How many of these stars have all six fields around them conquered by seat."""
    c = seat + 1
    n = 0
    for s in stars:
        a, b, d, e, f, g = STAR_RING[s]
        if owner[a] == c and owner[b] == c and owner[d] == c and owner[e] == c and owner[f] == c and owner[g] == c:
            n += 1
    return n


# ---------------------------------------------------------------------------------------
# Who may go where


def targets(st: State, seat: int, i: int) -> list[int]:
    """The fields piece i of seat may step onto now: from its field, or from the spawn (P5, P6)."""
    f = st.pos[seat * 3 + i]
    owner, pos, opp = st.owner, st.pos, 2 - seat
    return [t for t in (SPAWN_ENTRIES[seat] if f == SPAWN else NEIGHBOURS[f]) if owner[t] != opp and t not in pos]


def must_move(st: State, seat: int, i: int) -> bool:
    """Whether piece i still owes its move this round (P5, P6)."""
    if st.done >> i & 1:
        return False
    if st.pos[seat * 3 + i] != SPAWN:
        return True
    return st.rounds[seat] > ENTRY_ROUNDS or not st.entered


def free_stars(st: State) -> list[int]:
    pos = st.pos
    return [s for s in STARS if s not in pos]


def _has(st: State, code: int) -> bool:
    return code in st.held or code in st.depots[st.turn]


# ---------------------------------------------------------------------------------------
# Legal decisions


def legal(st: State) -> list:
    """Every legal decision of the player to move, in a stable order (cached on the state)."""
    cached = st._legal
    if cached is None:
        cached = st._legal = _LEGAL[st.phase](st)
    return cached


def _legal_move(st: State) -> list:
    seat = st.turn
    if st.moving >= 0:
        row = MOVE_TO[st.moving]
        return [row[t] for t in targets(st, seat, st.moving)] + [STOP]
    moves, plays = [], []
    transport = st.commands < COMMANDS_PER_ROUND and _has(st, T_CODE)
    for i in range(3):
        if must_move(st, seat, i):
            found = targets(st, seat, i)
            if found:
                row = MOVE_TO[i]
                moves.extend(row[t] for t in found)
                if transport and not st.transport >> i & 1:
                    plays.append(TRANSPORT[i])
    return moves + plays


def _legal_card(st: State) -> list:
    kind = st.pending[0]
    seat = st.turn
    base = seat * 3
    if kind == "keep":
        return [KEEP, USE]
    if kind == "landing":
        stars = free_stars(st)
        return [LAND[i][s] for i in range(3) if st.pos[base + i] == SPAWN for s in stars] + [SKIP]
    if kind == "jump":
        stars = free_stars(st)
        return [JUMP[i][s] for i in range(3) if ON_STAR[st.pos[base + i]] for s in stars] + [SKIP]
    if kind == "recall":
        return [RECALL[i] for i in range(3) if ON_STAR[st.pos[base + i]]]
    code = (2 - seat) if kind == "raid" else seat + 1
    owner = st.owner
    found = [REMOVE[f] for f in range(len(FIELDS)) if owner[f] == code]
    return found + [SKIP] if kind == "raid" else found


def _legal_dice(st: State) -> list:
    base = st.turn * 3
    return [ROLL[i] for i in range(3) if st.pos[base + i] != SPAWN and not st.rolled >> i & 1] + [END]


_TAKES: dict = {}


def _legal_take(st: State) -> list:
    pending = st.pending
    stock = st.stock[st.turn]
    if pending[0] == "six":  # a 6 with too few markers: choose exactly `stock` of the free fields
        key = ("six", pending[2], stock)
        found = _TAKES.get(key)
        if found is None:
            found = _TAKES[key] = [take(c) for c in combinations(pending[2], stock)]
        return found
    _, _, n, elig, freemask = pending
    key = (elig, freemask, n, min(stock, 6))
    found = _TAKES.get(key)
    if found is None:
        found = []
        for size in range(min(n, len(elig)) + 1):
            for combo in combinations(range(len(elig)), size):
                if sum(freemask >> j & 1 for j in combo) <= stock:
                    found.append(take(tuple(elig[j] for j in combo)))
        _TAKES[key] = found
    return found


_CONQUERS: dict = {}


def conquer_moves(st: State) -> list:
    """The conquest cards the player to move can play now, with every choice of fields (P11, P12)."""
    seat = st.turn
    stock = st.stock[seat]
    if st.commands >= COMMANDS_PER_ROUND or stock <= 0:
        return []
    cards = [c for c in (SIX_CODE, THREE_CODE) if _has(st, c)]
    if not cards:
        return []
    own, owner, moves = seat + 1, st.owner, []
    for star in STARS:
        elig = tuple(f for f in SORTED_RING[star] if owner[f] != own)
        if not elig:
            continue
        for card in cards:
            key = (card, elig, min(stock, 6))
            found = _CONQUERS.get(key)
            if found is None:
                kind = Card(card)
                size = len(elig) if card == SIX_CODE else 3
                size = min(size, len(elig), stock)
                found = _CONQUERS[key] = [conquer(kind, star, c) for c in combinations(elig, size)]
            moves.extend(found)
    return moves


def _legal_conquest(st: State) -> list:
    moves = conquer_moves(st)
    if st.cfg.mode_change and not st.proposed:
        moves = moves + [PROPOSE[m] for m in Mode.ALL if m != st.mode]
    return moves + [END]


def _legal_answer(st: State) -> list:
    return [ACCEPT, DECLINE]


_LEGAL = {MOVE: _legal_move, CARD: _legal_card, DICE: _legal_dice, TAKE: _legal_take,
          CONQUEST: _legal_conquest, ANSWER: _legal_answer, OVER: lambda st: []}


# ---------------------------------------------------------------------------------------
# Effects


def _die(st: State) -> int:
    rng = Rng(st.seed, st.counter)
    value = rng.die()
    st.counter = rng.counter
    return value


def _home(st: State, k: int) -> None:
    """Send the piece at slot k back to its spawn."""
    pos = list(st.pos)
    pos[k] = SPAWN
    st.pos = tuple(pos)
    if k // 3 == st.turn and st.moving == k % 3:
        st.moving, st.steps = -1, 0


def conquer_fields(st: State, fields) -> None:
    """Put the mover's markers on fields (free or the opponent's), one from stock each (P9-P12)."""
    seat = st.turn
    board = bytearray(st.owner)
    for f in fields:
        board[f] = seat + 1
    st.owner = bytes(board)
    stock = list(st.stock)
    stock[seat] -= len(fields)
    st.stock = tuple(stock)
    st.changed = True
    base = (1 - seat) * 3
    for k in range(base, base + 3):  # P10: an opponent's piece on a conquered field goes home
        if st.pos[k] in fields:
            _home(st, k)


def free_fields(st: State, fields) -> None:
    """Take markers off fields; they leave the game for good (P4)."""
    board = bytearray(st.owner)
    for f in fields:
        board[f] = 0
    st.owner = bytes(board)
    st.changed = True


def check_end(st: State, seats=None) -> None:
    """End the game at once if a star goal is reached (P13, P16) or, in Absolute, a stock is empty (P15)."""
    cfg = st.cfg
    if cfg.absolute and min(st.stock) <= 0:
        st.over, st.phase = "absolute", OVER
    elif cfg.goal:
        for seat in (st.turn,) if seats is None else seats:
            if surrounded(st.owner, seat, cfg.counting) >= cfg.goal:
                st.over, st.phase = "goal", OVER
                return


def draw(st: State) -> None:
    """Draw the top card for a piece that entered a star (P8), and carry out an at-once card."""
    cfg, seat = st.cfg, st.turn
    if not cfg.commands or st.commands >= COMMANDS_PER_ROUND or len(st.depots[seat]) >= DEPOT_SIZE:
        return
    if not st.deck:
        if not (cfg.recycle and st.used):
            return
        deck = list(st.used)
        rng = Rng(st.seed, st.counter)
        rng.shuffle(deck)
        st.counter = rng.counter
        st.deck, st.used = tuple(deck), ()
    card = st.deck[0]
    st.deck = st.deck[1:]
    st.drawn = (seat, Card(card).label)
    if card in KEEPABLE_CODES:
        st.phase, st.pending = CARD, ("keep", card)
        return
    st.commands += 1
    st.used = st.used + (card,)
    base = seat * 3
    if card == Card.LANDING:
        if any(p == SPAWN for p in st.pos[base:base + 3]) and free_stars(st):
            st.phase, st.pending = CARD, ("landing",)
    elif card == Card.STAR_JUMP:
        if any(ON_STAR[p] for p in st.pos[base:base + 3]) and free_stars(st):
            st.phase, st.pending = CARD, ("jump",)
    elif card == Card.RECALL:
        on_star = [i for i in range(3) if ON_STAR[st.pos[base + i]]]
        if len(on_star) == 1:
            _home(st, base + on_star[0])
        elif on_star:
            st.phase, st.pending = CARD, ("recall",)
    else:
        n = _die(st)
        st.last_roll = (seat, 0, n, Card(card).label)
        if card == Card.RAID:
            if st.owner.count(2 - seat):
                st.phase, st.pending = CARD, ("raid", n)
        else:
            _lose(st, n)


def _lose(st: State, n: int) -> None:
    """Loss: remove n own markers of the player's choice; all of them if there are no more than n."""
    own = st.turn + 1
    mine = [f for f in range(len(FIELDS)) if st.owner[f] == own]
    if len(mine) <= n:
        if mine:
            free_fields(st, mine)
        st.phase, st.pending = MOVE, None
    else:
        st.phase, st.pending = CARD, ("loss", n)


def _step(st: State, i: int, f: int) -> None:
    seat = st.turn
    k = seat * 3 + i
    was = st.pos[k]
    pos = list(st.pos)
    pos[k] = f
    st.pos = tuple(pos)
    if st.moving == i:
        st.steps -= 1
        if st.steps <= 0:
            st.moving, st.steps = -1, 0
    else:
        st.done |= 1 << i
        if was == SPAWN:
            st.entered = True
        if st.transport >> i & 1:  # P7: this move may go up to two fields further
            st.transport &= ~(1 << i)
            st.moving, st.steps = i, 2
    if IS_STAR[f]:
        draw(st)


def _spend(st: State, code: int) -> None:
    """Play a kept card: from the cards in use this round first, else from the depot."""
    if code in st.held:
        held = list(st.held)
        held.remove(code)
        st.held = tuple(held)
    else:
        depots = list(st.depots)
        depot = list(depots[st.turn])
        depot.remove(code)
        depots[st.turn] = tuple(depot)
        st.depots = tuple(depots)
    st.used = st.used + (code,)
    st.commands += 1


def _roll(st: State, i: int) -> None:
    seat = st.turn
    k = seat * 3 + i
    n = _die(st)
    st.rolled |= 1 << i
    st.last_roll = (seat, i + 1, n, None)
    f, opp, owner, stock = st.pos[k], 2 - seat, st.owner, st.stock[seat]
    if n == 6:  # P9: everything around is freed or conquered, and the piece's own field too
        foes = [nb for nb in SORTED_NEIGHBOURS[f] if owner[nb] == opp]
        spare = sorted(([f] if not IS_STAR[f] and owner[f] == 0 else [])
                       + [nb for nb in SORTED_NEIGHBOURS[f] if owner[nb] == 0])
        if foes:
            free_fields(st, foes)
        if len(spare) <= stock:
            if spare:
                conquer_fields(st, spare)
            _home(st, k)
        elif stock == 0:
            _home(st, k)
        else:
            st.phase, st.pending = TAKE, ("six", i, tuple(spare))
    else:
        elig, freemask = [], 0
        for nb in SORTED_NEIGHBOURS[f]:
            o = owner[nb]
            if o == opp:
                elig.append(nb)
            elif o == 0 and stock > 0:
                freemask |= 1 << len(elig)
                elig.append(nb)
        if elig:
            st.phase, st.pending = TAKE, ("take", i, n, tuple(elig), freemask)


def _take(st: State, fields: tuple) -> None:
    pending = st.pending
    opp = 2 - st.turn
    foes = [f for f in fields if st.owner[f] == opp]
    gains = [f for f in fields if st.owner[f] != opp]
    if foes:
        free_fields(st, foes)
    if gains:
        conquer_fields(st, gains)
    if pending[0] == "six":
        _home(st, st.turn * 3 + pending[1])
    st.phase, st.pending = DICE, None


def _index(coord) -> int:
    return INDEX[(coord[0], coord[1])]


def perform(st: State, move) -> None:
    """Carry out one legal decision on st (a fresh copy), before `settle`."""
    kind, args, seat = move.kind, move.args, st.turn
    if kind == "move":
        _step(st, args[0] - 1, INDEX[(args[1], args[2])])
    elif kind == "stop":
        st.moving, st.steps = -1, 0
    elif kind == "play":
        if args[0] == "transport":
            _spend(st, T_CODE)
            st.transport |= 1 << (args[1] - 1)
        else:
            _spend(st, SIX_CODE if args[0] == "conquer-six" else THREE_CODE)
            conquer_fields(st, [_index(c) for c in args[3]])
            check_end(st)
    elif kind in ("keep", "use"):
        card = st.pending[1]
        if kind == "keep":
            depots = list(st.depots)
            depots[seat] = tuple(sorted(depots[seat] + (card,)))
            st.depots = tuple(depots)
        else:
            st.held = tuple(sorted(st.held + (card,)))
        st.phase, st.pending = MOVE, None
    elif kind in ("land", "jump"):
        k = seat * 3 + args[0] - 1
        pos = list(st.pos)
        pos[k] = INDEX[(args[1], args[2])]
        st.pos = tuple(pos)
        st.phase, st.pending = MOVE, None
        if kind == "land":  # P8: a landed piece must still move this round
            st.done &= ~(1 << (args[0] - 1))
        else:
            if st.moving == args[0] - 1:
                st.moving, st.steps = -1, 0
            draw(st)  # Star jump: then draw again
    elif kind == "recall":
        _home(st, seat * 3 + args[0] - 1)
        st.phase, st.pending = MOVE, None
    elif kind == "remove":
        free_fields(st, [_index(args)])
        left = st.pending[1] - 1
        if st.pending[0] == "loss":
            if left:
                _lose(st, left)
            else:
                st.phase, st.pending = MOVE, None
        elif left and st.owner.count(2 - seat):
            st.pending = ("raid", left)
        else:
            st.phase, st.pending = MOVE, None
    elif kind == "skip":
        st.phase, st.pending = MOVE, None
    elif kind == "roll":
        _roll(st, args[0] - 1)
        check_end(st)
    elif kind == "take":
        _take(st, tuple(_index(c) for c in args[0]))
        check_end(st)
    elif kind == "end":
        if st.phase == DICE:
            st.phase = CONQUEST
        else:
            end_round(st)
    elif kind == "propose":
        st.proposal, st.proposed = (seat, args[0]), True
    elif kind == "accept":
        st.mode = st.proposal[1]
        st.cfg = config(st.mode, st.options)
        st.proposal, st.phase = None, MOVE
        check_end(st, (0, 1))
    elif kind == "decline":
        st.proposal, st.phase = None, MOVE


# ---------------------------------------------------------------------------------------
# Advancing without decisions


def _phase_one_open(st: State) -> bool:
    seat = st.turn
    for i in range(3):
        if must_move(st, seat, i) and targets(st, seat, i):
            return True
    return False


def settle(st: State) -> None:
    """Advance st to the next decision: close finished phases, rounds, and the game (P5, P9, P11)."""
    while True:
        phase = st.phase
        if phase == MOVE:
            if st.moving >= 0:
                if st.steps > 0 and targets(st, st.turn, st.moving):
                    return
                st.moving, st.steps = -1, 0
            if _phase_one_open(st):
                return
            base = st.turn * 3
            for i in range(3):  # P5: a piece that could not make its move goes back to the spawn
                if not st.done >> i & 1 and st.pos[base + i] != SPAWN:
                    _home(st, base + i)
            st.phase = DICE
        elif phase == DICE:
            base = st.turn * 3
            if any(st.pos[base + i] != SPAWN and not st.rolled >> i & 1 for i in range(3)):
                return
            st.phase = CONQUEST
        elif phase == CONQUEST:
            if (st.cfg.mode_change and not st.proposed) or conquer_moves(st):
                return
            end_round(st)
        else:
            return


def end_round(st: State) -> None:
    """Close the round (P8 cards in use are discarded), end the game if due, else start the next round."""
    if st.held:
        st.used = st.used + st.held
        st.held = ()
    st.quiet = 0 if st.changed else st.quiet + 1
    st.changed = False
    cfg = st.cfg
    if cfg.deck_end and not st.deck:
        st.over = "deck"
    elif cfg.goal and st.stock[0] <= 0 and st.stock[1] <= 0:
        st.over = "exhausted"
    elif st.quiet >= QUIET_LIMIT:
        st.over = "quiet"
    if st.over:
        st.phase = OVER
        return
    st.turn = seat = 1 - st.turn
    rounds = list(st.rounds)
    rounds[seat] += 1
    st.rounds = tuple(rounds)
    st.done = st.rolled = st.transport = st.commands = st.steps = 0
    st.entered = st.proposed = False
    st.moving = -1
    st.pending = None
    st.phase = ANSWER if st.proposal is not None else MOVE
