"""Player pages (issue 35 items 2 and 6): `/players/<id>/<name>`, the hide setting, names linked to their pages.

A player's address is their id with their name as a readable slug (`/players/17/anna-berg`): the
id names the player, so the address stays theirs when the name changes; `/players/17` and an
address with an older or mistyped name redirect (302) to the one with the name of now. What the
page says and who may see it is `pbem.players.pages`: a hidden page is a 404 to those who may not
see it, the same 404 as for an id nobody has.

The templates get, from here, `player_link(name, user_id)` (a name as a link to its page; plain
text for a seat without a user, as an imported game's), `seat_users(game_id)` (which seats of a
game have a user: the game page and the replay link their names through it), `since(at)` (when a
turn began, in the reader's zone and language, with how long ago) and `hours(h)` (a duration).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from babel.dates import format_skeleton
from babel.dates import format_timedelta as babel_timedelta
from flask import Blueprint, abort, current_app, flash, redirect, render_template, url_for
from flask_babel import format_time, format_timedelta, get_locale, gettext, to_user_timezone
from flask_login import current_user, login_required
from markupsafe import Markup, escape
from wtforms import BooleanField

from pbem import i18n
from pbem.models import utcnow
from pbem.players import pages
from pbem.web import get_db
from pbem.web.forms import Form

bp = Blueprint("players", __name__)


class PageForm(Form):
    """The settings page's choice: hide my page from those who never sat with me at a started game."""

    page_hidden = BooleanField()


def _viewer() -> int | None:
    return current_user.id if current_user.is_authenticated else None


@bp.get("/players/<id:user_id>")
@bp.get("/players/<id:user_id>/<name>")
def page(user_id: int, name: str | None = None):
    """A player's page; at any address but the one with their name of now, a redirect to that one."""
    found = pages.page(get_db(current_app), user_id, _viewer())
    if found is None:
        abort(404)
    if name != found.slug:
        return redirect(url_for("players.page", user_id=user_id, name=found.slug))
    return render_template("player.html", p=found, shown=pages.FINISHED_SHOWN,
                           language_names=[i18n.NAMES.get(code, code) for code in found.languages])


@bp.post("/settings/page")
@login_required
def visibility():
    """The settings page's checkbox: hide the page from strangers, or show it to all (CSRF checked)."""
    form = PageForm()
    form.validate_on_submit()  # CSRFProtect has checked the token before this view ran; the box is on or off
    pages.set_hidden(get_db(current_app), current_user.id, form.page_hidden.data)
    flash(gettext("Your page is now hidden from players who never played with you.") if form.page_hidden.data
          else gettext("Your page is now shown to everyone."))
    return redirect(url_for("auth.settings")), 303


@bp.app_template_global()
def player_link(name: str, user_id: int | None) -> Markup:
    """A seat's name as a link to its player's page; the name alone for a seat without a user."""
    if user_id is None:
        return escape(name)
    href = url_for("players.page", user_id=user_id, name=pages.slug(name))
    return Markup('<a class="player-link" href="{}">{}</a>').format(href, name)


@bp.app_template_global()
def seat_users(game_id: int) -> dict[int, int]:
    """Seat number -> user id of the game's seats that have one (one small read)."""
    return pages.seat_users(get_db(current_app), game_id)


@bp.app_template_global()
def since(at: datetime | None) -> Markup:
    """When a turn began, in the reader's time zone and language, and how long ago ("Wed, Mar 4, 2:00 PM
    (2 days)"), as a <time>; empty for an unknown time."""
    if at is None:
        return Markup("")
    local = to_user_timezone(at)
    locale = str(get_locale() or i18n.DEFAULT)
    day = format_skeleton("MMMEd", local, locale=locale)
    ago = format_timedelta(utcnow() - at, threshold=0.9)
    iso = at.replace(tzinfo=timezone.utc).isoformat().replace("+00:00", "Z")
    return Markup('<time datetime="{}">{}, {}</time> <span class="muted">({})</span>').format(
        iso, day, format_time(at, "short"), ago)


@bp.app_template_global()
def hours(value: float | None) -> str:
    """A duration given in hours, in the page's words: minutes below an hour, days from two days on."""
    if value is None:
        return "–"
    return babel_timedelta(timedelta(hours=float(value)), threshold=2,
                           locale=str(get_locale() or i18n.DEFAULT))
