"""A finished game's archive (`/games/<id>/archive.json`) and the upload that checks one and opens its replay
(`/archives/upload`): the checks themselves are pbem.games.archive's.
"""

from __future__ import annotations

from flask import Response, abort, current_app, flash, redirect, render_template, url_for
from flask_babel import gettext
from flask_login import login_required

from pbem import games, talk
from pbem.games import archive
from pbem.web import get_db, ratelimit, reason
from pbem.web.forms import UploadForm
from pbem.web.play import bp
from pbem.web.play.helpers import viewer_id


@bp.get("/games/<id:game_id>/archive.json")
def download_archive(game_id: int):
    try:
        db = get_db(current_app)
        # The table's talk that this reader may read: the public messages, and a player's own private ones and notes.
        body = archive.export_bytes(db, game_id, talk.archived(db, game_id, viewer_id()))
    except games.NotFoundError:
        abort(404)
    except archive.ArchiveError as error:
        return render_template("error.html", message=reason(error)), error.http_status
    return Response(body, mimetype="application/json", headers={
        "Content-Disposition": f'attachment; filename="pbem-game-{game_id}.json"'})


@bp.route("/archives/upload", methods=["GET", "POST"])
@login_required
@ratelimit.limited(ratelimit.uploads)
def upload_archive():
    """Check an uploaded archive and open its replay: the game it makes, or the one the same archive made
    before (pbem.games.archive.import_game). Each upload counts against the account's and the site's limits."""
    form = UploadForm()
    if form.validate_on_submit():
        raw = form.archive.data.read(archive.MAX_ARCHIVE_BYTES + 1)
        try:
            imported = archive.import_game(get_db(current_app), raw)
        except archive.ArchiveError as error:
            form.archive.errors = [reason(error)]
        else:
            if imported.new:
                flash(gettext("The archive checked out; it is game %(game)d now.", game=imported.game_id))
            else:
                flash(gettext("This archive was uploaded before: it is game %(game)d.", game=imported.game_id))
            return redirect(url_for("play.replay", game_id=imported.game_id, seq=0)), 303
    return render_template("upload.html", form=form), 400 if form.errors else 200
