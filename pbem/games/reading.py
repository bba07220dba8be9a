"""Reading games: what one seat (or a spectator) may see now or at a past move, the log, the lists.

Every view of a game for a person comes from here, from the engine's `view(state, seat)`,
so nothing a seat may not see (the seed of a running game, decks, other hands) reaches a
page, a mail or an API answer. Nothing here changes a game.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

import engine
from pbem import reasons
from pbem.db import Database
from pbem.games import log
from pbem.games.errors import GameError, GameStateError, NotAllowedError
from pbem.games.loading import load_game, load_state, rules_of, seats_of
from pbem.games.tables import free_colours
from pbem.i18n import N_
from pbem.models import Game, GameStatus, MoveRecord, Seat, Snapshot

LAST_MOVES = 8  # moves shown with a view (game page, turn mails)
MAX_RECENT = 60  # the moves since a seat's last turn told in its mail, at most


def game_summary(s: Session, game: Game, seats: list[Seat] | None = None) -> dict:
    """The public facts of a game: seats and their colours, status, whose turn, deadline, commitment (seed once over).

    A seat's colour is the one it asked for while the table is open (None: any), and its
    colour in the game from the start on; `free_colours` are those a new player may ask for.
    """
    seats = seats_of(s, game) if seats is None else seats
    finished = game.status in (GameStatus.FINISHED.value, GameStatus.ABANDONED.value)
    is_open = game.status == GameStatus.OPEN.value
    return {
        "id": game.id,
        "title": game.title,
        "engine_version": game.engine_version,
        "options": game.options,
        "players": game.players,
        "status": game.status,
        "version": game.version,
        "to_move": game.to_move,
        "deadline": log.format_time(game.deadline) if game.deadline else None,
        "commitment": game.commitment,
        "seed": game.seed if finished else None,
        "result": game.result,
        "seats": [{"seat": x.number, "name": x.display_name, "colour": x.colour, "resigned": x.resigned}
                  for x in seats],
        "free_colours": free_colours(rules_of(game), seats) if is_open else [],
    }


def last_moves(s: Session, game: Game, seats: list[Seat], last: int | None = None,
               upto: int | None = None) -> list[dict]:
    """The move log in order, up to move `upto` (default: all): all of it, or only the `last` moves
    (read from the end, not all loaded)."""
    names = {x.number: x.display_name for x in seats}
    query = select(MoveRecord).where(MoveRecord.game_id == game.id)
    if upto is not None:
        query = query.where(MoveRecord.seq <= upto)
    if last is None:
        rows = list(s.scalars(query.order_by(MoveRecord.seq)))
    else:
        rows = list(reversed(s.scalars(query.order_by(MoveRecord.seq.desc()).limit(last)).all()))
    return [{"seq": r.seq, "seat": r.seat, "player": names.get(r.seat), "notation": r.notation,
             "source": r.source, "at": log.format_time(r.created_at)} for r in rows]


def seat_view(s: Session, game: Game, seats: list[Seat], rules: engine.Rules, state: Any,
              seat: int | None, language: str | None = None) -> dict:
    """What one seat (None: a spectator) sees of the game now: its facts, its view of the board,
    its legal moves when it is to move, and the last moves; with a `language`, a finished game's
    reason in it (the stored result keeps the English)."""
    return _seat_view(s, game, seats, rules, state, seat, language, game_summary(s, game, seats), None)


def seat_view_at(s: Session, game: Game, seats: list[Seat], rules: engine.Rules, seq: int, seat: int | None,
                 language: str | None = None) -> dict:
    """What one seat saw right after move `seq`: the view `seat_view` gave then, from the stored
    snapshot and the log up to that move (a mail written when it is sent tells the position of
    its move). Of a position the game has left, the facts are those of a running game at that
    move: its turn, no deadline (the turn's clock is not kept), no result. For a seat, "since" is what
    happened from its last decision up to that move (`events_since`), for the mail to tell."""
    if seq == game.version:
        data = seat_view(s, game, seats, rules, load_state(game), seat, language)
        if seat is not None:
            data["since"] = events_since(s, game, seats, rules, seq, seat)
        return data
    state = rules.state_from_json(json.loads(s.get(Snapshot, (game.id, seq)).state))
    facts = {**game_summary(s, game, seats), "version": seq, "status": GameStatus.RUNNING.value,
             "to_move": rules.to_move(state), "deadline": None, "result": None, "seed": None}
    data = _seat_view(s, game, seats, rules, state, seat, language, facts, seq)
    if seat is not None:
        data["since"] = events_since(s, game, seats, rules, seq, seat)
    return data


def _seat_view(s: Session, game: Game, seats: list[Seat], rules: engine.Rules, state: Any, seat: int | None,
               language: str | None, facts: dict, upto: int | None) -> dict:
    data = dict(facts)
    data["my_seat"] = seat
    data["board"] = rules.view(state, seat) if state is not None else None
    if language is not None and data["result"]:
        why = reasons.result_reason(rules, state, data["result"], language)
        data["result"] = {**data["result"], "reason": why}
        if isinstance(data["board"], dict) and isinstance(data["board"].get("result"), dict):
            data["board"] = {**data["board"], "result": {**data["board"]["result"], "reason": why}}
    mine = seat is not None and data["to_move"] == seat and data["status"] == GameStatus.RUNNING.value
    data["legal_moves"] = [rules.notation(state, m) for m in rules.legal_moves(state)] if mine else []
    # Standing orders the seat could write now for what comes after chance in its turn (issue 20).
    data["order_examples"] = [rules.order_notation(o) for o in rules.order_examples(state, seat)] if mine else []
    # A whole turn to copy into one mail, written from the position (issue 33): works whatever chance brings.
    data["turn_example"] = rules.turn_example(state, seat) if mine else []
    latest = last_moves(s, game, seats, last=MAX_RECENT, upto=upto)  # one read serves both lists
    data["last_moves"] = latest[-LAST_MOVES:]
    data["recent"] = since_last_turn(latest, seat) if seat is not None else data["last_moves"]
    return data


def since_last_turn(latest: list[dict], seat: int) -> list[dict]:
    """Of the latest moves (oldest first), those since the seat's last turn ended: the others' moves
    since its last move that another seat's move followed, and the seat's own moves of this turn."""
    for i in range(len(latest) - 2, -1, -1):
        if latest[i]["seat"] == seat and latest[i + 1]["seat"] != seat:
            return latest[i + 1:]
    return latest


def events_since(s: Session, game: Game, seats: list[Seat], rules: engine.Rules, upto: int, seat: int) -> dict:
    """What happened from the seat's last decision up to move `upto`, as that seat may see it (issue 33 item 6).

    The moves are the seat's own last move (what followed it happened after the decision: the
    tiles it drew, the chain it set off) and every move after it, at most MAX_RECENT of the newest;
    `left_out` counts the earlier ones. Each is replayed from the stored state before it with the
    engine's `apply_traced`, so the decisions the engine made by itself (forced moves, with their
    seats) come out one by one, and each position on the way is given only as the engine's view
    for `seat`: `views` holds the view before the move, after it, and after each automatic move
    (`autos`), so what chance brought (a tile, a card, a die) is read from what the seat sees and
    nothing hidden (deck order, another's hand) is ever at hand for the words. A resignation in the
    log (`resigned`) changes nothing. A seat that has not moved yet gets everything since the start.
    """
    own = s.scalar(select(func.max(MoveRecord.seq)).where(MoveRecord.game_id == game.id, MoveRecord.seat == seat,
                                                          MoveRecord.seq <= upto))
    start = own if own is not None else 1
    first = max(start, upto - MAX_RECENT + 1)
    return {"moves": replayed(s, game, seats, rules, first, upto, seat), "left_out": max(0, first - start)}


def replayed(s: Session, game: Game, seats: list[Seat], rules: engine.Rules, first: int, upto: int,
             seat: int | None) -> list[dict]:
    """Moves `first` to `upto` replayed as `seat` (None: a spectator) may see them, as `events_since` tells
    them: each with its automatic moves and the seat's views before it, after it and after each of those.
    The game page's log tells the latest moves with these (issue 36 item 6)."""
    rows = list(s.scalars(select(MoveRecord).where(MoveRecord.game_id == game.id, MoveRecord.seq >= first,
                                                   MoveRecord.seq <= upto).order_by(MoveRecord.seq)))
    told: list[dict] = []
    if rows:
        names = {x.number: x.display_name for x in seats}
        state = rules.state_from_json(json.loads(s.get(Snapshot, (game.id, rows[0].seq - 1)).state))
        for row in rows:
            move = json.loads(row.move)
            if log.is_resignation(move):  # a record of the log, not an engine move: the state stays
                after, trace = state, []
            else:
                after, trace = rules.apply_traced(state, rules.move_from_json(move))
            points = [state, *(point for point, _ in trace), after]
            told.append({"seq": row.seq, "seat": row.seat, "player": names.get(row.seat), "notation": row.notation,
                         "resigned": log.is_resignation(move),
                         "autos": [{"seat": rules.to_move(point), "notation": rules.notation(point, move)}
                                   for point, move in trace],
                         "views": [rules.view(point, seat) for point in points]})
            state = after
    return told


def view(db: Database, game_id: int, user_id: int | None = None, *, full_history: bool = False,
         language: str | None = None, story: int = 0) -> dict:
    """The game as one user (or a spectator) may see it now, with their legal moves when it is their turn.

    With `full_history` the whole move log comes along as "history" (the game page shows it); with
    a `language`, a finished game's reason is in it; with `story`, the latest that many moves replayed as
    this viewer sees them (`replayed`) come as "story", for the game page's log to tell in words.
    """
    with db.sessions() as s:
        game = load_game(s, game_id)
        seats = seats_of(s, game)
        if game.state is None:
            data = game_summary(s, game, seats)
            data.update(board=None, legal_moves=[])
            if full_history:
                data["history"] = []
            if story:
                data["story"] = []
            return data
        mine = [x.number for x in seats if user_id is not None and x.user_id == user_id]
        seat = mine[0] if mine else None
        data = seat_view(s, game, seats, rules_of(game), load_state(game), seat, language)
        if full_history:
            data["history"] = last_moves(s, game, seats)
        if story:
            data["story"] = latest_story(s, game, seats, rules_of(game), seat, story)
        return data


def latest_story(s: Session, game: Game, seats: list[Seat], rules: engine.Rules, seat: int | None,
                 count: int) -> list[dict]:
    """The latest `count` moves of the game replayed as `seat` (None: a spectator) sees them (`replayed`)."""
    return replayed(s, game, seats, rules, max(1, game.version - count + 1), game.version, seat) if game.version else []


def history(db: Database, game_id: int) -> list[dict]:
    with db.sessions() as s:
        game = load_game(s, game_id)
        return last_moves(s, game, seats_of(s, game))


def view_at(db: Database, game_id: int, seq: int, seat: int | None = None) -> dict:
    """The view after move `seq` from the stored snapshot (no replay from the start).

    While a game runs, only the spectator's view is public; a seat's view of the past is
    given only once the game is over.
    """
    with db.sessions() as s:
        game = load_game(s, game_id)
        if game.state is None:
            raise GameStateError(N_("Game %(game)d has not started."), game=game.id)
        if not 0 <= seq <= game.version:
            raise GameError(N_("Game %(game)d has moves 0 to %(last)d; there is no move %(seq)d."), game=game.id,
                            last=game.version, seq=seq)
        if seat is not None and game.status == GameStatus.RUNNING.value:
            raise NotAllowedError(N_("While the game runs, the replay shows only what a spectator sees."))
        snapshot = s.get(Snapshot, (game.id, seq))
        rules = rules_of(game)
        state = rules.state_from_json(json.loads(snapshot.state))
        record = None
        if seq:
            record = s.scalars(select(MoveRecord).where(MoveRecord.game_id == game.id, MoveRecord.seq == seq)).one()
        return {"game_id": game.id, "seq": seq, "of": game.version,
                "move": ({"seat": record.seat, "notation": record.notation} if record else None),
                "board": rules.view(state, seat)}


def list_games(db: Database, status: str | None = None) -> list[dict]:
    """Every game with its seat count (one query)."""
    seated = (select(Seat.game_id, func.count().label("seated")).group_by(Seat.game_id).subquery())
    query = (select(Game.id, Game.title, Game.status, Game.players, Game.version, func.coalesce(seated.c.seated, 0))
             .outerjoin(seated, seated.c.game_id == Game.id).order_by(Game.id))
    if status:
        query = query.where(Game.status == status)
    with db.sessions() as s:
        return [{"id": game_id, "title": title, "status": state, "players": players, "seated": count,
                 "version": version} for game_id, title, state, players, version, count in s.execute(query)]
