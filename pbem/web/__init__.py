"""The web app: Flask application factory and blueprints.

Blueprints: `auth` (sign-up, login, verification, reset, settings, API tokens), `lobby`
(games, create, join, leave, start, invite), `play` (a package of one module per resource: the
game page and moves, the pictures, the replay, the rules pages, archives), `players` (a player's
page, the hide setting, names linked to their pages) and `api` (JSON under
/api/v1 with its OpenAPI document, bearer tokens). What a page says of a title (its name, blurb,
options' labels and help, rules page) comes from the title's registry entry (`engine.entry`).
Every page is server-rendered HTML with a little vanilla JavaScript from static files
(the Content-Security-Policy allows no inline script); nothing to build. Every view of a
game comes from `pbem.games.view` for the logged-in user, so a page can only show what that
user's seat (or a spectator) may see.

A login is a row on the server (`pbem.accounts.start_session`): Flask-Login's user id is
that session's random key (its "alternative token"), so the session cookie and the remember
cookie carry the key, and a request whose session row is gone (logged out, revoked, ended by
a password change or reset) is anonymous. Security headers come from flask-talisman, rate
limits from Flask-Limiter (`pbem.web.ratelimit`).

Pages speak the user's language (Flask-Babel, catalogues in `pbem/translations/`,
docs/i18n.md): the logged-in user's `language`, else the best of the browser's
Accept-Language among `pbem.i18n.LANGUAGES`, else English; times are shown in the user's
time zone.
"""

from __future__ import annotations

import gc
import math
import sys
from datetime import timedelta
from functools import lru_cache
from pathlib import Path

from flask import Flask, jsonify, render_template, request
from flask_babel import Babel, get_locale, gettext, lazy_gettext, ngettext
from flask_limiter import RateLimitExceeded
from flask_login import LoginManager, current_user
from flask_talisman import Talisman
from flask_wtf.csrf import CSRFError, CSRFProtect
from jinja2 import pass_eval_context
from markupsafe import Markup
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.routing import IntegerConverter

import engine
from pbem import accounts, config, i18n, reasons, wiring
from pbem.db import Database
from pbem.games import archive
from pbem.web import ratelimit

csrf = CSRFProtect()

MAX_ID = 2**31 - 1  # ids and move numbers are INTEGER columns: larger numbers name nothing


class IdConverter(IntegerConverter):
    """A URL part that is a row id or a move number: 0 to 2**31-1, anything else is a 404."""

    def __init__(self, url_map):
        super().__init__(url_map, min=0, max=MAX_ID)


# The Content-Security-Policy: everything from this site, no inline script, no plugins, no framing.
# No inline script and no inline style: every script and style comes from pbem/web/static.
CSP = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": ["'self'", "data:"],
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}
REMEMBER_DAYS = 30
TRANSLATIONS = Path(__file__).resolve().parent.parent / "translations"  # pbem/translations: messages.po/.mo


class WebUser:
    """The logged-in user as Flask-Login sees it: an id, a name and settings, no ORM session.

    `get_id()` is the session's key (Flask-Login's alternative token), never the user id, so
    every cookie names a session that the server can end.
    """

    is_authenticated = True
    is_active = True
    is_anonymous = False

    def __init__(self, user, session_key: str):
        self.session_key = session_key
        self.id = user.id
        self.email = user.email
        self.display_name = user.display_name
        self.timezone = user.timezone
        self.language = user.language
        self.email_verified = bool(user.email_verified)

    def get_id(self) -> str:
        return self.session_key


def select_locale() -> str:
    """The language of this request's pages: the user's, else the browser's best among ours, else English."""
    user = current_user
    if user is not None and user.is_authenticated:
        chosen = i18n.normalize(getattr(user, "language", None))
        if chosen:
            return chosen
    return i18n.best_match(request.headers.get("Accept-Language"))


def api_language() -> str:
    """The language of the JSON API's messages: English, which bots read, unless the request's
    Accept-Language names one of pbem's (a person writing a client in German reads German)."""
    return i18n.best_match(request.headers.get("Accept-Language"))


def reason(error: BaseException) -> str:
    """Why a request was refused (a service's refusal or an engine's error), in the page's language."""
    return reasons.reason(error, str(get_locale() or i18n.DEFAULT))


def words(message: engine.Message | None, language: str | None = None) -> str:
    """What a title's registry entry says (its blurb, an option's label or help) in the page's language
    (or `language`): the entry's words are engine Messages, translated with the `engine` catalogue
    (docs/i18n.md); English where it has no translation, "" for None."""
    if message is None:
        return ""
    language = i18n.normalize(language or str(get_locale() or i18n.DEFAULT)) or i18n.DEFAULT
    translated = reasons.translations(language).gettext(message.message_id)
    return str(engine.Message(translated, **message.params))


def select_timezone() -> str | None:
    """The logged-in user's time zone (None: UTC, Flask-Babel's default)."""
    user = current_user
    if user is not None and user.is_authenticated:
        return getattr(user, "timezone", None) or None
    return None


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__name__)
    settings = config.load()
    app.config.from_mapping(
        SECRET_KEY=settings.secret_key,
        DATABASE_URL=settings.database_url,
        BASE_URL=settings.base_url,
        # An upload bigger than an archive may be is refused before it is read.
        MAX_CONTENT_LENGTH=archive.MAX_ARCHIVE_BYTES + 64 * 1024,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        REMEMBER_COOKIE_SAMESITE="Lax",
        REMEMBER_COOKIE_HTTPONLY=True,
        REMEMBER_COOKIE_DURATION=timedelta(days=REMEMBER_DAYS),
        RATELIMIT_ENABLED=True,
        RATELIMIT_STORAGE_URI=settings.ratelimit_storage_url or ratelimit.DATABASE_STORAGE,
        # The counters' store away (Redis paused, the database restarting) must not fail a log-in
        # with a 500: count in this process's memory until the store answers again (Flask-Limiter
        # checks it), and let a request through if even that fails (the soak found the 500).
        RATELIMIT_IN_MEMORY_FALLBACK_ENABLED=True,
        RATELIMIT_SWALLOW_ERRORS=True,
        PROXIES=settings.proxies,
        WTF_CSRF_TIME_LIMIT=None,  # a game page may stay open for days; the token is tied to the session
        API_TITLE="pbem",
        API_VERSION="v1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/api/v1",
        OPENAPI_JSON_PATH="openapi.json",
        BABEL_DEFAULT_LOCALE=i18n.DEFAULT,
        BABEL_TRANSLATION_DIRECTORIES=str(TRANSLATIONS),
    )
    if test_config:
        app.config.update(test_config)
    https = app.config["BASE_URL"].startswith("https:")  # cookies are Secure on an https site
    app.config.update(SESSION_COOKIE_SECURE=https, REMEMBER_COOKIE_SECURE=https)
    if app.config["PROXIES"]:  # behind nginx: the client's address and scheme come from its headers
        hops = int(app.config["PROXIES"])
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops)
    wiring.connect()
    app.extensions["pbem_db"] = Database(app.config["DATABASE_URL"])
    app.url_map.converters["id"] = IdConverter

    csrf.init_app(app)
    # http -> https is the TLS proxy's redirect (a health check may call gunicorn directly over http).
    Talisman(app, content_security_policy=CSP, force_https=False, strict_transport_security=https,
             session_cookie_secure=https, frame_options="DENY", referrer_policy="same-origin")
    Babel(app, locale_selector=select_locale, timezone_selector=select_timezone)
    login = LoginManager(app)
    login.login_view = "auth.login"
    login.login_message = lazy_gettext("Please log in first.")
    login.localize_callback = str  # the lazy message in the language of the request that flashes it

    @login.user_loader
    def load_user(session_key: str):
        user = accounts.session_user(get_db(app), session_key)
        return WebUser(user, session_key) if user is not None else None

    from pbem.web import api, auth, lobby, play, players

    ratelimit.init_app(app)  # after the views are imported: it limits those marked `ratelimit.limited`
    app.register_blueprint(auth.bp)
    app.register_blueprint(lobby.bp)
    app.register_blueprint(play.bp)
    app.register_blueprint(players.bp)
    api.init_app(app)

    @app.errorhandler(CSRFError)
    def csrf_error(error):
        return render_template("error.html", message=gettext(
            "The form was out of date or tampered with (missing or wrong CSRF token): reload the page and "
            "try again.")), 400

    @app.errorhandler(404)
    def not_found(error):
        if request.path.startswith("/api/"):
            return jsonify(code="not_found",
                           message=i18n.texts(api_language()).gettext("There is no such resource.")), 404
        return render_template("error.html", message=gettext("There is no such page.")), 404

    @app.errorhandler(RateLimitExceeded)
    def too_many(error):
        wait = max(1, math.ceil(error.limit.limit.get_expiry() / 60))
        if request.path.startswith("/api/"):  # English unless Accept-Language asks for one of ours
            message = i18n.texts(api_language()).ngettext(
                "Too many requests of this kind (%(limit)s): try again within %(num)d minute.",
                "Too many requests of this kind (%(limit)s): try again within %(num)d minutes.",
                wait, limit=error.description)
            return jsonify(code="too_many_requests", message=message), 429
        message = ngettext("Too many requests of this kind (%(limit)s): try again within %(num)d minute.",
                           "Too many requests of this kind (%(limit)s): try again within %(num)d minutes.",
                           wait, limit=error.description)
        return render_template("error.html", message=message), 429

    @app.errorhandler(413)
    def too_large(error):
        if request.path.startswith("/api/"):
            return jsonify(code="too_large",
                           message=i18n.texts(api_language()).gettext("The body is too large for this API.")), 413
        return render_template("error.html", message=gettext(
            "The upload is too large: an archive may be at most %(size)d MB.",
            size=archive.MAX_ARCHIVE_BYTES // 1_000_000)), 413

    @app.context_processor
    def globals_for_templates():
        lang = str(get_locale() or i18n.DEFAULT)
        template_gettext, template_ngettext = template_translations(lang)
        return {"me": current_user, "lang": lang, "gettext": template_gettext, "ngettext": template_ngettext}

    if test_config is None:  # a server's app (gunicorn 'pbem.web:create_app()'), not a test's
        config.protect(settings)
        tune_server_process()
    return app


@lru_cache(maxsize=None)
def template_translations(language: str):
    """The `gettext` and `ngettext` a page's templates call (`_` is `gettext`), in one language.

    Jinja's i18n extension takes them from the rendering's context when it holds them (its
    documented choice between "globally or for each rendering"); the page's context processor
    gives these, bound to the request's language once per render, where Flask-Babel's global
    ones find the request's translations again for every string (a game page's CPU: docs/web.md,
    "Benchmark"). They behave as Jinja's newstyle gettext: the named values
    are put in with `%` (escaped where the template autoescapes) and `num` is ngettext's count.
    Macros imported without context still use Flask-Babel's, which give the same words.
    """
    catalogue = i18n.translator(language)

    @pass_eval_context
    def template_gettext(eval_ctx, message: str, **values):
        text = catalogue.gettext(message)
        return (Markup(text) if eval_ctx.autoescape else text) % values

    @pass_eval_context
    def template_ngettext(eval_ctx, singular: str, plural: str, num: int, **values):
        values.setdefault("num", num)
        text = catalogue.ngettext(singular, plural, num)
        return (Markup(text) if eval_ctx.autoescape else text) % values

    return template_gettext, template_ngettext


SWITCH_INTERVAL_S = 0.001


def tune_server_process() -> None:
    """Two settings of a web server's process that its page latency's tail depends on.

    - The garbage collector leaves what the process has built so far (modules, the app,
      engines, SQLAlchemy's tables) out of its full collections (`gc.freeze()`, after one
      collection, so no garbage is kept for good): a full collection stops every thread of the
      worker for much less time (the page's p99: docs/web.md, "Benchmark").
    - A thread back from the database waits for the GIL a fifth of the default at most
      (`sys.setswitchinterval`), while the worker's other threads render pages.
    """
    gc.collect()
    gc.freeze()
    sys.setswitchinterval(SWITCH_INTERVAL_S)


def get_db(app: Flask) -> Database:
    return app.extensions["pbem_db"]
