"""Board pictures and animated replays: drawn once, stored with their SHA-256, served from the store.

The pictures come from the `renderers` package (`renderers.render(title, view) -> bytes`,
`renderers.available(title) -> bool`: whether the title's registry entry names a module that
draws it). A title without one has simply no picture: `render` returns None and `png_for`
returns None, never an error.

A board is stored per (game, move, viewer, language): viewer -1 is the spectator's view, a
seat number that seat's own view (its hidden tiles or cards); the language is that of the
picture's words (its legend and labels, `pbem.i18n.texts(language)`), so a German and an
English viewer never get each other's picture, and the bytes of one view in one language
stay the same. Callers hand a seat's picture only to that seat while the game runs; this
module does not check who asks.

The animated replay of a finished game is drawn from the spectator's views by
`renderers.render_replay`, once per language (its captions and legend are in its viewer's
words, as a board's are), by the worker, never in a web request (issue 31, item 6): the first
request asks for it (`animation`: a row in `animations` and a `pbem.draw_animation` job), every
request until it is drawn is told it is being prepared, and the worker (`draw_animation`)
claims the row, draws, and stores the GIF with its SHA-256. The site asks for at most
ANIMATIONS_PER_HOUR drawings in any hour; beyond that a request is told when one fits again.
A drawing is bounded: at most ANIMATION_MAX_FRAMES frames (a longer game keeps evenly spaced
positions, always the first and the last) and ANIMATION_MAX_BYTES bytes (fewer frames are
tried, then it is refused). So a forged archive of thousands of moves costs one drawing of
bounded size, however many ask for it, and many games cost no more than the budget. The
sweep posts again the jobs of animations asked for and not drawn (`waiting_animations`).
"""

from __future__ import annotations

import enum
import hashlib
import json
import logging
import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import bindparam, case, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

import engine
import renderers
from pbem import events, i18n, jobs
from pbem.db import Database
from pbem.models import Animation, Board, Game, GameStatus, MoveRecord, Seat, Snapshot, utcnow

log = logging.getLogger(__name__)

SPECTATOR = -1
ANIMATION_MAX_FRAMES = 200
ANIMATION_MAX_BYTES = 4_000_000
ANIMATION_TRIES = 3  # each try after the first halves the frames
ANIMATION_CLAIM = timedelta(minutes=5)  # a drawing a worker took longer ago than this was abandoned
# The site's budget: drawings asked for in any hour (one took about 6 s of a worker's CPU: issue 31, item 6).
ANIMATIONS_PER_HOUR = 20
ANIMATION_WINDOW = timedelta(hours=1)
ANIMATION_POLL_S = 5  # how soon a request for one being prepared is told to ask again
ANIMATION_BUDGET_LOCK = 0x7062656D616E69  # PostgreSQL's advisory lock that the requests of drawings take turns on
ENDED = (GameStatus.FINISHED.value, GameStatus.ABANDONED.value)  # a game the service ended: no one is to move


class AnimationStatus(str, enum.Enum):
    """Where the animated replay of a game stands (the first four are stored)."""

    REQUESTED = "requested"  # asked for: waiting for a worker
    DRAWING = "drawing"  # a worker is drawing it
    DONE = "done"
    TOO_LARGE = "too_large"  # even with few frames it is larger than ANIMATION_MAX_BYTES
    OVER_BUDGET = "over_budget"  # not asked for: the site has asked for ANIMATIONS_PER_HOUR this hour
    NONE = "none"  # nothing to animate (not finished, or no renderer)


@dataclass(frozen=True)
class Picture:
    """Stored image bytes, their SHA-256, and whether they were drawn for this request."""

    data: bytes
    sha256: str
    drawn: bool


def can_render(title: str) -> bool:
    """Whether pictures of this title can be drawn (its registry entry names a module that draws them)."""
    return renderers.available(title)


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
        # The players' names, as the page and the mails name them (the engine's view has seats only), and the
        # number of the move the game waits for after move `seq`, as the mails and the page name it ("move N").
        names = list(s.scalars(select(Seat.display_name).where(Seat.game_id == game_id).order_by(Seat.number)))
        extra = {"player_names": names, "move_number": seq + 1}
        if seq == game.version and game.status in ENDED:  # ended by the service (a resignation): the picture says so
            extra["game_over"] = True
        view = {**rules.view(state, None if viewer < 0 else viewer), **extra}
        title = game.title
    if viewer != SPECTATOR:
        spectator = {**rules.view(state, None), **extra}
        if renderers.picture_key(title, view) == renderers.picture_key(title, spectator):
            return _render(db, game_id, seq, SPECTATOR, language)
    png = renderers.render(title, view, texts=i18n.texts(language))
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
    rules = engine.get(game.title)
    state = rules.state_from_json(json.loads(snapshot.state))
    return renderers.picture_key(game.title, rules.view(state, viewer)) == renderers.picture_key(
        game.title, rules.view(state, None))


def png_for(db: Database, game_id: int, seq: int, viewer: int = SPECTATOR,
            language: str | None = None) -> bytes | None:
    """The PNG of the board after move `seq` for `viewer` in `language`, rendered now if it was not yet; None
    without a renderer."""
    found = picture(db, game_id, seq, viewer, language)
    return found.data if found is not None else None


# --------------------------------------------------------------------------------------
# Animated replays


@dataclass(frozen=True)
class Animated:
    """Where the animated replay of a game stands for one request: the GIF when it is done; else how many seconds
    to wait before asking again (`retry_after_s`), and whether this request asked for the drawing (`requested`)."""

    status: AnimationStatus
    picture: Picture | None = None
    retry_after_s: int | None = None
    requested: bool = False

    @property
    def preparing(self) -> bool:
        """Asked for and not drawn yet: the worker has it (or will have it once the broker hands it over)."""
        return self.status in (AnimationStatus.REQUESTED, AnimationStatus.DRAWING)


def _key(game_id: int, language: str):
    return (Animation.game_id == game_id) & (Animation.language == language)


def animation(db: Database, game_id: int, language: str | None = None, with_picture: bool = True) -> Animated:
    """The animated replay (GIF) of a finished game in `language` (English by default) if it is stored (without
    its bytes unless `with_picture`); else where it stands. Never draws: one not asked for yet is asked for here
    (a job for the worker), within the site's budget of ANIMATIONS_PER_HOUR."""
    language = language_of(language)
    with db.sessions() as s:
        game = s.execute(select(Game.status, Game.title).where(Game.id == game_id)).first()
        if game is None or game.status != GameStatus.FINISHED.value or not can_render(game.title):
            return Animated(AnimationStatus.NONE)
        row = s.execute(select(Animation.status, Animation.sha256).where(_key(game_id, language))).first()
        if row is not None and row.status == AnimationStatus.DONE.value:
            if not with_picture:
                return Animated(AnimationStatus.DONE)
            gif = s.scalar(select(Animation.gif).where(_key(game_id, language)))
            return Animated(AnimationStatus.DONE, Picture(gif, row.sha256, drawn=False))
        if row is None:
            # Read first: beyond the budget the answer costs no write (on SQLite, no turn at the database's lock).
            wait = _budget_wait(s, utcnow())
            if wait is not None:
                return Animated(AnimationStatus.OVER_BUDGET, retry_after_s=wait)
    if row is None:
        return _ask(db, game_id, language)
    return _standing(AnimationStatus(row.status))


def _standing(status: AnimationStatus) -> Animated:
    """The answer for an animation that is not done: too large for good, or being prepared."""
    if status == AnimationStatus.TOO_LARGE:
        return Animated(status)
    return Animated(status, retry_after_s=ANIMATION_POLL_S)


def _ask(db: Database, game_id: int, language: str) -> Animated:
    """Ask the worker for an animation nobody has asked for: a `requested` row and its job, if the site's
    budget allows one more this hour; else when it will.

    The budget is counted in the transaction that adds the row, and these transactions take turns (every
    SQLite transaction begins IMMEDIATE; on PostgreSQL a transaction-level advisory lock), so requests
    at the same moment never ask for more than the budget."""
    now = utcnow()
    try:
        with db.transaction() as s:
            if db.is_postgres:
                s.execute(select(func.pg_advisory_xact_lock(ANIMATION_BUDGET_LOCK)))
            status = s.scalar(select(Animation.status).where(_key(game_id, language)))
            if status is not None:  # asked for meanwhile
                return _standing(AnimationStatus(status))
            wait = _budget_wait(s, now)
            if wait is not None:
                return Animated(AnimationStatus.OVER_BUDGET, retry_after_s=wait)
            s.add(Animation(game_id=game_id, language=language, status=AnimationStatus.REQUESTED.value, frames=0,
                            claimed_at=now))
            jobs.after_commit(s, jobs.DRAW_ANIMATION, game_id, language)
    except IntegrityError:  # asked for at the same moment by another request
        return _standing(AnimationStatus.REQUESTED)
    return Animated(AnimationStatus.REQUESTED, retry_after_s=ANIMATION_POLL_S, requested=True)


def _budget_wait(s: Session, now: datetime) -> int | None:
    """None if one more drawing fits the site's budget now; else the seconds until one does.

    Every drawing counts for ANIMATION_WINDOW from its time (`claimed_at`: when it was asked for, then
    when a worker took it), whatever became of it."""
    times = sorted(s.scalars(select(Animation.claimed_at).where(Animation.claimed_at > now - ANIMATION_WINDOW)))
    if len(times) < ANIMATIONS_PER_HOUR:
        return None
    # One more fits once all but ANIMATIONS_PER_HOUR - 1 of them have left the window.
    frees = times[len(times) - ANIMATIONS_PER_HOUR] + ANIMATION_WINDOW
    return max(1, math.ceil((frees - now).total_seconds()))


def draw_animation(db: Database, game_id: int, language: str) -> AnimationStatus:
    """Draw an animation that was asked for (the worker's job `pbem.draw_animation`) and store it; returns where it
    stands after.

    Idempotent: an animation done, too large, not asked for or being drawn by another worker is left as it
    is. A worker that dies mid-drawing leaves its claim, which another takes over after ANIMATION_CLAIM (the
    sweep posts the job again). A transient error (the database away) gives the request back to the queue
    for the job's retry; any other error forgets the request, so that a later one asks again, within the
    budget, instead of the sweep posting a drawing that fails for ever."""
    language = language_of(language)
    claim = _claim(db, game_id, language)
    if claim is None:
        with db.sessions() as s:
            status = s.scalar(select(Animation.status).where(_key(game_id, language)))
        return AnimationStatus.NONE if status is None else AnimationStatus(status)
    mine = _key(game_id, language) & (Animation.claimed_at == claim)
    try:
        with db.sessions() as s:
            title = s.scalar(select(Game.title).where(Game.id == game_id))
        if title is None or not can_render(title):
            with db.transaction() as s:
                s.execute(delete(Animation).where(mine))
            return AnimationStatus.NONE
        gif, frames = _draw_animation(db, game_id, language)
    except jobs.TRANSIENT_ERRORS:
        _give_back(db, mine, AnimationStatus.REQUESTED)
        raise
    except Exception:
        _give_back(db, mine, None)
        raise
    if gif is None:
        values = {"status": AnimationStatus.TOO_LARGE.value, "frames": frames}
    else:
        values = {"status": AnimationStatus.DONE.value, "gif": gif, "frames": frames,
                  "sha256": hashlib.sha256(gif).hexdigest()}
    with db.transaction() as s:
        stored = s.execute(update(Animation).where(mine).values(**values)).rowcount == 1
    if not stored:  # the claim was taken over meanwhile (this worker looked dead): the other one stores it
        return AnimationStatus.DRAWING
    return AnimationStatus(values["status"])


def _claim(db: Database, game_id: int, language: str) -> datetime | None:
    """Take the drawing of an animation asked for (or abandoned by a worker ANIMATION_CLAIM ago); returns the
    time of the claim, which names it, for exactly one caller, else None."""
    now = utcnow()
    with db.transaction() as s:
        row = s.execute(select(Animation.status, Animation.claimed_at).where(_key(game_id, language))).first()
        if row is None or row.status not in (AnimationStatus.REQUESTED.value, AnimationStatus.DRAWING.value):
            return None
        if row.status == AnimationStatus.DRAWING.value and now - row.claimed_at < ANIMATION_CLAIM:
            return None  # another worker is drawing it
        taken = s.execute(update(Animation).where(_key(game_id, language), Animation.status == row.status,
                                                  Animation.claimed_at == row.claimed_at)
                          .values(status=AnimationStatus.DRAWING.value, claimed_at=now))
        return now if taken.rowcount == 1 else None


def _give_back(db: Database, mine, status: AnimationStatus | None) -> None:
    """After a drawing failed: put the request back as `status`, or forget it (None). If the database is away
    too, the claim stays and is taken over after ANIMATION_CLAIM."""
    try:
        with db.transaction() as s:
            if status is None:
                s.execute(delete(Animation).where(mine))
            else:
                s.execute(update(Animation).where(mine).values(status=status.value))
    except jobs.TRANSIENT_ERRORS as error:
        log.warning("an animation's claim stays until it is taken over (%s: %s)", type(error).__name__, error)


def waiting_animations(db: Database, older_than_s: float = 0, limit: int = 200) -> list[tuple[int, str]]:
    """(game, language) of the animations asked for at least `older_than_s` seconds ago and not drawn, and of
    those whose worker took them ANIMATION_CLAIM ago and never finished: the sweep posts their jobs again (a
    job lost with the broker, a worker killed)."""
    now = utcnow()
    asked = (Animation.status == AnimationStatus.REQUESTED.value) & (
        Animation.claimed_at <= now - timedelta(seconds=older_than_s))
    abandoned = (Animation.status == AnimationStatus.DRAWING.value) & (Animation.claimed_at <= now - ANIMATION_CLAIM)
    with db.sessions() as s:
        rows = s.execute(select(Animation.game_id, Animation.language)
                         .where(Animation.status.in_((AnimationStatus.REQUESTED.value,
                                                      AnimationStatus.DRAWING.value)), asked | abandoned)
                         .order_by(Animation.claimed_at).limit(limit))
        return [(game_id, language) for game_id, language in rows]


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
        gif = renderers.render_replay(title, views, texts=texts)
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
