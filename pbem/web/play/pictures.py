"""The board pictures of a game: after any move (`/games/<id>/board/<seq>.png`) and after a move the player to
move has not played yet (`/games/<id>/preview.png?move=...`).

A board picture is drawn once and stored (pbem.boards), for the viewer's own seat only when that is
not a secret of the past; a preview is the engine's (`rules.preview`, issue 31), stopped before
anything is drawn or rolled, for the player to move only, and kept per process (`_PREVIEWS`).
Each drawing counts against the client's limit of drawings (`pbem.web.ratelimit`).
"""

from __future__ import annotations

from flask import Response, abort, current_app, request
from flask_babel import gettext
from flask_login import current_user, login_required

import renderers
from engine.core import IllegalMove
from pbem import boards, games, i18n
from pbem.kept import Kept
from pbem.models import GameStatus
from pbem.web import get_db, ratelimit, reason
from pbem.web.play import bp
from pbem.web.play.helpers import MAX_STEPS, picture_language, pictures_for, preview_steps, stored_image, viewer_id

PREVIEW_TEXT_MAX = 400  # characters of a previewed move, as the move form takes
PREVIEWS_KEPT = 64

_PREVIEWS = Kept(PREVIEWS_KEPT)


@bp.get("/games/<id:game_id>/preview.png")
@login_required
@ratelimit.limited(ratelimit.drawings)
def preview(game_id: int):
    """The board as the player to move would see it after one of their legal moves, before they play it
    (`move` repeated: after the steps of a turn built on the game page, in order; issue 36).

    The engine's preview (`rules.preview`, issue 31): the move and the decisions with one choice
    after it, stopped before anything is drawn or rolled, so the picture holds nothing the player
    cannot see now; one that stopped says in its header that the rest comes with the move. Only
    for the player to move, in a title with pictures. Each drawing counts against the client's
    limit; a picture is kept per position (the chain head), seat, move, names and language.
    """
    texts = [t.strip() for t in request.args.getlist("move")] or [""]  # a turn built on the page: several (issue 36)
    if any(len(text) > PREVIEW_TEXT_MAX for text in texts) or len(texts) > MAX_STEPS:
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
        key = (db.url, game.id, game.chain_head, mine[0], tuple(texts), names, language)
        png = _PREVIEWS.get(key)
        headers = {"Cache-Control": "private, max-age=600"}
        if png is None:
            headers["X-Pbem-Drawn"] = "1"  # a drawing counts against the client's limit (issue 19, item 7)
            rules = games.rules_of(game)
            state = games.load_state(game)
            try:
                after = preview_steps(rules, state, mine[0], texts).state
            except IllegalMove as error:
                return Response(reason(error), status=422, mimetype="text/plain")
            view = {**rules.view(after, mine[0]), "player_names": list(names)}
            png = renderers.render(game.title, view, texts=i18n.texts(language))
            _PREVIEWS.put(key, png)
    return Response(png, mimetype="image/png", headers=headers)


@bp.get("/games/<id:game_id>/board/<id:seq>.png")
@ratelimit.limited(ratelimit.drawings)
def board_png(game_id: int, seq: int):
    """The board picture after move `seq`, for the viewer's own seat only when that is not a secret of the past.

    A picture is drawn once and stored (pbem.boards); its SHA-256 is the ETag. Drawing one
    that was not stored yet counts against the client's limit of drawings.
    """
    db = get_db(current_app)
    try:
        data = games.view(db, game_id, viewer_id())
    except games.NotFoundError:
        abort(404)
    if not 0 <= seq <= data["version"] or data.get("board") is None:
        abort(404)
    viewer = data.get("my_seat")
    if data["status"] == "running" and seq != data["version"]:
        viewer = None  # while a game runs, the past is shown only as a spectator saw it
    found = boards.picture(db, game_id, seq, boards.SPECTATOR if viewer is None else viewer, picture_language())
    if found is None:
        abort(404)
    return stored_image(found, "image/png", "private" if viewer is not None else "public")
