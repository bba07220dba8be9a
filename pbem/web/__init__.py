"""The web app: Flask application factory and blueprints.

This first version is read-only (the lobby and each game's state, whose turn, the move log
and the seed commitment); accounts, forms, the replay viewer and the API come with the web
issue and use the same service functions.
"""

from __future__ import annotations

from flask import Flask

from pbem import config
from pbem.db import Database


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__name__)
    settings = config.load()
    app.config.from_mapping(SECRET_KEY=settings.secret_key, DATABASE_URL=settings.database_url)
    if test_config:
        app.config.update(test_config)
    app.extensions["pbem_db"] = Database(app.config["DATABASE_URL"])

    from pbem.web import lobby

    app.register_blueprint(lobby.bp)
    return app


def get_db(app: Flask) -> Database:
    return app.extensions["pbem_db"]
