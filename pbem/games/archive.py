"""Archives (export and import of finished games) and `verify`, all built on `pbem.games.log.check_log`.

The format is documented in docs/archive-format.md. An archive carries no email address;
it is refused for a game that is still running, because its seed is still secret. Import
checks size, schema, the seed commitment, every hash of the chain, a full re-simulation and
the resignations (what the service does when a seat resigns) before it stores anything, in
one transaction. Whatever is wrong with an archive, however it was made, is an ArchiveError
with the reason (JSON nested too deep, numbers too large, arguments of the wrong shape, bad
times), never another exception.

An archive is one game (issue 31, item 6): an imported game keeps the SHA-256 of its archive's
content (`archive_digest`: the canonical JSON of the fields an import reads, so whitespace, key
order and fields it ignores do not count), under a unique index, and the same archive imported
again is answered with that game, before its replay is run again, and also when two imports of it
race (`import_game`). How often a person may upload is the web's business (its rate limits).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

import engine
from engine.core import canonical_json, sha256_hex
from pbem.db import Database
from pbem.games import log
from pbem.games.errors import GameError, NotFoundError
from pbem.games.moves import resignation_result
from pbem.i18n import N_
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
# A game that is not finished, by its status: one whole sentence each (no status word glued in).
NOT_ARCHIVED = {
    "open": N_("Game %(game)d is open: only finished games are archived, because the seed stays secret until the "
               "end."),
    "running": N_("Game %(game)d is running: only finished games are archived, because the seed stays secret until "
                  "the end."),
    "abandoned": N_("Game %(game)d is abandoned: only finished games are archived, because the seed stays secret "
                    "until the end."),
}
# What is wrong with a field of the archive, by the part it is in (`_need`'s `part`: the archive itself,
# the game, a seat, a move); `%(index)d` is the seat's or the move's number.
MISSING = {
    None: N_("The archive has no %(key)s."),
    "game": N_("The archive has no game %(key)s."),
    "seat": N_("The archive has no seat %(index)d: %(key)s."),
    "move": N_("The archive has no move %(index)d: %(key)s."),
}
WRONG_KIND = {
    None: N_("In the archive, %(key)s should be a %(kind)s."),
    "game": N_("In the archive, game %(key)s should be a %(kind)s."),
    "seat": N_("In the archive, seat %(index)d: %(key)s should be a %(kind)s."),
    "move": N_("In the archive, move %(index)d: %(key)s should be a %(kind)s."),
}
OUT_OF_RANGE = {
    None: N_("In the archive, %(key)s is out of range (0 to %(most)d)."),
    "game": N_("In the archive, game %(key)s is out of range (0 to %(most)d)."),
    "seat": N_("In the archive, seat %(index)d: %(key)s is out of range (0 to %(most)d)."),
    "move": N_("In the archive, move %(index)d: %(key)s is out of range (0 to %(most)d)."),
}


class ArchiveError(GameError):
    """An archive that cannot be imported; the message says what is wrong with it (translated as a
    GameError's: `error.text(language)`)."""

    code = "bad_archive"
    http_status = 409  # what is refused is exporting a game that is not finished, or importing a bad file


def _records(s: Session, game: Game) -> list[log.Record]:
    rows = s.scalars(select(MoveRecord).where(MoveRecord.game_id == game.id).order_by(MoveRecord.seq))
    return [log.Record(r.seq, r.seat, json.loads(r.move), r.notation, r.source, log.format_time(r.created_at),
                       r.state_hash, r.chain_hash) for r in rows]


def export_game(db: Database, game_id: int) -> dict:
    """The archive of a finished game, as JSON-ready data."""
    with db.sessions() as s:
        game = s.get(Game, game_id)
        if game is None:
            raise NotFoundError(N_("There is no game %(game)d."), game=game_id)
        if game.status != GameStatus.FINISHED.value:
            raise ArchiveError(NOT_ARCHIVED[game.status], game=game.id)
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


def export_bytes(db: Database, game_id: int, extra: dict | None = None) -> bytes:
    """The archive as a file; `extra` adds parts the replay does not read (the table's talk: pbem.talk.archived)."""
    return (json.dumps({**export_game(db, game_id), **(extra or {})}, indent=1, sort_keys=True) + "\n").encode()


# --------------------------------------------------------------------------------------
# Import


def _need(data: dict, key: str, kind: type, part: str | None = None, index: int = 0) -> Any:
    """The value of `key` in a part of the archive (None: the archive itself, "game", seat or move
    number `index`), checked to be of `kind` (a whole number in range, for int)."""
    where = {"key": repr(key), "index": index}
    if not isinstance(data, dict) or key not in data:
        raise ArchiveError(MISSING[part], **where)
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ArchiveError(WRONG_KIND[part], kind=kind.__name__, **where)
    if kind is int and not 0 <= value <= MAX_INT:
        raise ArchiveError(OUT_OF_RANGE[part], most=MAX_INT, **where)
    return value


def _check_arguments(value: Any, index: int, depth: int = 0) -> None:
    """The arguments of move number `index` are words, whole numbers, yes/no and lists of them (never objects)."""
    if isinstance(value, list):
        if depth > MAX_ARGUMENT_DEPTH:
            raise ArchiveError(N_("Move %(index)d: the move's arguments are nested too deeply."), index=index)
        for item in value:
            _check_arguments(item, index, depth + 1)
    elif isinstance(value, int) and not isinstance(value, bool):
        if abs(value) > MAX_INT:
            raise ArchiveError(N_("Move %(index)d: the move has a number out of range."), index=index)
    elif isinstance(value, dict):
        raise ArchiveError(N_("Move %(index)d: the move's arguments are words, numbers and lists, not an object."),
                           index=index)
    elif not isinstance(value, (str, bool)) and value is not None:
        raise ArchiveError(N_("Move %(index)d: the move's arguments are words, numbers and lists, not %(kind)s."),
                           index=index, kind=type(value).__name__)


def check_size(size: int) -> None:
    """Refuse an archive larger than the limit (callers may check a file's size before reading it)."""
    if size > MAX_ARCHIVE_BYTES:
        raise ArchiveError(N_("The archive is %(size)s MB; the limit is %(limit)s MB."), size=f"{size / 1e6:.1f}",
                           limit=f"{MAX_ARCHIVE_BYTES / 1e6:.0f}")


def parse_archive(raw: bytes) -> dict:
    """Decode and schema-check an archive; raises ArchiveError with a clear message."""
    check_size(len(raw))
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ArchiveError(N_("The archive is not UTF-8 text: is it the right file?")) from None
    except json.JSONDecodeError as error:
        raise ArchiveError(N_("The archive is not valid JSON (cut short or edited?): %(error)s at line %(line)d, "
                              "column %(column)d."), error=error.msg, line=error.lineno, column=error.colno) from None
    except RecursionError:
        raise ArchiveError(N_("The archive's JSON is nested too deeply to be an archive.")) from None
    except ValueError:  # a number of thousands of digits (Python's limit on converting them)
        raise ArchiveError(N_("The archive holds a number far too large to be in an archive.")) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ArchiveError(N_("This is not a pbem game archive (no \"format\": \"pbem-archive\")."))
    if data.get("format_version") != FORMAT_VERSION:
        raise ArchiveError(N_("Archive format version %(version)s is not known here; this server reads version "
                              "%(known)d."), version=repr(data.get("format_version")), known=FORMAT_VERSION)
    game = _need(data, "game", dict)
    _need(game, "title", str, "game")
    _need(game, "engine_version", str, "game")
    players = _need(game, "players", int, "game")
    _need(game, "options", dict, "game")
    for key in TIME_FIELDS:
        if game.get(key) is not None:
            _need(game, key, str, "game")
            _check_time(game[key], N_("The game's %(key)s %(text)s is not in the archive's format (such as "
                                      "2026-01-31T18:05:00.000000Z)."), key=repr(key))
    seats = _need(data, "seats", list)
    if len(seats) != players:
        raise ArchiveError(N_("The archive lists %(count)d seats for a game of %(players)d players."),
                           count=len(seats), players=players)
    for index, seat in enumerate(seats):
        if _need(seat, "seat", int, "seat", index) != index:
            raise ArchiveError(N_("The seats are out of order at seat %(index)d."), index=index)
        _need(seat, "name", str, "seat", index)
        if "resigned" in seat:
            _need(seat, "resigned", bool, "seat", index)
    _need(data, "seed", str)
    _need(data, "commitment", str)
    moves = _need(data, "moves", list)
    if len(moves) > MAX_MOVES:
        raise ArchiveError(N_("The archive has %(count)d moves; the limit is %(most)d."), count=len(moves),
                           most=MAX_MOVES)
    for index, move in enumerate(moves, start=1):
        _need(move, "seq", int, "move", index)
        _need(move, "seat", int, "move", index)
        shape = _need(move, "move", list, "move", index)
        if len(shape) != 2 or not isinstance(shape[0], str) or not isinstance(shape[1], list):
            raise ArchiveError(N_("Move %(index)d: a move is [kind, [arguments]]."), index=index)
        _check_arguments(shape[1], index)
        for key in ("notation", "source", "at", "state_hash", "chain_hash"):
            _need(move, key, str, "move", index)
        if move["source"] not in SOURCES:
            raise ArchiveError(N_("Move %(index)d: the source %(source)s is not one of %(sources)s."), index=index,
                               source=repr(move["source"][:20]), sources=", ".join(sorted(SOURCES)))
        _check_time(move["at"], N_("Move %(index)d: the time %(text)s is not in the archive's format (such as "
                                   "2026-01-31T18:05:00.000000Z)."), index=index)
    _need(data, "result", dict)
    return data


def _check_time(text: str, message: str, **where: Any) -> None:
    """Refuse a time not written as the archive writes them; `message` says which one (its `%(text)s` is the text)."""
    try:
        log.parse_time(text)
    except ValueError:
        raise ArchiveError(message, text=repr(text[:40]), **where) from None


def _replay_archive(data: dict) -> tuple[engine.Rules, dict, list[log.Replayed]]:
    game = data["game"]
    try:
        rules = engine.get(game["title"]).for_version(game["engine_version"])  # the rules it was played by
    except engine.UnknownGameError:
        raise ArchiveError(N_("This server has no game called %(title)s; it runs %(games)s."),
                           title=repr(game["title"]), games=", ".join(engine.names())) from None
    try:
        rules.check_players(game["players"])
        options = rules.check_options(game["options"])
    except engine.OptionError as error:
        raise ArchiveError(N_("The archive's game settings are not valid here: %(reason)s"), reason=error) from None
    records = [log.Record(m["seq"], m["seat"], m["move"], m["notation"], m["source"], m["at"], m["state_hash"],
                          m["chain_hash"]) for m in data["moves"]]
    # Made with other rules: the reason says so, which may explain it.
    versions = {} if game["engine_version"] == rules.version else {"made": game["engine_version"],
                                                                    "runs": rules.version}
    replayed: list[log.Replayed] = []
    try:
        for item in log.check_log(rules, game["players"], options, data["seed"], data["commitment"], records):
            replayed.append(item)
    except log.LogError as error:
        if versions:
            raise ArchiveError(N_("%(reason)s (the archive was made with rules %(made)s, this server runs "
                                  "%(runs)s)"), reason=error, **versions) from None
        raise ArchiveError(str(error), cause=error) from None
    except _SHAPE_ERRORS:
        if versions:
            raise ArchiveError(N_("Move %(index)d is not a move of %(title)s: its arguments are not of the kind the "
                                  "game makes (the archive was made with rules %(made)s, this server runs %(runs)s)."),
                               index=len(replayed) + 1, title=rules.title, **versions) from None
        raise ArchiveError(N_("Move %(index)d is not a move of %(title)s: its arguments are not of the kind the game "
                              "makes."), index=len(replayed) + 1, title=rules.title) from None
    _check_resignations(rules, game["players"], options, data, replayed)
    return rules, options, replayed


def _check_resignations(rules: engine.Rules, players: int, options: dict, data: dict,
                        replayed: list[log.Replayed]) -> None:
    """Check the resignations the way the service makes them (pbem.games.moves.resign).

    A resignation is [RESIGN, []] written "resign", while the game is not over; once fewer
    than two players are left the game is over and nothing follows; a resigned seat never
    decides again: its turns are played by the server ("auto"), with the first legal move;
    and the seats' "resigned" flags say who resigned.
    """
    state = rules.setup(players, options, int(data["seed"], 16))
    resigned: frozenset = frozenset()
    for item in replayed:
        record = item.record
        where = {"seq": record.seq, "seat": record.seat, "notation": repr(record.notation[:40])}
        if players - len(resigned) < 2:
            raise ArchiveError(N_("Move %(seq)d (seat %(seat)d, %(notation)s) comes after the game ended by "
                                  "resignation."), **where)
        if log.is_resignation(record.move):
            if record.move != [log.RESIGN, []] or record.notation != "resign":
                raise ArchiveError(N_("Move %(seq)d (seat %(seat)d, %(notation)s): a resignation is written "
                                      "[%(resign)s, []], \"resign\"."), resign=repr(log.RESIGN), **where)
            if rules.is_over(state):
                raise ArchiveError(N_("Move %(seq)d (seat %(seat)d, %(notation)s): a seat cannot resign from a game "
                                      "that is over."), **where)
        elif (record.seat in resigned) != (record.source == "auto"):
            raise ArchiveError(N_("Move %(seq)d (seat %(seat)d, %(notation)s): only the turns of a seat that "
                                  "resigned are played by the server ('auto'), and only by it."), **where)
        elif record.source == "auto":
            first = rules.legal_moves(state)[0].to_json()
            if canonical_json(first) != canonical_json(record.move):
                raise ArchiveError(N_("Move %(seq)d (seat %(seat)d, %(notation)s): the server plays a resigned "
                                      "seat's first legal move, not this one."), **where)
        state, resigned = item.state, item.resigned
    flags = {index for index, seat in enumerate(data["seats"]) if seat.get("resigned")}
    if flags != set(resigned):
        raise ArchiveError(N_("The seats marked as resigned (%(marked)s) are not those whose resignation the moves "
                              "record (%(recorded)s)."), marked=sorted(flags), recorded=sorted(resigned))


def _expected_result(rules: engine.Rules, data: dict, replayed: list[log.Replayed]) -> dict:
    state = replayed[-1].state if replayed else None
    if state is not None and rules.is_over(state):
        return rules.result(state).to_json()
    resigned = replayed[-1].resigned if replayed else frozenset()
    if state is None or len(resigned) < data["game"]["players"] - 1:
        raise ArchiveError(N_("The archived game is not finished: archives hold finished games only."))
    seats = [Seat(number=i, display_name=x["name"], resigned=i in resigned) for i, x in enumerate(data["seats"])]
    return resignation_result(rules, state, seats)


# What an import reads of an archive, by part (parse_archive checks each): the content `archive_digest` covers.
DIGEST_GAME_FIELDS = ("title", "engine_version", "players", "options", "started_at")
DIGEST_SEAT_FIELDS = ("seat", "name", "resigned")
DIGEST_MOVE_FIELDS = ("seq", "seat", "move", "notation", "source", "at", "state_hash", "chain_hash")


@dataclass(frozen=True)
class Imported:
    """The game an archive is stored as, and whether this import made it (False: the same archive was imported
    before, and this is that game)."""

    game_id: int
    new: bool


def archive_digest(data: dict) -> str:
    """The SHA-256 of an archive's content (after parse_archive): the canonical JSON (keys sorted, no spaces) of
    the fields an import reads, so that two files that differ only in whitespace, in the order of keys, or in
    what an import ignores (the game's id, created_at and finished_at, the seats' colours, keys it does not
    know) are the same archive, and make the same game."""
    game = data["game"]
    content = {
        "format_version": data["format_version"],
        "game": {key: game.get(key) for key in DIGEST_GAME_FIELDS},
        "seats": [{"seat": x["seat"], "name": x["name"], "resigned": bool(x.get("resigned"))} for x in data["seats"]],
        "seed": data["seed"],
        "commitment": data["commitment"],
        "moves": [{key: move[key] for key in DIGEST_MOVE_FIELDS} for move in data["moves"]],
        "result": data["result"],
    }
    return sha256_hex(canonical_json(content))


def _imported_as(db: Database, digest: str) -> int | None:
    with db.sessions() as s:
        return s.scalar(select(Game.id).where(Game.archive_sha256 == digest))


def import_archive(db: Database, raw: bytes) -> int:
    """Check an archive completely, then store it as a finished, replayable game; returns its id (that of the game
    the same archive was imported as before, if it was)."""
    return import_game(db, raw).game_id


def import_game(db: Database, raw: bytes) -> Imported:
    """Check an archive completely, then store it as a finished, replayable game, unless the same archive (by
    `archive_digest`) was imported before: then that game, and nothing is stored or replayed."""
    data = parse_archive(raw)
    digest = archive_digest(data)
    before = _imported_as(db, digest)
    if before is not None:
        return Imported(before, new=False)
    try:
        return Imported(_store(db, data, digest), new=True)
    except IntegrityError:  # the same archive, imported at the same moment: its unique digest stopped this copy
        before = _imported_as(db, digest)
        if before is None:
            raise
        return Imported(before, new=False)


def _store(db: Database, data: dict, digest: str) -> int:
    """Replay an archive and store it as a game (with its digest); returns its id."""
    rules, options, replayed = _replay_archive(data)
    result = _expected_result(rules, data, replayed)
    if canonical_json(result) != canonical_json(data["result"]):
        raise ArchiveError(N_("The archive's result does not match the result of its moves."))
    game_info = data["game"]
    with db.transaction() as s:
        final_state = replayed[-1].state_json if replayed else None
        game = Game(title=rules.name, engine_version=rules.version, options=options,
                    players=game_info["players"], status=GameStatus.FINISHED.value, seed=data["seed"],
                    commitment=data["commitment"], state=final_state, version=len(replayed), to_move=None,
                    chain_head=replayed[-1].record.chain_hash if replayed else log.genesis(data["commitment"]),
                    result=result, imported=True, started_at=log.parse_time(game_info["started_at"])
                    if game_info.get("started_at") is not None else None, finished_at=utcnow(),
                    archive_sha256=digest)
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
            rules = engine.get(game.title).for_version(game.engine_version)
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
