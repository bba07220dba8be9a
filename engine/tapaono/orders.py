"""Tapaono's standing orders: choices a player writes before the die or the card they follow.

A round has chance in it twice: a step onto a star draws a card (P8), a roll of the die decides
how many fields a piece takes (P9). A player by mail writes the rest of the round at once and
the engine applies it when each decision comes (docs/games/tapaono.md, "Standing orders"):

    roll all        roll 2 1          at a dice decision: roll for the first listed piece that may
    take 1 -1,2 0,2 0,3 1,3           at the take decision of piece 1 (or of any piece: no piece
    take -1,2 0,2   take 2 none       named): the first n of the fields that are legal, n the roll
    remove 4,-3 5,-3 5,-4             at a Raid or Loss decision: the first listed field it may free
    keep   move 2 3,3   land 1 0,2    any move: made when it is legal (else it waits)

An order whose decision comes but finds no legal choice gives None (the player is asked). This
module only reads, writes and applies orders; it neither stores them nor changes a state.
"""

from __future__ import annotations

from engine.core import IllegalMove, Move, Order, OrderError, OrderNotNeeded

from . import moves
from .board import COMMANDS_PER_ROUND, DEPOT_SIZE, FIELDS, INDEX, IS_STAR, NEIGHBOURS, Card
from .state import SPAWN, Phase, State
from .turn import SORTED_NEIGHBOURS, conquer_six_fields, legal

EXACT, ROLL, TAKE, REMOVE = "exact", "roll", "take", "remove"
ALL_PIECES = (1, 2, 3)
# The part of the round a decision belongs to: 0 the answer, 1 phase 1 with its cards, 2 the
# dice, 3 phase 4. An order for a part already over can never apply.
PART = {Phase.ANSWER: 0, Phase.MOVE: 1, Phase.CARD: 1, Phase.DICE: 2, Phase.TAKE: 2, Phase.CONQUEST: 3}
# Move kind -> the last part of the round in which such a decision can come (phase 1 for the
# others: steps, Transport and the decisions of drawn cards).
LAST_PART = {"end": 3, "play": 3, "propose": 3, "accept": 0, "decline": 0}
CARD_KINDS = frozenset({"keep", "use", "land", "jump", "recall", "skip", "remove", "play"})


def _coords(indices) -> tuple:
    return tuple(FIELDS[f] for f in indices)


def _indices(coords) -> tuple:
    return tuple(INDEX[tuple(c)] for c in coords)


def _field_list(words: list[str]) -> tuple[int, ...]:
    """Field indices in the order written (a preference), each once; no stars."""
    found = tuple(moves.read_field(w) for w in words)
    if len(set(found)) != len(found):
        raise OrderError("Name each field only once.")
    stars = [FIELDS[f] for f in found if IS_STAR[f]]
    if stars:
        raise OrderError("%(q)s,%(r)s is a star: no marker ever lies on a star.", q=stars[0][0], r=stars[0][1])
    return found


# ---------------------------------------------------------------------------------------
# Reading an order


def parse_order(st: State, seat: int, text: str) -> Order:
    """The order `seat` writes; OrderError if it can never apply in the rest of this round."""
    if st.phase == Phase.OVER:
        raise OrderNotNeeded("The game is over; no more orders can be given.")
    if seat != st.turn:  # the round ended: not needed
        raise OrderNotNeeded(
            "Standing orders are given in your own round, for what comes after a roll or a card in it.")
    words = moves.words(text)
    if not words:
        raise OrderError("Write an order, e.g. roll all, take 1 -1,2 0,2, remove 4,-3 or a move.")
    try:
        if words[0] == ROLL:
            return _roll_order(st, words[1:])
        if words[0] == TAKE:
            return _take_order(st, words[1:])
        if words[0] == REMOVE and words[1:]:
            return _remove_order(st, words[1:])
        move = moves.parse(text, lambda star: conquer_six_fields(st, star))
    except OrderError:  # (an IllegalMove too): the order's own reason
        raise
    except IllegalMove as error:  # the words of a move are wrong: the same reason
        raise OrderError(error.message) from None
    _check_window(st, move)
    return Order(EXACT, (move.kind, move.args))


def _part_over(st: State, last: int) -> bool:
    return PART[st.phase] > last


def _check_window(st: State, move: Move) -> None:
    """Refuse a move order whose decision cannot come any more this round."""
    kind, text = move.kind, moves.notation(move)
    if kind in CARD_KINDS and not st.cfg.commands:
        raise OrderError("This game is played without command cards.")
    if kind == "play" and move.args[0] != "transport" and st.stock[st.turn] <= 0:
        raise OrderNotNeeded("You have no markers left to conquer with.")  # the dice used them up
    last = 1 if kind == "play" and move.args[0] == "transport" else LAST_PART.get(kind, 1)
    if last == 0 and st.phase != Phase.ANSWER:
        raise OrderNotNeeded("There is no proposal of your opponent to answer.")
    if kind == "propose":
        if not st.cfg.mode_change:
            raise OrderError("Mode changes are off in this game.")
        if st.proposed:
            raise OrderError("You have proposed a mode change this round already.")
    if _part_over(st, last):
        raise _part_over_error(last, text)


def _roll_order(st: State, words: list[str]) -> Order:
    if _part_over(st, 2):
        raise OrderNotNeeded("The dice phase of this round is over: no more rolls.")
    if not words:
        raise OrderError("Name the pieces to roll for, in order (roll 2 1), or roll all.")
    pieces = ALL_PIECES if words == ["all"] else tuple(moves.read_piece(w) for w in words)
    if len(set(pieces)) != len(pieces):
        raise OrderError("Name each piece only once.")
    if PART[st.phase] == 2 and all(st.rolled >> (p - 1) & 1 for p in pieces):
        if len(pieces) == 1:
            raise OrderNotNeeded("Piece %(piece)s rolled this round already.", piece=pieces[0])
        raise OrderNotNeeded("Pieces %(pieces)s and %(last)s rolled this round already.",
                         pieces=", ".join(str(p) for p in pieces[:-1]), last=pieces[-1])
    return Order(ROLL, pieces)


def _part_over_error(last: int, text: str) -> OrderError:
    """The order for a part of the round that is over (1 the move phase, 2 the dice phase, 3 phase 4)."""
    if last == 1:
        return OrderNotNeeded("The move phase of this round is over, so %(move)r cannot come any more.", move=text)
    if last == 2:
        return OrderNotNeeded("The dice phase of this round is over, so %(move)r cannot come any more.", move=text)
    return OrderNotNeeded("Phase 4 of this round is over, so %(move)r cannot come any more.", move=text)


def _take_order(st: State, words: list[str]) -> Order:
    if _part_over(st, 2):
        raise OrderNotNeeded("The dice phase of this round is over: no more fields to take.")
    piece = None
    if words and words[0] in ("1", "2", "3"):
        piece, words = int(words[0]), words[1:]
    if not words:
        raise OrderError("Write the fields in the order you want them, e.g. take 1 -1,2 0,2 0,3, or take 1 none.")
    fields = () if words == ["none"] else _field_list(words)
    if PART[st.phase] == 2:  # the pieces stand still now: the fields must be next to one that rolls
        rolling = _may_take(st, piece)
        if not rolling:
            if piece:
                raise OrderNotNeeded("Piece %(piece)s has rolled this round already.", piece=piece)
            raise OrderNotNeeded("No piece of yours can roll any more this round.")
        if fields and not any(f in NEIGHBOURS[st.pos[st.turn * 3 + i]] for i in rolling for f in fields):
            if piece:
                raise OrderError("None of these fields is next to piece %(piece)s.", piece=piece)
            if any(f in NEIGHBOURS[st.pos[st.turn * 3 + i]] for i in range(3) for f in fields
                   if st.pos[st.turn * 3 + i] != SPAWN):  # fields of a piece whose roll came already
                raise OrderNotNeeded("None of these fields is next to a piece that can still roll.")
            raise OrderError("None of these fields is next to a piece that can still roll.")
    return Order(TAKE, (piece, _coords(fields)))


def _may_take(st: State, piece: int | None) -> list[int]:
    """The pieces (0..2) that may still take fields this round: the one choosing now, those yet to roll."""
    base = st.turn * 3
    found = [i for i in range(3) if st.pos[base + i] != SPAWN and not st.rolled >> i & 1]
    if st.phase == Phase.TAKE:
        found.append(st.pending[1])
    return [i for i in found if piece is None or i == piece - 1]


def _remove_order(st: State, words: list[str]) -> Order:
    if not st.cfg.commands:
        raise OrderError("This game is played without command cards.")
    if _part_over(st, 1):
        raise OrderNotNeeded("The move phase of this round is over: no card can ask to remove markers any more.")
    return Order(REMOVE, _coords(_field_list(words)))


# ---------------------------------------------------------------------------------------
# Writing and applying an order


def order_notation(order: Order) -> str:
    """The text of an order (preference lists in the order written)."""
    kind, args = order.kind, order.args
    if kind == ROLL:
        return "roll all" if args == ALL_PIECES else "roll " + " ".join(str(p) for p in args)
    if kind == TAKE:
        fields = " ".join(f"{q},{r}" for q, r in args[1]) or "none"
        return "take " + (f"{args[0]} " if args[0] else "") + fields
    if kind == REMOVE:
        return "remove " + " ".join(f"{q},{r}" for q, r in args)
    return moves.notation(moves.mv(args[0], args[1]))


def order_move(st: State, seat: int, order: Order) -> tuple[Move, Order | None] | None:
    """The legal move the order makes now for `seat` and what is left of it, or None."""
    if st.phase == Phase.OVER or st.turn != seat:
        return None
    found = legal(st)
    kind, args = order.kind, order.args
    if kind == EXACT:
        move = moves.mv(args[0], args[1])
        return (move, None) if move in found else None
    if kind == ROLL:
        for k, piece in enumerate(args):
            if moves.ROLL[piece - 1] in found:
                rest = args[k + 1:]
                return moves.ROLL[piece - 1], (Order(ROLL, rest) if rest else None)
        return None
    if kind == REMOVE:
        fields = _indices(args)
        for k, f in enumerate(fields):
            if moves.REMOVE[f] in found:
                rest = args[k + 1:]
                return moves.REMOVE[f], (Order(REMOVE, rest) if rest else None)
        return None
    move = _take(st, args[0], _indices(args[1]))
    return (move, None) if move is not None and move in found else None


def _take(st: State, piece: int | None, fields: tuple) -> Move | None:
    """The take move for a roll: the first n listed fields that are legal (n the roll; exactly the
    markers left after a 6 with too few markers); None if the order names no legal field."""
    if st.phase != Phase.TAKE or piece is not None and piece - 1 != st.pending[1]:
        return None
    pending, stock = st.pending, st.stock[st.turn]
    if pending[0] == "six":
        chosen = [f for f in fields if f in pending[2]][:stock]
        return moves.take(tuple(sorted(chosen))) if len(chosen) == stock else None
    _, _, n, elig, freemask = pending
    if not fields:
        return moves.take(())  # "take none": the roll is not used
    chosen, free = [], 0
    for f in fields:
        if f not in elig or len(chosen) == n:
            continue
        if freemask >> elig.index(f) & 1:  # a free field costs a marker from the stock
            if free == stock:
                continue
            free += 1
        chosen.append(f)
    return moves.take(tuple(sorted(chosen))) if chosen else None


def order_examples(st: State, seat: int) -> list[Order]:
    """One order of each form that can still apply this round, filled in for this position, in the
    order a mail can give them: the card, the fields each piece takes, the rolls, the end (issue 33)."""
    if st.phase == Phase.OVER or seat != st.turn:
        return []
    part, found = PART[st.phase], []
    if part <= 1 and st.cfg.commands and st.commands < COMMANDS_PER_ROUND and len(st.depots[seat]) < DEPOT_SIZE:
        found.append(Order(EXACT, ("keep", ())))
    if part <= 2:
        found += _take_examples(st, seat)
        base = seat * 3
        if part < 2 or any(st.pos[base + i] != SPAWN and not st.rolled >> i & 1 for i in range(3)):
            found.append(Order(ROLL, ALL_PIECES))
    if _phase_four_may_wait(st):
        found.append(Order(EXACT, ("end", ())))
    return found


def _take_examples(st: State, seat: int) -> list[Order]:
    """For each piece that may still take fields: all the fields around it that are not yet its own."""
    own, base, found = seat + 1, seat * 3, []
    for i in _may_take(st, None):
        ring = [f for f in SORTED_NEIGHBOURS[st.pos[base + i]] if st.owner[f] != own and not IS_STAR[f]]
        if ring:
            found.append(Order(TAKE, (i + 1, _coords(ring))))
    return found


def _phase_four_may_wait(st: State) -> bool:
    """Whether phase 4 of this round may wait for `end` (P11, P17): a mode change may still be proposed,
    or a conquest card may be in hand by then."""
    return bool(st.cfg.mode_change and not st.proposed) or bool(st.cfg.commands)


def turn_example(st: State, seat: int, apply) -> list[str]:
    """The rest of the round in one mail, as the turn mail shows it (issue 33), in an order that works
    whatever the cards and the die bring:

    - the decisions before chance as moves: the first legal one each (the answer to a proposal, the
      steps of phase 1), as the pieces go when every card drawn on the way is kept;
    - after the first move, for each star stepped on (P8): `keep` (a card for the depot) and `skip`
      (a card that offers a landing, a jump or a raid); a Loss takes the markers in the order of
      `remove`. A line that is no decision when it is read waits as a standing order for the next
      card (those left when the round ends are dropped);
    - the fields each piece takes (P9) before `roll all`, so that each roll finds its order;
    - `end`, when phase 4 may wait for it (P11, P17).

    `st` holds nothing the seat cannot see (the rules pass a resampled copy); `apply` is the
    rules' apply. The drawn cards never shape it: the copy's deck holds depot cards only."""
    if st.phase == Phase.OVER or seat != st.turn:
        return []
    st = st.copy()
    st.deck, st.used = (int(Card.TRANSPORT),) * max(len(st.deck) + len(st.used), 1), ()
    lines, stars = [], 0
    for _ in range(100):  # a round has far fewer decisions
        if st.phase == Phase.OVER or st.turn != seat or st.phase in (Phase.DICE, Phase.TAKE, Phase.CONQUEST):
            break
        found = legal(st)
        if st.phase == Phase.CARD:
            if moves.KEEP not in found:
                break
            move = moves.KEEP
        else:
            move = found[0]
            lines.append(moves.notation(move))
        after = apply(st, move)
        if len(after.deck) < len(st.deck):  # a card was drawn (and kept, by the engine when it is the only choice)
            stars += 1
        if after.depots != st.depots or after.held != st.held:
            # As if the card had been one for at once: the depot stays as it is, so that every star
            # stepped on later may draw too (the real cards can only draw fewer).
            after.depots, after.held, after._legal = st.depots, st.held, None
        st = after
    if st.phase == Phase.OVER or st.turn != seat:
        return lines  # the round (or the game) ended with the moves written
    if stars and st.cfg.commands:  # after the first move: the orders wait for the cards to come
        cards = ["keep"] * stars + ["skip"] * stars
        mine = [f for f in range(len(FIELDS)) if st.owner[f] == seat + 1]
        if mine:
            cards.append(order_notation(Order(REMOVE, _coords(mine))))
        lines[1:1] = cards
    if st.phase in (Phase.DICE, Phase.TAKE):
        lines += [order_notation(o) for o in _take_examples(st, seat)]
        if st.phase == Phase.DICE:
            lines.append(order_notation(Order(ROLL, ALL_PIECES)))
    if _phase_four_may_wait(st):
        lines.append("end")
    return lines
