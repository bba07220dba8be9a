"""Issue 33 item 6: "Since your last turn" tells everything since the reader's last decision.

A turn mail lists, in order and in words, every move since the reader's own last one: each
player's move, what chance brought (the tile drawn, the card drawn, the die), the decisions the
engine made by itself (a forced emigration, a landing with one place), and the points. It tells
nothing the reader's view does not show: not the pile's or the deck's order, not another
player's hidden tiles. Games are played through `games.submit` with seeded random moves, and the
reader's turn mail is sent through the outbox as any mail is.
"""

from __future__ import annotations

import random
import re
from email import policy
from email.parser import BytesParser

import pytest
from sqlalchemy import select

import engine
from pbem import games
from pbem.mail import outbound
from pbem.models import OutboundMail, Seat
from pbem.notify import wording
from renderers.text.events import SINCE_LINES
from tests.mail.conftest import verified_user

HEADING = "Since your last turn:"
NAMES = ["Ana", "Bea", "Cid"]


class Table:
    """A running game in the service, played with seeded random legal moves (no mode proposals)."""

    def __init__(self, db, title: str, players: int, seed: int, options: dict | None = None):
        self.db, self.title, self.rules = db, title, engine.get(title)
        emails = [f"{NAMES[n].lower()}.{title}.{seed}@example.org" for n in range(players)]
        ids = [verified_user(db, e, NAMES[n]) for n, e in enumerate(emails)]
        self.game_id = games.create_game(db, title, ids[0], players, options or {})
        for uid in ids[1:]:
            games.join_game(db, self.game_id, uid, seed=seed)  # the last one starts the game
        with db.sessions() as s:
            seats = s.scalars(select(Seat).where(Seat.game_id == self.game_id)).all()
            self.email = {seat.number: seat.user.email for seat in seats}
            self.name = {seat.number: seat.display_name for seat in seats}
        self.log: list[tuple[int, object, object]] = []  # (seat, move, state after it)

    @property
    def state(self):
        with self.db.sessions() as s:
            return games.load_state(games.load_game(s, self.game_id))

    def walk(self, rnd: random.Random, stop, limit: int = 600) -> bool:
        """Random legal moves until `stop(self)` after a move; whether it stopped there."""
        for _ in range(limit):
            state = self.state
            seat = self.rules.to_move(state)
            if seat is None:
                return False
            legal = self.rules.legal_moves(state)
            move = rnd.choice([m for m in legal if m.kind != "propose"] or legal)
            games.submit(self.db, self.game_id, self.rules.notation(state, move), seat=seat, source="web")
            self.log.append((seat, move, self.state))
            if stop(self):
                return True
        return False

    def since(self, reader: int) -> list[tuple[int, object, object]]:
        """The moves from the reader's last own move on (that one included)."""
        last = max((i for i, (seat, _, _) in enumerate(self.log) if seat == reader), default=0)
        return self.log[last:]

    def turn_mail(self, reader: int) -> str:
        """The text of the newest turn mail to the reader, sent as the outbox sends it."""
        with self.db.sessions() as s:
            row = s.scalars(select(OutboundMail).where(OutboundMail.game_id == self.game_id,
                                                       OutboundMail.kind == "turn",
                                                       OutboundMail.recipient == self.email[reader])
                            .order_by(OutboundMail.id.desc())).first()
            outbox_id = row.id
        return self.sent_text(outbox_id)

    def sent_text(self, outbox_id: int) -> str:
        settings = self.settings
        assert outbound.deliver(self.db, outbox_id, settings) == "sent"
        raw = (settings.data_dir / "outbox" / f"{outbox_id:08d}.eml").read_bytes()
        message = BytesParser(policy=policy.default).parsebytes(raw)
        return message.get_body(("plain",)).get_content().replace("\r\n", "\n")


def section(text: str) -> str:
    """The "Since your last turn" section of a mail, its lines joined into one line of words."""
    assert HEADING in text, text
    body = text.split(HEADING, 1)[1].split("\n\n", 1)[0]
    return " ".join(body.split())


def in_order(text: str, parts: list[str]) -> None:
    """Each part is in the text, after the one before it."""
    at = 0
    for part in parts:
        found = text.find(part, at)
        assert found >= 0, f"{part!r} not found after position {at} in:\n{text}"
        at = found + len(part)


@pytest.fixture
def table(db, settings):
    def make(title, players, seed, options=None):
        found = Table(db, title, players, seed, options)
        found.settings = settings
        return found
    return make


# --- Tongiaki: a shipwreck, the tiles drawn and a forced emigration by another player reach the reader --------


def _tongiaki_news(table: Table) -> bool:
    """The turn has just passed to a reader, and since the reader's last move another player drew a
    tile, had ships wrecked, and the engine made a decision by itself."""
    state = table.state
    reader = table.rules.to_move(state)
    if reader is None or table.log[-1][0] == reader or not any(seat == reader for seat, _, _ in table.log):
        return False
    kinds = {e[0] for seat, _, after in table.since(reader) if seat != reader for e in after.events}
    return {"draw", "wreck", "auto"} <= kinds


def who(game: Table, reader: int, seat: int, view: dict) -> str:
    return "You" if seat == reader else f"{game.name[seat]} ({view['colours'][seat]})"


def engine_chose(game: Table, reader: int, seat: int, view: dict) -> str:
    if seat == reader:
        return "The engine made your only possible choice"
    return f"The engine made the only possible choice for {who(game, reader, seat, view)}"


def test_33_6_tongiaki_turn_mail_tells_the_wreck_the_tile_and_the_engines_moves(table):
    game = table("tongiaki", 3, 7)
    assert game.walk(random.Random(7), _tongiaki_news)
    state = game.state
    reader = game.rules.to_move(state)
    text = section(game.turn_mail(reader))
    expected = []
    first = len(game.log) - len(game.since(reader)) + 1
    for seq, (seat, _, after) in enumerate(game.since(reader), start=first):
        view = game.rules.view(after, reader)
        expected.append(f"{seq}. {who(game, reader, seat, view)} ")
        auto_run = None
        for e in view["events"]:
            if e["event"] == "auto":
                colour_seat = view["colours"].index(e["colour"])
                if auto_run != colour_seat:
                    expected.append(engine_chose(game, reader, colour_seat, view))
                auto_run = colour_seat
                continue
            auto_run = None
            if e["event"] == "draw":
                expected.append(f"{e['tile'] if len(e['tile']) > 1 else 'Water tile ' + e['tile']} was drawn.")
            elif e["event"] == "shipwreck":
                expected.append(f"Shipwreck on water tile {e['tile']} (risk {e['risk']})")
    in_order(text, expected)
    assert "was drawn." in text and "Shipwreck on" in text and "The engine made the only possible choice" in text
    # Nothing but what the seat sees: every tile the section names lies on the table in the reader's view.
    laid = {tile["tile"] for tile in game.rules.view(state, reader)["tiles"]}
    for name in re.findall(r"(?:Water tile (\w)|(\w[\w ]*?)) was drawn", text):
        assert (name[0] or name[1]) in laid
    assert game.rules.view(state, reader)["pile"]["size"] > 0


# --- Carcassonne: The Discovery: the tiles drawn, an automatic pass; the hidden hands stay hidden ----------


def _others_news(table: Table, chance) -> bool:
    """The turn has just passed to a reader who has moved before, and since then another player made
    a move after which the engine decided by itself, and `chance(before, after)` held for another's move."""
    state = table.state
    reader = table.rules.to_move(state)
    if reader is None or table.log[-1][0] == reader or not any(seat == reader for seat, _, _ in table.log):
        return False
    since = table.since(reader)
    befores = [after for _, _, after in since]
    others = [(before, after) for before, (seat, _, after) in zip(befores, since[1:]) if seat != reader]
    return any(after.events for _, after in others) and any(chance(before, after) for before, after in others)


def test_33_6_discovery_turn_mail_tells_each_tile_drawn_and_the_engines_moves(table):
    game = table("discovery", 3, 3)
    assert game.walk(random.Random(3), lambda t: _others_news(t, lambda b, a: len(a.deck) < len(b.deck)))
    reader = game.rules.to_move(game.state)
    text = section(game.turn_mail(reader))
    expected = []
    since = game.since(reader)
    first = len(game.log) - len(since) + 1
    before = None
    for seq, (seat, _, after) in enumerate(since, start=first):
        view = game.rules.view(after, reader)
        expected.append(f"{seq}. {who(game, reader, seat, view)} ")
        for e in view["events"]:  # the engine's own moves after this one, each with the seat it moved for
            expected.append(engine_chose(game, reader, e["seat"], view))
        if before is not None and len(after.deck) < len(before.deck) and view["drawn"]:
            expected.append(f"{who(game, reader, view['to_move'], view)} drew tile #{view['drawn']['tile']}: ")
        before = after
    in_order(text, expected)
    assert "drew tile #" in text and "The engine made the only possible choice" in text


def test_33_6_discovery_hidden_hands_never_reach_the_section(table):
    """Double tile (D18): what others draw goes into their hidden hands; the section says that they drew,
    never which tile, and names no tile the reader's views do not show."""
    game = table("discovery", 3, 56, {"double": True})
    assert game.walk(random.Random(56), lambda t: _others_news(t, lambda b, a: len(a.deck) < len(b.deck)))
    state = game.state
    reader = game.rules.to_move(state)
    text = section(game.turn_mail(reader))
    since = game.since(reader)
    seen: set[int] = set()
    for after in [game.log[len(game.log) - len(since) - 1][2]] + [after for _, _, after in since]:
        view = game.rules.view(after, reader)
        seen |= {tile["tile"] for tile in view["board"]} | {tile["tile"] for tile in view["hand"] or []}
        seen |= {tile["tile"] for tile in view["removed"]}
    hidden = {n for p in range(3) if p != reader for n in state.hands[p]} - seen
    assert hidden, "the test needs a tile that only another player sees"
    assert "tile into the hidden hand" in text
    # The reader is told the tiles it drew itself, and of the others only that they drew.
    states = [game.log[len(game.log) - len(since) - 1][2]] + [after for _, _, after in since]
    mine, theirs = [], 0
    for before, after in zip(states, states[1:]):
        hand = list(before.hands[reader])
        for n in after.hands[reader]:
            if n in hand:
                hand.remove(n)
            else:
                mine.append(n)
        theirs += len(before.deck) - len(after.deck) - (len(after.removed) - len(before.removed))
    theirs -= len(mine)
    assert [int(n) for n in re.findall(r"You drew tile #(\d+)", text)] == mine
    assert text.count("drew 1 tile into the hidden hand") == theirs > 0
    named = {int(n) for n in re.findall(r"#(\d+)", text)}
    assert named <= seen, f"tiles named that the reader does not see: {named - seen}"
    assert not named & hidden


# --- Tapaono: the die, the card drawn face up and the engine's own moves -------------------------------------


def test_33_6_tapaono_turn_mail_tells_the_die_the_card_and_the_engines_moves(table):
    game = table("tapaono", 2, 2)

    def rolled_and_drew(t: Table) -> bool:
        return (_others_news(t, lambda b, a: len(a.deck) < len(b.deck))
                and _others_news(t, lambda b, a: a.last_roll is not None and a.last_roll != b.last_roll))

    assert game.walk(random.Random(2), rolled_and_drew, limit=1500)
    reader = game.rules.to_move(game.state)
    text = section(game.turn_mail(reader))
    cards = {"transport": "Transport +2", "conquer-six": "Conquer six", "conquer-three": "Conquer three",
             "raid": "Raid", "loss": "Loss", "landing": "Landing", "star-jump": "Star jump", "recall": "Recall"}
    expected = []
    since = game.since(reader)
    first = len(game.log) - len(since) + 1
    before = None
    for seq, (seat, move, after) in enumerate(since, start=first):
        view = game.rules.view(after, reader)
        expected.append(f"{seq}. {who(game, reader, seat, view)} ")
        if before is not None and move.kind == "roll":
            expected.append(f"The die showed {after.last_roll[2]} for piece {after.last_roll[1]}.")
        if before is not None and len(after.deck) < len(before.deck) and not after.events:
            expected.append(f"{who(game, reader, after.drawn[0], view)} drew {cards[after.drawn[1]]}.")
        for e in view["events"]:
            expected.append(engine_chose(game, reader, e["seat"], view))
        before = after
    in_order(text, expected)
    assert "The die showed" in text and " drew " in text and "The engine made the only possible choice" in text


# --- the bound: at most SINCE_LINES lines, the newest moves, a count of the rest and the game page ------------


def test_33_6_a_long_section_keeps_the_newest_moves_and_counts_the_rest():
    """Many moves since the reader's last one: the section keeps within SINCE_LINES lines (heading and note
    included), tells the newest moves whole and in order, and says how many earlier ones it left out,
    with the game page."""
    rules = engine.get("tongiaki")
    state = rules.setup(3, rules.check_options({}), 7)
    rnd = random.Random(7)
    moves = []
    for seq in range(1, 121):
        if rules.to_move(state) is None:
            break
        move = rnd.choice(rules.legal_moves(state))
        seat = rules.to_move(state)
        after, trace = rules.apply_traced(state, move)
        moves.append({"seq": seq, "seat": seat, "notation": rules.notation(state, move), "resigned": False,
                      "autos": [{"seat": rules.to_move(p), "notation": rules.notation(p, m)} for p, m in trace],
                      "views": [rules.view(p, 0) for p in [state, *(p for p, _ in trace), after]]})
        state = after
    data = {"id": 9, "my_seat": 0, "seats": [{"seat": n, "name": NAMES[n]} for n in range(3)],
            "since": {"moves": moves, "left_out": 4}}
    lines = wording.lines("parts/since.txt", "en", data=data)
    assert lines[0] == HEADING and lines[-1] == ""
    assert len(lines) - 1 <= SINCE_LINES
    told = [int(m[1]) for line in lines if (m := re.match(r"- (\d+)\. ", line))]
    assert len(moves) > 60 and told == list(range(told[0], len(moves) + 1))  # the newest, in order, none skipped
    left = told[0] - 1 + 4
    assert lines[1] == f"- {left} earlier moves are not told here: see the game page, {wording.game_link(9)}"
