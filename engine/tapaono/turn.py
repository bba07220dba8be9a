"""A player's round (P5-P12, P17): which decisions are legal now, and what each mode means.

`legal(state)` lists the decisions of the player to move in a stable order (cached on the
state); the helpers here (who may step where, who still owes a move, which stars are
surrounded) are shared with effects.py, which carries decisions out. Nothing here changes
a state.
"""

from __future__ import annotations

from itertools import combinations
from typing import NamedTuple

from .board import (COMMANDS_PER_ROUND, ENTRY_ROUNDS, FIELDS, INNER_STARS, IS_STAR, KEEPABLE, NEIGHBOURS,
                    OUTER_STARS, SPAWN_ENTRIES, STAR_RING, STARS, Card)
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


def conquer_six_fields(st: State, star: int) -> tuple[int, ...]:
    """The fields a bare `play conquer-six <star>` means: every field around it not yet the mover's."""
    own = st.turn + 1
    return tuple(f for f in SORTED_RING[star] if st.owner[f] != own)


def free_stars(st: State) -> list[int]:
    pos = st.pos
    return [s for s in STARS if s not in pos]


def _has(st: State, code: int) -> bool:
    return code in st.held or code in st.depots[st.turn]


def playable_this_round(st: State, code: int) -> bool:
    """Whether a card drawn now could still be played this round (P7, P11, P12); False only when sure.

    Transport is played on a piece before it moves: impossible once no piece owes its move and
    no transported piece is still on its way (further steps, hence further draws and Landings
    that make a piece move again, can only come from those). A conquest card needs a marker
    in stock in phase 4, and the stock never grows.
    """
    seat = st.turn
    if code == T_CODE:
        return st.moving >= 0 or any(must_move(st, seat, i) for i in range(3))
    return st.stock[seat] > 0


# ---------------------------------------------------------------------------------------
# Legal decisions


def legal(st: State) -> list:
    """Every legal decision of the player to move, in a stable order (cached on the state)."""
    cached = st._legal
    if cached is None:
        cached = st._legal = _LEGAL[st.phase](st)
    return cached


def legal_move(st: State) -> list:
    """Phase 1: steps of the pieces that still owe their move, and Transport plays for them."""
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
                moves += [row[t] for t in found]
                if transport and not st.transport >> i & 1:
                    plays.append(TRANSPORT[i])
    return moves + plays


def _legal_card(st: State) -> list:
    kind = st.pending[0]
    seat = st.turn
    base = seat * 3
    if kind == "keep":  # P8: to the depot, or played this round if it still can be
        return [KEEP, USE] if playable_this_round(st, st.pending[1]) else [KEEP]
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


def legal_dice(st: State) -> list:
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
            key = (card, star, elig, min(stock, 6))
            found = _CONQUERS.get(key)
            if found is None:
                kind = Card(card)
                size = len(elig) if card == SIX_CODE else 3
                size = min(size, len(elig), stock)
                found = _CONQUERS[key] = [conquer(kind, star, c) for c in combinations(elig, size)]
            moves.extend(found)
    return moves


def legal_conquest(st: State) -> list:
    moves = conquer_moves(st)
    if st.cfg.mode_change and not st.proposed:
        moves = moves + [PROPOSE[m] for m in Mode.ALL if m != st.mode]
    return moves + [END]


def _legal_answer(st: State) -> list:
    return [ACCEPT, DECLINE]


_LEGAL = {MOVE: legal_move, CARD: _legal_card, DICE: legal_dice, TAKE: _legal_take,
          CONQUEST: legal_conquest, ANSWER: _legal_answer, OVER: lambda st: []}
