"""Board pictures and animated replays: drawn once, stored with their SHA-256, served from the store.

The pictures come from the `renderers` package (`renderers.render(title, view) -> bytes`,
`renderers.available(title) -> bool`). Where it is missing, or has no renderer for a game,
there is simply no picture: `render` returns None and `png_for` returns None, never an error.

A board is stored per (game, move, viewer, language): viewer -1 is the spectator's view, a
seat number that seat's own view (its hidden tiles or cards); the language is that of the
picture's words (its legend and labels, `pbem.i18n.texts(language)`), so a German and an
English viewer never get each other's picture, and the bytes of one view in one language
stay the same. Callers hand a seat's picture only to that seat while the game runs; this
module does not check who asks.

The animated replay of a finished game (`animation`) is drawn from the spectator's views by
`renderers.render_replay`, once per language (its captions and legend are in its viewer's
words, as a board's are): the first request claims the drawing (a row in `animations`),
requests meanwhile are told to come back, and the GIF is stored with its SHA-256. It is
bounded: at most ANIMATION_MAX_FRAMES frames (a longer game keeps evenly spaced positions,
always the first and the last) and ANIMATION_MAX_BYTES bytes (fewer frames are tried, then
it is refused). So a forged archive of thousands of moves costs one
drawing of bounded size, however many ask for it.
"""

from __future__ import annotations

import enum
import hashlib
import importlib
import json
import logging
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import bindparam, case, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

import engine
from pbem import events, i18n, jobs
from pbem.db import Database
from pbem.models import Animation, Board, Game, GameStatus, MoveRecord, Seat, Snapshot, utcnow

log = logging.getLogger(__name__)

SPECTATOR = -1
ANIMATION_MAX_FRAMES = 200
ANIMATION_MAX_BYTES = 4_000_000
ANIMATION_TRIES = 3  # each try after the first halves the frames
ANIMATION_CLAIM = timedelta(minutes=5)  # a drawing claimed longer ago than this was abandoned


class AnimationStatus(str, enum.Enum):
    """Where the animated replay of a game stands."""

    DONE = "done"
    DRAWING = "drawing"  # another request is drawing it: come back in a moment
    TOO_LARGE = "too_large"  # even with few frames it is larger than ANIMATION_MAX_BYTES
    NONE = "none"  # nothing to animate (not finished, or no renderer)


@dataclass(frozen=True)
class Picture:
    """Stored image bytes, their SHA-256, and whether they were drawn for this request."""

    data: bytes
    sha256: str
    drawn: bool


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


def language_of(language: str | None) -> str:
    """The language a picture is drawn in: one pbem speaks, else English."""
    return i18n.normalize(language) or i18n.DEFAULT


# Built once (a statement is immutable and takes parameters): every mail with a picture looks it up.
_STORED = select(Board).where(Board.game_id == bindparam("game_id"), Board.seq == bindparam("seq"),
                              Board.viewer == bindparam("viewer"), Board.language == bindparam("language"))


def _stored(s, game_id: int, seq: int, viewer: int, language: str) -> Board | None:
    return s.scalars(_STORED, {"game_id": game_id, "seq": seq, "viewer": viewer, "language": language}).first()


def render(db: Database, game_id: int, seq: int, viewer: int = SPECTATOR, language: str | None = None) -> str | None:
    """Render and store the board after move `seq` for `viewer` in `language` (English by default); returns its
    SHA-256, or None without a renderer.

    Idempotent: a board already stored is not drawn again. A seat that sees the board as a
    spectator does (`renderers.picture_key`: Tongiaki and Tapaono show every seat the same board)
    gets the spectator's picture, drawn once for all of them: only the spectator's row is stored.
    """
    return _render(db, game_id, seq, viewer, language_of(language))[1]


def _render(db: Database, game_id: int, seq: int, viewer: int, language: str) -> tuple[int, str | None]:
    """Render and store what `viewer` sees after move `seq` in `language`; returns (the viewer whose row holds it,
    its SHA-256)."""
    with db.sessions() as s:
        found = _stored(s, game_id, seq, viewer, language)
        if found is not None:
            return viewer, found.sha256
        game = s.get(Game, game_id)
        snapshot = s.get(Snapshot, (game_id, seq))
        if game is None or snapshot is None or not can_render(game.title):
            return viewer, None
        rules = engine.get(game.title)
        state = rules.state_from_json(json.loads(snapshot.state))
        # The players' names, as the page and the mails name them (the engine's view has seats only).
        names = list(s.scalars(select(Seat.display_name).where(Seat.game_id == game_id).order_by(Seat.number)))
        view = {**rules.view(state, None if viewer < 0 else viewer), "player_names": names}
        title = game.title
    key = getattr(_renderers(), "picture_key", None)
    if viewer != SPECTATOR and key is not None:
        spectator = {**rules.view(state, None), "player_names": names}
        if key(title, view) == key(title, spectator):
            return _render(db, game_id, seq, SPECTATOR, language)
    png = _renderers().render(title, view, texts=i18n.texts(language))
    digest = hashlib.sha256(png).hexdigest()
    try:
        with db.transaction() as s:
            s.execute(insert(Board).values(game_id=game_id, seq=seq, viewer=viewer, language=language, sha256=digest,
                                           png=png, created_at=utcnow()))
    except IntegrityError:
        pass  # drawn at the same time by another worker: the same picture
    return viewer, digest


def render_current(db: Database, game_id: int, seq: int) -> str | None:
    """The spectator's board after move `seq` if the game is still there, or its current turn began there;
    None otherwise.

    A burst of moves in one game posts a job per turn; only the positions people come to look at are
    worth drawing ahead of need (an earlier one is drawn when someone asks for it: the replay, an old mail)."""
    with db.sessions() as s:
        game = s.execute(select(Game.version, Game.turn_seq).where(Game.id == game_id)).first()
    if game is None or seq not in (game.version, game.turn_seq):
        return None
    return render(db, game_id, seq)


def render_all(db: Database, game_id: int, seq: int) -> int:
    """Render the spectator's board and every seat's board after move `seq`; returns how many viewers have one
    (a seat that sees the spectator's board shares its picture)."""
    with db.sessions() as s:
        game = s.get(Game, game_id)
        if game is None or not can_render(game.title):
            return 0
        seats = list(s.scalars(select(Seat.number).where(Seat.game_id == game_id)))
    return sum(render(db, game_id, seq, viewer) is not None for viewer in [SPECTATOR, *sorted(seats)])


def picture(db: Database, game_id: int, seq: int, viewer: int = SPECTATOR,
            language: str | None = None) -> Picture | None:
    """The board after move `seq` for `viewer` in `language` (English by default), drawn now if it was not yet;
    None without a renderer or position."""
    language = language_of(language)
    with db.sessions() as s:
        found = _stored(s, game_id, seq, viewer, language)
        if found is not None:
            return Picture(found.png, found.sha256, drawn=False)
        if viewer != SPECTATOR:  # a seat that sees what a spectator sees has the spectator's picture
            shared = _stored(s, game_id, seq, SPECTATOR, language)
            if shared is not None and _same_picture(s, game_id, seq, viewer):
                return Picture(shared.png, shared.sha256, drawn=False)
    holder, digest = _render(db, game_id, seq, viewer, language)
    if digest is None:
        return None
    with db.sessions() as s:
        found = _stored(s, game_id, seq, holder, language)
        return Picture(found.png, found.sha256, drawn=True) if found is not None else None


def _same_picture(s: Session, game_id: int, seq: int, viewer: int) -> bool:
    """Whether `viewer`'s picture after move `seq` is the spectator's (renderers.picture_key)."""
    game = s.get(Game, game_id)
    snapshot = s.get(Snapshot, (game_id, seq))
    if game is None or snapshot is None or not can_render(game.title):
        return False
    key = getattr(_renderers(), "picture_key", None)
    if key is None:
        return False
    rules = engine.get(game.title)
    state = rules.state_from_json(json.loads(snapshot.state))
    return key(game.title, rules.view(state, viewer)) == key(game.title, rules.view(state, None))


def png_for(db: Database, game_id: int, seq: int, viewer: int = SPECTATOR,
            language: str | None = None) -> bytes | None:
    """The PNG of the board after move `seq` for `viewer` in `language`, rendered now if it was not yet; None
    without a renderer."""
    found = picture(db, game_id, seq, viewer, language)
    return found.data if found is not None else None


# --------------------------------------------------------------------------------------
# Animated replays


def _can_animate(title: str) -> bool:
    module = _renderers()
    return module is not None and callable(getattr(module, "render_replay", None)) and can_render(title)


def animation(db: Database, game_id: int, language: str | None = None) -> tuple[AnimationStatus, Picture | None]:
    """The animated replay (GIF) of a finished game in `language` (English by default): stored, drawn now by this
    call, or being drawn by another."""
    language = language_of(language)
    key = (game_id, language)
    with db.sessions() as s:
        game = s.get(Game, game_id)
        if game is None or game.status != GameStatus.FINISHED.value or not _can_animate(game.title):
            return AnimationStatus.NONE, None
        row = s.get(Animation, key)
        if row is not None and row.status == AnimationStatus.DONE.value:
            return AnimationStatus.DONE, Picture(row.gif, row.sha256, drawn=False)
        if row is not None and row.status == AnimationStatus.TOO_LARGE.value:
            return AnimationStatus.TOO_LARGE, None
    if not _claim(db, game_id, language):
        return AnimationStatus.DRAWING, None
    try:
        gif, frames = _draw_animation(db, game_id, language)
    except BaseException:
        with db.transaction() as s:  # let a later request try again
            s.execute(delete(Animation).where(Animation.game_id == game_id, Animation.language == language))
        raise
    with db.transaction() as s:
        row = s.get(Animation, key)
        if gif is None:
            row.status, row.frames = AnimationStatus.TOO_LARGE.value, frames
            return AnimationStatus.TOO_LARGE, None
        row.status, row.gif, row.frames = AnimationStatus.DONE.value, gif, frames
        row.sha256 = hashlib.sha256(gif).hexdigest()
        return AnimationStatus.DONE, Picture(gif, row.sha256, drawn=True)


def _claim(db: Database, game_id: int, language: str) -> bool:
    """Take the drawing of a game's animation in a language: True for exactly one caller until it is done or
    abandoned."""
    now = utcnow()
    try:
        with db.transaction() as s:
            row = s.get(Animation, (game_id, language))
            if row is None:
                s.add(Animation(game_id=game_id, language=language, status=AnimationStatus.DRAWING.value, frames=0,
                                claimed_at=now))
                return True
            if row.status != AnimationStatus.DRAWING.value or now - row.claimed_at < ANIMATION_CLAIM:
                return False
            taken = s.execute(update(Animation).where(Animation.game_id == game_id, Animation.language == language,
                                                      Animation.claimed_at == row.claimed_at)
                              .values(claimed_at=now))
            return taken.rowcount == 1
    except IntegrityError:
        return False  # another request inserted the claim first


def _sample(count: int, most: int) -> list[int]:
    """At most `most` evenly spaced indexes of range(count), always the first and the last."""
    if count <= most:
        return list(range(count))
    step = (count - 1) / (most - 1)
    return sorted({round(i * step) for i in range(most)})


def _draw_animation(db: Database, game_id: int, language: str) -> tuple[bytes | None, int]:
    """The GIF in `language` within the bounds (None if even the fewest frames tried are too large), and its frame
    count."""
    texts = i18n.texts(language)
    with db.sessions() as s:
        game = s.get(Game, game_id)
        title, last = game.title, game.version
        names = [seat.display_name for seat in s.scalars(select(Seat).where(Seat.game_id == game_id)
                                                         .order_by(Seat.number))]
    rules = engine.get(title)
    most = ANIMATION_MAX_FRAMES
    frames = 0
    for _ in range(ANIMATION_TRIES):
        picked = _sample(last + 1, most)
        frames = len(picked)
        with db.sessions() as s:
            snapshots = s.scalars(select(Snapshot).where(Snapshot.game_id == game_id, Snapshot.seq.in_(picked))
                                  .order_by(Snapshot.seq))
            notations = dict(s.execute(select(MoveRecord.seq, MoveRecord.notation)
                                       .where(MoveRecord.game_id == game_id, MoveRecord.seq.in_(picked))).all())
            views = []
            for snapshot in snapshots:
                view = rules.view(rules.state_from_json(json.loads(snapshot.state)), None)
                caption = notations.get(snapshot.seq, "")  # none: the renderer writes "start" in `texts`
                if frames < last + 1 and snapshot.seq > 0:  # frames were left out: say which move each one shows
                    caption = texts.gettext("move %(move)d: %(notation)s", move=snapshot.seq, notation=caption)
                views.append(({**view, "player_names": names}, caption))
        gif = _renderers().render_replay(title, views, texts=texts)
        if len(gif) <= ANIMATION_MAX_BYTES:
            return gif, frames
        most = max(2, frames // 2)
    return None, frames


def missing(db: Database, older_than_s: float = 0, limit: int = 200) -> list[tuple[int, int]]:
    """(game, move) pairs whose board is drawn ahead of need (where the current turn began; a finished
    game's last position) but not yet, for games a renderer can draw, reached at least `older_than_s`
    seconds ago (a younger one's job is still on its way: the sweep that posts these must not pile
    copies onto a busy queue)."""
    target = case((Game.status == GameStatus.FINISHED.value, Game.version),
                  else_=func.coalesce(Game.turn_seq, Game.version))
    reached = func.coalesce(MoveRecord.created_at, Game.started_at)
    cutoff = utcnow() - timedelta(seconds=older_than_s)
    with db.sessions() as s:
        query = (select(Game.id, target, Game.title)
                 .outerjoin(MoveRecord, (MoveRecord.game_id == Game.id) & (MoveRecord.seq == target))
                 .where(Game.status.in_((GameStatus.RUNNING.value, GameStatus.FINISHED.value)), Game.state.is_not(None))
                 .where(reached <= cutoff)
                 .where(~select(Board.id).where(Board.game_id == Game.id, Board.seq == target,
                                                Board.viewer == SPECTATOR, Board.language == i18n.DEFAULT).exists())
                 .order_by(Game.id.desc()).limit(limit))
        rows = list(s.execute(query))
    drawable: dict[str, bool] = {}
    out = []
    for game_id, seq, title in rows:
        if title not in drawable:
            drawable[title] = can_render(title)
        if drawable[title]:
            out.append((game_id, seq))
    return out


def _on_game_changed(s: Session, *, game: Game, **_facts) -> None:
    jobs.after_commit(s, jobs.RENDER_BOARD, game.id, game.version)


def connect() -> None:
    """Listen to the game service (pbem.wiring.connect calls this once per process).

    The spectator's board is drawn ahead of need when a turn begins (the first one included) and
    when the game ends: the positions people come to look at. The steps inside a turn are drawn
    when someone asks (the page of a spectator watching them, the replay); under the soak, drawing
    every step ahead of need was most of the workers' pictures and nobody looked at them."""
    for signal in (events.turn_started, events.game_finished):
        signal.connect(_on_game_changed)
