"""The lobby: open tables with free seats, my games, finished games; create, join, leave, start, invite."""

from __future__ import annotations

from flask import Blueprint, abort, current_app, flash, jsonify, redirect, render_template, request, url_for
from flask_login import current_user, login_required
from sqlalchemy import select

import engine
from pbem import accounts, games
from pbem.models import Game, GameStatus, OutboundMail, Seat, User
from pbem.notify import outbox
from pbem.web import get_db, ratelimit
from pbem.web.forms import ANY_COLOUR, ButtonForm, InviteForm, JoinForm, create_form_for, options_from

bp = Blueprint("lobby", __name__)


def my_game_ids(user_id: int) -> set[int]:
    with get_db(current_app).sessions() as s:
        return set(s.scalars(select(Seat.game_id).where(Seat.user_id == user_id)))


@bp.get("/")
def index():
    listed = games.list_games(get_db(current_app))
    mine = my_game_ids(current_user.id) if current_user.is_authenticated else set()
    open_games = [g for g in listed if g["status"] == "open" and g["seated"] < g["players"]]
    my_games = [g for g in listed if g["id"] in mine and g["status"] in ("open", "running")]
    running = [g for g in listed if g["status"] == "running" and g["id"] not in mine]
    finished = [g for g in listed if g["status"] == "finished"][-50:]
    seats = _seats_of([g["id"] for g in open_games + my_games + running + finished])
    free = {g["id"]: games.free_colours(engine.get(g["title"]), seats.get(g["id"], [])) for g in open_games}
    return render_template("index.html", open_games=open_games, my_games=my_games, running=running,
                           finished=list(reversed(finished)), titles=_titles(), button=ButtonForm(), mine=mine,
                           seats=seats, free_colours=free)


def _seats_of(game_ids: list[int]) -> dict[int, list[Seat]]:
    """The seats of the listed games (name and colour for the table), in one query."""
    if not game_ids:
        return {}
    found: dict[int, list[Seat]] = {}
    with get_db(current_app).sessions() as s:
        query = select(Seat).where(Seat.game_id.in_(game_ids)).order_by(Seat.game_id, Seat.number)
        for seat in s.scalars(query):
            s.expunge(seat)
            found.setdefault(seat.game_id, []).append(seat)
    return found


def _titles() -> dict[str, str]:
    return {name: engine.get(name).title for name in engine.names()}


@bp.get("/games/new")
@login_required
def new_game():
    return render_template("new_game.html", titles=[engine.get(n).describe() for n in engine.names()])


@bp.route("/games/new/<title>", methods=["GET", "POST"])
@login_required
def create_game(title: str):
    if title not in engine.names():
        abort(404)
    describe = engine.get(title).describe()
    form = create_form_for(describe)
    if form.validate_on_submit():
        try:
            game_id = games.create_game(get_db(current_app), title, current_user.id, form.players.data,
                                        options_from(form), turn_hours=form.turn_hours.data,
                                        timeout_policy=form.timeout_policy.data, colour=_colour(form))
        except games.GameError as error:
            form.players.errors = [str(error)]
        else:
            flash(f"Game {game_id} is open. Invite players or wait for them to join.")
            return redirect(url_for("play.game_page", game_id=game_id))
    return render_template("create_game.html", form=form, describe=describe), 400 if form.errors else 200


def _colour(form) -> str | None:
    """The colour a create or join form asks for (None: any)."""
    colour = (form.colour.data or "").strip().lower()
    return None if colour in ("", ANY_COLOUR) else colour


def _act(game_id: int, action, done: str):
    """Run one lobby action for the logged-in user; a refusal is flashed, nothing changes."""
    ButtonForm().validate_on_submit()  # CSRFProtect has checked the token before this view ran
    try:
        action()
    except games.GameError as error:
        flash(str(error), "error")
        return redirect(url_for("play.game_page", game_id=game_id)), 303
    flash(done)
    return redirect(url_for("play.game_page", game_id=game_id)), 303


@bp.post("/games/<id:game_id>/join")
@login_required
def join(game_id: int):
    db = get_db(current_app)
    colour = _colour(JoinForm())  # absent (the game page's button): any colour
    done = f"You have a seat, in {colour}." if colour else "You have a seat."
    return _act(game_id, lambda: games.join_game(db, game_id, current_user.id, colour), done)


@bp.post("/games/<id:game_id>/leave")
@login_required
def leave(game_id: int):
    db = get_db(current_app)
    return _act(game_id, lambda: games.leave_game(db, game_id, current_user.id), "You left the table.")


@bp.post("/games/<id:game_id>/start")
@login_required
def start(game_id: int):
    db = get_db(current_app)
    return _act(game_id, lambda: games.start_game(db, game_id, current_user.id), "The game has started.")


@bp.post("/games/<id:game_id>/resign")
@login_required
def resign(game_id: int):
    db = get_db(current_app)
    return _act(game_id, lambda: games.resign(db, game_id, current_user.id, source="web"), "You resigned.")


@bp.post("/games/<id:game_id>/invite")
@login_required
@ratelimit.limited(ratelimit.invites)
def invite(game_id: int):
    form = InviteForm()
    if not form.validate_on_submit():
        flash("Give an email address to invite.", "error")
        return redirect(url_for("play.game_page", game_id=game_id)), 303
    try:
        invite_by_email(get_db(current_app), game_id, current_user.id, form.email.data,
                        current_app.config["BASE_URL"])
    except (games.GameError, accounts.AccountError) as error:
        flash(str(error), "error")
    else:
        flash(f"Invitation sent to {form.email.data.strip()}.")
    return redirect(url_for("play.game_page", game_id=game_id)), 303


MAX_INVITES_PER_GAME = 20


def invite_by_email(db, game_id: int, user_id: int, email: str, base_url: str) -> None:
    """Queue an invitation mail (outbox kind "invite"): only a player at an open table may invite."""
    address = accounts.normalize_email(email)
    with db.transaction() as s:
        game = s.get(Game, game_id)
        if game is None:
            raise games.NotFoundError(f"There is no game {game_id}.")
        seat = s.scalars(select(Seat).where(Seat.game_id == game_id, Seat.user_id == user_id)).first()
        if seat is None:
            raise games.NotAllowedError(f"Only players at game {game_id} can invite others to it.")
        if game.status != GameStatus.OPEN.value:
            raise games.GameStateError(f"Game {game_id} is {game.status}; only open tables take invitations.")
        sent = s.scalars(select(OutboundMail.id).where(OutboundMail.game_id == game_id,
                                                       OutboundMail.kind == "invite")).all()
        if len(sent) >= MAX_INVITES_PER_GAME:
            raise games.NotAllowedError(f"Game {game_id} has had {MAX_INVITES_PER_GAME} invitations already.")
        invitee = s.scalars(select(User).where(User.email == address)).first()
        title = engine.get(game.title).title
        outbox.queue(
            s, game_id=game.id, user_id=invitee.id if invitee else None, kind="invite", recipient=address,
            subject=f"[pbem #{game.id} {title}] {seat.display_name} invites you to a game",
            body=(f"{seat.display_name} invites you to a game of {title} (game {game.id}).\n\n"
                  f"To take a seat, open:\n\n  {base_url.rstrip('/')}/games/{game.id}\n\n"
                  "If you do not want to play, ignore this mail."))


@bp.get("/healthz")
def healthz():
    return jsonify(status="ok")
