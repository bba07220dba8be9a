"""The web app: Flask application factory and blueprints.

Blueprints: `auth` (sign-up, login, verification, reset, settings, API tokens), `lobby`
(games, create, join, leave, start, invite), `play` (the game page, moves, the replay
viewer, archives) and `api` (JSON under /api/v1 with its OpenAPI document, bearer tokens).
Every page is server-rendered HTML with a little vanilla JavaScript; nothing to build.
Every view of a game comes from `pbem.games.view` for the logged-in user, so a page can
only show what that user's seat (or a spectator) may see.
"""

from __future__ import annotations

import gc
import sys

from flask import Flask, jsonify, render_template, request
from flask_login import LoginManager, current_user
from flask_wtf.csrf import CSRFError, CSRFProtect
from werkzeug.routing import IntegerConverter

from pbem import accounts, config, wiring
from pbem.db import Database
from pbem.games import archive

csrf = CSRFProtect()

MAX_ID = 2**31 - 1  # ids and move numbers are INTEGER columns: larger numbers name nothing


class IdConverter(IntegerConverter):
    """A URL part that is a row id or a move number: 0 to 2**31-1, anything else is a 404."""

    def __init__(self, url_map):
        super().__init__(url_map, min=0, max=MAX_ID)


class WebUser:
    """The logged-in user as Flask-Login sees it: an id, a name and settings, no ORM session."""

    is_authenticated = True
    is_active = True
    is_anonymous = False

    def __init__(self, user):
        self.id = user.id
        self.email = user.email
        self.display_name = user.display_name
        self.timezone = user.timezone
        self.email_verified = bool(user.email_verified)

    def get_id(self) -> str:
        return str(self.id)


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
        SESSION_COOKIE_SECURE=settings.base_url.startswith("https:"),
        REMEMBER_COOKIE_SAMESITE="Lax",
        WTF_CSRF_TIME_LIMIT=None,  # a game page may stay open for days; the token is tied to the session
        API_TITLE="pbem",
        API_VERSION="v1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/api/v1",
        OPENAPI_JSON_PATH="openapi.json",
    )
    if test_config:
        app.config.update(test_config)
    wiring.connect()
    app.extensions["pbem_db"] = Database(app.config["DATABASE_URL"])
    app.url_map.converters["id"] = IdConverter

    csrf.init_app(app)
    login = LoginManager(app)
    login.login_view = "auth.login"
    login.login_message = "Please log in first."

    @login.user_loader
    def load_user(user_id: str):
        if not user_id.isdigit() or int(user_id) > MAX_ID:
            return None
        user = accounts.get_user(get_db(app), int(user_id))
        return WebUser(user) if user is not None else None

    from pbem.web import api, auth, lobby, play

    app.register_blueprint(auth.bp)
    app.register_blueprint(lobby.bp)
    app.register_blueprint(play.bp)
    api.init_app(app)

    @app.errorhandler(CSRFError)
    def csrf_error(error):
        return render_template("error.html", message="The form was out of date or tampered with "
                               "(missing or wrong CSRF token): reload the page and try again."), 400

    @app.errorhandler(404)
    def not_found(error):
        if request.path.startswith("/api/"):
            return jsonify(code="not_found", message="There is no such resource."), 404
        return render_template("error.html", message="There is no such page."), 404

    @app.errorhandler(413)
    def too_large(error):
        return render_template("error.html", message="The upload is too large: an archive may be at most "
                               f"{archive.MAX_ARCHIVE_BYTES // 1_000_000} MB."), 413

    @app.context_processor
    def globals_for_templates():
        return {"me": current_user}

    if test_config is None:  # a server's app (gunicorn 'pbem.web:create_app()'), not a test's
        tune_server_process()
    return app


SWITCH_INTERVAL_S = 0.001


def tune_server_process() -> None:
    """Two settings of a web server's process that its page latency's tail depends on.

    - The garbage collector leaves what the process has built so far (modules, the app,
      engines, SQLAlchemy's tables) out of its full collections (`gc.freeze()`, after one
      collection, so no garbage is kept for good). A full collection of a gunicorn worker took
      65 to 130 ms under bench/web.py, with every thread of the worker waiting; after the
      freeze, 3 to 40 ms.
    - A thread back from the database waits for the GIL at most 1 ms instead of 5 ms
      (`sys.setswitchinterval`), while the worker's other threads render pages.
    """
    gc.collect()
    gc.freeze()
    sys.setswitchinterval(SWITCH_INTERVAL_S)


def get_db(app: Flask) -> Database:
    return app.extensions["pbem_db"]
