"""The replay of a game: the viewer that steps through every move (`/games/<id>/replay`) and the animated
replay of a finished game (`/games/<id>/replay/animation`, and its `status` as JSON).

The viewer shows one position (a spectator's view while the game runs; at the end each player's
own) and hands the page's script every move's notation and mover. The animation is drawn by the
worker once per language (pbem.boards) and only downloaded here: no request draws one.
"""

from __future__ import annotations

import json
import math

from flask import abort, current_app, jsonify, make_response, render_template, request
from flask_babel import gettext, ngettext
from markupsafe import Markup

import renderers
from pbem import boards, games, talk
from pbem.web import board, get_db, ratelimit
from pbem.web.play import bp
from pbem.web.play.helpers import (
    board_items, picture_args, picture_language, pictures_for, stored_image, title_name, viewer_id,
)


@bp.get("/games/<id:game_id>/replay")
def replay(game_id: int):
    """One position of the replay (`?seq=N`, default the last), with every move's notation and mover for the
    page's script, which steps through them without reloading (keys, slider, autoplay, `#move=N`)."""
    db = get_db(current_app)
    try:
        summary = games.view(db, game_id, viewer_id())
    except games.NotFoundError:
        abort(404)
    if summary.get("board") is None:
        return render_template("error.html", message=gettext(
            "Game %(game)d has not started: nothing to replay.", game=game_id)), 409
    last = summary["version"]
    seq = request.args.get("seq", type=int)
    seq = last if seq is None else max(0, min(seq, last))
    seat = summary.get("my_seat") if summary["status"] == "finished" else None
    step = games.view_at(db, game_id, seq, seat)
    colours = {s["seat"]: s["colour"] for s in summary["seats"]}
    names = {s["seat"]: s["name"] for s in summary["seats"]}
    steps = [{"seq": 0, "notation": "", "player": None, "colour": None}]
    steps += [{"seq": m["seq"], "notation": m["notation"], "player": m["player"], "colour": colours.get(m["seat"])}
              for m in games.history(db, game_id)]
    # The table's talk at its moment: what this reader may read (pbem.talk), after the move it was written at.
    for said in talk.conversation(db, game_id, viewer_id(), limit=None):
        if not said.hidden and 0 <= said.seq < len(steps):
            steps[said.seq].setdefault("talk", []).append(
                {"author": said.author, "to": list(said.to_names) if said.private else None, "text": said.body})
    has_pictures = pictures_for(summary["title"])
    return render_template(
        "replay.html", game=summary, step=step, seq=seq, last=last, steps=steps,
        steps_json=Markup(json.dumps(steps).replace("<", "\\u003c")),
        step_talk=steps[seq].get("talk", []) if seq < len(steps) else [],
        mover=names.get(step["move"]["seat"]) if step["move"] else None,
        mover_colour=colours.get(step["move"]["seat"]) if step["move"] else None,
        items=[] if has_pictures else board_items(step["board"]), has_pictures=has_pictures,
        players=board.players(summary["title"], summary, None),
        picture_args=picture_args(), has_animation=can_animate(summary), title_name=title_name(summary["title"]))


@bp.get("/games/<id:game_id>/replay/animation")
@ratelimit.limited(ratelimit.drawings)
def animation(game_id: int):
    """The animated replay (GIF) of a finished game, drawn once per language from the spectator's views by the
    worker (pbem.boards); its words are in the language of its address's `lang` (picture_args), else the page's.

    Not drawn yet: 202 and a page that says it is being prepared and asks `animation_status` until it is
    ready, then fetches it (static/animation.js); beyond the site's budget of drawings, 503 with the wait.
    No request draws anything."""
    found = boards.animation(get_db(current_app), game_id, picture_language())
    if found.status == boards.AnimationStatus.DONE:
        return stored_image(found.picture, "image/gif", "public", **{
            "Content-Disposition": f'attachment; filename="pbem-game-{game_id}.gif"'})
    state, message, status = _animation_answer(game_id, found)
    if state != "preparing":
        response = make_response(render_template("error.html", message=message), status)
    else:
        response = make_response(render_template(
            "animation.html", game_id=game_id, message=message, picture_args=picture_args(picture_language())), status)
    return _not_stored(response, found)


@bp.get("/games/<id:game_id>/replay/animation/status")
@ratelimit.limited(ratelimit.drawings)
def animation_status(game_id: int):
    """Where the animated replay stands, as JSON for the pages' script (static/animation.js), asking for it
    as `animation` does: {"status": "ready" | "preparing" | "busy" | "too_large", "message", "retry_after"}."""
    found = boards.animation(get_db(current_app), game_id, picture_language(), with_picture=False)
    state, message, status = _animation_answer(game_id, found)
    return _not_stored(make_response(jsonify(status=state, message=message, retry_after=found.retry_after_s),
                                     status), found)


def _animation_answer(game_id: int, found) -> tuple[str, str, int]:
    """What a request learns of an animated replay (pbem.boards.Animated): its state for the script, the
    sentence for the reader, and the HTTP status. There is none (not a finished game, no renderer): 404."""
    if found.status == boards.AnimationStatus.DONE:
        return "ready", gettext("The animated replay is ready: it is downloading."), 200
    if found.preparing:
        return "preparing", gettext("The animated replay is being prepared: it downloads by itself when it is "
                                    "ready."), 202
    if found.status == boards.AnimationStatus.OVER_BUDGET:
        minutes = max(1, math.ceil(found.retry_after_s / 60))
        return "busy", ngettext("Too many animated replays were asked for this hour (this site draws at most "
                                "%(limit)d an hour): try again in %(num)d minute.",
                                "Too many animated replays were asked for this hour (this site draws at most "
                                "%(limit)d an hour): try again in %(num)d minutes.",
                                minutes, limit=boards.ANIMATIONS_PER_HOUR), 503
    if found.status == boards.AnimationStatus.TOO_LARGE:
        return "too_large", gettext("Game %(game)d is too long to animate; the replay viewer shows every move.",
                                    game=game_id), 404
    abort(404)


def _not_stored(response, found):
    """An answer about an animated replay that is not there yet: never kept by a cache; with Retry-After when
    there is a wait; and a drawing this request asked for counts against the client's limit of drawings."""
    response.headers["Cache-Control"] = "no-store"
    if found.retry_after_s is not None:
        response.headers["Retry-After"] = str(found.retry_after_s)
    if found.requested:
        response.headers["X-Pbem-Drawn"] = "1"
    return response


def can_animate(summary: dict) -> bool:
    """Animated replays exist for finished games whose title has pictures."""
    return summary["status"] == "finished" and renderers.available(summary["title"])
