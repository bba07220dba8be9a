"""Round trips by email: how many mails a game costs when players batch what they can write.

Usage: python bench/roundtrips.py [--game NAME] [--games N] [--players N] [--preset LABEL] [--no-orders]
       [--bots LEVEL]

Plays seeded games of every title, player count and option preset (`rules.option_presets()`:
the modes and variants) with players who behave like a sensible person at a mail client.
After each notification a player writes, in one mail, one decision per line:

- every decision they can make without seeing new information: they choose a legal move
  (seeded, at random; with `--bots LEVEL`, the move the bot of that level makes from the seat's
  view, `bots.choose` without its time cap, so that a seed gives the same game) and go on to
  the next one as long as it is still their decision and nothing they could not know appeared
  in between (`reveals`: a tile, a card, a die);
- the decision whose outcome they must see (a roll, a step onto a star, a fleet that sails);
- then, where the game has standing orders (and unless --no-orders), orders for the rest of
  their turn: Tapaono's player imagines an outcome and plans the round on it, writing the
  choices that depend on chance as preferences (`take 1 <fields>`, `remove <fields>`, `roll 2`)
  and the others as moves; Tongiaki's writes its landing, emigration, tile and placement
  preferences (`land red blue 3 1 2`, `emigrate NE S N ...`). Discovery has no chance inside a
  turn, so its players never need orders.

Offers a person makes rarely (Tapaono's mode-change proposals) are made at most once a game;
random play would propose one about every second round.

A `Driver` carries each mail to the game: `MailDriver` sends it through the service's mail path
(`pbem.mail.inbound.receive`, on a scratch SQLite database: `--mail-games` games of one
configuration per title, whose logs are then checked as `pbem verify` does), and
`EngineDriver`, for every configuration, applies the lines with the engine
directly, as the service does with a mail: each line that is a legal move now is made; any
other line is a standing order (`rules.parse_order`) kept for that player, or refused with
the reason when it can no longer apply (a take for a piece whose roll of 6 took everything);
after every move the first kept order that applies (`rules.queued_move`) is played; orders
left when the player's turn ends are dropped, and lines that arrive after it ended are not
used.

Prints `name: value unit` lines per configuration: decisions per game, mails per player per
game, round trips per player turn (mean, p50, p90; a turn is a run of decisions by the same
player, each mail is one round trip), the share of turns played in one mail, the decisions a
mail made (mean, p50: its lines and the standing orders they set off), and the days a game takes
at one round trip per day (every mail of the game, one after the other).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bots  # noqa: E402
import engine  # noqa: E402
from engine.core import IllegalMove, OrderError, derive_seed  # noqa: E402

RARE_KINDS = frozenset({"propose"})  # moves a person offers at most once a game
SAMPLES = 6  # re-draws of the hidden information per check (a miss needs all six to agree by chance)


# ---------------------------------------------------------------------------------------
# Drivers: how a mail reaches the game


class Driver(Protocol):
    """What the bench needs from the way mails reach a game."""

    state: Any      # the game's current engine state (the players compose from it)
    moves: int      # decisions applied so far
    by_order: int   # of those, the ones standing orders made

    def send(self, seat: int, lines: list[str]) -> None:
        """Deliver one mail of `seat`: its lines, one decision each, in order."""


class EngineDriver:
    """Applies each line with the engine directly, as the service's move path does."""

    def __init__(self, rules: engine.Rules, players: int, options: dict, seed: int):
        self.rules = rules
        self.state = rules.setup(players, options, seed)
        self.moves = 0
        self.by_order = 0              # moves that standing orders made
        self.unused = 0                # lines that came after their writer's turn had ended
        self.refused = 0               # orders refused on arrival (they could no longer apply)
        self.orders: dict[int, tuple] = {}

    def send(self, seat: int, lines: list[str]) -> None:
        rules = self.rules
        for line in lines:
            self.follow_orders()
            if rules.to_move(self.state) != seat:
                self.unused += 1
                continue
            try:
                move = rules.parse(self.state, line)
                self.play(rules.apply(self.state, move), seat)
                continue
            except IllegalMove:  # not a move now: a standing order
                pass
            try:
                self.orders[seat] = self.orders.get(seat, ()) + (rules.parse_order(self.state, seat, line),)
            except OrderError:  # it can never apply now that the die has spoken: the answer says why
                self.refused += 1
        self.follow_orders()

    def play(self, state: Any, seat: int) -> None:
        self.state = state
        self.moves += 1
        if self.rules.to_move(state) != seat:
            self.orders.pop(seat, None)  # the turn is over: what is left of its orders is dropped

    def follow_orders(self) -> None:
        """Play the moves the kept orders make, as long as one applies."""
        rules = self.rules
        while (seat := rules.to_move(self.state)) is not None:
            found = rules.queued_move(self.state, seat, self.orders.get(seat, ()))
            if found is None:
                return
            move, self.orders[seat] = found
            self.by_order += 1
            self.play(rules.apply(self.state, move), seat)


class MailDriver:
    """Sends each mail through the service's mail path (`pbem.mail.inbound.receive`), as a player's
    reply to their latest turn mail: the real reading of lines, moves and standing orders.

    The game runs in the service (`folder` holds its SQLite database); each mail goes to the
    seat's current turn key from the seat's registered address; the players read their mails in
    `language`. `verify()` replays the game's log from its seed, as `pbem verify` does.
    """

    def __init__(self, rules: engine.Rules, players: int, options: dict, seed: int, folder: Path,
                 language: str = "en"):
        from email.message import EmailMessage

        from pbem import accounts, config, games, migrate, wiring
        from pbem.db import Database
        from pbem.models import User

        self.EmailMessage, self.games = EmailMessage, games
        wiring.connect()
        url = f"sqlite:///{folder / 'roundtrips.sqlite3'}"
        migrate.upgrade(url)
        self.settings = config.load({"PBEM_DATA_DIR": str(folder), "PBEM_DATABASE_URL": url,
                                     "PBEM_SECRET_KEY": "roundtrips", "PBEM_BROKER_URL": "memory://",
                                     "PBEM_MAIL_RATE_PER_HOUR": str(10**6)})
        self.db = Database(url)
        self.rules, self.sent = rules, 0
        users = []
        for n in range(players):
            user_id = accounts.ensure_user(self.db, f"p{n}.{seed % 10**8}@players.example.org", f"P{n}")
            with self.db.transaction() as s:
                user = s.get(User, user_id)
                user.email_verified = True  # an address that has played by mail
                user.language = language  # the players' mails are written in it
            users.append(user_id)
        public = {k: v for k, v in options.items() if k != "colours"}
        self.game_id = games.create_game(self.db, rules.name, users[0], players, public)
        for user_id in users[1:]:
            games.join_game(self.db, self.game_id, user_id, seed=seed)
        self.emails = {}
        with self.db.sessions() as s:
            for seat in games.seats_of(s, games.load_game(s, self.game_id)):
                self.emails[seat.number] = (seat.user.email, seat.token_nonce)

    @property
    def state(self) -> Any:
        with self.db.sessions() as s:
            return self.games.load_state(self.games.load_game(s, self.game_id))

    @property
    def moves(self) -> int:
        return len(self.games.history(self.db, self.game_id))

    @property
    def by_order(self) -> int:
        return sum(m["source"] == "order" for m in self.games.history(self.db, self.game_id))

    def send(self, seat: int, lines: list[str]) -> None:
        from pbem import mailkeys
        from pbem.mail import inbound

        address, nonce = self.emails[seat]
        version = self.games.view(self.db, self.game_id)["version"]
        key = mailkeys.encode_reply(self.settings.secret_key, self.settings.mail_domain, self.game_id, seat,
                                  version, nonce)
        message = self.EmailMessage()
        message["From"], message["To"] = address, key
        message["Subject"] = f"Re: [pbem #{self.game_id}] your turn (move {version + 1})"
        self.sent += 1
        message["Message-ID"] = f"<roundtrips.{self.game_id}.{self.sent}@players.example.org>"
        message.set_content("\n".join(lines) + "\n")
        received = inbound.receive(self.db, message.as_bytes(), self.settings)
        if received.outcome not in ("done", "partial"):
            raise RuntimeError(f"mail of seat {seat} not taken: {received.outcome}: {received.detail}")

    def verify(self) -> list[str]:
        """The problems `pbem verify` finds in the game (none, when every move was legal and logged)."""
        from pbem.games import archive

        return archive.verify_game(self.db, self.game_id)

    def close(self) -> None:
        self.db.dispose()


# ---------------------------------------------------------------------------------------
# The player


def reveals(rules: engine.Rules, state: Any, move: Any, seat: int, after: Any, salt: str) -> bool:
    """Whether making `move` shows `seat` something it could not know before (a draw, a die).

    The test of "new information": re-draw everything `seat` cannot see (the contract's
    `resample_hidden`), make the same move, and compare what `seat` sees afterwards. If any
    re-draw changes the view, the outcome depended on hidden information or chance.
    """
    seen = rules.view(after, seat)
    for k in range(SAMPLES):
        other = rules.resample_hidden(state, seat, derive_seed(k, salt))
        if rules.view(rules.apply(other, move), seat) != seen:
            return True
    return False


@dataclass
class Player:
    """Composes a seat's mails: everything it can decide without new information, at random."""

    rules: engine.Rules
    chooser: random.Random
    salt: str = ""                                 # makes the re-draws of each check differ
    orders: bool = True                            # write standing orders after chance
    rare_made: set = field(default_factory=set)   # kinds of rare offers already made in this game
    checks: int = 0
    bot: bots.Level | None = None                  # choose with this bot instead of at random
    decided: int = 0                               # bot decisions so far (each gets its own seed)

    def choose(self, state: Any, rare: bool = True) -> Any:
        """A random legal move, or the bot's; a rare offer only if none was made yet (and `rare` allows it)."""
        legal = [m for m in self.rules.legal_moves(state)
                 if m.kind not in RARE_KINDS or rare and m.kind not in self.rare_made]
        move = self.bot_choice(state, legal) if self.bot is not None else self.chooser.choice(legal)
        if move.kind in RARE_KINDS:
            self.rare_made.add(move.kind)
        return move

    def bot_choice(self, state: Any, legal: list) -> Any:
        """The bot's move from the seat's view; where it is a rare offer no longer allowed, a random
        other move (the bot searches over every legal move, the person offers once)."""
        self.decided += 1
        move = bots.choose(self.rules, state, self.bot, derive_seed(self.decided, f"{self.salt}/bot")).move
        return move if move in legal else self.chooser.choice(legal)

    def imagine(self, state: Any, seat: int) -> Any:
        """A state `seat` cannot tell from `state`: the hidden information drawn anew (a possible future)."""
        self.checks += 1
        return self.rules.resample_hidden(state, seat, derive_seed(self.checks, f"{self.salt}/imagine"))

    def compose(self, state: Any, seat: int) -> list[str]:
        """The lines of one mail of `seat`, which is to move in `state`."""
        rules = self.rules
        lines = []
        while True:
            move = self.choose(state)
            lines.append(rules.notation(state, move))
            after = rules.apply(state, move)
            if rules.to_move(after) != seat:
                return lines
            self.checks += 1
            if reveals(rules, state, move, seat, after, f"{self.salt}/{self.checks}"):
                writer = ORDER_WRITERS.get(rules.name)
                if self.orders and writer is not None:
                    lines += writer(self, state, move, seat)
                return lines
            state = after


# ---------------------------------------------------------------------------------------
# Standing orders: what a player writes for the rest of the turn, after the chance event


PLAN_LIMIT = 200  # decisions of an imagined rest of a turn (a Tapaono round has far fewer)


def tapaono_orders(player: Player, state: Any, move: Any, seat: int) -> list[str]:
    """Plan the rest of the round on an imagined outcome of `move`; write it down.

    Choices that depend on chance become preferences: the fields of a roll (those chosen in
    the plan first, then the other fields around the piece), the markers a card removes, the
    pieces to roll; every other choice is written as its move (it waits until it is legal).
    """
    rules, chooser = player.rules, player.chooser
    plan = rules.apply(player.imagine(state, seat), move)
    lines = []
    for _ in range(PLAN_LIMIT):
        if rules.to_move(plan) != seat:
            break
        choice = player.choose(plan, rare=False)
        text = rules.notation(plan, choice)
        if choice.kind == "take":
            piece = plan.pending[1] + 1
            offered = [f for m in rules.legal_moves(plan) for f in m.args[0]]
            others = sorted(set(offered) - set(choice.args[0]))
            chooser.shuffle(others)
            fields = list(choice.args[0]) + others
            text = f"take {piece} " + (" ".join(f"{q},{r}" for q, r in fields) if fields else "none")
        elif choice.kind == "remove":
            others = [m.args for m in rules.legal_moves(plan) if m.kind == "remove" and m != choice]
            chooser.shuffle(others)
            text = "remove " + " ".join(f"{q},{r}" for q, r in [choice.args, *others[:5]])
        lines.append(text)
        plan = rules.apply(plan, choice)
    return lines


def tongiaki_orders(player: Player, state: Any, move: Any, seat: int) -> list[str]:
    """Landing, emigration, tile and placement preferences for the rest of the turn, at random."""
    chooser, colours = player.chooser, list(state.colours)
    own = colours.pop(seat)
    chooser.shuffle(colours)
    sides, next_sides, beaches, drawn_beaches = ["N", "NE", "SE", "S", "SW", "NW"], None, list("123456"), list("123")
    chooser.shuffle(sides)
    next_sides = sides[:]
    chooser.shuffle(next_sides)
    chooser.shuffle(beaches)
    chooser.shuffle(drawn_beaches)
    return [" ".join(["land", own, *colours, *beaches]), " ".join(["emigrate", *sides]),
            " ".join(["tile", *next_sides]), " ".join(["place", *drawn_beaches])]


ORDER_WRITERS = {"tapaono": tapaono_orders, "tongiaki": tongiaki_orders}


# ---------------------------------------------------------------------------------------
# Games and figures


@dataclass
class Tally:
    """What one configuration's games cost by mail."""

    decisions: list = field(default_factory=list)     # per game
    mails: list = field(default_factory=list)         # per game and player
    days: list = field(default_factory=list)          # per game: every mail, one a day
    per_turn: list = field(default_factory=list)      # round trips of every player turn
    per_mail: list = field(default_factory=list)      # decisions each mail made (its lines and the orders they set off)
    turns: list = field(default_factory=list)         # per game
    by_order: list = field(default_factory=list)      # per game: moves made by standing orders


def play_game(rules: engine.Rules, players: int, options: dict, index: int, tally: Tally,
              make_driver=EngineDriver, orders: bool = True, bot: bots.Level | None = None) -> None:
    """One seeded game by mail; adds its figures to `tally`. With `bot`, that bot chooses every move."""
    driver = make_driver(rules, players, options, derive_seed(index, "roundtrips"))
    player = Player(rules, random.Random(f"roundtrips/{index}"), salt=f"roundtrips/{index}", orders=orders,
                    bot=bot)
    mails = [0] * players
    turn_seat, turn_mails, turns = None, 0, 0
    while (seat := rules.to_move(driver.state)) is not None:
        if seat != turn_seat:
            if turn_seat is not None:
                tally.per_turn.append(turn_mails)
            turn_seat, turn_mails, turns = seat, 0, turns + 1
        made = driver.moves
        driver.send(seat, player.compose(driver.state, seat))
        tally.per_mail.append(driver.moves - made)
        mails[seat] += 1
        turn_mails += 1
    tally.per_turn.append(turn_mails)
    tally.turns.append(turns)
    tally.decisions.append(driver.moves)
    tally.by_order.append(driver.by_order)
    tally.mails.extend(mails)
    tally.days.append(sum(mails))


def percentile(values: list, share: float) -> float:
    """The nearest-rank percentile (p50, p90) of a list of numbers."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def label(preset: dict) -> str:
    """A short name for an option preset: the mode, the variants switched on, or 'default'."""
    if "mode" in preset:
        return preset["mode"]
    return "-".join(key for key, value in sorted(preset.items()) if value is True) or "default"


def configurations(names: list[str], players_only: int | None):
    for name in names:
        rules = engine.get(name)
        for players in range(rules.min_players, rules.max_players + 1):
            if players_only is None or players == players_only:
                for preset in rules.option_presets():
                    yield name, rules, players, preset


# One configuration per title played through the service's mail path too (--mail-games).
BY_MAIL = {"tongiaki": (3, {}), "discovery": (3, {}), "tapaono": (2, {"mode": "fast"})}


def report(key: str, tally: Tally) -> None:
    print(f"{key}_decisions_per_game: {statistics.mean(tally.decisions):.0f} decisions")
    print(f"{key}_decisions_by_order_per_game: {statistics.mean(tally.by_order):.0f} decisions")
    print(f"{key}_turns_per_game: {statistics.mean(tally.turns):.0f} turns")
    print(f"{key}_mails_per_player: {statistics.mean(tally.mails):.1f} mails")
    print(f"{key}_roundtrips_per_turn_mean: {statistics.mean(tally.per_turn):.2f} roundtrips")
    print(f"{key}_roundtrips_per_turn_p50: {percentile(tally.per_turn, 0.5):.0f} roundtrips")
    print(f"{key}_roundtrips_per_turn_p90: {percentile(tally.per_turn, 0.9):.0f} roundtrips")
    print(f"{key}_turns_in_one_mail: {100 * tally.per_turn.count(1) / len(tally.per_turn):.1f} %")
    print(f"{key}_decisions_per_mail_mean: {statistics.mean(tally.per_mail):.2f} decisions")
    print(f"{key}_decisions_per_mail_p50: {percentile(tally.per_mail, 0.5):.0f} decisions")
    print(f"{key}_days_per_game: {statistics.mean(tally.days):.0f} days")
    sys.stdout.flush()


def by_mail(names: list[str], games: int) -> None:
    """Games through pbem.mail.inbound.receive (a scratch SQLite database each), checked by `pbem verify`."""
    import tempfile

    for name in names:
        if name not in BY_MAIL:
            continue
        rules = engine.get(name)
        players, preset = BY_MAIL[name]
        tally, problems = Tally(), 0
        options = rules.check_options(preset)
        for index in range(games):
            with tempfile.TemporaryDirectory() as folder:
                made = []

                def driver(rules_, players_, options_, seed_):
                    made.append(MailDriver(rules_, players_, options_, seed_, Path(folder)))
                    return made[-1]

                play_game(rules, players, options, index, tally, make_driver=driver)
                problems += len(made[0].verify())
                made[0].close()
        key = f"{name}_{players}p_{label(preset)}_by_mail"
        report(key, tally)
        print(f"{key}_verify_problems: {problems} problems")


def bot_level(name: str) -> bots.Level:
    """The bot level of that name, without its time cap: the playouts alone decide, so a seed
    gives the same game on any machine."""
    try:
        return dataclasses.replace(bots.level(name), seconds=None)
    except bots.UnknownLevelError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", help="only this game (repeatable)")
    parser.add_argument("--games", type=int, default=50, help="seeded games per configuration")
    parser.add_argument("--players", type=int, help="only this player count")
    parser.add_argument("--no-orders", action="store_true", help="players write no standing orders")
    parser.add_argument("--mail-games", type=int, default=3,
                        help="games per title through the service's mail path (0: none)")
    parser.add_argument("--bots", metavar="LEVEL", type=bot_level,
                        help=f"players choose each move with this bot level ({', '.join(bots.LEVELS)}) instead of at random")
    parser.add_argument("--preset", help="only the option preset of this label (e.g. fast, default)")
    args = parser.parse_args()
    suffix = f"_bots_{args.bots.name}" if args.bots else ""
    for name, rules, players, preset in configurations(args.game or engine.names(), args.players):
        if args.preset is not None and label(preset) != args.preset:
            continue
        tally = Tally()
        options = rules.check_options(preset)
        for index in range(args.games):
            play_game(rules, players, options, index, tally, orders=not args.no_orders, bot=args.bots)
        report(f"{name}_{players}p_{label(preset)}{suffix}", tally)
    if args.mail_games and not args.no_orders and not args.bots:
        by_mail(args.game or engine.names(), args.mail_games)


if __name__ == "__main__":
    main()
