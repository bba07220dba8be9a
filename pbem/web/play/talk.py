"""Table talk on the web: a game's conversation and the reader's notes (`/games/<id>/talk`, issue 34).

The game page carries an empty panel that its script fills from `/games/<id>/talk?part=1` and asks
again every TALK_POLL_MS (an ETag of what this reader may read: 304 while nothing changed); the
same address without `part` is a whole page with the same panel, for a browser without script.
What a reader may read is pbem.talk's decision (`talk.conversation`, `talk.notes`), asked per
request: the panel is never kept, since a private message or a note is one reader's.

A message, a note, a report and a mute are forms posted here. A refusal comes back beside the form
that sent it, with the typed text kept (JSON for the page's script; the panel's page otherwise).
"""

from __future__ import annotations

import hashlib
import re

from flask import abort, current_app, flash, jsonify, redirect, render_template, request, url_for
from flask_babel import gettext
from flask_login import current_user, login_required
from markupsafe import Markup, escape
from sqlalchemy import select

from pbem import talk
from pbem.models import Game, Seat
from pbem.web import get_db, reason
from pbem.web.forms import ButtonForm, MessageForm, NoteForm, ReportForm
from pbem.web.play import bp
from pbem.web.play.helpers import viewer_id

TALK_POLL_MS = 5000  # how often an open game page asks whether its conversation changed
_LINK = re.compile(r"https?://[^\s<>\"']{1,2000}", re.I)


def linkify(text: str) -> Markup:
    """A message as HTML: every character escaped, web addresses made links (that tell search engines
    they are the users', not the site's, and open no window that could reach back)."""
    html, start = [], 0
    for found in _LINK.finditer(text):
        url = found.group(0).rstrip(".,;:!?)")
        html.append(escape(text[start:found.start()]))
        html.append(Markup('<a href="{0}" rel="nofollow ugc noopener noreferrer">{0}</a>').format(url))
        start = found.start() + len(url)
    html.append(escape(text[start:]))
    return Markup("").join(html)


def _table(db, game_id: int):
    with db.sessions() as s:
        game = s.get(Game, game_id)
        if game is None:
            abort(404)
        seats = list(s.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.number)))
        s.expunge_all()
    return game, seats


def _panel_context(game_id: int, **extra) -> dict:
    db = get_db(current_app)
    game, seats = _table(db, game_id)
    user_id = viewer_id()
    me = next((seat for seat in seats if user_id is not None and seat.user_id == user_id), None)
    messages = talk.conversation(db, game_id, user_id)
    notes = talk.notes(db, game_id, user_id) if me is not None else []
    muted = talk.muted(db, user_id) if user_id is not None else set()
    over = game.status in ("finished", "abandoned")
    may_write = me is not None and game.press != "none" and (game.press_after_end or not over)
    message_form = MessageForm(prefix="talk") if may_write else None
    if message_form is not None:
        message_form.to.choices = [(seat.number, f"{seat.display_name} ({seat.colour})") for seat in seats
                                   if seat is not me]
    context = {"game_id": game_id, "messages": messages, "notes": notes, "me": me, "seats": seats,
               "muted_seats": {seat.number for seat in seats if seat.user_id in muted},
               "press": game.press, "message_form": message_form,
               "note_form": NoteForm(prefix="note") if me is not None else None,
               "report_form": ReportForm(prefix="report") if user_id is not None else None,
               "talk_error": None, "note_error": None, "spectators_read": game.press_spectators,
               "kept_text": "", "kept_note": "", "linkify": linkify}
    context.update(extra)
    return context


def _etag(context: dict) -> str:
    facts = ([(m.id, m.hidden) for m in context["messages"]], [n.id for n in context["notes"]],
             sorted(context["muted_seats"]), context["message_form"] is not None)
    return hashlib.sha256(repr(facts).encode()).hexdigest()[:24]


@bp.get("/games/<id:game_id>/talk")
def talk_page(game_id: int):
    """The panel (`part=1`: the fragment the game page's script swaps in, with its ETag) or its own page."""
    context = _panel_context(game_id)
    if request.args.get("part"):
        response = current_app.make_response(render_template("_talk.html", **context))
        response.set_etag(_etag(context))
        response.headers["Cache-Control"] = "private, no-cache"
        return response.make_conditional(request)
    return render_template("talk.html", **context)


def _wants_json() -> bool:
    return request.accept_mimetypes.best_match(["text/html", "application/json"]) == "application/json"


def _refused(game_id: int, field: str, message: str, status: int, **kept):
    """A refusal beside the form that sent it (nothing was written), the typed text kept."""
    if _wants_json():
        return jsonify(ok=False, field=field, message=message), status
    return render_template("talk.html", **_panel_context(game_id, **{field: message}, **kept)), status


def _done(game_id: int, message: str):
    if _wants_json():
        return jsonify(ok=True, message=message)
    flash(message)
    return redirect(url_for("play.talk_page", game_id=game_id)), 303


@bp.post("/games/<id:game_id>/talk")
@login_required
def post_message(game_id: int):
    form = MessageForm(prefix="talk")
    text = form.text.data or ""
    if not form.validate_on_submit():
        return _refused(game_id, "talk_error", gettext("Write a message first (at most 4000 characters)."), 400,
                        kept_text=text)
    to = tuple(form.to.data) if form.to.data else None
    try:
        talk.post(get_db(current_app), game_id, current_user.id, text, to=to, source="web")
    except talk.TalkError as error:
        return _refused(game_id, "talk_error", reason(error), error.http_status, kept_text=text)
    return _done(game_id, gettext("Your message was sent."))


@bp.post("/games/<id:game_id>/notes")
@login_required
def post_note(game_id: int):
    form = NoteForm(prefix="note")
    text = form.text.data or ""
    if not form.validate_on_submit():
        return _refused(game_id, "note_error", gettext("Write a note first (at most 4000 characters)."), 400,
                        kept_note=text)
    try:
        talk.write_note(get_db(current_app), game_id, current_user.id, text)
    except talk.TalkError as error:
        return _refused(game_id, "note_error", reason(error), error.http_status, kept_note=text)
    return _done(game_id, gettext("Your note is kept; only you can read it."))


@bp.post("/games/<id:game_id>/talk/<int:message_id>/report")
@login_required
def report_message(game_id: int, message_id: int):
    form = ReportForm(prefix="report")
    if not form.validate_on_submit():
        return _refused(game_id, "talk_error", gettext("Say why you report this message."), 400)
    try:
        talk.report(get_db(current_app), message_id, current_user.id, form.reason.data)
    except talk.TalkError as error:
        return _refused(game_id, "talk_error", reason(error), error.http_status)
    return _done(game_id, gettext("Thank you: the site's operators will read your report."))


@bp.post("/games/<id:game_id>/talk/mute/<int:seat>")
@login_required
def mute_seat(game_id: int, seat: int):
    """Mute (or, with `on=0`, hear again) the player at a seat of this game, at every table."""
    db = get_db(current_app)
    if not ButtonForm().validate_on_submit():  # the CSRF token is the point
        abort(400)
    _, seats = _table(db, game_id)
    other = next((x for x in seats if x.number == seat and x.user_id is not None), None)
    if other is None:
        abort(404)
    on = request.form.get("on", "1") != "0"
    try:
        talk.mute(db, current_user.id, other.user_id, on=on)
    except talk.TalkError as error:
        return _refused(game_id, "talk_error", reason(error), error.http_status)
    return _done(game_id, gettext("You no longer read %(name)s's messages.", name=other.display_name) if on
                 else gettext("You read %(name)s's messages again.", name=other.display_name))
