"""A table's policy for abandoned seats on the game page, and leaving a running game (issue 37, item 3).

A table that declared the policy (`Game.replace_after`, at creation) says it in words on the game page
(`seat_policy`, given to the play blueprint's templates: the players' list in `_live.html`), and a player
seated in the running game gets "Leave this game" (`_leave_seat.html`): the seat goes to a bot of the table's
level and is offered to a replacement (`games.leave_game`, `games.tables.hand_to_bot`). Without the policy a
started game is not left (the page offers Resign only), and a post here is refused with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import abort, current_app, flash, redirect, url_for
from flask_babel import gettext, ngettext
from flask_login import current_user, login_required

from pbem import games
from pbem.models import Game, GameStatus
from pbem.web import get_db, reason
from pbem.web.forms import BOT_LEVEL_LABELS, ButtonForm
from pbem.web.play import bp


@dataclass(frozen=True)
class Policy:
    """A table's declared policy for abandoned seats: after `replace_after` missed deadlines in a row, a bot
    of `level` plays the seat until a replacement takes it; `running`: the game may be left now."""

    replace_after: int
    level: str
    running: bool

    def words(self) -> str:
        """The policy as the page says it, in the page's language."""
        return ngettext("Abandoned seats: a player who misses %(num)d deadline in a row, or leaves, is replaced by "
                        "a bot (%(level)s) until someone takes the seat over.",
                        "Abandoned seats: a player who misses %(num)d deadlines in a row, or leaves, is replaced by "
                        "a bot (%(level)s) until someone takes the seat over.", self.replace_after,
                        level=gettext(BOT_LEVEL_LABELS.get(self.level, self.level)))


def policy_of(game_id: int) -> Policy | None:
    """The game's policy for abandoned seats, or None (none declared, or no such game)."""
    with get_db(current_app).sessions() as s:
        game = s.get(Game, game_id)
        if game is None or game.replace_after is None:
            return None
        return Policy(game.replace_after, game.bot_level or "", game.status == GameStatus.RUNNING.value)


@bp.context_processor
def _policy_reader() -> dict:
    """`seat_policy(game_id)` for the templates: read only when a page calls it (fixed once the table is open)."""
    return {"seat_policy": policy_of}


@bp.post("/games/<id:game_id>/seat/leave")
@login_required
def leave_seat(game_id: int):
    """Leave a running game whose table allows it: a bot plays the seat until a replacement takes it."""
    ButtonForm().validate_on_submit()  # CSRFProtect has checked the token before this view ran
    policy = policy_of(game_id)
    if policy is None or not policy.running:
        flash(gettext("Game %(game)d cannot be left: only a running game whose table hands abandoned seats to a bot "
                      "can. Resign instead.", game=game_id), "error")
        return redirect(url_for("play.game_page", game_id=game_id)), 303
    try:
        games.leave_game(get_db(current_app), game_id, current_user.id)
    except games.NotFoundError:
        abort(404)
    except games.GameError as error:
        flash(reason(error), "error")
        return redirect(url_for("play.game_page", game_id=game_id)), 303
    flash(gettext("You left game %(game)d. A bot plays your seat until a replacement takes it.", game=game_id))
    return redirect(url_for("play.game_page", game_id=game_id)), 303
