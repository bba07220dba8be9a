"""The game page (board, players, whose turn, the move form), the replay viewer and archives.

A move form carries the version the player saw (`expected_version`) and a fresh
idempotency key, so a stale page is refused with the engine's reason and a double click
applies once. The board picture comes from `pbem.boards` when that module exists; until
then (and whenever it has no picture) the page shows the view as text.
"""

from __future__ import annotations

import importlib
import json
import logging
import re
import secrets
from datetime import timezone
from zoneinfo import ZoneInfo

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_login import current_user, login_required
from wtforms import SelectChoice

import engine
from pbem import games
from pbem.games import archive, log
from pbem.models import GameStatus
from pbem.web import get_db, ratelimit
from pbem.web.forms import InviteForm, MoveForm, UploadForm
from pbem.web.lobby import my_game_ids

bp = Blueprint("play", __name__)
LOG = logging.getLogger(__name__)

STATUS_OF_ERROR = {"not_found": 404, "not_allowed": 403, "not_your_turn": 409, "stale_position": 409,
                   "game_state": 409, "illegal_move": 422, "bad_archive": 400}


def boards_module():
    """pbem.boards (the worker's board pictures) if it is there, else None."""
    try:
        return importlib.import_module("pbem.boards")
    except ImportError:
        return None


def _user_id() -> int | None:
    return current_user.id if current_user.is_authenticated else None


def local_time(text: str | None) -> str | None:
    """A stored UTC time shown in the user's time zone."""
    if not text:
        return None
    at = log.parse_time(text).replace(tzinfo=timezone.utc)
    zone = getattr(current_user, "timezone", None) or "UTC"
    try:
        return at.astimezone(ZoneInfo(zone)).strftime(f"%Y-%m-%d %H:%M ({zone})")
    except (KeyError, ValueError):
        return at.strftime("%Y-%m-%d %H:%M (UTC)")


def group_moves(notations: list[str]) -> list[tuple[str, list[str]]]:
    """Legal moves grouped by their first word (the kind of decision), in the engine's order."""
    groups: dict[str, list[str]] = {}
    for text in notations:
        groups.setdefault(text.split(" ", 1)[0], []).append(text)
    return list(groups.items())


def pictures_for(title: str) -> bool:
    """Whether board pictures exist for this game: pbem.boards is there and a renderer draws the title."""
    boards = boards_module()
    if boards is None:
        return False
    can_render = getattr(boards, "can_render", None)
    return bool(can_render(title)) if callable(can_render) else True


def renderers_module():
    """The renderers package (board pictures, image-map regions, animated replays) if it is there."""
    try:
        return importlib.import_module("renderers")
    except ImportError:
        return None


def image_map(title: str, view: dict, legal_moves: list[str]) -> list[dict]:
    """Clickable areas of the board picture, each with the legal moves that name its position.

    The coordinates come from the renderer (`renderers.regions(title, view)`, the same
    geometry as the picture drawn from the same view); nothing is guessed here. An area
    whose position no legal move names is left out.
    """
    module = renderers_module()
    regions = getattr(module, "regions", None) if module else None
    if regions is None or not module.available(title) or not legal_moves:
        return []
    try:
        found = regions(title, view)
    except Exception:  # noqa: BLE001 - without a map the choice list still works
        LOG.exception("renderers.regions(%r) failed", title)
        return []
    areas = []
    for region in found:
        target = str(region.get("target") or "")
        if not target:
            continue
        pattern = re.compile(r"(?:^|\s)" + re.escape(target) + r"(?:$|\s)", re.IGNORECASE)
        moves = [m for m in legal_moves if pattern.search(m)]
        if moves:
            areas.append({"shape": region["shape"], "coords": [int(round(c)) for c in region["coords"]],
                          "title": target, "moves": moves})
    return areas


def page_data(db, game_id: int) -> dict:
    """The game as the current user may see it, with its history and the text forms of its view."""
    return _page_data(db, game_id, _user_id())


def _page_data(db, game_id: int, user_id: int | None) -> dict:
    data = games.view(db, game_id, user_id, full_history=True)
    board = data.get("board")
    value = {
        "game": data,
        "history": data.pop("history"),
        "board_items": board_items(board),
        "board_json": json.dumps(board, indent=1, sort_keys=True),
        "has_pictures": board is not None and pictures_for(data["title"]),
        "areas": [],
        "seated": data.get("my_seat") is not None or (user_id is not None and game_id in my_game_ids(user_id)),
    }
    if value["has_pictures"] and data["legal_moves"]:
        value["areas"] = image_map(data["title"], board, data["legal_moves"])
    return value


def _game_context(data: dict, error: str | None = None) -> dict:
    game = data["game"]
    context = {**data, "deadline": local_time(game.get("deadline")), "error": error,
               "title_name": _title_name(game["title"]), "move_form": None, "invite_form": None}
    if not current_user.is_authenticated:
        return context  # a spectator gets no forms, so no CSRF token and no session cookie
    if game["legal_moves"]:
        move_form = MoveForm(formdata=None)
        move_form.move.choices = [SelectChoice(m, optgroup=group) for group, moves in group_moves(game["legal_moves"])
                                  for m in moves]
        move_form.expected_version.data = str(game["version"])
        move_form.key.data = secrets.token_hex(16)
        context["move_form"] = move_form
    if game["status"] == GameStatus.OPEN.value:
        context["invite_form"] = InviteForm()
    return context


def _title_name(name: str) -> str:
    try:
        return engine.get(name).title
    except engine.UnknownGameError:
        return name


def board_items(board) -> list[tuple[str, str, bool]]:
    """The view's top-level entries as (name, text, is_long) for the readable text view."""
    if not isinstance(board, dict):
        return []
    items = []
    for key, value in board.items():
        if value is None or value == [] or value == {}:
            continue
        if isinstance(value, (str, int, float, bool)):
            items.append((key, str(value), False))
        elif isinstance(value, list) and len(value) <= 12 and all(isinstance(v, (str, int, float, bool))
                                                                  for v in value):
            items.append((key, ", ".join(str(v) for v in value), False))
        else:
            items.append((key, json.dumps(value, indent=1, sort_keys=True), True))
    return items


@bp.get("/games/<id:game_id>")
def game_page(game_id: int):
    try:
        data = page_data(get_db(current_app), game_id)
    except games.NotFoundError:
        abort(404)
    return render_template("game.html", **_game_context(data))


@bp.post("/games/<id:game_id>/move")
@login_required
def move(game_id: int):
    form = MoveForm()
    form.move.choices = []
    db = get_db(current_app)
    text = (form.text.data or "").strip() or (form.move.data or "").strip()
    if not form.validate_on_submit() or not text or not form.expected_version.data.isdigit():
        return _refuse(game_id, "The move form was incomplete: choose a move and try again.", 400)
    try:
        result = games.submit(db, game_id, text, user_id=current_user.id, source="web",
                              key=f"web:{current_user.id}:{form.key.data}",
                              expected_version=int(form.expected_version.data))
    except games.NotFoundError:
        abort(404)
    except games.GameError as error:
        return _refuse(game_id, str(error), STATUS_OF_ERROR.get(error.code, 400))
    if result.duplicate:
        flash(f"That form was sent before: move {result.seq} ({result.notation}) was applied once.")
    else:
        flash(f"You played {result.notation}." + (" The game is over." if result.finished else ""))
    return redirect(url_for("play.game_page", game_id=game_id)), 303


def _refuse(game_id: int, message: str, status: int):
    """The current game page with the reason a submission was refused (nothing was changed)."""
    try:
        data = page_data(get_db(current_app), game_id)
    except games.NotFoundError:
        abort(404)
    return render_template("game.html", **_game_context(data, error=message)), status


@bp.get("/games/<id:game_id>/board/<id:seq>.png")
@ratelimit.limited(ratelimit.drawings)
def board_png(game_id: int, seq: int):
    """The board picture after move `seq`, for the viewer's own seat only when that is not a secret of the past.

    A picture is drawn once and stored (pbem.boards); its SHA-256 is the ETag. Drawing one
    that was not stored yet counts against the client's limit of drawings.
    """
    boards = boards_module()
    if boards is None:
        abort(404)
    db = get_db(current_app)
    try:
        data = games.view(db, game_id, _user_id())
    except games.NotFoundError:
        abort(404)
    if not 0 <= seq <= data["version"] or data.get("board") is None:
        abort(404)
    viewer = data.get("my_seat")
    if data["status"] == "running" and seq != data["version"]:
        viewer = None  # while a game runs, the past is shown only as a spectator saw it
    found = boards.picture(db, game_id, seq, getattr(boards, "SPECTATOR", -1) if viewer is None else viewer)
    if found is None:
        abort(404)
    return _stored_image(found, "image/png", "private" if viewer is not None else "public")


def _stored_image(found, mimetype: str, cache: str, **headers):
    """An answer with stored image bytes: their SHA-256 as ETag (a 304 when the browser has them)."""
    response = Response(found.data, mimetype=mimetype, headers=headers)
    response.set_etag(found.sha256)
    response.headers["Cache-Control"] = f"{cache}, max-age=3600"
    if found.drawn:
        response.headers["X-Pbem-Drawn"] = "1"
    return response.make_conditional(request)


@bp.get("/games/<id:game_id>/replay")
def replay(game_id: int):
    db = get_db(current_app)
    try:
        summary = games.view(db, game_id, _user_id())
    except games.NotFoundError:
        abort(404)
    if summary.get("board") is None:
        return render_template("error.html", message=f"Game {game_id} has not started: nothing to replay."), 409
    last = summary["version"]
    seq = request.args.get("seq", type=int)
    seq = last if seq is None else max(0, min(seq, last))
    seat = summary.get("my_seat") if summary["status"] == "finished" else None
    step = games.view_at(db, game_id, seq, seat)
    names = {s["seat"]: s["name"] for s in summary["seats"]}
    return render_template(
        "replay.html", game=summary, step=step, seq=seq, last=last,
        mover=names.get(step["move"]["seat"]) if step["move"] else None,
        board_items=board_items(step["board"]), board_json=json.dumps(step["board"], indent=1, sort_keys=True),
        has_pictures=pictures_for(summary["title"]),
        has_animation=can_animate(summary),
        title_name=_title_name(summary["title"]))


@bp.get("/games/<id:game_id>/replay/animation")
@ratelimit.limited(ratelimit.drawings)
def animation(game_id: int):
    """The animated replay (GIF) of a finished game, drawn once from the spectator's views (pbem.boards)."""
    boards = boards_module()
    db = get_db(current_app)
    try:
        summary = games.view(db, game_id)
    except games.NotFoundError:
        abort(404)
    if boards is None or not can_animate(summary):
        abort(404)
    status, found = boards.animation(db, game_id)
    if status == boards.AnimationStatus.DRAWING:
        response = render_template("error.html", message="The animation of this game is being drawn right now: "
                                   "try again in a few seconds.")
        return response, 503, {"Retry-After": "10"}
    if status != boards.AnimationStatus.DONE:
        return render_template("error.html", message=f"Game {game_id} is too long to animate; the replay "
                               "viewer shows every move."), 404
    return _stored_image(found, "image/gif", "public", **{
        "Content-Disposition": f'attachment; filename="pbem-game-{game_id}.gif"'})


def can_animate(summary: dict) -> bool:
    """Animated replays exist for finished games whose title has a renderer that makes them."""
    module = renderers_module()
    return (summary["status"] == "finished" and module is not None
            and callable(getattr(module, "render_replay", None)) and module.available(summary["title"]))


@bp.get("/games/<id:game_id>/archive.json")
def download_archive(game_id: int):
    try:
        body = archive.export_bytes(get_db(current_app), game_id)
    except games.NotFoundError:
        abort(404)
    except archive.ArchiveError as error:
        return render_template("error.html", message=str(error)), 409
    return Response(body, mimetype="application/json", headers={
        "Content-Disposition": f'attachment; filename="pbem-game-{game_id}.json"'})


@bp.route("/archives/upload", methods=["GET", "POST"])
@login_required
def upload_archive():
    form = UploadForm()
    if form.validate_on_submit():
        raw = form.archive.data.read(archive.MAX_ARCHIVE_BYTES + 1)
        try:
            game_id = archive.import_archive(get_db(current_app), raw)
        except archive.ArchiveError as error:
            form.archive.errors = [str(error)]
        else:
            flash(f"The archive checked out; it is game {game_id} now.")
            return redirect(url_for("play.replay", game_id=game_id, seq=0)), 303
    return render_template("upload.html", form=form), 400 if form.errors else 200
