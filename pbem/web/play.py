"""The game page, moves, the page's live updates, the replay viewer, the rules pages and archives.

The game page is the board first: the picture with its clickable regions (`pbem.web.board`),
the legal moves as grouped buttons and a field to type one, the players beside it, the
last moves, the deadline. A move form carries the version the player saw
(`expected_version`) and a fresh idempotency key, so a stale page is refused with the
engine's reason and a double click applies once. The page's script sends moves without
reloading the page and asks `/games/<id>/live` (an ETag of the position, answered 304
while nothing changed) every LIVE_POLL_MS, so an open page follows the game by itself
behind gunicorn's sync workers: no request is held open.

The part of the page that depends only on the position and the viewer (the board, the
moves, the players, the log) is rendered once per (position, seat, time zone, language) and kept
per process (`_LIVE_PARTS`); the CSRF token, the move key and messages are added per
request outside it. A seat's part is keyed by that seat, so it only reaches that seat's
user. Open tables are never cached.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import json
import logging
import math
import random
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import timezone
from functools import lru_cache
from pathlib import Path
from zoneinfo import ZoneInfo

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from babel.dates import format_skeleton
from flask_babel import get_locale, gettext, ngettext
from flask_login import current_user, login_required
from jinja2.utils import htmlsafe_json_dumps
from markdown_it import MarkdownIt
from markupsafe import Markup
from PIL import Image
from sqlalchemy import bindparam, select

import engine
from engine.core import IllegalMove
from pbem import games, i18n
from pbem.games import archive, log
from pbem.models import Game, GameStatus, Seat, Snapshot
from pbem.web import board, get_db, ratelimit, reason
from pbem.web.forms import InviteForm, MoveForm, UploadForm

bp = Blueprint("play", __name__)
LOG = logging.getLogger(__name__)

STATUS_OF_ERROR = {"not_found": 404, "not_allowed": 403, "not_your_turn": 409, "stale_position": 409,
                   "game_state": 409, "illegal_move": 422, "bad_archive": 400}
LIVE_POLL_MS = 1500  # how often an open game page asks whether the position changed
LIVE_PARTS_KEPT = 512  # rendered position parts kept per process
LAST_MOVES_SHOWN = 12  # moves in the page's log; the replay has them all
MAX_SUGGESTIONS = 400  # legal moves offered as the typed field's suggestions
# Every legal move can be previewed (/preview.png: the engine stops before any draw or roll, issue 31);
# the page asks for the picture by itself only for these, whose choices it turns through ("Rotate").
PREVIEW_WORDS = {"discovery": ("place",)}
PREVIEW_TEXT_MAX = 400  # characters of a previewed move, as the move form takes
PREVIEWS_KEPT = 64
DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"  # the games' rules, as the repository has them
DEVELOPER_SECTIONS = ("View", "The view", "Recorded decisions", "Building positions", "Speed",
                      "How long a game lasts")  # rules-page headings left to docs/


def boards_module():
    """pbem.boards (the worker's board pictures) if it is there, else None."""
    try:
        return importlib.import_module("pbem.boards")
    except ImportError:
        return None


def renderers_module():
    """The renderers package (board pictures, regions, animated replays) if it is there."""
    return board.renderers_module()


def _user_id() -> int | None:
    return current_user.id if current_user.is_authenticated else None


def _zone() -> str:
    return getattr(current_user, "timezone", None) or "UTC"


def _locale() -> str:
    return str(get_locale() or "en")


def _texts() -> i18n.Texts:
    """The messages of the page's language, for what renderers write (the pictures' words, the board in words)."""
    return i18n.texts(_locale())


@lru_cache(maxsize=None)
def ui_text(language: str) -> Markup:
    """The words the page's script shows, in one language, as JSON for a <script> element.

    Made once per language, as JSON: they are the same on every page (12 of the game page's
    31 strings), so no page translates and serialises them again."""
    _ = i18n.texts(language).gettext
    words = {
        "play_this": _("Play this move?"),
        "pick": _("%(count)s moves: pick one", count="%(count)s"),
        "pick_or_click": _("%(count)s moves: pick one, or click another place", count="%(count)s"),
        "pick_at": _("%(count)s moves at %(place)s: pick one", count="%(count)s", place="%(place)s"),
        "pick_at_or_click": _("%(count)s moves at %(place)s: pick one, or click another place",
                              count="%(count)s", place="%(place)s"),
        "rotate": _("Rotate"), "place_it": _("Place it"),
        "board_if": _("The board if you play %(move)s", move="%(move)s"), "board": _("The board"),
        "not_taken": _("The server did not take the move (%(status)s).", status="%(status)s"),
        "not_sent": _("The move could not be sent (no connection?)."),
        "your_turn": _("It is your turn."),
    }
    return htmlsafe_json_dumps(words)


def picture_args(language: str | None = None) -> dict:
    """The query of a picture's address in the page's language: none in English, `lang=de` in German.

    A picture's words are in its viewer's language, so each language has its own address: a
    cache (the browser's, a proxy's) never hands one language's picture to another's page."""
    language = i18n.normalize(language or _locale()) or i18n.DEFAULT
    return {} if language == i18n.DEFAULT else {"lang": language}


def picture_language() -> str:
    """The language a picture is asked in: its address's `lang`, else the page's."""
    return i18n.normalize(request.args.get("lang")) or i18n.normalize(_locale()) or i18n.DEFAULT


def local_time(text: str | None, zone: str | None = None, locale: str | None = None) -> str | None:
    """A stored UTC time shown in the user's time zone, its day and month in the page's language."""
    if not text:
        return None
    at = log.parse_time(text).replace(tzinfo=timezone.utc)
    zone = zone or _zone()
    try:
        local = at.astimezone(ZoneInfo(zone))
    except (KeyError, ValueError):
        local, zone = at, "UTC"
    locale = locale or _locale()
    if locale == "en":  # the English pages' own form: "Tue 03 Mar 2026, 14:00 (Europe/Paris)"
        return local.strftime(f"%a %d %b %Y, %H:%M ({zone})")
    return f"{format_skeleton('yMMMEd', local, locale=locale)}, {local:%H:%M} ({zone})"


def iso_time(text: str | None) -> str | None:
    """A stored UTC time as ISO 8601 with its zone, for a page's script (countdowns)."""
    return log.parse_time(text).replace(tzinfo=timezone.utc).isoformat() if text else None


def pictures_for(title: str) -> bool:
    """Whether board pictures exist for this game: pbem.boards is there and a renderer draws the title."""
    boards = boards_module()
    if boards is None:
        return False
    can_render = getattr(boards, "can_render", None)
    return bool(can_render(title)) if callable(can_render) else True


def title_name(name: str) -> str:
    try:
        return engine.get(name).title
    except engine.UnknownGameError:
        return name


def board_items(board_view) -> list[tuple[str, str]]:
    """The view's simple entries as (name, text): the board in words for a title with neither picture nor text."""
    if not isinstance(board_view, dict):
        return []
    items = []
    for key, value in board_view.items():
        if isinstance(value, (str, int, float, bool)) and key not in ("game", "viewer"):
            items.append((key.replace("_", " "), str(value)))
        elif isinstance(value, list) and 0 < len(value) <= 12 and all(isinstance(v, (str, int)) for v in value):
            items.append((key.replace("_", " "), ", ".join(str(v) for v in value)))
    return items


def board_words(title: str, data: dict) -> list[tuple[str, str]]:
    """The position in words (`renderers.text`) for this viewer, the picture's text alternative, as
    ("p" | "li", text) blocks: the text's lines wrapped for mail joined again into sentences and bullets."""
    try:
        from renderers import text
    except ImportError:
        return []
    names = [seat["name"] for seat in data["seats"]]
    try:
        lines = text.board_text(title, data["board"], names=names, seat=data.get("my_seat"),
                                legal_moves=data["legal_moves"], recent=data.get("recent") or [], texts=_texts())
    except text.TextError:
        return []
    blocks: list[list[str]] = []
    for line in lines:
        if not line.strip():
            continue
        if line.startswith("  ") and blocks:  # a wrapped bullet goes on
            blocks[-1][1] += " " + line.strip()
        elif line.startswith(("- ", "  - ")):
            blocks.append(["li", line.strip()[2:]])
        elif blocks and blocks[-1][0] == "p" and not blocks[-1][1].endswith((".", ":")):
            blocks[-1][1] += " " + line.strip()  # a sentence wrapped for mail
        else:
            blocks.append(["p", line.strip()])
    return [(kind, words) for kind, words in blocks]


# --- what the page's position is: one small read, its ETag, the cached part of the page ---------


@dataclass(frozen=True)
class Position:
    """What a game page shows changes with these: status, the moves (their chain head), whose turn, deadline,
    the seats."""

    title: str
    status: str
    version: int
    chain_head: str | None
    to_move: int | None
    deadline: str | None
    seats: tuple  # (number, user_id, name, colour, resigned) per seat

    @property
    def etag(self) -> str:
        facts = (self.status, self.version, self.chain_head, self.to_move, self.deadline,
                 tuple((n, name, colour, bool(resigned)) for n, _, name, colour, resigned in self.seats))
        return hashlib.sha256(repr(facts).encode()).hexdigest()[:24]

    def seat_of(self, user_id: int | None) -> int | None:
        return next((n for n, user, *_ in self.seats if user_id is not None and user == user_id), None)


# Built once (a statement is immutable and takes parameters): building it cost as much as running it, and
# every game page and every poll of an open one runs it (bench/web.py).
_POSITION = (select(Game.title, Game.status, Game.version, Game.chain_head, Game.to_move, Game.deadline,
                    Seat.number, Seat.user_id, Seat.display_name, Seat.colour, Seat.resigned)
             .outerjoin(Seat, Seat.game_id == Game.id).where(Game.id == bindparam("game_id")).order_by(Seat.number))


def read_position(db, game_id: int) -> Position | None:
    """The facts a game page's freshness depends on (None: no such game).

    One SELECT (the game joined with its seats) in autocommit (`Database.read`). Every open
    game page asks this every LIVE_POLL_MS, and the page itself starts with it.
    """
    rows = db.read(_POSITION, game_id=game_id)
    if not rows:
        return None
    title, status, version, chain_head, to_move, deadline = rows[0][:6]
    seats = tuple(tuple(row[6:]) for row in rows if row[6] is not None)
    return Position(title, status, version, chain_head, to_move, log.format_time(deadline) if deadline else None,
                    seats)


class _Kept:
    """A small LRU of rendered parts, shared by the threads of one process."""

    def __init__(self, size: int):
        self.size = size
        self.items: OrderedDict = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key):
        with self.lock:
            value = self.items.get(key)
            if value is not None:
                self.items.move_to_end(key)
            return value

    def put(self, key, value) -> None:
        with self.lock:
            self.items[key] = value
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.items.clear()


_LIVE_PARTS = _Kept(LIVE_PARTS_KEPT)
_PREVIEWS = _Kept(PREVIEWS_KEPT)


def live_context(data: dict, zone: str) -> dict:
    """Everything the position's part of the page shows, for one viewer."""
    title = data["title"]
    view = data.get("board")
    if view is not None:  # the picture is drawn with the players' names (pbem.boards): so are its regions
        view = {**view, "player_names": [seat["name"] for seat in data["seats"]]}
    legal = data["legal_moves"]
    texts = _texts()  # the picture is drawn in the page's language (picture_args): so are its regions and legend
    picture = board.clickable(title, view, legal, texts) if view is not None and pictures_for(title) else None
    targets = picture.targets if picture and picture.targets else None
    last_moves = data.get("last_moves", [])[-LAST_MOVES_SHOWN:]
    colours = {s["seat"]: s["colour"] for s in data["seats"]}
    return {
        "game": data,
        "title_name": title_name(title),
        "picture": picture,
        "players": board.players(title, data, view, texts),
        "picture_args": picture_args(),
        "groups": board.group_moves(legal, targets),
        "moves_json": Markup(json.dumps(legal).replace("<", "\\u003c")),
        "targets_json": Markup(json.dumps(targets or []).replace("<", "\\u003c")),
        "preview_words": " ".join(PREVIEW_WORDS.get(title, ())),
        "words": board_words(title, data) if view is not None else [],
        "items": board_items(view) if view is not None and picture is None else [],
        "status_line": _status_line(title, view, texts),
        "last_moves": [{**m, "colour": colours.get(m["seat"]), "at": local_time(m["at"], zone)}
                       for m in reversed(last_moves)],
        "deadline": local_time(data.get("deadline"), zone),
        "deadline_iso": iso_time(data.get("deadline")),
    }


def _status_line(title: str, view: dict | None, texts: i18n.Texts) -> str:
    """The picture's own sentence on the decision now ("Ana (blue, B) to move: ..."), if it has one."""
    module = board.renderers_module()
    if view is None or module is None or not module.available(title):
        return ""
    try:
        lines = module.legend(title, view, texts=texts)["lines"]
    except Exception:  # noqa: BLE001 - the page says whose turn it is anyway
        LOG.exception("the legend of a %s picture failed", title)
        return ""
    return lines[0] if lines else ""


def live_part(db, game_id: int, position: Position, user_id: int | None, zone: str) -> tuple[Markup, dict]:
    """The position's part of the page for this user (rendered, or kept from an earlier request) and its data."""
    seat = position.seat_of(user_id)
    cacheable = position.status != GameStatus.OPEN.value
    # A process serves one database (tests serve several); the part is in the page's language.
    key = (db.url, game_id, position.etag, seat, zone, _locale())
    kept = _LIVE_PARTS.get(key) if cacheable else None
    if kept is not None:
        return kept
    data = games.view(db, game_id, user_id, language=_locale())
    html = Markup(render_template("_live.html", **live_context(data, zone)))
    after = read_position(db, game_id)
    # The typed field's suggestions go inside the move form, which each request renders around the kept part.
    suggestions = Markup(render_template("_suggestions.html", moves=data["legal_moves"][:MAX_SUGGESTIONS]))
    value = (html, {"version": data["version"], "legal": bool(data["legal_moves"]), "my_seat": data.get("my_seat"),
                    "status": data["status"], "seats": data["seats"], "players": data["players"],
                    "suggestions": suggestions})
    if cacheable and after is not None and after.etag == position.etag and data["version"] == position.version:
        _LIVE_PARTS.put(key, value)  # the game did not move while the part was made
    return value


# --- the game page ------------------------------------------------------------------------------------


def _page(game_id: int, error: str | None = None, status: int = 200):
    db = get_db(current_app)
    position = read_position(db, game_id)
    if position is None:
        abort(404)
    zone = _zone()
    live, facts = live_part(db, game_id, position, _user_id(), zone)
    seat = facts["my_seat"]
    context = {"live": live, "facts": facts, "game_id": game_id, "etag": position.etag, "error": error,
               "ui_text": ui_text(_locale()),
               "title_name": title_name(position.title), "move_form": None, "invite_form": None,
               "your_turn": facts["legal"], "poll_ms": LIVE_POLL_MS, "seat": seat,
               "seated": seat is not None, "resigned": seat is not None and bool(position.seats[seat][4])}
    if current_user.is_authenticated:  # a spectator gets no forms, so no CSRF token and no session cookie
        if facts["legal"]:  # the form's hidden fields, as MoveForm reads them back (no form object: a page is hot)
            context["move_form"] = {"expected_version": facts["version"], "key": secrets.token_hex(16)}
        if facts["status"] == GameStatus.OPEN.value:
            context["invite_form"] = InviteForm()
            context["seated"] = any(user == current_user.id for _, user, *_ in position.seats)
            context["free_colours"] = games.view(db, game_id)["free_colours"]
    return render_template("game.html", **context), status


@bp.get("/games/<id:game_id>")
def game_page(game_id: int):
    return _page(game_id)


@bp.get("/games/<id:game_id>/live")
def live(game_id: int):
    """The position's ETag (and its plain facts): the open page asks this every LIVE_POLL_MS; 304 while unchanged."""
    position = read_position(get_db(current_app), game_id)
    if position is None:
        abort(404)
    response = jsonify(etag=position.etag, status=position.status, version=position.version,
                       to_move=position.to_move, deadline=position.deadline)
    response.set_etag(position.etag)
    response.headers["Cache-Control"] = "no-cache"
    return response.make_conditional(request)


def _wants_json() -> bool:
    return request.accept_mimetypes.best_match(["text/html", "application/json"]) == "application/json"


@bp.post("/games/<id:game_id>/move")
@login_required
def move(game_id: int):
    form = MoveForm()
    db = get_db(current_app)
    text = (form.text.data or "").strip() or (form.move.data or "").strip()
    if not form.validate_on_submit() or not text or not form.expected_version.data.isdigit():
        return _refuse(game_id, gettext("The move form was incomplete: choose a move and try again."), 400)
    try:
        result = games.submit(db, game_id, text, user_id=current_user.id, source="web",
                              key=f"web:{current_user.id}:{form.key.data}",
                              expected_version=int(form.expected_version.data))
    except games.NotFoundError:
        abort(404)
    except games.GameError as error:
        return _refuse(game_id, reason(error), STATUS_OF_ERROR.get(error.code, 400))
    if result.duplicate:
        message = gettext("That form was sent before: move %(seq)d (%(move)s) was applied once.",
                          seq=result.seq, move=result.notation)
    elif result.finished:
        message = gettext("You played %(move)s. The game is over.", move=result.notation)
    else:
        message = gettext("You played %(move)s.", move=result.notation)
    if _wants_json():
        return jsonify(ok=True, message=message, seq=result.seq, notation=result.notation, finished=result.finished)
    flash(message)
    return redirect(url_for("play.game_page", game_id=game_id)), 303


def _refuse(game_id: int, message: str, status: int):
    """The reason a submission was refused (nothing was changed): as JSON for the page's script, else the page."""
    if _wants_json():
        return jsonify(ok=False, message=message), status
    return _page(game_id, error=message, status=status)


@bp.get("/games/<id:game_id>/preview.png")
@login_required
@ratelimit.limited(ratelimit.drawings)
def preview(game_id: int):
    """The board as the player to move would see it after one of their legal moves, before they play it.

    The engine's preview (`rules.preview`, issue 31): the move and the decisions with one choice
    after it, stopped before anything is drawn or rolled, so the picture holds nothing the player
    cannot see now; one that stopped says in its header that the rest comes with the move. Only
    for the player to move, in a title with pictures. Each drawing counts against the client's
    limit; a picture is kept per position (the chain head), seat, move, names and language.
    """
    text = (request.args.get("move") or "").strip()
    if len(text) > PREVIEW_TEXT_MAX:
        return Response(gettext("A move is at most %(count)d characters long.", count=PREVIEW_TEXT_MAX),
                        status=422, mimetype="text/plain")
    db = get_db(current_app)
    with db.sessions() as s:
        try:
            game = games.load_game(s, game_id)
        except games.NotFoundError:
            abort(404)
        seats = games.seats_of(s, game)
        mine = [x.number for x in seats if x.user_id == current_user.id]
        if game.status != GameStatus.RUNNING.value or not mine or game.to_move != mine[0]:
            abort(403)
        if not pictures_for(game.title):
            abort(404)
        language = picture_language()
        names = tuple(x.display_name for x in seats)
        key = (db.url, game.id, game.chain_head, mine[0], text, names, language)
        png = _PREVIEWS.get(key)
        headers = {"Cache-Control": "private, max-age=600"}
        if png is None:
            headers["X-Pbem-Drawn"] = "1"  # a drawing counts against the client's limit (issue 19, item 7)
            rules = games.rules_of(game)
            state = games.load_state(game)
            try:
                after = rules.preview(state, rules.parse(state, text)).state
            except IllegalMove as error:
                return Response(reason(error), status=422, mimetype="text/plain")
            view = {**rules.view(after, mine[0]), "player_names": list(names)}
            png = board.renderers_module().render(game.title, view, texts=i18n.texts(language))
            _PREVIEWS.put(key, png)
    return Response(png, mimetype="image/png", headers=headers)


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
    found = boards.picture(db, game_id, seq, getattr(boards, "SPECTATOR", -1) if viewer is None else viewer,
                           picture_language())
    if found is None:
        abort(404)
    return _stored_image(found, "image/png", "private" if viewer is not None else "public")


def _stored_image(found, mimetype: str, cache: str, **headers):
    """An answer with stored image bytes: their SHA-256 as ETag (a 304 when the browser has them).

    A picture's words are in the language of its address's `lang`; without one, in the page's (the
    user's setting or Accept-Language), so a shared cache must then keep one copy per those."""
    response = Response(found.data, mimetype=mimetype, headers=headers)
    if "lang" not in request.args:
        response.vary.update(("Accept-Language", "Cookie"))
    response.set_etag(found.sha256)
    response.headers["Cache-Control"] = f"{cache}, max-age=3600"
    if found.drawn:
        response.headers["X-Pbem-Drawn"] = "1"
    return response.make_conditional(request)



# --- the replay viewer -----------------------------------------------------------------------------------


@bp.get("/games/<id:game_id>/replay")
def replay(game_id: int):
    """One position of the replay (`?seq=N`, default the last), with every move's notation and mover for the
    page's script, which steps through them without reloading (keys, slider, autoplay, `#move=N`)."""
    db = get_db(current_app)
    try:
        summary = games.view(db, game_id, _user_id())
    except games.NotFoundError:
        abort(404)
    if summary.get("board") is None:
        return render_template("error.html", message=gettext(
            "Game %(game)d has not started: nothing to replay.", game=game_id)), 409
    last = summary["version"]
    seq = request.args.get("seq", type=int)
    seq = last if seq is None else max(0, min(seq, last))
    seat = summary.get("my_seat") if summary["status"] == "finished" else None
    step = games.view_at(db, game_id, seq, seat)
    colours = {s["seat"]: s["colour"] for s in summary["seats"]}
    names = {s["seat"]: s["name"] for s in summary["seats"]}
    steps = [{"seq": 0, "notation": "", "player": None, "colour": None}]
    steps += [{"seq": m["seq"], "notation": m["notation"], "player": m["player"], "colour": colours.get(m["seat"])}
              for m in games.history(db, game_id)]
    has_pictures = pictures_for(summary["title"])
    return render_template(
        "replay.html", game=summary, step=step, seq=seq, last=last, steps=steps,
        steps_json=Markup(json.dumps(steps).replace("<", "\\u003c")),
        mover=names.get(step["move"]["seat"]) if step["move"] else None,
        mover_colour=colours.get(step["move"]["seat"]) if step["move"] else None,
        items=[] if has_pictures else board_items(step["board"]), has_pictures=has_pictures,
        players=board.players(summary["title"], summary, None),
        picture_args=picture_args(), has_animation=can_animate(summary), title_name=title_name(summary["title"]))


@bp.get("/games/<id:game_id>/replay/animation")
@ratelimit.limited(ratelimit.drawings)
def animation(game_id: int):
    """The animated replay (GIF) of a finished game, drawn once per language from the spectator's views by the
    worker (pbem.boards); its words are in the language of its address's `lang` (picture_args), else the page's.

    Not drawn yet: 202 and a page that says it is being prepared and asks `animation_status` until it is
    ready, then fetches it (static/animation.js); beyond the site's budget of drawings, 503 with the wait.
    No request draws anything."""
    boards = boards_module()
    if boards is None:
        abort(404)
    found = boards.animation(get_db(current_app), game_id, picture_language())
    if found.status == boards.AnimationStatus.DONE:
        return _stored_image(found.picture, "image/gif", "public", **{
            "Content-Disposition": f'attachment; filename="pbem-game-{game_id}.gif"'})
    state, message, status = _animation_answer(game_id, found)
    if state != "preparing":
        response = make_response(render_template("error.html", message=message), status)
    else:
        response = make_response(render_template(
            "animation.html", game_id=game_id, message=message, picture_args=picture_args(picture_language())), status)
    return _not_stored(response, found)


@bp.get("/games/<id:game_id>/replay/animation/status")
@ratelimit.limited(ratelimit.drawings)
def animation_status(game_id: int):
    """Where the animated replay stands, as JSON for the pages' script (static/animation.js), asking for it
    as `animation` does: {"status": "ready" | "preparing" | "busy" | "too_large", "message", "retry_after"}."""
    boards = boards_module()
    if boards is None:
        abort(404)
    found = boards.animation(get_db(current_app), game_id, picture_language(), with_picture=False)
    state, message, status = _animation_answer(game_id, found)
    return _not_stored(make_response(jsonify(status=state, message=message, retry_after=found.retry_after_s),
                                     status), found)


def _animation_answer(game_id: int, found) -> tuple[str, str, int]:
    """What a request learns of an animated replay (pbem.boards.Animated): its state for the script, the
    sentence for the reader, and the HTTP status. There is none (not a finished game, no renderer): 404."""
    boards = boards_module()
    if found.status == boards.AnimationStatus.DONE:
        return "ready", gettext("The animated replay is ready: it is downloading."), 200
    if found.preparing:
        return "preparing", gettext("The animated replay is being prepared: it downloads by itself when it is "
                                    "ready."), 202
    if found.status == boards.AnimationStatus.OVER_BUDGET:
        minutes = max(1, math.ceil(found.retry_after_s / 60))
        return "busy", ngettext("Too many animated replays were asked for this hour (this site draws at most "
                                "%(limit)d an hour): try again in %(num)d minute.",
                                "Too many animated replays were asked for this hour (this site draws at most "
                                "%(limit)d an hour): try again in %(num)d minutes.",
                                minutes, limit=boards.ANIMATIONS_PER_HOUR), 503
    if found.status == boards.AnimationStatus.TOO_LARGE:
        return "too_large", gettext("Game %(game)d is too long to animate; the replay viewer shows every move.",
                                    game=game_id), 404
    abort(404)


def _not_stored(response, found):
    """An answer about an animated replay that is not there yet: never kept by a cache; with Retry-After when
    there is a wait; and a drawing this request asked for counts against the client's limit of drawings."""
    response.headers["Cache-Control"] = "no-store"
    if found.retry_after_s is not None:
        response.headers["Retry-After"] = str(found.retry_after_s)
    if found.requested:
        response.headers["X-Pbem-Drawn"] = "1"
    return response


def can_animate(summary: dict) -> bool:
    """Animated replays exist for finished games whose title has a renderer that makes them."""
    module = renderers_module()
    return (summary["status"] == "finished" and module is not None
            and callable(getattr(module, "render_replay", None)) and module.available(summary["title"]))



# --- rules pages and the titles' pictures ---------------------------------------------------------------


def player_sections(text: str) -> str:
    """A rules page's Markdown without the sections written for developers (DEVELOPER_SECTIONS: the view's
    schema, the recorded decisions, the engine's speed), which stay in docs/."""
    kept, skipping = [], False
    for line in text.splitlines():
        if line.startswith("## "):
            skipping = line[3:].strip().startswith(DEVELOPER_SECTIONS)
        if not skipping:
            kept.append(line)
    return "\n".join(kept) + "\n"


def rules_source(title: str, language: str) -> tuple[Path, str] | None:
    """Where a game's rules page is written in `language`, and the language it is in: its translation
    docs/games/<language>/<title>.md if there is one, else the English docs/games/<title>.md; None without one."""
    language = i18n.normalize(language) or i18n.DEFAULT  # only a language of ours names a folder
    translated = DOCS / language / f"{title}.md"
    if language != i18n.DEFAULT and translated.is_file():
        return translated, language
    english = DOCS / f"{title}.md"
    return (english, i18n.DEFAULT) if english.is_file() else None


@lru_cache(maxsize=None)
def rules_html(title: str, language: str = i18n.DEFAULT) -> tuple[Markup, str] | None:
    """A game's rules page (notation, options, how a turn goes) as HTML in `language` where it is translated
    (docs/games/<language>/), else in English; with the language it is written in. None: no page."""
    found = rules_source(title, language)
    if found is None:
        return None
    path, written_in = found
    html = MarkdownIt("commonmark", {"html": False}).enable("table").render(
        player_sections(path.read_text(encoding="utf-8")))
    # Wide tables and the board diagrams scroll sideways on a phone: a scrolling box must take the keyboard.
    texts = i18n.texts(language)
    for tag, name in (("table", texts.gettext("Table")), ("pre", texts.gettext("Example"))):
        html = html.replace(f"<{tag}>", f'<div class="scroll" tabindex="0" role="region" aria-label="{name}"><{tag}>')
        html = html.replace(f"</{tag}>", f"</{tag}></div>")
    return Markup(html), written_in


@bp.get("/rules/<title>")
def rules_page(title: str):
    if title not in engine.names():
        abort(404)
    found = rules_html(title, _locale())
    if found is None:
        return render_template("error.html", message=gettext(
            "The rules of %(title)s are not installed here.", title=title_name(title))), 404
    html, written_in = found
    return render_template("rules.html", title=title, title_name=title_name(title), rules=html,
                           rules_language=written_in, describe=engine.get(title).describe())


TITLE_PICTURE_SIDE = 520  # the longest side of a title's picture on the home page
TITLE_PICTURE_NAMES = ("Ana", "Ben", "Cy", "Dee", "Eli", "Fay")
TITLE_PICTURE_MOVES = 40  # random decisions into a seeded game: a board with something on it


@lru_cache(maxsize=None)
def title_picture(title: str, language: str = i18n.DEFAULT) -> bytes | None:
    """A picture of a game of this title in progress (seeded random moves), small enough for the home page,
    its words in `language`."""
    module = board.renderers_module()
    if module is None or not module.available(title):
        return None
    rules = engine.get(title)
    state = rules.setup(rules.min_players, {}, 2026)
    chooser = random.Random(2026)
    for _ in range(TITLE_PICTURE_MOVES):
        if rules.to_move(state) is None:
            break
        state = rules.apply(state, chooser.choice(rules.legal_moves(state)))
    view = {**rules.view(state, None), "player_names": list(TITLE_PICTURE_NAMES[:rules.min_players])}
    image = module.draw(title, view, texts=i18n.texts(language)).convert("RGB")
    image.thumbnail((TITLE_PICTURE_SIDE, TITLE_PICTURE_SIDE), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


@bp.get("/titles/<title>.png")
def title_png(title: str):
    if title not in engine.names():
        abort(404)
    png = title_picture(title, picture_language())
    if png is None:
        abort(404)
    return Response(png, mimetype="image/png", headers={"Cache-Control": "public, max-age=86400"})


# --- archives ------------------------------------------------------------------------------------------------


@bp.get("/games/<id:game_id>/archive.json")
def download_archive(game_id: int):
    try:
        body = archive.export_bytes(get_db(current_app), game_id)
    except games.NotFoundError:
        abort(404)
    except archive.ArchiveError as error:
        return render_template("error.html", message=reason(error)), 409
    return Response(body, mimetype="application/json", headers={
        "Content-Disposition": f'attachment; filename="pbem-game-{game_id}.json"'})


@bp.route("/archives/upload", methods=["GET", "POST"])
@login_required
@ratelimit.limited(ratelimit.uploads)
def upload_archive():
    """Check an uploaded archive and open its replay: the game it makes, or the one the same archive made
    before (pbem.games.archive.import_game). Each upload counts against the account's and the site's limits."""
    form = UploadForm()
    if form.validate_on_submit():
        raw = form.archive.data.read(archive.MAX_ARCHIVE_BYTES + 1)
        try:
            imported = archive.import_game(get_db(current_app), raw)
        except archive.ArchiveError as error:
            form.archive.errors = [reason(error)]
        else:
            if imported.new:
                flash(gettext("The archive checked out; it is game %(game)d now.", game=imported.game_id))
            else:
                flash(gettext("This archive was uploaded before: it is game %(game)d.", game=imported.game_id))
            return redirect(url_for("play.replay", game_id=imported.game_id, seq=0)), 303
    return render_template("upload.html", form=form), 400 if form.errors else 200
