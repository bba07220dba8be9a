"""The game page, its moves and its live updates (`/games/<id>`, `/games/<id>/move`, `/games/<id>/live`).

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
user. Open tables are never cached. The pictures themselves are served by `pictures`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from dataclasses import dataclass
from datetime import timezone
from functools import lru_cache
from zoneinfo import ZoneInfo

from babel.dates import format_skeleton
from flask import abort, current_app, flash, jsonify, redirect, render_template, request, url_for
from flask_babel import gettext
from flask_login import current_user, login_required
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup
from sqlalchemy import bindparam, select

import engine
import renderers
import renderers.text
from pbem import games, i18n
from pbem.games import log
from pbem.kept import Kept
from pbem.models import Game, GameStatus, Seat
from pbem.web import board, get_db, reason
from pbem.web.forms import InviteForm, MoveForm
from pbem.web.play import bp
from pbem.web.play.helpers import (
    board_items, page_language, page_texts, picture_args, pictures_for, title_name, viewer_id, viewer_zone,
)

LOG = logging.getLogger(__name__)

LIVE_POLL_MS = 1500  # how often an open game page asks whether the position changed
LIVE_PARTS_KEPT = 512  # rendered position parts kept per process
LAST_MOVES_SHOWN = 12  # moves in the page's log; the replay has them all
MAX_SUGGESTIONS = 400  # legal moves offered as the typed field's suggestions
TALK_POLL_MS = 5000  # how often the page's table talk asks whether its conversation changed (pbem.web.play.talk)


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


def local_time(text: str | None, zone: str | None = None, locale: str | None = None) -> str | None:
    """A stored UTC time shown in the user's time zone, its day and month in the page's language."""
    if not text:
        return None
    at = log.parse_time(text).replace(tzinfo=timezone.utc)
    zone = zone or viewer_zone()
    try:
        local = at.astimezone(ZoneInfo(zone))
    except (KeyError, ValueError):
        local, zone = at, "UTC"
    locale = locale or page_language()
    if locale == "en":  # the English pages' own form: "Tue 03 Mar 2026, 14:00 (Europe/Paris)"
        return local.strftime(f"%a %d %b %Y, %H:%M ({zone})")
    return f"{format_skeleton('yMMMEd', local, locale=locale)}, {local:%H:%M} ({zone})"


def iso_time(text: str | None) -> str | None:
    """A stored UTC time as ISO 8601 with its zone, for a page's script (countdowns)."""
    return log.parse_time(text).replace(tzinfo=timezone.utc).isoformat() if text else None


def board_words(title: str, data: dict) -> list[tuple[str, str]]:
    """The position in words (`renderers.text`) for this viewer, the picture's text alternative, as
    ("p" | "li", text) blocks: the text's lines wrapped for mail joined again into sentences and bullets."""
    names = [seat["name"] for seat in data["seats"]]
    try:
        lines = renderers.text.board_text(title, data["board"], names=names, seat=data.get("my_seat"),
                                          legal_moves=data["legal_moves"], recent=data.get("recent") or [],
                                          texts=page_texts())
    except renderers.text.TextError:
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


# --- whether the page is fresh: one small read, its ETag, the cached part of the page -----------


@dataclass(frozen=True)
class Freshness:
    """The page-freshness stamp of a game (not a game position): what a game page shows changes with these: status, the moves (their chain head), whose turn, deadline,
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
_FRESHNESS = (select(Game.title, Game.status, Game.version, Game.chain_head, Game.to_move, Game.deadline,
                    Seat.number, Seat.user_id, Seat.display_name, Seat.colour, Seat.resigned)
             .outerjoin(Seat, Seat.game_id == Game.id).where(Game.id == bindparam("game_id")).order_by(Seat.number))


def read_freshness(db, game_id: int) -> Freshness | None:
    """The facts a game page's freshness depends on (None: no such game).

    One SELECT (the game joined with its seats) in autocommit (`Database.read`). Every open
    game page asks this every LIVE_POLL_MS, and the page itself starts with it.
    """
    rows = db.read(_FRESHNESS, game_id=game_id)
    if not rows:
        return None
    title, status, version, chain_head, to_move, deadline = rows[0][:6]
    seats = tuple(tuple(row[6:]) for row in rows if row[6] is not None)
    return Freshness(title, status, version, chain_head, to_move, log.format_time(deadline) if deadline else None,
                    seats)


_LIVE_PARTS = Kept(LIVE_PARTS_KEPT)


def live_context(data: dict, zone: str) -> dict:
    """Everything the position's part of the page shows, for one viewer."""
    title = data["title"]
    view = data.get("board")
    if view is not None:  # the picture is drawn with the players' names (pbem.boards): so are its regions
        view = {**view, "player_names": [seat["name"] for seat in data["seats"]]}
    legal = data["legal_moves"]
    texts = page_texts()  # the picture is drawn in the page's language (picture_args): so are its regions and legend
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
        "preview_words": " ".join(_preview_words(title)),
        "words": board_words(title, data) if view is not None else [],
        "items": board_items(view) if view is not None and picture is None else [],
        "status_line": _status_line(title, view, texts),
        "last_moves": [{**m, "colour": colours.get(m["seat"]), "at": local_time(m["at"], zone)}
                       for m in reversed(last_moves)],
        "deadline": local_time(data.get("deadline"), zone),
        "deadline_iso": iso_time(data.get("deadline")),
    }


def _preview_words(title: str) -> tuple[str, ...]:
    """The kinds of move whose picture the page asks for by itself (the title's entry says which)."""
    try:
        return engine.entry(title).preview_words
    except engine.UnknownGameError:
        return ()


def _status_line(title: str, view: dict | None, texts: i18n.Texts) -> str:
    """The picture's own sentence on the decision now ("Ana (blue, B) to move: ..."), if it has one."""
    if view is None or not renderers.available(title):
        return ""
    try:
        lines = renderers.legend(title, view, texts=texts)["lines"]
    except Exception:  # noqa: BLE001 - the page says whose turn it is anyway
        LOG.exception("the legend of a %s picture failed", title)
        return ""
    return lines[0] if lines else ""


def live_part(db, game_id: int, fresh: Freshness, user_id: int | None, zone: str) -> tuple[Markup, dict]:
    """The position's part of the page for this user (rendered, or kept from an earlier request) and its data."""
    seat = fresh.seat_of(user_id)
    cacheable = fresh.status != GameStatus.OPEN.value
    # A process serves one database (tests serve several); the part is in the page's language.
    key = (db.url, game_id, fresh.etag, seat, zone, page_language())
    kept = _LIVE_PARTS.get(key) if cacheable else None
    if kept is not None:
        return kept
    data = games.view(db, game_id, user_id, language=page_language())
    html = Markup(render_template("_live.html", **live_context(data, zone)))
    after = read_freshness(db, game_id)
    # The typed field's suggestions go inside the move form, which each request renders around the kept part.
    suggestions = Markup(render_template("_suggestions.html", moves=data["legal_moves"][:MAX_SUGGESTIONS]))
    value = (html, {"version": data["version"], "legal": bool(data["legal_moves"]), "my_seat": data.get("my_seat"),
                    "status": data["status"], "seats": data["seats"], "players": data["players"],
                    "suggestions": suggestions})
    if cacheable and after is not None and after.etag == fresh.etag and data["version"] == fresh.version:
        _LIVE_PARTS.put(key, value)  # the game did not move while the part was made
    return value


# --- the game page ------------------------------------------------------------------------------------


def _page(game_id: int, error: str | None = None, status: int = 200):
    db = get_db(current_app)
    fresh = read_freshness(db, game_id)
    if fresh is None:
        abort(404)
    zone = viewer_zone()
    live, facts = live_part(db, game_id, fresh, viewer_id(), zone)
    seat = facts["my_seat"]
    context = {"live": live, "facts": facts, "game_id": game_id, "etag": fresh.etag, "error": error,
               "ui_text": ui_text(page_language()),
               "title_name": title_name(fresh.title), "move_form": None, "invite_form": None,
               "your_turn": facts["legal"], "poll_ms": LIVE_POLL_MS, "talk_poll_ms": TALK_POLL_MS, "seat": seat,
               "seated": seat is not None, "resigned": seat is not None and bool(fresh.seats[seat][4])}
    if current_user.is_authenticated:  # a spectator gets no forms, so no CSRF token and no session cookie
        if facts["legal"]:  # the form's hidden fields, as MoveForm reads them back (no form object: a page is hot)
            context["move_form"] = {"expected_version": facts["version"], "key": secrets.token_hex(16)}
        if facts["status"] == GameStatus.OPEN.value:
            context["invite_form"] = InviteForm()
            context["seated"] = any(user == current_user.id for _, user, *_ in fresh.seats)
            context["free_colours"] = games.view(db, game_id)["free_colours"]
    return render_template("game.html", **context), status


@bp.get("/games/<id:game_id>")
def game_page(game_id: int):
    return _page(game_id)


@bp.get("/games/<id:game_id>/live")
def live(game_id: int):
    """The position's ETag (and its plain facts): the open page asks this every LIVE_POLL_MS; 304 while unchanged."""
    fresh = read_freshness(get_db(current_app), game_id)
    if fresh is None:
        abort(404)
    response = jsonify(etag=fresh.etag, status=fresh.status, version=fresh.version,
                       to_move=fresh.to_move, deadline=fresh.deadline)
    response.set_etag(fresh.etag)
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
        return _refuse(game_id, reason(error), error.http_status)
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

