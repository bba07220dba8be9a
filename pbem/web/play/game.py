"""The game page, its moves and its live updates (`/games/<id>`, `/games/<id>/move`, `/games/<id>/live`).

The game page is the board first: the picture with its clickable regions (`pbem.web.board`),
the legal moves as grouped buttons and a field to type one, the players beside it, the
last moves, the deadline. A move form carries the version the player saw
(`expected_version`) and a fresh idempotency key, so a stale page is refused with the
engine's reason and a double click applies once. The page's script sends moves without
reloading the page and asks `/games/<id>/live` (an ETag of the position, answered 304
while nothing changed) every LIVE_POLL_MS, so an open page follows the game by itself
behind gunicorn's sync workers: no request is held open. With the script, the moves chosen are the
steps of a turn built on the page (`/games/<id>/turn`: the engine's preview, never past a draw or a
roll) and sent as one submission on Confirm (issue 36 item 1).

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
import re
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
import renderers.text.events
from engine.core import IllegalMove
from pbem import boards, games, i18n
from pbem.games import log
from pbem.games.loading import NO_SEAT
from pbem.games.moves import NO_MOVES, STALE
from pbem.i18n import N_
from pbem.kept import Kept
from pbem.models import Game, GameStatus, Seat
from pbem.web import board, get_db, reason
from pbem.web.forms import InviteForm, MoveForm
from pbem.web.play import bp
from pbem.web.play.helpers import (
    MAX_STEPS, STEP_TEXT_MAX, Steps, board_items, page_language, page_texts, picture_args, pictures_for, preview_steps,
    title_name, viewer_id, viewer_zone,
)
from renderers.i18n import join

LOG = logging.getLogger(__name__)

LIVE_POLL_MS = 1500  # how often an open game page asks whether the position changed
LIVE_PARTS_KEPT = 512  # rendered position parts kept per process
LAST_MOVES_SHOWN = 8  # moves told in the page's log (as many as games.view lists); the replay has them all
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
        # issue 36 items 1, 2 and 7: the turn built on the page, refusals beside their control, no English literal
        "nothing_changed": _("Nothing was changed."),
        "more": _("... and %(count)s more: click another place to narrow them down.", count="%(count)s"),
        "passed": _("(passed)"), "left": _("(in %(time)s)", time="%(time)s"),
        "days": _("%(count)s d", count="%(count)s"), "hours": _("%(count)s h", count="%(count)s"),
        "minutes": _("%(count)s min", count="%(count)s"),
        # issue 36 item 4 (static/board.js): places too small to tap at this zoom
        "tap_zoom": _("Zoom to tap"),
        "tap_zoom_help": _("Zoom in until every place you can play is big enough to tap"),
        "tap_zoomed": _("The board is zoomed in: tap the place again to choose it."),
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
    if view is not None:  # the picture is drawn with these (pbem.boards): so are its regions, legend and counter
        view = {**view, "player_names": [seat["name"] for seat in data["seats"]], "move_number": data["version"] + 1}
        if data["status"] in boards.ENDED:
            view["game_over"] = True
    legal = data["legal_moves"]
    texts = page_texts()  # the picture is drawn in the page's language (picture_args): so are its regions and legend
    legend = _legend(title, view, texts)
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
        "status_line": legend["lines"][0] if legend and legend["lines"] else "",
        "counter": _counter(legend, data["version"]),
        "outcome": outcome(data, texts),
        "last_moves": log_entries(data, last_moves, colours, zone),
        "deadline": local_time(data.get("deadline"), zone),
        "deadline_iso": iso_time(data.get("deadline")),
    }


def log_entries(data: dict, last_moves: list[dict], colours: dict, zone: str) -> list[dict]:
    """The page's log, newest first: each move with who, when, its notation and, from the viewer's own views of
    it (`data["story"]`, games.latest_story), the turn mail's sentences (renderers.text.events.story, issue 36
    item 6): "text" what the move did, "details" what came of it (dice, tiles and cards drawn, the engine's own
    moves, points). A move without a story (none asked for) keeps its notation alone."""
    told = {t.seq: t for t in renderers.text.events.story(
        data.get("story") or [], names=[seat["name"] for seat in data["seats"]], seat=data.get("my_seat"),
        texts=page_texts())}
    entries = []
    for m in reversed(last_moves):
        said = told.get(m["seq"])
        entries.append({**m, "colour": colours.get(m["seat"]), "at": local_time(m["at"], zone),
                        "text": said.text if said else None, "details": said.details if said else []})
    return entries


def _preview_words(title: str) -> tuple[str, ...]:
    """The kinds of move whose picture the page asks for by itself (the title's entry says which)."""
    try:
        return engine.entry(title).preview_words
    except engine.UnknownGameError:
        return ()


def _legend(title: str, view: dict | None, texts: i18n.Texts) -> dict | None:
    """What the picture writes around the board (renderers.legend): its first line is the decision now in words
    ("Ana (blue, B) to move: ..."), its title the counter ("Tongiaki - move 18, turn 5"). None: no picture."""
    if view is None or not renderers.available(title):
        return None
    try:
        return renderers.legend(title, view, texts=texts)
    except Exception:  # noqa: BLE001 - the page says whose turn it is anyway
        LOG.exception("the legend of a %s picture failed", title)
        return None


def _counter(legend: dict | None, version: int) -> str:
    """The move counter as the picture's caption and the mails say it ("Move 18, turn 5."), one counter for all:
    the caption's words after the title's name; "Move 18." for a title without a picture."""
    caption = (legend or {}).get("title") or ""
    if " - " in caption:
        words = caption.split(" - ", 1)[1].strip()
        return f"{words[:1].upper()}{words[1:]}."
    return gettext("Move %(number)s.", number=version + 1)


def outcome(data: dict, texts: i18n.Texts) -> dict | None:
    """A finished game's headline, who won ("Bob wins."), and why (its reason in the page's language); None
    while it runs. Ranks come from the result (a resignation's too: pbem.games.resignation_result)."""
    if data["status"] not in boards.ENDED:
        return None
    result = data.get("result") or {}
    ranks = result.get("ranks") or []
    names = [seat["name"] for seat in data["seats"]]
    winners = [names[n] for n, rank in enumerate(ranks) if rank == 1 and n < len(names)]
    if data["status"] == GameStatus.ABANDONED.value or not winners:
        headline = gettext("The game was abandoned.") if data["status"] == GameStatus.ABANDONED.value \
            else gettext("The game is over.")
    elif len(winners) == 1:
        headline = gettext("%(name)s wins.", name=winners[0])
    else:
        headline = gettext("%(names)s share the win.", names=join(texts, winners))
    return {"headline": headline, "why": result.get("reason") or ""}


def live_part(db, game_id: int, fresh: Freshness, user_id: int | None, zone: str) -> tuple[Markup, dict]:
    """The position's part of the page for this user (rendered, or kept from an earlier request) and its data."""
    seat = fresh.seat_of(user_id)
    cacheable = fresh.status != GameStatus.OPEN.value
    # A process serves one database (tests serve several); the part is in the page's language.
    key = (db.url, game_id, fresh.etag, seat, zone, page_language())
    kept = _LIVE_PARTS.get(key) if cacheable else None
    if kept is not None:
        return kept
    data = games.view(db, game_id, user_id, language=page_language(), story=LAST_MOVES_SHOWN)
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


def played_words(db, game_id: int, seq: int, user_id: int) -> str:
    """Move `seq`, just played by this user, told in words as the turn mail tells it (renderers.text.events: "You
    occupied Tonga 2.", what chance brought and the engine's own moves after it), in the page's language."""
    with db.sessions() as s:
        game = games.load_game(s, game_id)
        seats = games.seats_of(s, game)
        seat = next((x.number for x in seats if x.user_id == user_id), None)
        if seat is None:
            return ""
        data = games.seat_view_at(s, game, seats, games.rules_of(game), seq, seat, page_language())
    moves = [m for m in data["since"]["moves"] if m["seq"] == seq]
    lines, _ = renderers.text.events.since_text(moves, names=[x["name"] for x in data["seats"]], seat=seat,
                                                texts=page_texts())
    text = " ".join(line.strip().removeprefix("- ").strip() for line in lines)  # the mail's lines as one paragraph
    return re.sub(r"^\d+\.\s+", "", text)  # without the mail's move number: the page's flash is about this move


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
    else:
        told = played_words(db, game_id, result.seq, current_user.id)
        if result.finished:
            message = f"{told} {gettext('The game is over.')}" if told else \
                gettext("You played %(move)s. The game is over.", move=result.notation)
        else:
            message = told or gettext("You played %(move)s.", move=result.notation)
    if _wants_json():
        return jsonify(ok=True, message=message, seq=result.seq, notation=result.notation, finished=result.finished)
    flash(message)
    return redirect(url_for("play.game_page", game_id=game_id)), 303


def _refuse(game_id: int, message: str, status: int):
    """The reason a submission was refused (nothing was changed): as JSON for the page's script, else the page."""
    if _wants_json():
        return jsonify(ok=False, message=message), status
    return _page(game_id, error=message, status=status)



# --- a turn built on the page, then confirmed as one submission (issue 36 item 1) --------------------

def _check_fresh(game, version: int | None) -> None:
    """Refuse a turn built on a page whose position the game has left, as a move is refused."""
    if version is None or version != game.version:
        raise games.StalePositionError(STALE, sent=(version or 0) + 1, game=game.id, move=game.version + 1)


def _built(db, game_id: int, user_id: int, version: int | None, texts: list[str]) -> tuple[dict, Steps]:
    """The seat's view of the game after the steps (games.seat_view, its board and legal moves replaced by the
    preview's), checked as a move is: running, the user's turn, the position the page showed."""
    with db.sessions() as s:
        game = games.load_game(s, game_id)
        seats = games.seats_of(s, game)
        mine = [x.number for x in seats if x.user_id == user_id]
        if game.status != GameStatus.RUNNING.value or not mine:
            raise games.NotAllowedError(NO_MOVES.get(game.status, NO_SEAT), game=game.id)
        _check_fresh(game, version)
        if game.to_move != mine[0]:
            raise games.NotYourTurnError(N_("It is not your turn in game %(game)d: %(name)s is to move."),
                                         game=game.id, name=seats[game.to_move].display_name)
        rules, state = games.rules_of(game), games.load_state(game)
        steps = preview_steps(rules, state, mine[0], texts)
        data = games.seat_view(s, game, seats, rules, state, mine[0], page_language())
        data["story"] = games.latest_story(s, game, seats, rules, mine[0], LAST_MOVES_SHOWN)  # the log, in words
    data["board"] = rules.view(steps.state, mine[0])
    data["legal_moves"] = ([] if steps.stopped or steps.over else
                           [rules.notation(steps.state, m) for m in rules.legal_moves(steps.state)])
    return data, steps


def _steps_of(values: list[str]) -> list[str]:
    texts = [t.strip() for t in values if t.strip()]
    if len(texts) > MAX_STEPS or any(len(t) > STEP_TEXT_MAX for t in texts):
        abort(400)
    return texts


@bp.get("/games/<id:game_id>/turn")
@login_required
def turn(game_id: int):
    """The page's part for the turn built so far (`step`, in order, from the position `version`): the board
    as the engine's preview leaves it, the steps with their Undo, Confirm, and the decisions still open.

    JSON for the page's script: {ok, html, picture, steps, stopped, over}; a refusal says why (and if stale)."""
    texts = _steps_of(request.args.getlist("step"))
    version = request.args.get("version", "")
    try:
        data, steps = _built(get_db(current_app), game_id, current_user.id,
                             int(version) if version.isdigit() else None, texts)
    except games.NotFoundError:
        abort(404)
    except games.GameError as error:
        return jsonify(ok=False, stale=isinstance(error, games.StalePositionError), message=reason(error)), \
            error.http_status
    except IllegalMove as error:
        return jsonify(ok=False, message=reason(error)), 422
    context = live_context(data, viewer_zone())
    html = render_template("_live.html", **context, turn={"steps": steps.notations, "stopped": steps.stopped,
                                                          "over": steps.over})
    picture = (url_for("play.preview", game_id=game_id, move=steps.notations, **picture_args())
               if steps.notations and context["picture"] else None)
    return jsonify(ok=True, html=html, picture=picture, steps=steps.notations, stopped=steps.stopped,
                   over=steps.over)


@bp.post("/games/<id:game_id>/turn")
@login_required
def confirm_turn(game_id: int):
    """The turn built on the page, sent as one submission: its steps checked together against the position
    the page showed (a stale page, or any step the engine refuses, changes nothing), then played in order as
    mail plays the lines of one mail (`games.submit` with the move count each step expects and a key per step,
    so the same confirmation twice plays once)."""
    form = MoveForm()
    texts = _steps_of(request.form.getlist("step"))
    if not form.validate_on_submit() or not texts or not form.expected_version.data.isdigit():
        return _refuse(game_id, gettext("The move form was incomplete: choose a move and try again."), 400)
    db = get_db(current_app)
    expected = int(form.expected_version.data)
    key = f"web:{current_user.id}:{form.key.data}"
    try:
        fresh = read_freshness(db, game_id)
        if fresh is None:
            abort(404)
        if fresh.version == expected:  # else the first step is refused as stale, or found played (the same key)
            _built(db, game_id, current_user.id, expected, texts)
        played = _play_steps(db, game_id, texts, key, expected)
    except games.NotFoundError:
        abort(404)
    except games.GameError as error:
        return _refuse(game_id, reason(error), error.http_status)
    except IllegalMove as error:
        return _refuse(game_id, reason(error), 422)
    return _played(game_id, played)


def _play_steps(db, game_id: int, texts: list[str], key: str, expected: int | None) -> list[games.SubmitResult]:
    """Submit the steps in order, each expecting the move count the one before left (None after a repeat)."""
    played = []
    for index, text in enumerate(texts):
        try:
            done = games.submit(db, game_id, text, user_id=current_user.id, source="web", key=f"{key}#{index}",
                                expected_version=expected)
        except games.GameError as error:
            if not played:
                raise
            LOG.warning("game %d: step %d of a confirmed turn refused after %d played: %s", game_id, index + 1,
                        len(played), error)
            break  # the game moved between the check and this step (another door): the steps before it stand
        played.append(done)
        expected = None if done.duplicate else done.seq + len(done.auto_moves)
    return played


def _played(game_id: int, played: list[games.SubmitResult]):
    """What a confirmed turn did, as the one-move form says it."""
    moves = ", ".join(done.notation for done in played)
    if played[-1].finished:
        message = gettext("You played %(move)s. The game is over.", move=moves)
    else:
        message = gettext("You played %(move)s.", move=moves)
    if _wants_json():
        return jsonify(ok=True, message=message, played=[done.notation for done in played],
                       seq=played[-1].seq, finished=played[-1].finished)
    flash(message)
    return redirect(url_for("play.game_page", game_id=game_id)), 303
