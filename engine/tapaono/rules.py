"""The Tapaono rules object: options and modes, setup, apply, views, results and JSON.

The round itself (legal decisions, their effects, phase and round changes) is in turn.py;
this module wires it into the engine contract, explains refused moves to players, and
builds the view a player or a board renderer sees. It never shows the deck order or the
random state, and a move's preview (issue 31) stops before a card is drawn or the die rolled.
"""

from __future__ import annotations

from itertools import repeat
from operator import is_

from engine.core import (
    NOT_A_POSITION, ChanceAhead, IllegalMove, Message, Option, OptionError, Order, Preview, Result, Rng, Rules,
    canonical_json, derive_seed, join_or, rank_by, sha256_hex,
)

from . import aliases, effects, orders, turn
from . import moves as notation_
from .board import COMMANDS_PER_ROUND, DECK, FIELDS, INDEX, IS_STAR, MARKERS, SPAWN_ENTRIES, STAR_RING, Card
from .state import COLOURS, SPAWN, Mode, Phase, State, build, new_state, state_from_json, state_to_json
from .view import make_view

SEATS = ("the first player", "the second player")
MAX_MARKERS = 200
# A true bound: markers are placed at most once and removed at most once, so a game has at
# most 4 * 200 marker events; at most QUIET_LIMIT - 1 rounds pass between two of them; and
# a round holds at most 120 decisions (see docs/games/tapaono.md, "How long a game lasts").
MAX_DECISIONS = (4 * MAX_MARKERS + 1) * turn.QUIET_LIMIT * 120
END_REASONS = {  # why the game ended (the ids of the messages; their values are filled in by `result`)
    "goal": Message("%(winner)s surrounded %(goal)s stars with markers."),
    "deck": Message("The last command card was drawn and that round is over: more markers on the board wins."),
    "absolute": Message("%(empty)s has no markers left: more conquered fields wins."),
    "exhausted": Message("Neither player has a marker left to conquer with: stars surrounded, then markers, "
                         "decide."),
    "quiet": Message("Twenty rounds in a row passed without a marker placed or removed: the game ends as it "
                     "stands."),
}
# The players as the end's sentences name them (at the start of a sentence).
PLAYERS = (Message("The first player"), Message("The second player"))
# Both stocks ran out at once (P15): a sentence of its own, as "%(empty)s has" cannot take two players.
BOTH_EMPTY = Message("Both players have no markers left: more conquered fields wins.")


class TapaonoRules(Rules):
    """Tapaono for two players, in the modes Normal, Fast, Absolute and Free (P1-P17)."""

    name = "tapaono"
    title = "Tapaono"
    version = "tapaono-2"
    min_players = 2
    max_players = 2
    colours = COLOURS
    takes_orders = True
    command_aliases = aliases.ACTIONS  # the manuals' words for the commands (aliases.py)
    max_decisions = MAX_DECISIONS
    options = (
        Option("mode", Mode.NORMAL, "game mode: normal (surround five stars), fast (until the deck runs out), "
               "absolute (until a player runs out of markers) or free (set by the options below)",
               choices=Mode.ALL),
        Option("mode_change", True, "the players may agree to change the mode during the game"),
        Option("stars_to_win", 5, "free mode: stars to surround to win (0 = no star goal)", minimum=0, maximum=12),
        Option("commands", True, "free mode: play with command cards"),
        Option("counting_stars", "all", "free mode: which stars count: all, inner (the six around the centre) "
               "or outer (the other six)", choices=("all", "inner", "outer")),
        Option("markers", MARKERS, "free mode: field markers per player", minimum=1, maximum=MAX_MARKERS),
        Option("deck_end", False, "free mode: the game ends when the deck runs out (used cards leave the game)"),
    )

    def option_presets(self) -> list[dict]:
        """Each mode on its own (no mode changes), then the default game, where random play changes modes."""
        return [
            {"mode": Mode.NORMAL, "mode_change": False},
            {"mode": Mode.FAST, "mode_change": False},
            {"mode": Mode.ABSOLUTE, "mode_change": False},
            {"mode": Mode.FREE, "mode_change": False, "stars_to_win": 3, "counting_stars": "inner",
             "markers": 60, "deck_end": True},
            {},
        ]

    def check_options(self, options: dict | None) -> dict:
        checked = super().check_options(options)
        counting = {"all": 12, "inner": 6, "outer": 6}[checked["counting_stars"]]
        if checked["stars_to_win"] > counting:
            raise OptionError("Option stars_to_win can be at most %(most)s when counting_stars is %(counting)s.",
                              most=counting, counting=checked["counting_stars"])
        return checked

    # --- the game ------------------------------------------------------------------------

    def setup(self, players: int, options: dict, seed: int) -> State:
        self.check_players(players)
        options = self.check_options(options)
        self.seat_colours(players, options)  # the option `colours`, if chosen, is kept in st.options
        rng = Rng(seed)
        deck = list(DECK)
        rng.shuffle(deck)
        markers = options["markers"] if options["mode"] == Mode.FREE else MARKERS
        st = new_state(options["mode"], options, seed, tuple(deck), markers)
        st.counter = rng.counter
        st.cfg = turn.config(st.mode, options)
        effects.settle(st)
        effects.play_forced(st)
        return st

    def position(self, mode: str = Mode.NORMAL, options: dict | None = None, settle: bool = True, **layout) -> State:
        """An exact position for tests (see state.build), settled to its next real decision."""
        st = build(mode, self.check_options(dict(options or {}, mode=mode)), **layout)
        st.cfg = turn.config(st.mode, st.options)
        if settle:
            effects.settle(st)
            effects.play_forced(st)
        return st

    def to_move(self, state: State) -> int | None:
        return None if state.phase == Phase.OVER or state.chance is not None else state.turn

    def legal_moves(self, state: State) -> list:
        return [] if state.chance is not None else list(turn.legal(state))

    def apply(self, state: State, move) -> State:
        return self._advance(state, move, False)

    def apply_traced(self, state: State, move) -> tuple[State, list]:
        """`apply`, and each decision it made by itself: (the position then, the only legal move)."""
        trace: list = []
        return self._advance(state, move, False, trace), trace

    def preview(self, state: State, move) -> Preview:
        """The move and the decisions with one choice after it, up to the first command card drawn or
        die rolled: the preview stops there (a `roll` stops at once)."""
        st = self._advance(state, move, True)
        return Preview(st, None if st.chance is None else st.chance[0])

    def _advance(self, state: State, move, previewing: bool, trace: list | None = None) -> State:
        if state.chance is not None:
            raise IllegalMove(NOT_A_POSITION)
        if state.phase == Phase.OVER:
            raise IllegalMove("The game is over; no more moves can be made.")
        legal = turn.legal(state)
        if not any(map(is_, legal, repeat(move))) and move not in legal:  # identity first: moves are interned
            raise IllegalMove(explain(state, move, legal))
        st = state.copy()
        seat = st.turn
        st.events = ()
        st.previewing = previewing
        try:
            effects.perform(st, move)
            st.last = (seat, move)
            effects.settle(st)
            effects.play_forced(st, trace)
        except ChanceAhead:  # a preview before a card or a roll: the state stays as it is there
            st.last = (seat, move)
            st._legal = None
        st.previewing = False
        return st

    def parse(self, state: State, text: str):
        return notation_.parse(text, lambda star: turn.conquer_six_fields(state, star))

    def notation(self, state: State, move) -> str:
        return notation_.notation(move)

    # --- standing orders (orders.py, docs/games/tapaono.md) ---------------------------------

    def parse_order(self, state: State, seat: int, text: str) -> Order:
        return orders.parse_order(state, seat, text)

    def order_notation(self, order: Order) -> str:
        return orders.order_notation(order)

    def order_move(self, state: State, seat: int, order: Order):
        return orders.order_move(state, seat, order)

    def order_examples(self, state: State, seat: int) -> list[Order]:
        return orders.order_examples(state, seat)

    def turn_example(self, state: State, seat: int) -> list[str]:
        if self.to_move(state) != seat:
            return []
        # The deck is drawn anew from what the seat sees: the example keeps every card it draws, so
        # no card it could not know shapes it.
        seen = sha256_hex(canonical_json(self.view(state, seat)))
        return orders.turn_example(self.resample_hidden(state, seat, int(seen[:16], 16)), seat, self.apply)

    # --- scores and results --------------------------------------------------------------

    def _keys(self, state: State) -> tuple[list, list]:
        cfg = state.cfg
        markers = [state.owner.count(1), state.owner.count(2)]
        if cfg.goal:
            stars = [turn.surrounded(state.owner, s, cfg.counting) for s in (0, 1)]
            return stars, [(stars[s] >= cfg.goal, stars[s], markers[s]) for s in (0, 1)]
        return markers, [(markers[s],) for s in (0, 1)]

    def scores(self, state: State) -> list[int]:
        """Stars surrounded in a mode with a star goal, else markers on the board."""
        return self._keys(state)[0]

    def result(self, state: State) -> Result | None:
        if state.phase != Phase.OVER:
            return None
        scores, keys = self._keys(state)
        ranks = rank_by(keys)
        winner = PLAYERS[ranks.index(1)] if ranks.count(1) == 1 else Message("Both players")
        out = [s for s in (0, 1) if state.stock[s] <= 0]
        if state.over == "absolute" and len(out) == 2:
            reason = BOTH_EMPTY
        else:
            empty = PLAYERS[out[0]] if out else Message("A player")
            reason = Message(END_REASONS[state.over].message_id, winner=winner, goal=state.cfg.goal, empty=empty)
        if ranks == (1, 1):
            reason = Message("%(reason)s It is a draw.", reason=reason)
        details = {
            "end": state.over,
            "mode": state.mode,
            "stars_surrounded": [turn.surrounded(state.owner, s, state.cfg.counting) for s in (0, 1)],
            "markers_on_board": [state.owner.count(1), state.owner.count(2)],
            "markers_left": list(state.stock),
            "rounds": list(state.rounds),
        }
        return Result(tuple(scores), ranks, str(reason), details, message=reason)

    # --- views ---------------------------------------------------------------------------

    def view(self, state: State, seat: int | None) -> dict:
        """The same for every seat and spectators: everything is open but the deck order."""
        return make_view(state, self.scores(state), self.result(state))

    # --- JSON and hidden information ---------------------------------------------------

    def state_to_json(self, state: State) -> dict:
        return state_to_json(state, Rng(state.seed, state.counter).to_json())

    def state_from_json(self, data: dict) -> State:
        st = state_from_json(data)
        st.cfg = turn.config(st.mode, st.options)
        return st

    def resample_hidden(self, state: State, seat: int | None, seed: int) -> State:
        """Only the deck order and the random state are hidden; depots and drawn cards are open."""
        st = state.copy()
        # Sorted first: the result depends only on what the seat sees and the seed (core).
        st.deck = permuted(tuple(sorted(st.deck)), Rng(derive_seed(seed, "deck")).bits64())
        st.seed, st.counter = seed, 0
        return st


def permuted(items: tuple, key: int) -> tuple:
    """A shuffled copy of items, driven by one 64-bit key (xorshift; for resampling hidden order only)."""
    out = list(items)
    x = key or 0x9E3779B97F4A7C15
    for i in range(len(out) - 1, 0, -1):
        x ^= (x << 13) & 0xFFFFFFFFFFFFFFFF
        x ^= x >> 7
        x ^= (x << 17) & 0xFFFFFFFFFFFFFFFF
        j = x % (i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out)


# ---------------------------------------------------------------------------------------
# Refused moves


def explain(st: State, move, legal: list) -> Message:
    """One sentence saying why a move is refused here, and what would be allowed."""
    try:
        reason = _explain(st, move, legal)
    except Exception:  # a malformed move: fall back to listing the choices
        reason = None
    if reason:
        return reason
    texts = [notation_.notation(m) for m in legal[:8]]
    more = ", ..." if len(legal) > 8 else ""
    return Message("That is not one of your choices now; you can: %(moves)s.", moves=", ".join(texts) + more)


def _field(args) -> str:
    return f"{args[0]},{args[1]}"


def _explain(st: State, move, legal: list) -> Message | None:
    kinds = []
    for m in legal:
        if m.kind not in kinds:
            kinds.append(m.kind)
    kind, args = move.kind, move.args
    specific = (kind == "play" and st.phase in (Phase.MOVE, Phase.CONQUEST)
                or kind == Phase(st.phase).name.lower() and kind in ("move", "take"))
    if kind not in kinds and not specific:
        return _not_now(st.phase, join_or(kinds), str(kind)[:20])
    seat = st.turn
    if kind == "move":
        piece, q, r = args
        if piece not in (1, 2, 3):
            return Message("Your pieces are 1, 2 and 3, not %(piece)r.", piece=piece)
        if st.moving >= 0 and piece != st.moving + 1:
            return Message("Piece %(piece)s is still moving with Transport +2: move it on or stop.",
                           piece=st.moving + 1)
        if (q, r) not in INDEX:
            return Message("There is no field %(q)s,%(r)s on the board.", q=q, r=r)
        if st.moving < 0 and st.done >> (piece - 1) & 1:
            return Message("Piece %(piece)s has already made its move this round.", piece=piece)
        f, here = INDEX[(q, r)], st.pos[seat * 3 + piece - 1]
        if f in st.pos:
            return Message("A piece already stands on %(q)s,%(r)s.", q=q, r=r)
        if st.owner[f] == 2 - seat:
            return Message("Your opponent has conquered %(q)s,%(r)s, so your pieces cannot enter it.", q=q, r=r)
        if here == SPAWN:
            if st.entered and st.rounds[seat] <= 3:
                return Message("In your first three rounds only one piece a round enters from the spawn.")
            entries = ", ".join(_field(FIELDS[e]) for e in SPAWN_ENTRIES[seat])
            return Message("A piece from your spawn enters on a field touching it: %(fields)s.", fields=entries)
        return Message("%(q)s,%(r)s is not next to piece %(piece)s.", q=q, r=r, piece=piece)
    if kind == "play":
        label = args[0]
        if st.commands >= COMMANDS_PER_ROUND:
            return Message("You have already played five commands this round.")
        if label in ("conquer-six", "conquer-three"):
            if st.phase != Phase.CONQUEST:
                return Message("Conquest cards are played in phase 4, after the dice.")
            code = int(Card.CONQUER_SIX if label == "conquer-six" else Card.CONQUER_THREE)
            if code not in st.held and code not in st.depots[seat]:
                return Message("You have no %(card)s card in your depot or in use this round.", card=label)
            if st.stock[seat] <= 0:
                return Message("You have no markers left to conquer with.")
            star = INDEX.get((args[1], args[2]))
            if star is None or not IS_STAR[star]:
                return Message("%(q)s,%(r)s is not a star.", q=args[1], r=args[2])
            ring = {FIELDS[f] for f in STAR_RING[star]}
            stray = [c for c in args[3] if tuple(c) not in ring]
            if stray:
                return Message("%(field)s is not one of the six fields around the star %(q)s,%(r)s.",
                               field=_field(stray[0]), q=args[1], r=args[2])
            own = [c for c in args[3] if st.owner[INDEX[tuple(c)]] == seat + 1]
            if own:
                return Message("You have already conquered %(field)s.", field=_field(own[0]))
            if len(args[3]) > st.stock[seat]:
                return Message("You have only %(count)s markers left: name that many fields.", count=st.stock[seat])
            if label == "conquer-six":
                return Message("%(card)s conquers every field around the star that is not yours (fewer only if "
                               "there are not enough fields or markers).", card=label)
            return Message("%(card)s conquers three fields (fewer only if there are not enough fields or markers).",
                           card=label)
        if int(Card.TRANSPORT) not in st.held and int(Card.TRANSPORT) not in st.depots[seat]:
            return Message("You have no transport card in your depot or in use this round.")
        return Message("Transport +2 is played on a piece that must still move and has not got it yet, not on "
                       "%(piece)r.", piece=args[1])
    if kind == "take":
        pending = st.pending
        limit = pending[2] if pending[0] == "take" else st.stock[seat]
        allowed = pending[3] if pending[0] == "take" else pending[2]
        stray = [c for c in args[0] if INDEX.get(tuple(c)) not in allowed]
        if stray:
            return Message("%(field)s cannot be taken with this roll: only fields around the piece that are free or "
                           "your opponent's (never stars or your own fields).", field=_field(stray[0]))
        if pending[0] == "six":
            return Message("You have only %(count)s markers left: take exactly %(count)s of the free fields.",
                           count=limit)
        if len(args[0]) > limit:
            return Message("A roll of %(roll)s acts on at most %(roll)s fields.", roll=limit)
        return Message("You have only %(count)s markers left to conquer free fields with.", count=st.stock[seat])
    return None


def _not_now(phase: Phase, kinds, kind: str) -> Message:
    """'Now you <what the phase asks>: you can <the kinds of move>, not <kind>.', one sentence per phase."""
    if phase == Phase.ANSWER:
        return Message("Now you answer your opponent's proposal to change the mode: you can %(kinds)s, not %(kind)r.",
                       kinds=kinds, kind=kind)
    if phase == Phase.MOVE:
        return Message("Now you move your pieces (phase 1): you can %(kinds)s, not %(kind)r.", kinds=kinds, kind=kind)
    if phase == Phase.CARD:
        return Message("Now you decide about the command card just drawn (phase 2): you can %(kinds)s, not %(kind)r.",
                       kinds=kinds, kind=kind)
    if phase == Phase.DICE:
        return Message("Now you roll the die for a piece or end the dice phase (phase 3): you can %(kinds)s, not "
                       "%(kind)r.", kinds=kinds, kind=kind)
    if phase == Phase.TAKE:
        return Message("Now you choose the fields your roll acts on (phase 3): you can %(kinds)s, not %(kind)r.",
                       kinds=kinds, kind=kind)
    if phase == Phase.CONQUEST:
        return Message("Now you play conquest cards or end your round (phase 4): you can %(kinds)s, not %(kind)r.",
                       kinds=kinds, kind=kind)
    return Message("Now you are done: the game is over: you can %(kinds)s, not %(kind)r.", kinds=kinds, kind=kind)


RULES = TapaonoRules()
