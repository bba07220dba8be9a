"""A rematch on the web (issue 35, item 5): the finished game page's banner and its buttons.

The game page of a finished game shows its players the rematch (`_rematch.html`, included by
`game.html`): a Rematch button while none is offered (or the last offer ended), the open offer with who
accepted and who is awaited and Accept / Decline buttons, or the link to the new game. The offer is
read for each request (`rematch_offer`, given to the play blueprint's templates), never kept with
the page's cached parts: it changes without a move.

The buttons are CSRF-protected forms posted here. Accept carries the offer the page showed, so a click
on an offer that was declined or lapsed meanwhile is refused with the reason instead of proposing a new
one; the Rematch button carries none (it proposes, or accepts an offer made meanwhile). What the offer
does is pbem.players.rematch's; its mails are pbem.mail.commands.rematch's (`tell`).
"""

from __future__ import annotations

from flask import abort, current_app, flash, jsonify, redirect, request, url_for
from flask_babel import gettext
from flask_login import current_user, login_required

from pbem import games, i18n
from pbem.mail.commands.rematch import said, tell
from pbem.notify import wording
from pbem.players import rematch
from pbem.web import get_db, reason
from pbem.web.forms import ButtonForm
from pbem.web.play import bp
from pbem.web.play.helpers import page_language


@bp.context_processor
def _offer_reader() -> dict:
    """`rematch_offer(game_id)` and `rematch_when(moment)` for the templates: read only when a page calls it."""
    return {"rematch_offer": lambda game_id: rematch.current(get_db(current_app), game_id),
            "rematch_when": lambda at: wording.when(at, page_language(), "%Y-%m-%d %H:%M UTC")}


def _offer_id() -> int | None:
    """The offer the page showed (the Accept and Decline buttons carry it), or None."""
    value = request.form.get("offer", "")
    return int(value) if value.isdigit() and len(value) <= 12 else None


def _refused(game_id: int, error: games.GameError):
    """A refusal (nothing was changed): a game that is not there is a 404, as its page is."""
    if isinstance(error, games.NotFoundError):
        abort(404)
    return _answer(game_id, reason(error), ok=False, status=error.http_status)


def _answer(game_id: int, message: str, ok: bool = True, status: int = 200, new_game: int | None = None):
    """JSON for a script; else the message on the page the player goes to (the new game once it has begun)."""
    if request.accept_mimetypes.best_match(["text/html", "application/json"]) == "application/json":
        return jsonify(ok=ok, message=message, new_game=new_game), status
    flash(message, "message" if ok else "error")
    return redirect(url_for("play.game_page", game_id=new_game or game_id)), 303


@bp.post("/games/<id:game_id>/rematch")
@login_required
def rematch_accept(game_id: int):
    """Ask for the rematch: propose it, or accept the offer open (the one the page showed, if it says)."""
    ButtonForm().validate_on_submit()  # CSRFProtect has checked the token before this view ran
    try:
        done = rematch.accept(get_db(current_app), game_id, current_user.id, tell=tell, offer_id=_offer_id())
    except games.GameError as error:
        return _refused(game_id, error)
    return _answer(game_id, said(i18n.texts(page_language()), done), new_game=done.offer.new_game_id)


@bp.post("/games/<id:game_id>/rematch/decline")
@login_required
def rematch_decline(game_id: int):
    """Decline the open offer (even after accepting it): it ends, and the other players are told."""
    ButtonForm().validate_on_submit()
    try:
        done = rematch.decline(get_db(current_app), game_id, current_user.id, tell=tell, offer_id=_offer_id())
    except games.GameError as error:
        return _refused(game_id, error)
    return _answer(game_id, gettext("You declined the rematch.") if done.kind == "declined" else
                   gettext("You had declined the rematch already; nothing was done."))
