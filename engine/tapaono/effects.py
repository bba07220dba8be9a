"""What Tapaono decisions do (P4-P17): carry one out, then advance to the next decision.

`perform(state, move)` carries out one legal decision on a fresh copy of a state, and
`settle(state)` advances that copy past everything that needs no decision (a phase with
nothing left to do, pieces that cannot move going home, the end of a round, the end of the
game) until the next real decision; `play_forced(state)` then makes every decision that has
exactly one legal choice and records it as an event. Whether a move is legal is turn.py's
business. Chance comes in two places only, `draw` (a command card, and the shuffle of a new
deck) and `_die`; a preview (issue 31) stops at either.
"""

from __future__ import annotations

from engine.core import DRAW, ROLL, ChanceAhead, Rng

from .board import COMMANDS_PER_ROUND, DEPOT_SIZE, FIELDS, INDEX, IS_STAR, Card
from .state import SPAWN, Phase, State
from .turn import (KEEPABLE_CODES, ON_STAR, QUIET_LIMIT, SIX_CODE, SORTED_NEIGHBOURS, T_CODE, THREE_CODE,
                   config, free_stars, legal, legal_conquest, legal_dice, legal_move, surrounded, targets)

MOVE, CARD, DICE, TAKE, CONQUEST, ANSWER, OVER = (Phase.MOVE, Phase.CARD, Phase.DICE, Phase.TAKE,
                                                   Phase.CONQUEST, Phase.ANSWER, Phase.OVER)


# ---------------------------------------------------------------------------------------
# Effects


def _die(st: State, piece: int | None = None) -> int:
    if st.previewing:  # a preview shows no roll: it stops here (piece: 1..3, or None for a card's roll)
        st.chance = (ROLL, piece)
        raise ChanceAhead(ROLL)
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
    if not st.deck and not (cfg.recycle and st.used):
        return
    if st.previewing:  # a preview shows no card from the deck (nor the order of a new one): it stops here
        st.chance = (DRAW,)
        raise ChanceAhead(DRAW)
    if not st.deck:
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
    n = _die(st, i + 1)
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


def settle(st: State) -> None:
    """Advance st to the next decision: close finished phases, rounds, and the game (P5, P9, P11).

    The legal decisions found on the way are kept as the state's cache (st is final here).
    """
    while True:
        phase = st.phase
        if phase == MOVE:
            if st.moving >= 0 and (st.steps <= 0 or not targets(st, st.turn, st.moving)):
                st.moving, st.steps = -1, 0
            found = legal_move(st)
            if found:
                st._legal = found
                return
            base = st.turn * 3
            for i in range(3):  # P5: a piece that could not make its move goes back to the spawn
                if not st.done >> i & 1 and st.pos[base + i] != SPAWN:
                    _home(st, base + i)
            st.phase = DICE
        elif phase == DICE:
            found = legal_dice(st)
            if len(found) > 1:  # a piece can still roll; else only `end` is left
                st._legal = found
                return
            st.phase = CONQUEST
        elif phase == CONQUEST:
            found = legal_conquest(st)
            if len(found) > 1:
                st._legal = found
                return
            end_round(st)
        else:
            return


def play_forced(st: State, trace: list | None = None) -> None:
    """Make every decision that has exactly one legal choice, adding (seat, move) to st.events.

    A decision with one choice tells the player nothing and asks nothing (the last piece with
    one step left, a card that can only go to the depot); it may cross into the opponent's round.
    `trace` (Rules.apply_traced) gets a copy of the position and the move of each.
    """
    while st.phase != OVER:
        found = legal(st)
        if len(found) != 1:
            return
        only = found[0]
        if trace is not None:
            trace.append((st.copy(), only))
        st.events = st.events + ((st.turn, only),)
        st._legal = None
        perform(st, only)
        settle(st)


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
