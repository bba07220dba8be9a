"""The bots: players that play games of every title through the three doors at once.

Users are made directly through pbem (verified addresses, API tokens, a password); every
table is opened and joined through the doors (`POST /api/v1/games`, the web create form, or
`/new` by mail), the seats' doors rotating so that every door opens every title and doors
mix at one table. At least `--games` games are kept in flight: a game that ends is replaced.
A share of the tables (`--bot-tables`) is a player alone with bots (issue 37): opened through
each door in turn (the API's `"bots"`, the web's "Play against bots" form, `/new ... bots=N
level=easy` by mail), not rated, every other seat a bot that the worker's `pbem.play_bot` plays;
its player never resigns, so that its bots play on to the end of the run.

A turn notification arriving in the sink wakes its player: an API bot reads the game and
posts a random legal move with `expected_version` and a key; a web bot GETs the game page
and posts its move form; a mail bot replies to the notification with a move it lists (and
to the "still your turn" answers). A share of decisions resigns, is an illegal move, or
one for a stale position. Each submission goes into the ledger with what the door said of
it. Whether a mail or form goes twice is the faults' decision (faults.Faults.copies). At their
decisions the bots also talk and read the table's talk (bench.soak.talk; --talk-rate).
"""

from __future__ import annotations

import collections
import email
import itertools
import re
import secrets
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from email import policy

import engine
from bench.soak.doors import BOT_DOMAIN, PASSWORD, Bot, flashes, form_fields, move_error
from bench.soak.ledger import Sent
from bench.soak.talk import Talkers
from bench.soak.world import MAIL_DOMAIN, now
from pbem import accounts, games, mailkeys
from pbem.models import User
from tests.support.mail import listed_moves, text_of

DOORS = ("api", "web", "email")
SHORT_TAPAONO = {"mode": "free", "mode_change": False, "markers": 3, "stars_to_win": 1}
ILLEGAL = "xyzzy 42"
BOT_LEVEL = "easy"  # the level of the bots at the tables with bots: the quickest decisions
PEEK_RATE = 0.1  # share of turns at which a bot also reads what spectators and the history show

_TOKEN = re.compile(r"pbem\+(\d+)\.(\d+)\.(\d+)\.[0-9a-f]+@", re.I)


@dataclass
class Table:
    """A game the bots play: what was asked for, who sits where, and whether it is over."""

    index: int
    title: str
    players: int
    options: dict
    bots: list[Bot]
    game_id: int | None = None
    spectators: bool = False  # spectators read the table's public messages (the table talk's option)
    bot_seats: int = 0  # seats bots play (issue 37): every seat but the opener's; the table is not rated
    ended: bool = False
    ended_at: float | None = None
    created_at: float = field(default_factory=now)


def table_specs() -> list[tuple[str, int, dict]]:
    """Titles, player counts and option presets in turn, so that every combination comes up."""
    specs = []
    for name in ("tongiaki", "discovery", "tapaono"):
        rules = engine.get(name)
        presets = list(rules.option_presets())
        if name == "tapaono":
            presets.append(SHORT_TAPAONO)  # tens of decisions: games that end within a short soak
        counts = list(range(rules.min_players, rules.max_players + 1))
        for i in range(max(len(presets), len(counts))):
            specs.append((name, counts[i % len(counts)], presets[i % len(presets)]))
    # Interleave the titles so that a small soak has all three.
    by_title = collections.defaultdict(list)
    for spec in specs:
        by_title[spec[0]].append(spec)
    order = []
    for row in itertools.zip_longest(*by_title.values()):
        order += [spec for spec in row if spec is not None]
    return order


def option_words(table: Table) -> str:
    """The table's options and spectators' option as a /new line's words (NAME=VALUE, yes/no for a flag)."""
    return " ".join(f"{k}={('yes' if v else 'no') if isinstance(v, bool) else v}"
                    for k, v in {**table.options, "spectators": table.spectators}.items())


class Players:
    """Every bot, the tables they play and the pool of threads their actions run on."""

    def __init__(self, world, client, ledger, faults, dice, args):
        self.world = world
        self.client = client
        self.ledger = ledger
        self.faults = faults
        self.dice = dice
        self.args = args
        self.bots: dict[str, list[Bot]] = {}
        self.bot_by_email: dict[str, Bot] = {}
        self.specs = table_specs()
        self.next_index = itertools.count()
        self.bot_tables = 0  # tables with bots opened so far: their doors take turns
        self.tables: list[Table] = []
        self.tables_by_game: dict[int, Table] = {}
        self.tables_lock = threading.Lock()
        self.acted: dict[tuple[int, int], int] = {}  # (game, user) -> highest turn seq acted on
        self.acted_lock = threading.Lock()
        self.answered: set[str] = set()  # our Message-IDs whose answer was acted on
        self.pending_new: dict[str, Table] = {}  # Message-ID of a /new mail -> its table
        self.old_tokens: dict[tuple[int, int], str] = {}  # (game, user) -> a reply address of an earlier turn
        self.turn_mails: list[tuple[int, int, int, str, float]] = []  # game, seat, seq, Message-ID, time
        self.mail_count = 0
        self.playing = False
        self.stopping = False
        self.pool: ThreadPoolExecutor | None = None
        self.busy = 0
        self.busy_lock = threading.Lock()
        self.talk = Talkers(self)

    # ------------------------------------------------------------------ setting up

    def make_users(self) -> None:
        """Bot users: verified addresses, an API token for API bots, a password for web bots."""
        db = self.world.db
        per_door = max(4, self.args.games * 3 // 4)
        password_hash = accounts.hash_password(PASSWORD)  # one argon2 hash serves every web bot
        for door in DOORS:
            self.bots[door] = []
            for n in range(per_door):
                address = f"{door}-{n}@{BOT_DOMAIN}"
                user_id = accounts.ensure_user(db, address, f"{door}-{n}")
                with db.transaction() as s:
                    user = s.get(User, user_id)
                    user.email_verified = True
                    if door == "web":
                        user.password_hash = password_hash
                    name = user.display_name
                bot = Bot(door, address, user_id, name)
                if door == "api":
                    bot.token = accounts.create_api_token(db, user_id, "soak")
                self.bots[door].append(bot)
                self.bot_by_email[address] = bot

    def start(self) -> None:
        """The pool of bot actions and the thread that reads the sink's mail."""
        self.pool = ThreadPoolExecutor(max_workers=self.args.threads, thread_name_prefix="bot")
        threading.Thread(target=self.dispatch, name="sink-dispatch", daemon=True).start()

    def play(self) -> None:
        """Open --games tables; from now on, every turn mail wakes its player."""
        self.playing = True
        for _ in range(self.args.games):
            self.new_table()

    def finish(self) -> None:
        """No new action: wait for those under way and for the sink's last mail to be read."""
        self.stopping = True
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.world.inbox.join()

    def halt(self) -> None:
        """Stop at once (the soak is ending, maybe after an error)."""
        self.stopping = True
        self.playing = False
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------------ the pool of bot actions

    def submit(self, function, *args) -> None:
        if self.pool is None or self.stopping:
            return
        with self.busy_lock:
            self.busy += 1

        def run():
            try:
                function(*args)
            except Exception as error:  # noqa: BLE001 - a bot that fails is recorded, the soak goes on
                self.ledger.error(f"{function.__name__}{args[:1]}: {type(error).__name__}: {error}\n"
                                  + traceback.format_exc(limit=3))
            finally:
                with self.busy_lock:
                    self.busy -= 1

        self.pool.submit(run)

    def idle(self) -> bool:
        with self.busy_lock:
            return self.busy == 0

    # ------------------------------------------------------------------ tables

    def new_table(self) -> None:
        index = next(self.next_index)
        title, players, options = self.specs[index % len(self.specs)]
        # Seat doors rotate with the table (and shift every third table, so that each title is opened
        # through every door): every door opens tables and every mix of doors meets.
        doors = [DOORS[(index + index // 3 + i) % 3] for i in range(players)]
        with_bots = self.with_bots(index)
        if with_bots:  # a player alone with bots; the doors of such tables take turns
            with self.tables_lock:
                doors, self.bot_tables = [DOORS[self.bot_tables % 3]], self.bot_tables + 1
        chosen: list[Bot] = []
        for door in doors:
            candidates = [b for b in self.bots[door] if b not in chosen]
            chosen.append(self.dice.choice(candidates))
        table = Table(index, title, players, {} if with_bots and doors[0] == "web" else dict(options), chosen,
                      spectators=index % 2 == 1 and not (with_bots and doors[0] == "web"),
                      bot_seats=players - 1 if with_bots else 0)
        with self.tables_lock:
            self.tables.append(table)
        self.submit(self.open_table, table)

    def with_bots(self, index: int) -> bool:
        """Whether table `index` has bot seats: `--bot-tables` of the tables, spread evenly (the 4th, 8th, ...
        at 0.25), so that the first tables, and most of them, are rated."""
        share = self.args.bot_tables
        return int((index + 1) * share) > int(index * share)

    def in_flight(self) -> int:
        with self.tables_lock:
            return sum(not t.ended for t in self.tables)

    def ended(self) -> int:
        with self.tables_lock:
            return sum(t.ended for t in self.tables)

    def table_ended(self, table: Table) -> None:
        with self.tables_lock:
            if table.ended:
                return
            table.ended, table.ended_at = True, now()
        if table.game_id is not None:
            self.submit(self.talk.read_archive, table)
        if self.playing:
            self.new_table()

    def open_table(self, table: Table) -> None:
        """The first seat opens the table through its door."""
        client = self.client
        creator = table.bots[0]
        if table.bot_seats:
            self.open_bot_table(table)
        elif creator.door == "api":
            status, data = client.api(creator, "POST", "/games", {"title": table.title, "players": table.players,
                                                                  "options": table.options, "rated": True,
                                                                  "press_spectators": table.spectators})
            if status != 201:
                raise RuntimeError(f"POST /games answered {status}: {data}")
            self.table_open(table, data["id"])
        elif creator.door == "web":
            fields = dict(players=str(table.players), turn_hours="", timeout_policy="wait", rated="y",
                          press_after_end="y")  # ticked by default, as a browser sends it
            if table.spectators:
                fields["press_spectators"] = "y"
            for option in engine.get(table.title).describe()["options"]:
                value = table.options.get(option["name"], option["default"])
                if option["type"] == "bool":
                    if value:
                        fields["opt_" + option["name"]] = "y"
                else:
                    fields["opt_" + option["name"]] = str(value)
            self.table_open(table, self.web_form(creator, f"/games/new/{table.title}", fields))
        else:
            words = option_words(table)
            to = self.command_address(creator)
            message_id, raw = client.mail_out(creator, to, "new game",
                                              f"/new {table.title} players={table.players} rated=yes {words}".strip())
            with self.tables_lock:
                self.pending_new[message_id] = table
            client.smtp_send(creator.email, to, raw)
            # The game id comes back in the answer (on_answer).

    def open_bot_table(self, table: Table) -> None:
        """A player alone with bots opens the table through its door (issue 37); it starts at once, not rated."""
        client = self.client
        creator = table.bots[0]
        if creator.door == "api":
            status, data = client.api(creator, "POST", "/games", {
                "title": table.title, "players": table.players, "options": table.options, "rated": False,
                "press_spectators": table.spectators, "bots": table.bot_seats, "bot_level": BOT_LEVEL})
            if status != 201:
                raise RuntimeError(f"POST /games with bots answered {status}: {data}")
            self.table_open(table, data["id"])
        elif creator.door == "web":
            self.table_open(table, self.web_form(creator, f"/games/bots/{table.title}",
                                                 dict(players=str(table.players), bot_level=BOT_LEVEL)))
        else:
            words = option_words(table)
            to = self.command_address(creator)
            message_id, raw = client.mail_out(creator, to, "new game", f"/new {table.title} players={table.players} "
                                              f"bots={table.bot_seats} level={BOT_LEVEL} {words}".strip())
            with self.tables_lock:
                self.pending_new[message_id] = table
            client.smtp_send(creator.email, to, raw)

    def web_form(self, creator, path: str, values: dict) -> int:
        """The creator fills the form at `path` (its other fields as the page gives them) and sends it; the new
        game's id, from where the answer sends the browser."""
        client = self.client
        with creator.lock:
            client.login(creator)
            _, _, page = client.web(creator, "GET", path)
            fields = form_fields(page, path)
            if fields is None:
                raise RuntimeError(f"no form to open a table on {path}")
            fields.update(values)
            status, location, page = client.web(creator, "POST", path, fields)
        found = re.search(r"/games/(\d+)$", location)
        if status != 302 or not found:
            raise RuntimeError(f"POST {path} answered {status} {location} {page[:300]!r}")
        return int(found.group(1))

    def bot_games(self) -> dict[int, Table]:
        """The tables with bots that have their game, by game id."""
        with self.tables_lock:
            return {t.game_id: t for t in self.tables if t.bot_seats and t.game_id is not None}

    def command_address(self, bot) -> str:
        """The bot's command key (docs/security.md), as the footer of every mail to it shows it."""
        with self.world.db.sessions() as s:
            nonce = s.get(User, bot.user_id).mail_nonce
        return mailkeys.encode_command(self.world.env["PBEM_SECRET_KEY"], MAIL_DOMAIN, bot.user_id, nonce)

    def table_open(self, table: Table, game_id: int) -> None:
        """The table has its game: the other seats join it, each through its own door."""
        client = self.client
        table.game_id = game_id
        with self.tables_lock:
            self.tables_by_game[game_id] = table
        for bot in table.bots[1:]:
            if bot.door == "api":
                status, data = client.api(bot, "POST", f"/games/{game_id}/join")
                if status != 200:
                    raise RuntimeError(f"join of game {game_id} answered {status}: {data}")
            elif bot.door == "web":
                with bot.lock:
                    client.login(bot)
                    _, _, page = client.web(bot, "GET", f"/games/{game_id}")
                    fields = form_fields(page, f"/games/{game_id}/join")
                    if fields is None:
                        raise RuntimeError(f"no join button on the page of game {game_id}")
                    status, _, _ = client.web(bot, "POST", f"/games/{game_id}/join", fields)
                    _, _, page = client.web(bot, "GET", f"/games/{game_id}")
                    if status != 303 or "You have a seat." not in flashes(page):
                        raise RuntimeError(f"web join of game {game_id}: {status} {flashes(page)}")
            else:
                to = self.command_address(bot)
                _, raw = client.mail_out(bot, to, "join", f"/join {game_id}")
                client.smtp_send(bot.email, to, raw)

    # ------------------------------------------------------------------ decisions

    def decide(self, version: int, can_go_stale: bool = True, can_resign: bool = True) -> str:
        """What the bot does at one decision: move (a random legal one), resign, illegal or stale. A player alone
        with bots does not resign (`can_resign`): its bots would play on alone to the end, long after the run."""
        x = self.dice.random()
        if x < self.args.resign_rate:
            return "resign" if can_resign else "move"
        x -= self.args.resign_rate
        if x < self.args.bad_rate / 2:
            return "illegal"
        x -= self.args.bad_rate / 2
        if x < self.args.bad_rate / 2 and version > 0 and can_go_stale:
            return "stale"
        return "move"

    def claim_turn(self, game_id: int, user_id: int, seq: int) -> bool:
        """True once per turn position: a bot acts on the first wake-up for a position, not on repeats."""
        with self.acted_lock:
            if self.acted.get((game_id, user_id), -1) >= seq:
                return False
            self.acted[(game_id, user_id)] = seq
            return True

    def play_api(self, bot: Bot, table: Table) -> None:
        """An API bot's turn: read the game, post decisions until it is someone else's turn."""
        client = self.client
        game_id = table.game_id
        while self.playing and not table.ended:
            status, view = client.api(bot, "GET", f"/games/{game_id}")
            if status != 200:
                raise RuntimeError(f"GET game {game_id} answered {status}: {view}")
            moves = view.get("legal_moves") or []
            if not moves:
                return
            version = view["version"]
            if self.dice.chance(PEEK_RATE):  # what a spectator and the history show: searched for hidden information
                client.http("GET", f"/api/v1/games/{game_id}", kind="api")
                client.http("GET", f"/api/v1/games/{game_id}/moves", kind="api")
                self.talk.peek_api(table)
            self.talk.api_turn(bot, table, view)
            what = self.decide(version, can_resign=not table.bot_seats)
            if what == "resign":
                item = self.ledger.add(Sent("api", "resign", game_id, bot.user_id, None, "resign"))
                status, data = client.api(bot, "POST", f"/games/{game_id}/resign")
                if status == 200:
                    self.ledger.settle(item, "applied")
                else:
                    self.ledger.settle(item, "refused", data.get("message", ""))
                return
            key = secrets.token_hex(12)
            move = {"move": self.dice.choice(moves), "expected_version": version, "key": key}
            if what == "illegal":
                move["move"] = ILLEGAL
            elif what == "stale":
                move["expected_version"] = version - 1
            item = self.ledger.add(Sent("api", what, game_id, bot.user_id, f"api:{bot.user_id}:{key}", move["move"]))
            status, data = client.api(bot, "POST", f"/games/{game_id}/moves", move)
            if status == 201:
                self.ledger.settle(item, "duplicate" if data.get("duplicate") else "applied")
                if data.get("finished"):
                    self.table_ended(table)
                    return
                if data.get("to_move") != view.get("my_seat"):
                    return
            elif 400 <= status < 500:
                self.ledger.settle(item, "refused", data.get("message", ""))
                if what == "move":
                    return  # a legal move refused: someone else moved meanwhile; wait for the next wake-up
            else:
                raise RuntimeError(f"POST move to game {game_id} answered {status}: {data}")

    def play_web(self, bot: Bot, table: Table) -> None:
        """A web bot's turn: the game page, its move form, the redirect, until it is someone else's turn."""
        client = self.client
        game_id = table.game_id
        path = f"/games/{game_id}"
        with bot.lock:
            client.login(bot)
            _, _, page = client.web(bot, "GET", path)
            while self.playing and not table.ended:
                form = form_fields(page, f"{path}/move")
                if form is None or not form["_options"]:
                    return
                version = int(form["expected_version"])
                if self.dice.chance(PEEK_RATE):  # the replay viewer and a spectator's page: searched too
                    client.web(bot, "GET", f"{path}/replay?seq={max(0, version - 1)}")
                    client.http("GET", path)
                    self.talk.peek_web(table)
                self.talk.web_turn(bot, table)
                what = self.decide(version, can_resign=not table.bot_seats)
                if what == "resign":
                    resign = form_fields(page, f"{path}/resign")
                    item = self.ledger.add(Sent("web", "resign", game_id, bot.user_id, None, "resign"))
                    status, _, _ = client.web(bot, "POST", f"{path}/resign", resign)
                    _, _, page = client.web(bot, "GET", path)
                    if status == 303 and "You resigned." in flashes(page):
                        self.ledger.settle(item, "applied")
                    else:
                        self.ledger.settle(item, "refused", " ".join(flashes(page)))
                    return
                fields = dict(form)
                fields["move"] = self.dice.choice(form["_options"])
                fields["text"] = ""
                if what == "illegal":
                    fields["text"] = ILLEGAL
                    fields["key"] = secrets.token_hex(16)
                elif what == "stale":
                    fields["expected_version"] = str(version - 1)
                    fields["key"] = secrets.token_hex(16)
                item = self.ledger.add(Sent("web", what, game_id, bot.user_id, f"web:{bot.user_id}:{fields['key']}",
                                            fields["text"] or fields["move"]))
                copies = self.faults.copies("web_double", self.args.dup_web_rate) if what == "move" else ""
                item.copies = copies
                status, answer, item.copy_outcome = self.faults.post_form(client, bot, f"{path}/move", fields, copies)
                if status == 303:
                    _, _, page = client.web(bot, "GET", path)
                    said = flashes(page)
                    if any(s.startswith("That form was sent before") for s in said):
                        self.ledger.settle(item, "duplicate")
                    elif said:  # the move told in words ("You occupied Tonga 2.", issue 36), or "You played ..."
                        self.ledger.settle(item, "applied")
                    elif copies == "concurrent":
                        self.ledger.settle(item, "applied")  # the flash went with the other cookie; the log decides
                    else:
                        raise RuntimeError(f"move in game {game_id}: 303 without a flash: {said}")
                    if copies == "sequential":
                        item.copy_outcome += " " + ("duplicate" if any(
                            s.startswith("That form was sent before") for s in said) else "not recognised")
                    if any("The game is over." in s for s in said):
                        self.table_ended(table)
                        return
                elif status in (400, 403, 409, 422):
                    self.ledger.settle(item, "refused", move_error(answer))
                    page = answer  # the current board with the reason, and the form again
                    if what == "move":
                        return
                else:
                    raise RuntimeError(f"POST {path}/move answered {status}: {answer[:300]!r}")

    def play_mail(self, bot: Bot, table: Table, message, text: str, token: tuple[int, int, int]) -> None:
        """Answer a mail that lists this seat's legal moves: reply to its Reply-To with one decision."""
        game_id, _seat, seq = token
        moves = listed_moves(text)
        if not moves or not self.playing or table.ended:
            return
        reply_to = str(message["Reply-To"])
        old = self.old_tokens.get((game_id, bot.user_id))
        what = self.decide(seq, can_go_stale=old is not None and old != reply_to, can_resign=not table.bot_seats)
        to = reply_to
        if what == "resign":
            line = "/resign"
        elif what == "illegal":
            line = moves[0].split()[0] + " " + ILLEGAL
        elif what == "stale":
            line, to = self.dice.choice(moves), old  # the reply address of an earlier turn: refused as stale
        else:
            line = self.dice.choice(moves)
        self.old_tokens[(game_id, bot.user_id)] = reply_to
        body, said = self.talk.mail_turn(bot, table, line) if what == "move" else (line, None)
        message_id, raw = self.client.mail_out(bot, to, "Re: " + str(message["Subject"]), body, reply_to=message)
        if said is not None:
            said.message_id = message_id
            self.ledger.add_talk(said)
        kind = "resign" if what == "resign" else what
        key = None if kind == "resign" else f"mail:{message_id}#0"
        copies = self.faults.copies("mail_duplicate", self.args.dup_mail_rate)
        self.ledger.add(Sent("email", kind, game_id, bot.user_id, key, line, message_id=message_id, copies=copies))
        self.faults.send_mail(self.client, bot.email, to, raw, copies)

    # ------------------------------------------------------------------ mail in (the sink)

    def dispatch(self) -> None:
        """Read the sink's mail, one at a time, until the world says there is no more."""
        inbox = self.world.inbox
        while True:
            item = inbox.get()
            if item is None:
                return
            try:
                self.read_mail(*item)
            except Exception as error:  # noqa: BLE001 - recorded; the soak goes on
                self.ledger.error(f"reading a mail: {type(error).__name__}: {error}\n{traceback.format_exc(limit=3)}")
            finally:
                inbox.task_done()

    def read_mail(self, t: float, rcpts: list[str], raw: bytes) -> None:
        """One mail the service sent: a turn notification wakes its player, an answer settles a submission."""
        self.client.capture.add("mail", raw, ",".join(rcpts), t)
        self.mail_count += 1
        message = email.message_from_bytes(raw, policy=policy.default)
        text = text_of(message)
        subject = str(message["Subject"] or "")
        auto = str(message["Auto-Submitted"] or "")
        message_id = str(message["Message-ID"] or "")
        token_match = _TOKEN.search(str(message["Reply-To"] or ""))
        token = tuple(int(x) for x in token_match.groups()) if token_match else None
        for rcpt in rcpts:
            bot = self.bot_by_email.get(rcpt.lower())
            if bot is None:
                self.ledger.error(f"mail to a stranger {rcpt}: {subject}")
                continue
            kind = str(message["X-Pbem-Kind"] or "")  # the subject is the game's, the same in every mail of it
            if auto == "auto-generated" and kind == "turn":
                if token is None:
                    self.ledger.error(f"turn mail without a reply token: {subject}")
                    continue
                with self.tables_lock:
                    self.turn_mails.append((token[0], token[1], token[2], message_id, t))
                self.wake(bot, token, message, text, answer_to=None)
            elif auto == "auto-generated" and kind == "message":
                self.talk.on_message_mail(bot, message, text)
            elif auto == "auto-generated" and kind == "result":
                table = self.tables_by_game.get(int(message["X-Pbem-Game"]))
                if table is not None:
                    self.table_ended(table)
            elif auto == "auto-replied":
                self.on_answer(bot, message, text, token)

    def wake(self, bot: Bot, token, message, text: str, answer_to: str | None) -> None:
        """It is this bot's turn (once per position): play it through the bot's door."""
        game_id, _seat, seq = token
        table = self.tables_by_game.get(game_id)
        if table is None or table.ended or not self.playing:
            return
        if bot.door == "email":
            if answer_to is None and not self.claim_turn(game_id, bot.user_id, seq):
                return
            if answer_to is not None:
                with self.acted_lock:
                    if answer_to in self.answered or self.acted.get((game_id, bot.user_id), -1) > seq:
                        return
                    self.answered.add(answer_to)
                    self.acted[(game_id, bot.user_id)] = seq
            self.submit(self.play_mail, bot, table, message, text, token)
        elif self.claim_turn(game_id, bot.user_id, seq):
            self.submit(self.play_api if bot.door == "api" else self.play_web, bot, table)

    def on_answer(self, bot: Bot, message, text: str, token) -> None:
        """The service's answer to a bot's mail: what became of it, maybe the next decision to make."""
        answer_to = str(message["In-Reply-To"] or "")
        new = self.pending_new.pop(answer_to, None)
        if new is not None:
            found = re.search(r"Game (\d+) \(\w+\) (?:is open|has started)", text)  # started: a table with bots
            if not found:
                self.ledger.error(f"/new answered without a game: {text[:300]!r}")
                self.table_ended(new)
                return
            self.submit(self.table_open, new, int(found.group(1)))
            return
        talked = self.talk.on_answer(answer_to, text)  # a /say, /note or message reply; or a move with a message
        item = self.ledger.by_message.get(answer_to)
        if item is None:
            if talked:
                return
            if text.startswith("The results of your mail:") and "/join" in text and "Failed" not in text:
                return  # the answer to a /join
            self.ledger.error(f"an answer to no mail of ours: {text[:300]!r}")
            return
        with self.ledger.lock:
            item.answers += 1
        if "This turn has already been played" in text:
            self.ledger.settle(item, "refused", text.split("\n", 1)[0])
        elif "Failed (reading stopped here):" in text:
            lines = text.split("Failed (reading stopped here):", 1)[1].strip().splitlines()
            self.ledger.settle(item, "refused", lines[1].strip() if len(lines) > 1 else "")
        elif "Done:" in text:
            if item.kind == "resign" and "You resigned from game" in text:
                self.ledger.settle(item, "applied")
            elif item.kind != "resign" and re.search(r"-> move \d+: ", text):
                self.ledger.settle(item, "applied")
            else:
                self.ledger.error(f"an answer that says neither done nor failed: {text[:300]!r}")
        else:
            self.ledger.error(f"an answer I cannot read: {text[:300]!r}")
        if re.search(r"Game \d+ is over\.", text):
            table = self.tables_by_game.get(item.game_id)
            if table is not None:
                self.table_ended(table)
        if token is not None and listed_moves(text):
            self.wake(bot, token, message, text, answer_to=answer_to)
