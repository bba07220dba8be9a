"""Board pictures: PNGs of a game's view after a move, rendered once and stored by SHA-256.

The pictures come from the `renderers` package (`renderers.render(title, view) -> bytes`,
`renderers.available(title) -> bool`). Where it is missing, or has no renderer for a game,
there is simply no picture: `render` returns None and `png_for` returns None, never an error.

A board is stored per (game, move, viewer): viewer -1 is the spectator's view, a seat number
that seat's own view (its hidden tiles or cards). Callers hand a seat's picture only to that
seat while the game runs; this module does not check who asks.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from sqlalchemy.orm import Session

import engine
from pbem import events, jobs
from pbem.db import Database
from pbem.models import Board, Game, GameStatus, Seat, Snapshot, utcnow

log = logging.getLogger(__name__)

SPECTATOR = -1


def _renderers():
    """The renderers package if it provides `render` (it is optional)."""
    try:
        module = importlib.import_module("renderers")
    except ImportError:
        return None
    return module if callable(getattr(module, "render", None)) else None


def can_render(title: str) -> bool:
    module = _renderers()
    if module is None:
        return False
    available = getattr(module, "available", None)
    try:
        return bool(available(title)) if callable(available) else True
    except Exception:  # noqa: BLE001 - a renderer that cannot say is a renderer that cannot draw
        log.exception("renderers.available(%r) failed", title)
        return False


def _stored(s, game_id: int, seq: int, viewer: int) -> Board | None:
    return s.scalars(select(Board).where(Board.game_id == game_id, Board.seq == seq, Board.viewer == viewer)).first()


def render(db: Database, game_id: int, seq: int, viewer: int = SPECTATOR) -> str | None:
    """Render and store the board after move `seq` for `viewer`; returns its SHA-256, or None without a renderer.

    Idempotent: a board already stored is not drawn again.
    """
    with db.sessions() as s:
        found = _stored(s, game_id, seq, viewer)
        if found is not None:
            return found.sha256
        game = s.get(Game, game_id)
        snapshot = s.get(Snapshot, (game_id, seq))
        if game is None or snapshot is None or not can_render(game.title):
            return None
        rules = engine.get(game.title)
        view = rules.view(rules.state_from_json(json.loads(snapshot.state)), None if viewer < 0 else viewer)
        # The players' names, as the page and the mails name them (the engine's view has seats only).
        names = list(s.scalars(select(Seat.display_name).where(Seat.game_id == game_id).order_by(Seat.number)))
        view = {**view, "player_names": names}
        title = game.title
    png = _renderers().render(title, view)
    digest = hashlib.sha256(png).hexdigest()
    try:
        with db.transaction() as s:
            s.execute(insert(Board).values(game_id=game_id, seq=seq, viewer=viewer, sha256=digest, png=png,
                                           created_at=utcnow()))
    except IntegrityError:
        pass  # drawn at the same time by another worker: the same picture
    return digest


def render_all(db: Database, game_id: int, seq: int) -> int:
    """Render the spectator's board and every seat's board after move `seq`; returns how many are stored."""
    with db.sessions() as s:
        game = s.get(Game, game_id)
        if game is None or not can_render(game.title):
            return 0
        seats = list(s.scalars(select(Seat.number).where(Seat.game_id == game_id)))
    return sum(render(db, game_id, seq, viewer) is not None for viewer in [SPECTATOR, *sorted(seats)])


def png_for(db: Database, game_id: int, seq: int, viewer: int = SPECTATOR) -> bytes | None:
    """The PNG of the board after move `seq` for `viewer`, rendered now if it was not yet; None without a renderer."""
    with db.sessions() as s:
        found = _stored(s, game_id, seq, viewer)
        if found is not None:
            return found.png
    if render(db, game_id, seq, viewer) is None:
        return None
    with db.sessions() as s:
        found = _stored(s, game_id, seq, viewer)
        return found.png if found is not None else None


def missing(db: Database, limit: int = 200) -> list[tuple[int, int]]:
    """(game, move) pairs whose current board is not rendered yet, for games a renderer can draw."""
    with db.sessions() as s:
        query = (select(Game.id, Game.version, Game.title)
                 .where(Game.status.in_((GameStatus.RUNNING.value, GameStatus.FINISHED.value)), Game.state.is_not(None))
                 .where(~select(Board.id).where(Board.game_id == Game.id, Board.seq == Game.version,
                                                Board.viewer == SPECTATOR).exists())
                 .order_by(Game.id.desc()).limit(limit))
        rows = list(s.execute(query))
    drawable: dict[str, bool] = {}
    out = []
    for game_id, version, title in rows:
        if title not in drawable:
            drawable[title] = can_render(title)
        if drawable[title]:
            out.append((game_id, version))
    return out


def _on_game_changed(s: Session, *, game: Game, **_facts) -> None:
    jobs.after_commit(s, jobs.RENDER_BOARD, game.id, game.version)


def connect() -> None:
    """Listen to the game service (pbem.wiring.connect calls this once per process)."""
    for signal in (events.game_started, events.move_applied, events.game_finished):
        signal.connect(_on_game_changed)
