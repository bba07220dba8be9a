"""The web app: Flask application factory and blueprints.

Blueprints: `auth` (sign-up, login, verification, reset, settings, API tokens), `lobby`
(games, create, join, leave, start, invite), `play` (the game page, moves, the replay
viewer, archives) and `api` (JSON under /api/v1 with its OpenAPI document, bearer tokens).
Every page is server-rendered HTML with a little vanilla JavaScript; nothing to build.
Every view of a game comes from `pbem.games.view` for the logged-in user, so a page can
only show what that user's seat (or a spectator) may see.
"""

from __future__ import annotations

import collections
import gc
import sys

from flask import Flask, g, jsonify, render_template, request
from flask.sessions import SecureCookieSessionInterface
from flask_login import LoginManager, current_user
from flask_wtf.csrf import CSRFError, CSRFProtect
from sqlalchemy import create_engine
from werkzeug.routing import IntegerConverter

from pbem import archive, config
from pbem.db import Database

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


# What WebUser needs of a users row, for read_one (the game page reads it with the game: see preload_user).
USER_COLUMNS = "users.id, users.email, users.display_name, users.timezone, users.email_verified"
UserRow = collections.namedtuple("UserRow", "id email display_name timezone email_verified")


def preload_user(row) -> None:
    """A users row read along with a page's own query: Flask-Login's user loader takes it instead of a query.

    Flask-Login still does everything else (the session's user id, session protection); the
    loader only uses this row for the very id the session names, in this request.
    """
    if row is not None and row.id is not None:
        g.pbem_user = WebUser(row)


class SessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, with the signing serializer made once per key set.

    Flask builds it on every request (and itsdangerous checks it by serializing `{}`); the
    keys are the app's, so the same serializer serves until they change.
    """

    def __init__(self):
        self._serializers: dict = {}

    def get_signing_serializer(self, app: Flask):
        keys = (app.secret_key, tuple(app.config["SECRET_KEY_FALLBACKS"] or ()))
        serializer = self._serializers.get(keys)
        if serializer is None:
            serializer = self._serializers[keys] = super().get_signing_serializer(app)
        return serializer


class WebDatabase(Database):
    """The service's database, plus (on PostgreSQL) a second small pool for the reads of every page.

    The reads pool runs in autocommit and without the pre-ping that the service's pool does
    on every checkout: a game page is then one round trip to the database. A connection the
    server dropped (a restart) is noticed by the read itself, which empties the pool and
    tries once more (see read_one). On SQLite the reads share the service's engine.
    """

    def __init__(self, url: str):
        super().__init__(url)
        self.reads = create_engine(self.url, isolation_level="AUTOCOMMIT") if self.is_postgres else self.engine

    def dispose(self) -> None:
        super().dispose()
        if self.reads is not self.engine:
            self.reads.dispose()


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
    app.extensions["pbem_db"] = WebDatabase(app.config["DATABASE_URL"])
    app.session_interface = SessionInterface()
    app.url_map.converters["id"] = IdConverter

    csrf.init_app(app)
    login = LoginManager(app)
    login.login_view = "auth.login"
    login.login_message = "Please log in first."

    @login.user_loader
    def load_user(user_id: str):
        preloaded = g.get("pbem_user")
        if preloaded is not None and preloaded.get_id() == user_id:
            return preloaded
        # Every logged-in request asks this once: one small read, not an ORM session (see read_one).
        if session_user_id(user_id) is None:
            return None
        user = read_one(get_db(app), f"SELECT {USER_COLUMNS} FROM users WHERE users.id = ?", (int(user_id),), UserRow)
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
      (`sys.setswitchinterval`), while the worker's other threads render pages: a request
      makes several such waits.
    """
    gc.collect()
    gc.freeze()
    sys.setswitchinterval(SWITCH_INTERVAL_S)


def get_db(app: Flask) -> Database:
    return app.extensions["pbem_db"]


def session_user_id(value) -> int | None:
    """A user id as the session holds it (a string of digits), or None."""
    return int(value) if isinstance(value, str) and value.isdigit() and int(value) <= MAX_ID else None


def read_one(db: Database, sql: str, params: tuple, row_type=None):
    """The first row of one small read, or None: one round trip, no ORM, no transaction.

    For the reads every page makes (the logged-in user, the game page cache's key). Through an
    ORM session on the service's pool each cost a pre-ping, a BEGIN and a ROLLBACK round trip
    besides the query, and several times the CPU. `sql` marks parameters with `?`; the row is
    a plain tuple, or `row_type._make(row)` (a named tuple class naming the selected columns).
    """
    engine = getattr(db, "reads", db.engine)
    postgres = engine.dialect.name == "postgresql"
    for attempt in (1, 2):
        connection = engine.raw_connection()
        try:
            if postgres:
                with connection.driver_connection.cursor() as cursor:
                    cursor.execute(sql.replace("?", "%s"), params)
                    row = cursor.fetchone()
            else:
                cursor = connection.cursor()
                try:
                    cursor.execute(sql, params)
                    row = cursor.fetchone()
                finally:
                    cursor.close()
            return row if row is None or row_type is None else row_type._make(row)
        except engine.dialect.loaded_dbapi.OperationalError:
            connection.invalidate()
            if attempt == 2 or engine is db.engine:
                raise
            # The server closed the connection (a restart): every pooled one is gone too.
            engine.dispose()
        except BaseException:
            connection.invalidate()  # a connection that failed half-way is not given to the next request
            raise
        finally:
            connection.close()
