"""Archives and verification: round trips, and every kind of broken or tampered input refused."""

from __future__ import annotations

import json
import threading
import time

import pytest
from sqlalchemy import func, select, update

from pbem import games
from pbem.games import archive
from pbem.models import Game, MoveRecord, Snapshot
from tests.service.test_games import play_known_seed


def finished_game(db, options=None):
    game_id, by_seat = play_known_seed(db, 2, options or {"pile": 8})
    seat = 0
    for text in ["draw", "take 1", "draw", "take 3", "take 2", "take 2"]:
        games.submit(db, game_id, text, user_id=by_seat[seat])
        seat = 1 - seat
        if games.view(db, game_id)["status"] == "finished":
            break
    assert games.view(db, game_id)["status"] == "finished"
    return game_id, by_seat


def game_count(db):
    with db.sessions() as s:
        return s.scalar(select(func.count()).select_from(Game))


def test_export_import_verify_round_trip(db):
    game_id, _ = finished_game(db)
    raw = archive.export_bytes(db, game_id)
    data = json.loads(raw)
    assert data["format"] == "pbem-archive" and data["format_version"] == 1
    assert "@" not in raw.decode(), "an archive must not carry email addresses"
    new_id = archive.import_archive(db, raw)
    assert new_id != game_id
    assert archive.verify_game(db, game_id) == [] and archive.verify_game(db, new_id) == []
    again = json.loads(archive.export_bytes(db, new_id))
    for key in ("seed", "commitment", "moves", "result", "seats"):
        assert again[key] == data[key]
    # The imported game replays from snapshots like any other.
    last = len(data["moves"])
    assert games.view_at(db, new_id, last)["board"] == games.view_at(db, game_id, last)["board"]
    assert games.view_at(db, new_id, 2, seat=0)["board"]["my_hand"] is not None


def test_running_games_are_not_archived(db):
    game_id, by_seat = play_known_seed(db, 2)
    with pytest.raises(archive.ArchiveError, match="only finished games are archived"):
        archive.export_game(db, game_id)


def _flip(text: str, index: int) -> str:
    char = text[index]
    replacement = "0" if char != "0" else "1"
    if char.isalpha():
        replacement = "b" if char != "b" else "c"
    return text[:index] + replacement + text[index + 1:]


@pytest.mark.parametrize("field", ["move", "seat", "notation", "source", "at", "state_hash", "chain_hash"])
def test_a_one_byte_change_in_any_move_field_is_detected_and_named(db, field):
    game_id, _ = finished_game(db)
    data = json.loads(archive.export_bytes(db, game_id))
    before = game_count(db)
    for seq in (1, 3, len(data["moves"])):
        tampered = json.loads(json.dumps(data))
        record = tampered["moves"][seq - 1]
        if field == "move":
            record["move"][1] = [record["move"][1][0] + 1] if record["move"][1] else [1]
        elif field == "seat":
            record["seat"] = 1 - record["seat"]
        else:
            record[field] = _flip(record[field], len(record[field]) - 2)
        raw = json.dumps(tampered).encode()
        with pytest.raises(archive.ArchiveError, match=rf"Move {seq}\b"):
            archive.import_archive(db, raw)
    assert game_count(db) == before, "a refused archive stored something"


@pytest.mark.parametrize("change,message", [
    (lambda d: d.update(seed=d["seed"][:-1] + ("0" if d["seed"][-1] != "0" else "1")), "commitment"),
    (lambda d: d["moves"].pop(2), "Move 3 is missing"),
    (lambda d: d["moves"].pop(), "not finished"),
    (lambda d: d["result"].update(scores=[99, 0]), "result does not match"),
    (lambda d: d["game"].update(title="chess"), "no game called 'chess'"),
    (lambda d: d["game"].update(players=7), "seats for a game of 7"),
    (lambda d: d.update(format_version=9), "format version 9"),
    (lambda d: d.pop("moves"), "no 'moves'"),
    (lambda d: d["moves"][0].update(at="yesterday"), "Move 1: the time"),
    (lambda d: d["game"].update(options={"pile": 1}), "between 5 and 40"),
])
def test_broken_archives_are_refused_with_a_clear_message(db, change, message):
    game_id, _ = finished_game(db)
    data = json.loads(archive.export_bytes(db, game_id))
    change(data)
    before = game_count(db)
    with pytest.raises(archive.ArchiveError, match=message):
        archive.import_archive(db, json.dumps(data).encode())
    assert game_count(db) == before


def test_truncated_oversized_and_foreign_files_are_refused(db):
    game_id, _ = finished_game(db)
    raw = archive.export_bytes(db, game_id)
    before = game_count(db)
    with pytest.raises(archive.ArchiveError, match="not valid JSON"):
        archive.import_archive(db, raw[: len(raw) // 2])
    with pytest.raises(archive.ArchiveError, match="the limit is 8 MB"):
        archive.import_archive(db, raw + b" " * archive.MAX_ARCHIVE_BYTES)
    with pytest.raises(archive.ArchiveError, match="not a pbem game archive"):
        archive.import_archive(db, b'{"hello": "world"}')
    with pytest.raises(archive.ArchiveError, match="not UTF-8"):
        archive.import_archive(db, b"\x89PNG\r\n\x1a\n\xff\xfe")
    assert game_count(db) == before


def test_verify_names_the_move_changed_in_the_database(db):
    game_id, _ = finished_game(db)
    other_id, _ = finished_game(db)
    with db.transaction() as s:
        s.execute(update(MoveRecord).where(MoveRecord.game_id == game_id, MoveRecord.seq == 3)
                  .values(notation="take 9"))
    problems = archive.verify_game(db, game_id)
    assert len(problems) == 1 and "Move 3" in problems[0] and "notation" in problems[0]
    everything = archive.verify_all(db)
    assert everything[other_id] == [] and everything[game_id] == problems


def test_verify_finds_a_changed_snapshot_and_state(db):
    game_id, _ = finished_game(db)
    with db.transaction() as s:
        snap = s.get(Snapshot, (game_id, 2))
        snap.state_hash = "0" * 64
        s.get(Game, game_id).state = s.get(Game, game_id).state.replace('"pile":', '"pile": ')
    problems = archive.verify_game(db, game_id)
    assert any("move 2: the stored snapshot" in p for p in problems)
    assert any("current state does not match" in p for p in problems)


def test_a_game_ended_by_resignation_round_trips(db):
    game_id, by_seat = play_known_seed(db, 2)
    games.submit(db, game_id, "take 2", user_id=by_seat[0])
    games.resign(db, game_id, by_seat[1])
    new_id = archive.import_archive(db, archive.export_bytes(db, game_id))
    assert archive.verify_game(db, new_id) == []
    with db.sessions() as s:
        assert s.get(Game, new_id).result == s.get(Game, game_id).result


# --------------------------------------------------------------------------------------
# Issue 31, item 6: an archive is one game


def test_31_6_the_same_archive_is_one_game_whatever_its_layout_and_the_fields_import_ignores(db):
    game_id, _ = finished_game(db)
    raw = archive.export_bytes(db, game_id)
    data = json.loads(raw)
    first = archive.import_game(db, raw)
    assert first.new and first.game_id != game_id
    before = game_count(db)
    # The same content laid out otherwise, or with what an import does not read changed: the same game.
    relaid = json.dumps(data, separators=(",", ":")).encode()  # no whitespace, keys in the order read
    shuffled = json.dumps(dict(reversed(list(data.items()))), indent=7).encode()
    ignored = json.loads(raw)
    ignored["game"].update(id=999, created_at="2020-01-01T00:00:00.000000Z", finished_at=None)
    ignored["seats"][0]["colour"] = "mauve"
    ignored["comment"] = "a key nobody reads"
    for same in (raw, relaid, shuffled, json.dumps(ignored).encode()):
        again = archive.import_game(db, same)
        assert again == archive.Imported(first.game_id, new=False)
        assert archive.import_archive(db, same) == first.game_id
    assert game_count(db) == before
    # A field an import keeps (a seat's name) makes it another archive, and another game.
    renamed = json.loads(raw)
    renamed["seats"][0]["name"] = "Someone else"
    other = archive.import_game(db, json.dumps(renamed).encode())
    assert other.new and other.game_id != first.game_id and game_count(db) == before + 1
    with db.sessions() as s:
        digests = {s.get(Game, i).archive_sha256 for i in (first.game_id, other.game_id)}
        assert s.get(Game, game_id).archive_sha256 is None  # a game played here has none
    assert digests == {archive.archive_digest(data), archive.archive_digest(renamed)} and len(digests) == 2


def test_31_6_a_second_upload_is_answered_without_replaying_the_archive(db, monkeypatch):
    """The digest is looked up before the replay: the same archive again costs a parse and a lookup."""
    game_id, _ = finished_game(db)
    raw = archive.export_bytes(db, game_id)
    new_id = archive.import_archive(db, raw)
    replays = []
    real = archive._replay_archive
    monkeypatch.setattr(archive, "_replay_archive", lambda data: replays.append(1) or real(data))
    assert archive.import_game(db, raw) == archive.Imported(new_id, new=False) and replays == []


def test_31_6_the_same_archive_imported_at_the_same_moment_is_one_game(db, monkeypatch):
    """Imports that race (several web processes, one archive) all answer with one game: the unique digest
    stops every copy but the first, whichever commits first."""
    game_id, _ = finished_game(db)
    raw = archive.export_bytes(db, game_id)
    before = game_count(db)
    imports = 4
    barrier = threading.Barrier(imports)
    results, errors, replays = [], [], []
    real = archive._replay_archive

    def slow_replay(data):  # every import has looked the digest up, and found nothing, before any stores
        replays.append(1)
        time.sleep(0.5)
        return real(data)

    monkeypatch.setattr(archive, "_replay_archive", slow_replay)

    def upload():
        barrier.wait()
        try:
            results.append(archive.import_game(db, raw))
        except Exception as error:  # noqa: BLE001 - the test reports it
            errors.append(error)

    threads = [threading.Thread(target=upload) for _ in range(imports)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == [] and len(results) == imports and len(replays) == imports
    assert len({r.game_id for r in results}) == 1 and sum(r.new for r in results) == 1
    assert game_count(db) == before + 1
