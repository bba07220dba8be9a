"""Archives (export and import of finished games) and `verify`, all built on `pbem.games.log.check_log`.

The format is documented in docs/archive-format.md. An archive carries no email address;
it is refused for a game that is still running, because its seed is still secret. Import
checks size, schema, the seed commitment, every hash of the chain, a full re-simulation and
the resignations (what the service does when a seat resigns) before it stores anything, in
one transaction. Whatever is wrong with an archive, however it was made, is an ArchiveError
with the reason (JSON nested too deep, numbers too large, arguments of the wrong shape, bad
times), never another exception.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

import engine
from engine.core import canonical_json, sha256_hex
from pbem.db import Database
from pbem.games import log
from pbem.games.errors import GameError, NotFoundError
from pbem.games.service import resignation_result
from pbem.models import Game, GameStatus, MoveRecord, MoveSource, Seat, Snapshot, utcnow

FORMAT = "pbem-archive"
FORMAT_VERSION = 1
MAX_ARCHIVE_BYTES = 8 * 1024 * 1024
MAX_MOVES = 100_000
MAX_INT = 2**31 - 1  # numbers in an archive fit the database's INTEGER columns
MAX_ARGUMENT_DEPTH = 4  # a move's arguments: words, numbers and lists of them, nested this deep at most
TIME_FIELDS = ("created_at", "started_at", "finished_at")
SOURCES = frozenset(source.value for source in MoveSource)
# What an engine may raise for arguments of a shape it never makes (its own moves always have the right one).
_SHAPE_ERRORS = (TypeError, ValueError, KeyError, IndexError, AttributeError)


class ArchiveError(GameError):
    """An archive that cannot be imported; the message says what is wrong with it."""

    code = "bad_archive"


def _records(s: Session, game: Game) -> list[log.Record]:
    rows = s.scalars(select(MoveRecord).where(MoveRecord.game_id == game.id).order_by(MoveRecord.seq))
    return [log.Record(r.seq, r.seat, json.loads(r.move), r.notation, r.source, log.format_time(r.created_at),
                       r.state_hash, r.chain_hash) for r in rows]


def export_game(db: Database, game_id: int) -> dict:
    """The archive of a finished game, as JSON-ready data."""
    with db.sessions() as s:
        game = s.get(Game, game_id)
        if game is None:
            raise NotFoundError(f"There is no game {game_id}.")
        if game.status != GameStatus.FINISHED.value:
            raise ArchiveError(f"Game {game.id} is {game.status}: only finished games are archived, "
                               "because the seed stays secret until the end.")
        seats = s.scalars(select(Seat).where(Seat.game_id == game.id).order_by(Seat.number))
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "game": {
                "id": game.id,
                "title": game.title,
                "engine_version": game.engine_version,
                "players": game.players,
                "options": game.options,
                "created_at": log.format_time(game.created_at),
                "started_at": log.format_time(game.started_at),
                "finished_at": log.format_time(game.finished_at),
            },
            "seats": [{"seat": x.number, "name": x.display_name, "colour": x.colour, "resigned": x.resigned}
                      for x in seats],
            "seed": game.seed,
            "commitment": game.commitment,
            "moves": [r.to_json() for r in _records(s, game)],
            "result": game.result,
        }


def export_bytes(db: Database, game_id: int) -> bytes:
    return (json.dumps(export_game(db, game_id), indent=1, sort_keys=True) + "\n").encode()


# --------------------------------------------------------------------------------------
# Import


def _need(data: dict, key: str, kind: type | tuple, where: str) -> Any:
    if not isinstance(data, dict) or key not in data:
        raise ArchiveError(f"The archive has no {where}{key!r}.")
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise ArchiveError(f"In the archive, {where}{key!r} should be a {names}.")
    if kind is int and not 0 <= value <= MAX_INT:
        raise ArchiveError(f"In the archive, {where}{key!r} is out of range (0 to {MAX_INT}).")
    return value


def _check_arguments(value: Any, where: str, depth: int = 0) -> None:
    """A move's arguments are words, whole numbers, yes/no and lists of them (never objects)."""
    if isinstance(value, list):
        if depth > MAX_ARGUMENT_DEPTH:
            raise ArchiveError(f"{where}the move's arguments are nested too deeply.")
        for item in value:
            _check_arguments(item, where, depth + 1)
    elif isinstance(value, int) and not isinstance(value, bool):
        if abs(value) > MAX_INT:
            raise ArchiveError(f"{where}the move has a number out of range.")
    elif not isinstance(value, (str, bool)) and value is not None:
        raise ArchiveError(f"{where}the move's arguments are words, numbers and lists, "
                           f"not {type(value).__name__ if not isinstance(value, dict) else 'an object'}.")


def check_size(size: int) -> None:
    """Refuse an archive larger than the limit (callers may check a file's size before reading it)."""
    if size > MAX_ARCHIVE_BYTES:
        raise ArchiveError(f"The archive is {size / 1e6:.1f} MB; the limit is {MAX_ARCHIVE_BYTES / 1e6:.0f} MB.")


def parse_archive(raw: bytes) -> dict:
    """Decode and schema-check an archive; raises ArchiveError with a clear message."""
    check_size(len(raw))
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ArchiveError("The archive is not UTF-8 text: is it the right file?") from None
    except json.JSONDecodeError as error:
        raise ArchiveError(f"The archive is not valid JSON (cut short or edited?): {error.msg} at line "
                           f"{error.lineno}, column {error.colno}.") from None
    except RecursionError:
        raise ArchiveError("The archive's JSON is nested too deeply to be an archive.") from None
    except ValueError:  # a number of thousands of digits (Python's limit on converting them)
        raise ArchiveError("The archive holds a number far too large to be in an archive.") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ArchiveError("This is not a pbem game archive (no \"format\": \"pbem-archive\").")
    if data.get("format_version") != FORMAT_VERSION:
        raise ArchiveError(f"Archive format version {data.get('format_version')!r} is not known here; "
                           f"this server reads version {FORMAT_VERSION}.")
    game = _need(data, "game", dict, "")
    _need(game, "title", str, "game ")
    _need(game, "engine_version", str, "game ")
    players = _need(game, "players", int, "game ")
    _need(game, "options", dict, "game ")
    for key in TIME_FIELDS:
        if game.get(key) is not None:
            _need(game, key, str, "game ")
            _check_time(game[key], f"The game's {key!r}")
    seats = _need(data, "seats", list, "")
    if len(seats) != players:
        raise ArchiveError(f"The archive lists {len(seats)} seats for a game of {players} players.")
    for index, seat in enumerate(seats):
        if _need(seat, "seat", int, f"seat {index}: ") != index:
            raise ArchiveError(f"The seats are out of order at seat {index}.")
        _need(seat, "name", str, f"seat {index}: ")
        if "resigned" in seat:
            _need(seat, "resigned", bool, f"seat {index}: ")
    _need(data, "seed", str, "")
    _need(data, "commitment", str, "")
    moves = _need(data, "moves", list, "")
    if len(moves) > MAX_MOVES:
        raise ArchiveError(f"The archive has {len(moves)} moves; the limit is {MAX_MOVES}.")
    for index, move in enumerate(moves):
        where = f"move {index + 1}: "
        _need(move, "seq", int, where)
        _need(move, "seat", int, where)
        shape = _need(move, "move", list, where)
        if len(shape) != 2 or not isinstance(shape[0], str) or not isinstance(shape[1], list):
            raise ArchiveError(f"Move {index + 1}: a move is [kind, [arguments]].")
        _check_arguments(shape[1], f"Move {index + 1}: ")
        for key in ("notation", "source", "at", "state_hash", "chain_hash"):
            _need(move, key, str, where)
        if move["source"] not in SOURCES:
            raise ArchiveError(f"Move {index + 1}: the source {move['source'][:20]!r} is not one of "
                               f"{', '.join(sorted(SOURCES))}.")
        _check_time(move["at"], f"Move {index + 1}: the time")
    _need(data, "result", dict, "")
    return data


def _check_time(text: str, what: str) -> None:
    try:
        log.parse_time(text)
    except ValueError:
        raise ArchiveError(f"{what} {text[:40]!r} is not in the archive's format "
                           "(such as 2026-01-31T18:05:00.000000Z).") from None


def _replay_archive(data: dict) -> tuple[engine.Rules, dict, list[log.Replayed]]:
    game = data["game"]
    try:
        rules = engine.get(game["title"])
    except engine.UnknownGameError:
        raise ArchiveError(f"This server has no game called {game['title']!r}; it runs "
                           f"{', '.join(engine.names())}.") from None
    try:
        rules.check_players(game["players"])
        options = rules.check_options(game["options"])
    except engine.OptionError as error:
        raise ArchiveError(f"The archive's game settings are not valid here: {error}") from None
    records = [log.Record(m["seq"], m["seat"], m["move"], m["notation"], m["source"], m["at"], m["state_hash"],
                          m["chain_hash"]) for m in data["moves"]]
    note = "" if game["engine_version"] == rules.version else (
        f" (the archive was made with rules {game['engine_version']}, this server runs {rules.version})")
    replayed: list[log.Replayed] = []
    try:
        for item in log.check_log(rules, game["players"], options, data["seed"], data["commitment"], records):
            replayed.append(item)
    except log.LogError as error:
        raise ArchiveError(f"{error}{note}") from None
    except _SHAPE_ERRORS:
        raise ArchiveError(f"Move {len(replayed) + 1} is not a move of {rules.title}: its arguments are not "
                           f"of the kind the game makes{note}.") from None
    _check_resignations(rules, game["players"], options, data, replayed)
    return rules, options, replayed


def _check_resignations(rules: engine.Rules, players: int, options: dict, data: dict,
                        replayed: list[log.Replayed]) -> None:
    """Check the resignations the way the service makes them (pbem.games.service.resign).

    A resignation is [RESIGN, []] written "resign", while the game is not over; once fewer
    than two players are left the game is over and nothing follows; a resigned seat never
    decides again: its turns are played by the server ("auto"), with the first legal move;
    and the seats' "resigned" flags say who resigned.
    """
    state = rules.setup(players, options, int(data["seed"], 16))
    resigned: frozenset = frozenset()
    for item in replayed:
        record = item.record
        where = f"Move {record.seq} (seat {record.seat}, {record.notation[:40]!r})"
        if players - len(resigned) < 2:
            raise ArchiveError(f"{where} comes after the game ended by resignation.")
        if log.is_resignation(record.move):
            if record.move != [log.RESIGN, []] or record.notation != "resign":
                raise ArchiveError(f"{where}: a resignation is written [{log.RESIGN!r}, []], \"resign\".")
            if rules.is_over(state):
                raise ArchiveError(f"{where}: a seat cannot resign from a game that is over.")
        elif (record.seat in resigned) != (record.source == "auto"):
            raise ArchiveError(f"{where}: only the turns of a seat that resigned are played by the server "
                               "('auto'), and only by it.")
        elif record.source == "auto":
            first = rules.legal_moves(state)[0].to_json()
            if canonical_json(first) != canonical_json(record.move):
                raise ArchiveError(f"{where}: the server plays a resigned seat's first legal move, not this one.")
        state, resigned = item.state, item.resigned
    flags = {index for index, seat in enumerate(data["seats"]) if seat.get("resigned")}
    if flags != set(resigned):
        raise ArchiveError(f"The seats marked as resigned ({sorted(flags)}) are not those whose resignation the "
                           f"moves record ({sorted(resigned)}).")


def _expected_result(rules: engine.Rules, data: dict, replayed: list[log.Replayed]) -> dict:
    state = replayed[-1].state if replayed else None
    if state is not None and rules.is_over(state):
        return rules.result(state).to_json()
    resigned = replayed[-1].resigned if replayed else frozenset()
    if state is None or len(resigned) < data["game"]["players"] - 1:
        raise ArchiveError("The archived game is not finished: archives hold finished games only.")
    seats = [Seat(number=i, display_name=x["name"], resigned=i in resigned) for i, x in enumerate(data["seats"])]
    return resignation_result(rules, state, seats)


def import_archive(db: Database, raw: bytes) -> int:
    """Check an archive completely, then store it as a finished, replayable game; returns its id."""
    data = parse_archive(raw)
    rules, options, replayed = _replay_archive(data)
    result = _expected_result(rules, data, replayed)
    if canonical_json(result) != canonical_json(data["result"]):
        raise ArchiveError("The archive's result does not match the result of its moves.")
    game_info = data["game"]
    with db.transaction() as s:
        final_state = replayed[-1].state_json if replayed else None
        game = Game(title=rules.name, engine_version=rules.version, options=options,
                    players=game_info["players"], status=GameStatus.FINISHED.value, seed=data["seed"],
                    commitment=data["commitment"], state=final_state, version=len(replayed), to_move=None,
                    chain_head=replayed[-1].record.chain_hash if replayed else log.genesis(data["commitment"]),
                    result=result, imported=True, started_at=log.parse_time(game_info["started_at"])
                    if game_info.get("started_at") is not None else None, finished_at=utcnow())
        s.add(game)
        s.flush()
        colours = rules.seat_colours(game.players, options)  # the replay has checked them: one per seat
        for seat in data["seats"]:
            s.add(Seat(game_id=game.id, number=seat["seat"], user_id=None, display_name=seat["name"][:80],
                       colour=colours[seat["seat"]], token_nonce="imported", resigned=bool(seat.get("resigned"))))
        start = rules.setup(game.players, game.options, int(data["seed"], 16))
        start_json = canonical_json(rules.state_to_json(start))
        s.add(Snapshot(game_id=game.id, seq=0, state=start_json, state_hash=sha256_hex(start_json)))
        for item in replayed:
            r = item.record
            s.add(MoveRecord(game_id=game.id, seq=r.seq, seat=r.seat, move=canonical_json(r.move),
                             notation=r.notation, source=r.source, state_hash=r.state_hash,
                             chain_hash=r.chain_hash, created_at=log.parse_time(r.at)))
            s.add(Snapshot(game_id=game.id, seq=r.seq, state=item.state_json, state_hash=r.state_hash))
        return game.id


# --------------------------------------------------------------------------------------
# Verify


def verify_game(db: Database, game_id: int) -> list[str]:
    """Replay one game from its seed and check every stored hash; returns the problems found."""
    with db.sessions() as s:
        game = s.get(Game, game_id)
        if game is None:
            return [f"There is no game {game_id}."]
        if game.seed is None:
            return []  # not started: nothing to check
        try:
            rules = engine.get(game.title)
        except engine.UnknownGameError as error:
            return [f"Game {game.id}: {error}"]
        records = _records(s, game)
        snapshots = {snap.seq: snap.state_hash for snap in s.scalars(select(Snapshot).where(Snapshot.game_id == game.id))}
        problems = []
        try:
            start = rules.setup(game.players, game.options, int(game.seed, 16))
            if snapshots.get(0) != rules.state_hash(start):
                problems.append(f"Game {game.id}: the snapshot of the start does not match the replay.")
            last = None
            for item in log.check_log(rules, game.players, game.options, game.seed, game.commitment, records):
                last = item
                if snapshots.get(item.record.seq) != item.record.state_hash:
                    problems.append(f"Game {game.id}, move {item.record.seq}: the stored snapshot does not match.")
        except log.LogError as error:
            return problems + [f"Game {game.id}: {error}"]
        current = sha256_hex(game.state) if game.state else None
        expected = last.record.state_hash if last else snapshots.get(0)
        if current != expected:
            problems.append(f"Game {game.id}: the current state does not match the last move of the log.")
        if (last.record.chain_hash if last else log.genesis(game.commitment)) != game.chain_head:
            problems.append(f"Game {game.id}: the chain head does not match the last move of the log.")
        if game.version != len(records):
            problems.append(f"Game {game.id}: the game says {game.version} moves, the log has {len(records)}.")
        return problems


def verify_all(db: Database) -> dict[int, list[str]]:
    with db.sessions() as s:
        ids = list(s.scalars(select(Game.id).order_by(Game.id)))
    return {game_id: verify_game(db, game_id) for game_id in ids}
