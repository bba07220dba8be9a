"""Counters: a small game that lives only under tests/, to exercise the platform.

2 to 4 players share a pile of counters. On your turn: `take 1`..`take 3` counters from the
pile, or `draw` a card (value 1..5) from a shuffled hidden deck into your hidden hand (at
most 3 draws each). Taking the last counter ends the game and earns 5. Score: counters
taken plus the cards in hand. It has what the real games have: a hidden deck, hidden hands
per seat, chance from the state's RNG, and options.

`TITLE` is its registry entry, as a game package of engine/ has one: a blurb and a rules page
(tests/engine/docs/counters.md), no pictures and no board in words. tests/conftest.py registers
it for the whole run (`engine.register(TITLE)`), the one line that adds it to the site.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.core import (
    DRAW, NOT_A_POSITION, REVEAL, STOPPED_BEFORE, IllegalMove, Message, Move, Option, Preview, Result, Rng, Rules,
    normalize_text, rank_by,
)
from engine.registry import Title

DECK = (1, 1, 2, 2, 3, 3, 4, 4, 5, 5)


@dataclass(frozen=True)
class State:
    players: int
    pile: int
    turn: int
    taken: tuple
    hands: tuple  # tuple of tuples
    deck: tuple
    rng: tuple  # Rng as JSON
    bonus: bool
    over: bool = False
    last_taker: int | None = None
    colours: tuple = ()  # per seat (the reserved option `colours`, or the default order)
    chance: str | None = None  # a preview stopped before a card is drawn (issue 31)


class CountersRules(Rules):
    name = "counters"
    title = "Counters"
    version = "counters-1"
    min_players = 2
    max_players = 4
    options = (Option("pile", 15, "counters in the pile", minimum=5, maximum=40),
               Option("bonus", True, "5 points for the last counter"))
    max_decisions = 200

    def option_presets(self):
        return [{}, {"pile": 7, "bonus": False}]

    def setup(self, players, options, seed):
        self.check_players(players)
        options = self.check_options(options)
        rng = Rng(seed)
        deck = list(DECK)
        rng.shuffle(deck)
        return State(players, options["pile"], 0, (0,) * players, ((),) * players, tuple(deck),
                     tuple(rng.to_json()), options["bonus"], colours=self.seat_colours(players, options))

    def to_move(self, state):
        return None if state.over or state.chance else state.turn

    def legal_moves(self, state):
        if state.over or state.chance:
            return []
        moves = [Move("take", (n,)) for n in (1, 2, 3) if n <= state.pile]
        if state.deck and len(state.hands[state.turn]) < 3:
            moves.append(Move("draw"))
        return moves

    def preview(self, state, move):
        """`take` shows its outcome, but the last counter stops before the end shows every hand;
        `draw` stops before the card: nothing of it is shown."""
        after = self.apply(state, move)
        if move.kind == "draw":
            return Preview(replace(state, chance=DRAW), DRAW)
        if after.over:
            return Preview(replace(after, over=False, last_taker=None, chance=REVEAL), REVEAL)
        return Preview(after)

    def apply(self, state, move):
        if state.chance:
            raise IllegalMove(NOT_A_POSITION)
        if state.over:
            raise IllegalMove("The game is over; no more moves can be made.")
        if move not in self.legal_moves(state):
            if move.kind == "take":
                raise IllegalMove(f"You can take 1 to {min(3, state.pile)} counters, not {move.args}.")
            raise IllegalMove("You cannot draw: the deck is empty or you hold 3 cards.")
        seat = state.turn
        if move.kind == "take":
            n = move.args[0]
            taken = list(state.taken)
            taken[seat] += n
            pile = state.pile - n
            return replace(state, pile=pile, taken=tuple(taken), turn=(seat + 1) % state.players,
                           over=pile == 0, last_taker=seat if pile == 0 else None)
        hands = list(state.hands)
        hands[seat] = hands[seat] + (state.deck[0],)
        return replace(state, deck=state.deck[1:], hands=tuple(hands), turn=(seat + 1) % state.players)

    def parse(self, state, text):
        words = normalize_text(text).split()
        if words == ["draw"]:
            return Move("draw")
        if len(words) == 2 and words[0] == "take" and words[1].isdigit():
            return Move("take", (int(words[1]),))
        raise IllegalMove(f"Write 'take 1', 'take 2', 'take 3' or 'draw', not {text!r}.")

    def notation(self, state, move):
        return "draw" if move.kind == "draw" else f"take {move.args[0]}"

    def scores(self, state):
        bonus = [5 if state.over and state.bonus and state.last_taker == s else 0 for s in range(state.players)]
        return [state.taken[s] + sum(state.hands[s]) + bonus[s] for s in range(state.players)]

    def result(self, state):
        if not state.over:
            return None
        scores = self.scores(state)
        return Result(tuple(scores), rank_by([(s,) for s in scores]), "The pile is empty.")

    def view(self, state, seat):
        stopped = {STOPPED_BEFORE: {"chance": state.chance}} if state.chance else {}
        return {
            **stopped,
            "pile": state.pile,
            "colours": list(state.colours),
            "to_move": self.to_move(state),
            "taken": list(state.taken),
            "hand_sizes": [len(h) for h in state.hands],
            "my_hand": list(state.hands[seat]) if seat is not None else None,
            "hands": [list(h) for h in state.hands] if state.over else None,
            "deck_size": len(state.deck),
        }

    def state_to_json(self, state):
        return {"players": state.players, "pile": state.pile, "turn": state.turn, "taken": list(state.taken),
                "hands": [list(h) for h in state.hands], "deck": list(state.deck), "rng": list(state.rng),
                "over": state.over, "last_taker": state.last_taker, "bonus": state.bonus,
                "colours": list(state.colours)}

    def state_from_json(self, data):
        return State(data["players"], data["pile"], data["turn"], tuple(data["taken"]),
                     tuple(tuple(h) for h in data["hands"]), tuple(data["deck"]), tuple(data["rng"]),
                     data["bonus"], data["over"], data["last_taker"], tuple(data["colours"]))

    def resample_hidden(self, state, seat, seed):
        rng = Rng(seed)
        pool = list(state.deck)
        others = [s for s in range(state.players) if s != seat]
        for s in others:
            pool.extend(state.hands[s])
        pool.sort()  # the result depends only on what `seat` sees and the seed (engine.core)
        rng.shuffle(pool)
        hands = list(state.hands)
        for s in others:
            n = len(hands[s])
            hands[s], pool = tuple(pool[:n]), pool[n:]
        return replace(state, deck=tuple(pool), hands=tuple(hands), rng=tuple(rng.to_json()))


RULES = CountersRules()

TITLE = Title(
    RULES,
    blurb=Message("Take one to three counters from a shared pile, or draw a hidden card; the last counter ends "
                  "the game."),
    rules_pages="tests.engine",
)
