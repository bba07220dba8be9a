"""The contract every game engine implements, and the small tools they share.

A game is a `Rules` object (one per title, in its `Title` entry: `engine/registry.py`). States are
plain values owned by the game; the service only ever touches them through the rules
object: `setup`, `to_move`, `legal_moves`, `apply`, `parse`, `notation`, `view`, `result`,
`state_to_json`, `state_from_json`, `state_hash`, `preview` (what a move does up to the first
draw or roll, issue 31), and for standing orders (choices written before the chance event they
follow) `parse_order`, `order_notation`, `order_move`, `order_examples` and `queued_move`.
A stored game is played with `for_version` of its rules version (issue 40); `apply_traced` shows
the contract suite the decisions an engine makes by itself.

This module deliberately does no I/O, reads no clock and uses no global random: every
chance event comes from the counter-based `Rng` that lives inside a game's state, so
`(game, version, options, players, seed, moves)` always rebuilds the identical state.
Only the standard library is imported here and in every game package.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

MASK64 = (1 << 64) - 1


# ---------------------------------------------------------------------------------------
# Words for players (issue 24)
#
# What an engine tells a player (why a move is refused, an option or an order) is a message id,
# the English sentence with named placeholders ("There is no tile at %(x)s,%(y)s."), and the
# values that fill them. `str()` gives the English; the service translates the id with the
# engine catalogue (pbem/translations/*/LC_MESSAGES/engine.po, pbem.reasons) and fills in the
# same values. Values that are notation or names (a tile, a list of legal moves) stay English.
# A value may itself be a Message (a whole clause, translated on its own) or a Listing of them.


class Message:
    """A sentence (or a whole clause of one) for players: an English message id with named
    placeholders, and the values that fill them. Formatting waits for `str()`."""

    __slots__ = ("message_id", "params")

    def __init__(self, message_id: str, /, **params: Any):
        self.message_id = message_id
        self.params = params

    def __str__(self) -> str:
        if not self.params:
            return self.message_id
        return self.message_id % {name: str(value) if isinstance(value, (Message, Listing)) else value
                                  for name, value in self.params.items()}

    def __repr__(self) -> str:
        return f"Message({self.message_id!r}, **{self.params!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Message) and (other.message_id, other.params) == (self.message_id, self.params)

    __hash__ = None  # type: ignore[assignment]  # params are a dict


class Listing:
    """Values for players written one after the other with a separator that every language writes
    the same way (", ", "; "); each item may be a Message, translated on its own."""

    __slots__ = ("items", "separator")

    def __init__(self, items: Iterable[Any], separator: str = ", "):
        self.items = tuple(items)
        self.separator = separator

    def __str__(self) -> str:
        return self.separator.join(map(str, self.items))

    def __repr__(self) -> str:
        return f"Listing({self.items!r}, {self.separator!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Listing) and (other.items, other.separator) == (self.items, self.separator)

    __hash__ = None  # type: ignore[assignment]


def join_or(items: Sequence[Any]) -> Any:
    """'a or b or c' as a message a translation can follow ('a of b of c'); one item is itself,
    none the empty string."""
    if len(items) <= 1:
        return items[0] if items else ""
    return Message("%(first)s or %(second)s", first=items[0], second=join_or(items[1:]))


def join_and(items: Sequence[Any]) -> Any:
    """'a and b and c' as a message a translation can follow;
    one item is itself, none the empty string."""
    if len(items) <= 1:
        return items[0] if items else ""
    return Message("%(first)s and %(second)s", first=items[0], second=join_and(items[1:]))


class _Worded:
    """An error whose text is a Message: `IllegalMove("There is no tile at %(x)s,%(y)s.", x=x, y=y)`,
    or `IllegalMove(message)` for a Message built before (an explanation, another error's).

    `str(error)` is the English sentence; `message_id` and `params` are its parts for translation.
    """

    def __init__(self, message: str | Message, /, **params: Any):
        if isinstance(message, Message):
            if params:
                raise TypeError("a Message brings its own parameters")
            self.message = message
        else:
            self.message = Message(message, **params)
        super().__init__(self.message.message_id)

    @property
    def message_id(self) -> str:
        return self.message.message_id

    @property
    def params(self) -> dict[str, Any]:
        return self.message.params

    def __str__(self) -> str:
        return str(self.message)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"


class IllegalMove(_Worded, Exception):
    """A move that the rules do not allow here; the message says why, in one sentence."""


class OptionError(_Worded, ValueError):
    """Options of a new game that the rules do not accept; the message says which and why."""


class OrderError(IllegalMove):
    """A standing order that can never apply (wrong fields, a decision that cannot come this
    turn, a game without orders); the message says why, in one sentence."""


class OrderNotNeeded(OrderError):
    """An order for a decision that will not come in the rest of this turn because the game went
    past it or chance settled it (the turn ended, the die took the fields, no card was drawn):
    no mistake of the player's, so a mail reader answers it "not needed" and reads on (issue 33).
    An order refused for a reason of the player's own (a field that is no field, a rule it
    breaks) stays a plain OrderError."""


# ---------------------------------------------------------------------------------------
# Canonical JSON and hashes


def canonical_json(data: Any) -> str:
    """Serialise JSON-ready data in the one byte-stable form hashes are taken over."""
    return _CANONICAL.encode(data)


# JSON-ready data is a tree (an engine's state, a move, a decoded archive), so the encoder does not
# track the containers it is inside to refuse a cycle: a fifth less time for a state (a cycle
# would end in RecursionError instead of ValueError).
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False,
                              check_circular=False)


def sha256_hex(text: str | bytes) -> str:
    """Return the SHA-256 of text (UTF-8) or bytes as 64 lowercase hex digits."""
    if isinstance(text, str):
        text = text.encode("utf-8")
    return hashlib.sha256(text).hexdigest()


def to_tuple(value: Any) -> Any:
    """Turn the lists of decoded JSON back into tuples, recursively (moves compare by value)."""
    if isinstance(value, list):
        return tuple(to_tuple(v) for v in value)
    return value


# ---------------------------------------------------------------------------------------
# Moves and standing orders


@dataclass(frozen=True, slots=True)
class _Tagged:
    """A kind and its arguments (ints, strings, None or tuples of those): hashable, compared by
    value (and by class: a Move never equals an Order), and exact through JSON."""

    kind: str
    args: tuple = ()

    def to_json(self) -> list:
        return [self.kind, _to_list(self.args)]

    @classmethod
    def from_json(cls, data: Any):
        if (
            not isinstance(data, (list, tuple))
            or len(data) != 2
            or not isinstance(data[0], str)
            or not isinstance(data[1], (list, tuple))
        ):
            raise cls.ERROR(cls.MALFORMED)
        return cls(data[0], to_tuple(list(data[1])))

    def __str__(self) -> str:  # for logs and test failures, not for players
        return f"{self.kind}{list(self.args)}"


@dataclass(frozen=True, slots=True)
class Move(_Tagged):
    """One decision: a kind ('expand', 'place', 'roll', ...) and its arguments."""

    ERROR = IllegalMove
    MALFORMED = Message("That is not a move: expected [kind, [arguments]].")


@dataclass(frozen=True, slots=True)
class Order(_Tagged):
    """A standing order: a player's choice, written now, for a decision still to come in this turn.

    Orders are for what follows chance (which fields a roll of the die takes, where the ships of
    a fleet land): the player need not wait for the result to decide. `Rules.order_move` turns
    an order into an ordinary move when its decision comes; the state never holds orders, so
    replaying the moves needs nothing else. Kinds and arguments are the game's (a preference
    list is a tuple in order).
    """

    ERROR = OrderError
    MALFORMED = Message("That is not a standing order: expected [kind, [arguments]].")


def _to_list(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_to_list(v) for v in value]
    return value


# ---------------------------------------------------------------------------------------
# Randomness


class Rng:
    """A counter-based random source: draw i is SHA-256(seed, i), so a state carries it as two ints.

    It is copied with the state (never shared between states), serialised with it, and
    is the only source of chance in every game.
    """

    __slots__ = ("seed", "counter")

    def __init__(self, seed: int, counter: int = 0):
        if not isinstance(seed, int) or seed < 0:
            raise ValueError("the seed is a non-negative integer")
        self.seed = seed
        self.counter = counter

    def copy(self) -> "Rng":
        return Rng(self.seed, self.counter)

    def to_json(self) -> list:
        # The seed is written as a string: it can be far larger than 2**53.
        return [format(self.seed, "x"), self.counter]

    @classmethod
    def from_json(cls, data: Sequence) -> "Rng":
        return cls(int(data[0], 16), int(data[1]))

    def bits64(self) -> int:
        """Return the next 64 random bits."""
        digest = hashlib.sha256(f"{self.seed:x}:{self.counter}".encode("ascii")).digest()
        self.counter += 1
        return int.from_bytes(digest[:8], "big")

    def below(self, n: int) -> int:
        """Return a uniform integer in [0, n) (rejection sampling: no modulo bias)."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = (MASK64 + 1) - ((MASK64 + 1) % n)
        while True:
            value = self.bits64()
            if value < limit:
                return value % n

    def die(self, sides: int = 6) -> int:
        """Roll one die with the given number of sides: 1..sides."""
        return self.below(sides) + 1

    def choice(self, items: Sequence) -> Any:
        return items[self.below(len(items))]

    def shuffle(self, items: list) -> None:
        """Shuffle a list in place (Fisher-Yates)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def derive_seed(seed: int, purpose: str) -> int:
    """A sub-seed for one purpose (seat order, a resample in tests), independent of the game's draws."""
    return int.from_bytes(hashlib.sha256(f"{seed:x}/{purpose}".encode()).digest()[:16], "big")


# ---------------------------------------------------------------------------------------
# Options

# The reserved option every game accepts: the colour of each seat, in seat order (distinct
# names from `Rules.colours`). The service sets it at the start from the players' colour
# choices; absent, seat i has `Rules.colours[i]`, as in every game made before it existed.
COLOURS_OPTION = "colours"


@dataclass(frozen=True)
class Option:
    """One option of a new game: its name, type (bool, int or choice), default and help text."""

    name: str
    default: Any
    help: str
    choices: tuple = ()          # for a choice option: the allowed values (strings)
    minimum: int | None = None   # for an int option
    maximum: int | None = None

    @property
    def kind(self) -> str:
        if self.choices:
            return "choice"
        if isinstance(self.default, bool):
            return "bool"
        return "int"

    def coerce(self, value: Any) -> Any:
        """Return the value in this option's type, or raise OptionError saying what is allowed."""
        kind = self.kind
        if kind == "bool":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise OptionError("Option %(option)s is yes or no, not %(value)r.", option=self.name, value=value)
        if kind == "int":
            try:
                number = int(str(value).strip()) if not isinstance(value, int) or isinstance(value, bool) else value
            except ValueError:
                raise OptionError("Option %(option)s is a whole number, not %(value)r.", option=self.name,
                                  value=value) from None
            if isinstance(value, bool):
                raise OptionError("Option %(option)s is a whole number, not %(value)r.", option=self.name, value=value)
            if (self.minimum is not None and number < self.minimum) or (
                self.maximum is not None and number > self.maximum
            ):
                raise OptionError("Option %(option)s must be between %(minimum)s and %(maximum)s.", option=self.name,
                                  minimum=self.minimum, maximum=self.maximum)
            return number
        text = str(value).strip().lower()
        if text not in self.choices:
            raise OptionError("Option %(option)s must be one of %(choices)s; %(value)r is not.", option=self.name,
                              choices=", ".join(self.choices), value=value)
        return text

    def to_json(self) -> dict:
        data = {"name": self.name, "type": self.kind, "default": self.default, "help": self.help}
        if self.choices:
            data["choices"] = list(self.choices)
        if self.minimum is not None:
            data["minimum"] = self.minimum
        if self.maximum is not None:
            data["maximum"] = self.maximum
        return data


# ---------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class Result:
    """The end of a game: final score per seat, place per seat (1 = first; ties share), and why.

    `reason` is the English sentence, as results and archives store it; `message` the same
    sentence as a Message (its id and values), which the service translates for a reader. A
    result read back from JSON has no message.
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    reason: str
    details: dict = field(default_factory=dict, compare=False)
    message: Message | None = field(default=None, compare=False)

    def to_json(self) -> dict:
        return {
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "reason": self.reason,
            "details": self.details,
        }

    @classmethod
    def from_json(cls, data: dict) -> "Result":
        return cls(tuple(data["scores"]), tuple(data["ranks"]), data["reason"], dict(data.get("details") or {}))

    def winners(self) -> list[int]:
        return [seat for seat, rank in enumerate(self.ranks) if rank == 1]


def rank_by(keys: Sequence[Sequence]) -> tuple[int, ...]:
    """Places from one sort key per seat (larger is better); equal keys share a place (1, 1, 3)."""
    order = sorted(range(len(keys)), key=lambda seat: tuple(keys[seat]), reverse=True)
    ranks = [0] * len(keys)
    for position, seat in enumerate(order):
        if position and tuple(keys[seat]) == tuple(keys[order[position - 1]]):
            ranks[seat] = ranks[order[position - 1]]
        else:
            ranks[seat] = position + 1
    return tuple(ranks)


# ---------------------------------------------------------------------------------------
# Previews (issue 31)
#
# A player may look at the position a move leads to before playing it. What the engine would
# draw or roll after the move must not be in that picture: the next tile, a command card, a die.
# Not every draw calls the Rng (a pile shuffled at setup is only read), so each game marks the
# places where it reveals something and stops there when it previews.

DRAW = "draw"       # a hidden tile or card is drawn (from a pile shuffled at setup, or shuffled now)
ROLL = "roll"       # a die is rolled
REVEAL = "reveal"   # hidden things are shown without a draw (a game whose end shows every hand)

# What a stopped preview's view holds, besides the game's own fields: {"chance": DRAW, ROLL or REVEAL, ...}.
STOPPED_BEFORE = "stopped_before"

NOT_A_POSITION = Message("This is the preview of a move, stopped before a draw or a roll: play the move itself "
                         "to go on.")


class ChanceAhead(Exception):
    """Raised by an engine's own code where a preview reaches a draw or a roll; its `preview` catches it.

    The state being worked on stays as it is at that point: that is the preview.
    """

    def __init__(self, chance: str):
        super().__init__(chance)
        self.chance = chance


@dataclass(frozen=True)
class Preview:
    """What a move does before anything hidden is drawn or rolled (`Rules.preview`).

    `chance` is None when the move, and every decision the engine makes by itself after it,
    needs no chance: then `state` is exactly `apply`'s (the same hash) and play may go on
    from it. Otherwise `chance` (DRAW, ROLL or REVEAL) is what comes next, and `state` is the position
    just before it: nobody is to move in it (`to_move` is None, no legal moves, `apply`
    refuses), and its views say what comes next under STOPPED_BEFORE.
    """

    state: Any
    chance: str | None = None

    @property
    def stopped(self) -> bool:
        """Whether the preview stopped before a draw or a roll: the rest comes with the move itself."""
        return self.chance is not None


# ---------------------------------------------------------------------------------------
# The contract


class Rules:
    """The interface of one game. Subclasses fill in every method that raises below.

    Class attributes a game sets:
      name         registry name, lowercase ("tongiaki")
      title        display name ("Tongiaki")
      version      rules version; bump it whenever the same moves could give another state (and keep
                   the older one playable where games of it exist: `for_version`)
      min_players, max_players
      options      tuple of Option
      colours      the players' colours (names; views and pictures use the same): seat i has
                   colours[i] unless the reserved option `colours` says otherwise (`seat_colours`)
      max_decisions  an upper bound on decisions in one game (random play must stay under it)
      takes_orders   whether the game reads standing orders (parse_order and friends, below)
    """

    name: str = ""
    title: str = ""
    version: str = ""
    min_players: int = 2
    max_players: int = 2
    options: tuple[Option, ...] = ()
    colours: tuple[str, ...] = ("blue", "green", "orange", "purple", "red", "yellow")
    max_decisions: int = 100_000
    takes_orders: bool = False
    command_aliases: Aliases | None = None  # the commands' words in other languages (command_word)

    # --- options ---------------------------------------------------------------------

    def check_options(self, options: dict | None) -> dict:
        """Return the complete options (defaults filled in), or raise OptionError.

        The reserved option `colours` is kept (checked) when given and not added when absent.
        """
        options = dict(options or {})
        colours = options.pop(COLOURS_OPTION, None)
        known = {opt.name: opt for opt in self.options}
        unknown = sorted(set(options) - set(known))
        if unknown and not known:
            raise OptionError("%(game)s has no option %(option)r; its options are: none.", game=self.title,
                              option=unknown[0])
        if unknown:
            raise OptionError("%(game)s has no option %(option)r; its options are: %(options)s.", game=self.title,
                              option=unknown[0], options=", ".join(known))
        checked = {name: (opt.coerce(options[name]) if name in options else opt.default)
                   for name, opt in known.items()}
        if colours is not None:
            checked[COLOURS_OPTION] = self.check_colours(colours)
        return checked

    def check_colours(self, colours: Any, players: int | None = None) -> list[str]:
        """The reserved option `colours` checked: distinct colours of this game, one per seat.

        Returns the list of names (lower case); raises OptionError saying what is wrong.
        """
        allowed = ", ".join(self.colours)
        if not isinstance(colours, (list, tuple)) or not all(isinstance(c, str) for c in colours):
            raise OptionError("Option %(option)s is a list of colours, one per seat, from: %(colours)s.",
                              option=COLOURS_OPTION, colours=allowed)
        names = [c.strip().lower() for c in colours]
        for name in names:
            if name not in self.colours:
                raise OptionError("%(game)s has no colour %(colour)r; its colours are %(colours)s.", game=self.title,
                                  colour=name[:20], colours=allowed)
        if len(set(names)) != len(names):
            raise OptionError("Option %(option)s names a colour twice: every seat has its own colour.",
                              option=COLOURS_OPTION)
        if players is None:
            if not self.min_players <= len(names) <= self.max_players:
                raise OptionError("Option %(option)s names %(count)s colours; %(game)s is for %(minimum)s to "
                                  "%(maximum)s players.", option=COLOURS_OPTION, count=len(names), game=self.title,
                                  minimum=self.min_players, maximum=self.max_players)
        elif len(names) != players:
            raise OptionError("Option %(option)s names %(count)s colours for %(players)s players.",
                              option=COLOURS_OPTION, count=len(names), players=players)
        return names

    def seat_colours(self, players: int, options: dict | None = None) -> tuple[str, ...]:
        """The colour of each seat in seat order: the option `colours`, else the default order."""
        colours = (options or {}).get(COLOURS_OPTION)
        if colours is None:
            return tuple(self.colours[:players])
        return tuple(self.check_colours(colours, players))

    def check_players(self, players: int) -> None:
        if not self.min_players <= players <= self.max_players:
            raise OptionError("%(game)s is for %(minimum)s to %(maximum)s players, not %(players)s.", game=self.title,
                              minimum=self.min_players, maximum=self.max_players, players=players)

    def option_presets(self) -> list[dict]:
        """Option sets worth testing (variants, modes); the generic contract suite runs each."""
        return [{}]

    # --- the game --------------------------------------------------------------------

    def setup(self, players: int, options: dict, seed: int) -> Any:
        raise NotImplementedError  # abstract: every game defines it

    def to_move(self, state: Any) -> int | None:
        raise NotImplementedError

    def legal_moves(self, state: Any) -> list[Move]:
        raise NotImplementedError

    def apply(self, state: Any, move: Move) -> Any:
        raise NotImplementedError

    def parse(self, state: Any, text: str) -> Move:
        raise NotImplementedError

    def notation(self, state: Any, move: Move) -> str:
        raise NotImplementedError

    def command_word(self, word: str) -> str:
        """The English first word of the notation that a player's word stands for: the word itself, or the
        English command a word of another language is an alias of ('plaatsen' -> 'place'; issue 24).
        The mail reader uses it to tell a move written in another language from prose."""
        word = normalize_text(word)
        return (self.command_aliases.english(word) if self.command_aliases else None) or word

    def view(self, state: Any, seat: int | None) -> dict:
        raise NotImplementedError

    def scores(self, state: Any) -> list[int]:
        """The score of each seat now (the final scores once the game is over)."""
        raise NotImplementedError

    def result(self, state: Any) -> Result | None:
        """The result once the game is over, else None."""
        raise NotImplementedError

    def state_to_json(self, state: Any) -> dict:
        raise NotImplementedError

    def state_from_json(self, data: dict) -> Any:
        raise NotImplementedError

    def resample_hidden(self, state: Any, seat: int | None, seed: int) -> Any:
        """A state that `seat` cannot tell apart from this one, with all it cannot see re-drawn.

        Used by the contract suite: `view(state, seat)` must equal
        `view(resample_hidden(state, seat, s), seat)` for every s, which proves that no
        hidden deck order, hand or seed leaks into a view. The result depends only on what `seat`
        sees and on `seed` (re-draw from the hidden things sorted, not in their order): two states
        the seat cannot tell apart give the same state, which is how a bot decides without
        looking at what its seat cannot see (issue 37, tests/bots/test_hidden.py).
        """
        raise NotImplementedError

    def preview(self, state: Any, move: Move) -> Preview:
        """What `move` does up to the first draw of something hidden or roll of a die (issue 31).

        Raises IllegalMove as `apply` does. The engine plays the move and the decisions with one
        choice after it (`events`), and stops where it would draw from a hidden pile or hand
        (even one shuffled at setup), shuffle, roll or show what was hidden: `Preview.state` is then the position
        before that chance event, for viewing only. `view(preview(state, m).state, seat)` for the
        seat to move depends only on what that seat sees of `state` (the contract suite checks
        it with `resample_hidden`), so a preview may be shown to that seat before it plays.
        `apply` is not changed by it: the same moves give the same states.
        """
        raise NotImplementedError

    # --- provided ----------------------------------------------------------------------

    def apply_traced(self, state: Any, move: Move) -> tuple[Any, list[tuple[Any, Move]]]:
        """`apply(state, move)`, and each decision the engine made by itself on the way (issue 40).

        Returns (the state `apply` gives, [(position, move), ...]): one pair per `auto` event of
        that state's view (`{"event": "auto", "move": <notation>, ...}` in `events`, in order), the
        position as it stood when the engine made the decision and the move it made. The contract
        is that an engine decides by itself exactly when a decision has one legal choice, so in
        each position `legal_moves` is [that move], and `to_move` the seat that move is for; the
        contract suite (tests/engine/test_contract.py) checks it for every title, over a JSON round
        trip of the position. The positions are for that check only: nobody plays on from them.
        This default is right only for a game that never decides by itself.
        """
        return self.apply(state, move), []

    def for_version(self, version: str) -> "Rules":
        """The rules that play `version` of this title (issue 40): a stored game or an archive names the
        version it was made with, and the service sets it up and replays it with these, so that bumping
        the version changes no game already played. A game keeping no older version returns itself
        (a game of another version is then replayed with the rules of now, and may not check out).
        States should name their version too, so that play goes on under it from a stored state."""
        return self

    def is_over(self, state: Any) -> bool:
        return self.to_move(state) is None

    def state_hash(self, state: Any) -> str:
        """SHA-256 of the state's canonical JSON."""
        return sha256_hex(canonical_json(self.state_to_json(state)))

    def move_to_json(self, move: Move) -> list:
        return move.to_json()

    def move_from_json(self, data: Any) -> Move:
        return Move.from_json(data)

    # --- standing orders ------------------------------------------------------------------
    #
    # A player may write, during their turn, choices for decisions that come after a chance
    # event in the same turn (after a roll of the die: which fields; when a fleet arrives:
    # where the ships land). The service keeps a seat's orders (private to it), in the order
    # written, and after every move asks `queued_move` whether one of them decides the next
    # decision; the move it gives is an ordinary move (logged with source "order"). An order
    # that finds no legal choice gives None: then the player is asked, never guessed for.
    # What is left of a seat's orders when its turn ends is dropped. A game without orders
    # keeps the defaults below.

    def parse_order(self, state: Any, seat: int, text: str) -> Order:
        """The order `seat` writes as `text`; raises OrderError (one sentence) if it can never apply
        in the rest of this turn from `state` (a field that is no field, a decision already past)."""
        raise OrderError("%(game)s has no standing orders: write your moves one a line.", game=self.title)

    def order_notation(self, order: Order) -> str:
        """The text of an order, as players write it: `parse_order` of it gives the same order."""
        raise OrderError("%(game)s has no standing orders.", game=self.title)

    def order_move(self, state: Any, seat: int, order: Order) -> tuple[Move, Order | None] | None:
        """When it is `seat`'s decision: the legal move the order makes now and what is left of it
        (None: used up); None when the order has no legal choice here."""
        return None

    def order_examples(self, state: Any, seat: int) -> list[Order]:
        """Orders `seat` could write now for the decisions after chance in this turn, one per
        form, filled in for this position (for the turn mail's ready-to-copy lines)."""
        return []

    def turn_example(self, state: Any, seat: int) -> list[str]:
        """A whole turn `seat` could write in one mail now, one line each (the turn mail's example to
        copy): moves for the decisions before chance, then orders for those after it, in an order
        that works whatever chance brings; read as a mail is read (each line a move when it is
        legal, else a standing order), no line of it fails and the turn ends with it, unless an
        order finds no legal choice. Hidden information never shapes it. By default: the first
        legal move, then one order of each form (`order_examples`); [] when it is not `seat`'s
        turn or the game has no orders."""
        if self.to_move(state) != seat or not self.takes_orders:
            return []
        first = self.notation(state, self.legal_moves(state)[0])
        orders = [self.order_notation(o) for o in self.order_examples(state, seat)]
        return [first] + [o for o in orders if o != first] if orders else []

    def order_to_json(self, order: Order) -> list:
        return order.to_json()

    def order_from_json(self, data: Any) -> Order:
        return Order.from_json(data)

    def queued_move(self, state: Any, seat: int, orders) -> tuple[Move, tuple[Order, ...]] | None:
        """The move the first of `orders` (in the order written) that applies now makes for `seat`,
        and the orders left (that one used up or replaced by its rest); None if none applies."""
        if self.to_move(state) != seat:
            return None
        orders = tuple(orders)
        for i, order in enumerate(orders):
            found = self.order_move(state, seat, order)
            if found is not None:
                move, rest = found
                return move, orders[:i] + (() if rest is None else (rest,)) + orders[i + 1:]
        return None

    def describe(self) -> dict:
        """What a lobby or `/help` needs to know about this game."""
        return {
            "name": self.name,
            "title": self.title,
            "version": self.version,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "colours": list(self.colours),
            "options": [opt.to_json() for opt in self.options],
        }

    def replay(self, players: int, options: dict, seed: int, moves: Iterable[Move]) -> Any:
        """Rebuild the state from the start; raises IllegalMove if any move is illegal."""
        state = self.setup(players, options, seed)
        for move in moves:
            state = self.apply(state, move)
        return state


def normalize_text(text: str) -> str:
    """Lower-case, trim and fold runs of white space: what every notation parser starts from."""
    return " ".join(str(text).replace("\u00a0", " ").split()).lower()


# ---------------------------------------------------------------------------------------
# Words of other languages (issue 24)


def fold(word: str) -> str:
    """A word as alias tables key it: lower case, accents dropped ('Süd' -> 'sud', 'émigrer' ->
    'emigrer'), 'ß' as 'ss'. Only alias look-ups fold: the English notation is read as it was."""
    text = unicodedata.normalize("NFKD", str(word).lower().replace("ß", "ss"))
    return "".join(c for c in text if not unicodedata.combining(c))


class Aliases:
    """The words players of other languages write for some English words of a game's notation.

    Built from `{english: {language: (word, ...)}}`; a word (folded, see `fold`) may stand for
    one English word only, else ValueError at import. `english(word)` gives the English word an
    alias stands for, or None; parsers ask only after the English reading of a word failed, and
    the notation the engines write stays English (stored games and logs do not change).
    """

    def __init__(self, table: dict[str, dict[str, tuple[str, ...]]]):
        self.table = table
        self.words: dict[str, str] = {}
        for english, languages in table.items():
            for words in languages.values():
                for word in words:
                    key = fold(word)
                    if self.words.setdefault(key, english) != english:
                        raise ValueError(f"the alias {word!r} stands for both {self.words[key]!r} and {english!r}")

    def english(self, word: str) -> str | None:
        """The English word that `word` stands for, or None."""
        return self.words.get(fold(word))

    def of(self, language: str) -> dict[str, tuple[str, ...]]:
        """English word -> that language's words (for documentation and tests)."""
        return {english: languages[language] for english, languages in self.table.items() if language in languages}
