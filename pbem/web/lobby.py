"""The lobby (every game by status) and a read-only game page."""

from __future__ import annotations

from flask import Blueprint, abort, current_app, jsonify, render_template

from pbem import games
from pbem.web import get_db

bp = Blueprint("lobby", __name__)


@bp.get("/")
def index():
    listed = games.list_games(get_db(current_app))
    return render_template("index.html", games=listed)


@bp.get("/games/<int:game_id>")
def game_page(game_id: int):
    try:
        data = games.view(get_db(current_app), game_id)
    except games.NotFoundError:
        abort(404)
    return render_template("game.html", game=data, history=games.history(get_db(current_app), game_id))


@bp.get("/healthz")
def healthz():
    return jsonify(status="ok")
