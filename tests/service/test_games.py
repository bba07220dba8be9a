"""The game service on both databases: tables, seats, moves, refusals, resignations, replay."""

from __future__ import annotations

import json
import threading
import time

import pytest
from sqlalchemy import func, select, text

import engine
from engine.core import derive_seed, sha256_hex
from pbem import accounts
from pbem import events, games, notify
from pbem.games import log
from pbem.models import Game, MoveRecord, OutboundMail, Seat, Snapshot

SEED = 0x1234_5678_9ABC_DEF0_1234_5678_9ABC_DEF0
LOCK_WAITS = text("SELECT count(*) AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                  "AND datname = current_database()")


def users(db, n):
    return [accounts.ensure_user(db, f"player{i}@example.org", f"Player {i}") for i in range(n)]


def play_known_seed(db, n=2, options=None):
    """A table of n players, started by its creator with a fixed seed; returns (game id, user ids by seat)."""
    ids = users(db, n)
    game_id = games.create_game(db, "counters", ids[0], n + 1, options or {})  # one seat spare: no auto-start
    for user in ids[1:]:
        games.join_game(db, game_id, user)
    games.start_game(db, game_id, ids[0], seed=SEED)
    with db.sessions() as s:
        seats = s.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.number)).all()
        by_seat = [seat.user_id for seat in seats]
    return game_id, by_seat


def current(db, game_id):
    with db.sessions() as s:
        return s.get(Game, game_id)


def move_count(db, game_id):
    with db.sessions() as s:
        return s.scalar(select(func.count()).select_from(MoveRecord).where(MoveRecord.game_id == game_id))


# --- tables -------------------------------------------------------------------------


def test_create_join_and_auto_start_when_full(db):
    a, b = users(db, 2)
    game_id = games.create_game(db, "counters", a, 2, {"pile": 9})
    assert current(db, game_id).status == "open"
    joined = games.join_game(db, game_id, b)
    assert joined["started"] is True
    assert joined["seat"] in (0, 1)  # the seat in play order, drawn at the start
    # Nobody asked for a colour: colours follow the default seat order the engine and its pictures use.
    assert joined["colour"] == games.palette(engine.get("counters"))[joined["seat"]]
    game = current(db, game_id)
    assert game.status == "running" and game.seed and game.version == 0
    assert game.commitment == sha256_hex(game.seed)  # the commitment is public from the start
    assert game.options == {"pile": 9, "bonus": True}


def test_create_refuses_bad_options_and_player_counts(db):
    (a,) = users(db, 1)
    with pytest.raises(games.GameError, match="2 to 4 players, not 5"):
        games.create_game(db, "counters", a, 5)
    with pytest.raises(games.GameError, match="no option 'speed'"):
        games.create_game(db, "counters", a, 2, {"speed": 3})
    with pytest.raises(games.GameError, match="between 5 and 40"):
        games.create_game(db, "counters", a, 2, {"pile": 2})
    with pytest.raises(games.GameError, match="no game called 'chess'"):
        games.create_game(db, "chess", a, 2)
    with db.sessions() as s:
        assert s.scalar(select(func.count()).select_from(Game)) == 0


def test_join_refusals_change_nothing(db):
    a, b, c, d = users(db, 4)
    game_id = games.create_game(db, "counters", a, 3)
    with pytest.raises(games.GameError, match="already have a seat"):
        games.join_game(db, game_id, a)
    with pytest.raises(games.GameError, match="has no colour 'pink'"):
        games.join_game(db, game_id, b, colour="pink")
    games.join_game(db, game_id, b)
    games.join_game(db, game_id, c)  # full: starts
    with pytest.raises(games.GameStateError, match="only open games can be joined"):
        games.join_game(db, game_id, d)
    with pytest.raises(games.NotFoundError):
        games.join_game(db, 999, d)


def test_start_needs_enough_players_and_the_creator(db):
    a, b, c = users(db, 3)
    game_id = games.create_game(db, "counters", a, 4)
    with pytest.raises(games.GameStateError, match="at least 2 players"):
        games.start_game(db, game_id, a)
    games.join_game(db, game_id, b)
    with pytest.raises(games.NotAllowedError, match="Only the player who opened"):
        games.start_game(db, game_id, b)
    with pytest.raises(games.NotAllowedError, match="no seat"):
        games.start_game(db, game_id, c)
    games.start_game(db, game_id, a)
    assert current(db, game_id).players == 2


def test_leave_before_start_and_abandon_an_empty_table(db):
    a, b = users(db, 2)
    game_id = games.create_game(db, "counters", a, 3)
    games.join_game(db, game_id, b)
    games.leave_game(db, game_id, a)
    with db.sessions() as s:
        seats = s.scalars(select(Seat).where(Seat.game_id == game_id)).all()
        assert [(x.user_id, x.number) for x in seats] == [(b, 0)]
    games.leave_game(db, game_id, b)
    assert current(db, game_id).status == "abandoned"


def test_seat_order_is_drawn_from_the_seed(db):
    game_id, by_seat = play_known_seed(db, 3)
    order = list(range(3))
    engine.core.Rng(derive_seed(SEED, "seats")).shuffle(order)
    # Joined in order player0..player2; seat k holds the joiner order[k].
    ids = users(db, 3)
    assert by_seat == [ids[i] for i in order]


# --- moves --------------------------------------------------------------------------


def test_a_move_is_applied_logged_and_notified(db):
    game_id, by_seat = play_known_seed(db, 2)
    result = games.submit(db, game_id, "TAKE  2", user_id=by_seat[0], source="web")
    assert (result.seq, result.notation, result.to_move, result.duplicate) == (1, "take 2", 1, False)
    with db.sessions() as s:
        record = s.scalars(select(MoveRecord).where(MoveRecord.game_id == game_id)).one()
        game = s.get(Game, game_id)
        assert record.state_hash == sha256_hex(game.state)
        assert record.chain_hash == game.chain_head
        assert json.loads(record.move) == ["take", [2]]
        assert s.get(Snapshot, (game_id, 1)).state == game.state
        turn_mails = s.scalars(select(OutboundMail).where(OutboundMail.kind == "turn").order_by(OutboundMail.id)).all()
        # One at the start for seat 0, one now for seat 1: exactly one per turn.
        assert [m.user_id for m in turn_mails] == [by_seat[0], by_seat[1]]
        assert [m.seq for m in turn_mails] == [0, 1]
        text = notify.view_text(s, turn_mails[-1])  # what the mail will say: the seat's view after the move
        assert "take 1" in text and game.commitment in text


def test_refusals_say_why_and_change_nothing(db):
    game_id, by_seat = play_known_seed(db, 2)
    before = current(db, game_id)
    with pytest.raises(games.NotYourTurnError, match="not your turn"):
        games.submit(db, game_id, "take 1", user_id=by_seat[1])
    with pytest.raises(games.IllegalMoveError, match="Write 'take 1'"):
        games.submit(db, game_id, "jump", user_id=by_seat[0])
    with pytest.raises(games.IllegalMoveError, match="You can take 1 to 3"):
        games.submit(db, game_id, "take 4", user_id=by_seat[0])
    with pytest.raises(games.StalePositionError, match="Stale position"):
        games.submit(db, game_id, "take 1", user_id=by_seat[0], expected_version=3)
    outsider = accounts.ensure_user(db, "outsider@example.org")
    with pytest.raises(games.NotAllowedError, match="no seat"):
        games.submit(db, game_id, "take 1", user_id=outsider)
    after = current(db, game_id)
    assert (after.version, after.state, after.chain_head) == (before.version, before.state, before.chain_head)
    assert move_count(db, game_id) == 0


def test_the_same_key_twice_is_applied_once(db):
    game_id, by_seat = play_known_seed(db, 2)
    first = games.submit(db, game_id, "take 1", user_id=by_seat[0], key="mail-<abc@x>")
    again = games.submit(db, game_id, "take 1", user_id=by_seat[0], key="mail-<abc@x>")
    assert (first.seq, first.duplicate) == (1, False)
    assert (again.seq, again.duplicate, again.notation) == (1, True, "take 1")
    assert move_count(db, game_id) == 1


def test_a_whole_game_ends_with_result_and_revealed_seed(db):
    game_id, by_seat = play_known_seed(db, 2, {"pile": 5, "bonus": True})
    games.submit(db, game_id, "take 3", user_id=by_seat[0])
    data = games.view(db, game_id, by_seat[1])
    assert data["seed"] is None and data["legal_moves"] == ["take 1", "take 2", "draw"]
    games.submit(db, game_id, "take 2", user_id=by_seat[1])
    game = current(db, game_id)
    assert game.status == "finished" and game.to_move is None
    assert game.result["scores"] == [3, 7] and game.result["ranks"] == [2, 1]
    summary = games.view(db, game_id)
    assert summary["seed"] == log.seed_hex(SEED) and sha256_hex(summary["seed"]) == summary["commitment"]
    with pytest.raises(games.GameStateError, match="finished"):
        games.submit(db, game_id, "take 1", user_id=by_seat[0])
    with db.sessions() as s:
        results = s.scalars(select(OutboundMail).where(OutboundMail.kind == "result")).all()
        assert sorted(m.user_id for m in results) == sorted(by_seat)
        assert log.seed_hex(SEED) in notify.view_text(s, results[0])


def test_views_hide_the_seed_and_other_hands_while_running(db):
    game_id, by_seat = play_known_seed(db, 2)
    games.submit(db, game_id, "draw", user_id=by_seat[0])
    mine = games.view(db, game_id, by_seat[0])
    theirs = games.view(db, game_id, by_seat[1])
    spectator = games.view(db, game_id)
    assert len(mine["board"]["my_hand"]) == 1 and theirs["board"]["my_hand"] == []
    assert spectator["board"]["my_hand"] is None and spectator["legal_moves"] == []
    game = current(db, game_id)
    for data in (mine, theirs, spectator):
        assert game.seed not in json.dumps(data) and str(int(game.seed, 16)) not in json.dumps(data)


def test_replay_reads_snapshots_and_keeps_seats_private_while_running(db):
    game_id, by_seat = play_known_seed(db, 2, {"pile": 9})
    for text, seat in [("take 1", 0), ("draw", 1), ("take 3", 0)]:
        games.submit(db, game_id, text, user_id=by_seat[seat])
    at1 = games.view_at(db, game_id, 1)
    assert at1["board"]["pile"] == 8 and at1["move"] == {"seat": 0, "notation": "take 1"} and at1["of"] == 3
    assert games.view_at(db, game_id, 0)["board"]["pile"] == 9
    with pytest.raises(games.NotAllowedError):
        games.view_at(db, game_id, 2, seat=1)
    with pytest.raises(games.GameError, match="no move 7"):
        games.view_at(db, game_id, 7)
    # The snapshot agrees with a replay from the seed.
    rules = engine.get("counters")
    state = rules.replay(2, rules.check_options({"pile": 9}), SEED, [rules.parse(None, t) for t in ["take 1", "draw"]])
    assert games.view_at(db, game_id, 2)["board"] == rules.view(state, None)


def test_resigning_a_two_player_game_ends_it(db):
    game_id, by_seat = play_known_seed(db, 2)
    games.submit(db, game_id, "take 2", user_id=by_seat[0])
    games.resign(db, game_id, by_seat[0])
    game = current(db, game_id)
    assert game.status == "finished" and game.result["ranks"] == [2, 1]
    assert "Resigned: Player" in game.result["reason"]
    with pytest.raises(games.GameStateError):
        games.resign(db, game_id, by_seat[1])


def test_a_resigned_seat_in_a_bigger_game_is_played_automatically(db):
    game_id, by_seat = play_known_seed(db, 3)
    games.resign(db, game_id, by_seat[1])
    result = games.submit(db, game_id, "take 1", user_id=by_seat[0])
    assert result.auto_moves == ["take 1"] and result.to_move == 2
    history = games.history(db, game_id)
    assert [(h["seat"], h["notation"], h["source"]) for h in history] == [
        (1, "resign", "web"), (0, "take 1", "web"), (1, "take 1", "auto")]


# --- concurrency ----------------------------------------------------------------------


def test_two_simultaneous_submissions_apply_exactly_one(db):
    """Both were sent for the same position: one is applied, the other is told it is stale."""
    for _ in range(5):
        game_id, by_seat = play_known_seed(db, 2, {"pile": 30})
        version = current(db, game_id).version
        barrier = threading.Barrier(2)
        outcomes = []

        def send(text):
            barrier.wait()
            try:
                outcomes.append(games.submit(db, game_id, text, user_id=by_seat[0], expected_version=version))
            except games.GameError as error:
                outcomes.append(error)

        threads = [threading.Thread(target=send, args=(t,)) for t in ("take 1", "take 2")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        applied = [o for o in outcomes if isinstance(o, games.SubmitResult)]
        refused = [o for o in outcomes if isinstance(o, games.GameError)]
        assert len(applied) == 1 and len(refused) == 1, outcomes
        assert isinstance(refused[0], games.StalePositionError)
        assert move_count(db, game_id) == 1 and current(db, game_id).version == 1


def test_the_same_key_from_two_threads_is_applied_once(db):
    game_id, by_seat = play_known_seed(db, 2, {"pile": 30})
    barrier = threading.Barrier(4)
    outcomes = []

    def send():
        barrier.wait()
        outcomes.append(games.submit(db, game_id, "take 2", user_id=by_seat[0], key="k-1"))

    threads = [threading.Thread(target=send) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(o.duplicate for o in outcomes) == [False, True, True, True]
    assert move_count(db, game_id) == 1


def test_a_key_applied_while_a_submission_waited_for_the_lock_is_not_applied_again(pg_db, monkeypatch):
    """On PostgreSQL a submission waiting for the game's lock reads the log as it was when its
    statement began; the log's unique (game, key) index stops it, and it answers as a duplicate."""
    db = pg_db
    game_id, by_seat = play_known_seed(db, 2, {"pile": 30})
    holding, release = threading.Event(), threading.Event()

    def held(s, **_facts):  # the first submission stops just before its commit, holding the lock
        if threading.current_thread().name == "first":
            holding.set()
            release.wait(120)

    events.move_applied.connect(held)
    outcomes = {}

    def send(name, **how):
        try:
            outcomes[name] = games.submit(db, game_id, "take 1", key="k-same", **how)
        except Exception as error:  # noqa: BLE001 - the test reads it
            outcomes[name] = error

    first = threading.Thread(target=send, name="first", args=("first",), kwargs={"user_id": by_seat[0]})
    second = threading.Thread(target=send, name="second", args=("second",), kwargs={"seat": 1})
    try:
        first.start()
        assert holding.wait(60)  # the first submission holds the game's lock, its move not yet committed
        # The second names the seat that is to move once the first commits, with the same key.
        second.start()
        deadline = time.monotonic() + 60  # generous: a loaded machine, never a measure of speed
        # In autocommit (`read`): PostgreSQL keeps one snapshot of pg_stat_activity per transaction.
        while True:  # until the second waits for the lock
            waiting = db.read(LOCK_WAITS)[0].waiting
            if waiting or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        assert waiting == 1
    finally:
        release.set()  # whatever happened, the first commits and both threads end
        for thread in (first, second):
            if thread.ident is not None:  # started
                thread.join(60)
        events.move_applied.disconnect(held)
    assert isinstance(outcomes["first"], games.SubmitResult) and not outcomes["first"].duplicate
    assert isinstance(outcomes["second"], games.SubmitResult), outcomes["second"]
    assert outcomes["second"].duplicate and outcomes["second"].seq == 1
    assert move_count(db, game_id) == 1 and current(db, game_id).version == 1


def test_a_resignation_sent_for_a_position_the_game_has_left_is_refused(db):
    """A turn key is dead once the turn is played (docs/security.md): so is a resignation made with it."""
    game_id, by_seat = play_known_seed(db)
    games.submit(db, game_id, "take 1", user_id=by_seat[0])
    with pytest.raises(games.StalePositionError):
        games.resign(db, game_id, by_seat[0], source="email", expected_version=0)
    assert [s["resigned"] for s in games.view(db, game_id)["seats"]] == [False, False]
    games.resign(db, game_id, by_seat[0], source="email", expected_version=1)
    assert games.view(db, game_id)["status"] == "finished"
