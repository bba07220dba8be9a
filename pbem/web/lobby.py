"""The lobby and the home page: my games (those where it is my turn first), open tables, games to watch,
finished games; create, join, leave, start, invite; Web Push subscriptions.

Logged out, `/` says what the site is, which games it offers (a picture each) and how to
start. Lists are filtered by title (`?title=`) and paged (`?page=`, PAGE_SIZE rows). An open lobby
follows the games by itself as a game page does (issue 36 item 8): its script (static/lobby.js)
asks `/lobby/live` every LOBBY_POLL_MS for a stamp of what the lists show (an ETag, answered 304
while nothing changed) and fetches the page again when it changed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from flask import Blueprint, abort, current_app, flash, jsonify, redirect, render_template, request, url_for
from flask_babel import get_locale, gettext, ngettext
from flask_login import current_user, login_required
from flask_wtf import FlaskForm
from sqlalchemy import func, select
from wtforms import HiddenField, IntegerField, SelectField, SubmitField
from wtforms.validators import InputRequired, NumberRange

import engine
from pbem import accounts, config, games, i18n
from pbem.accounts.invitations import invite_by_email
from pbem.games import tables
from pbem.models import Game, GameStatus, MoveRecord, Seat
from pbem.notify import push
from pbem.players import bot_seats
from pbem.web import board, get_db, ratelimit, reason, words
from pbem.web.forms import ANY_COLOUR, ButtonForm, InviteForm, JoinForm, bot_level_choices, create_form_for, option_text, \
    options_from
from renderers.i18n import colour_word

bp = Blueprint("lobby", __name__)

PAGE_SIZE = 15  # rows of a list on one page of the lobby
LOBBY_POLL_MS = 3000  # how often an open lobby asks whether its lists changed
# What the lobby's lists change with, in one small read of indexed columns: the newest move (a turn passing, a
# resignation), the seats (joining, leaving), the games by status (a table opening, a game starting or ending).
_LOBBY_STAMP = select(select(func.max(MoveRecord.id)).scalar_subquery(), select(func.count(Seat.id)).scalar_subquery(),
                      select(func.max(Game.id)).scalar_subquery(),
                      *(select(func.count(Game.id)).where(Game.status == status.value).scalar_subquery()
                        for status in GameStatus))
@bp.app_context_processor
def titles_for_templates():
    """The titles every page's footer links to (their rules), what each is (its entry's blurb, in the page's
    language), and the players' marks."""
    return {"rule_titles": _titles(), "blurbs": {entry.name: words(entry.blurb) for entry in engine.entries()},
            "mark_svg": board.mark_svg, "shape_names": board.SHAPE_NAMES,
            "pictured": {name for name in engine.names() if board.has_pictures(name)}}


@bp.app_template_global("colour_word")
def _colour_word(colour: str | None) -> str | None:
    """A player's colour ("green") as a word of the page's language ("Grün"), as the pictures and mails say it."""
    return colour_word(i18n.texts(str(get_locale() or i18n.DEFAULT)), colour) if colour else colour


@dataclass
class Row:
    """One game in a lobby list: what it is, who sits there, how fast it goes, and my part in it."""

    id: int
    title: str
    title_name: str
    status: str
    players: int
    version: int
    to_move: int | None
    turn_hours: int | None
    options: dict
    seats: list
    my_seat: int | None = None
    turn_started_at: datetime | None = None  # when the seat to move got the turn (issue 35 item 6)

    @property
    def my_turn(self) -> bool:
        return (self.status == GameStatus.RUNNING.value and self.my_seat is not None and self.to_move == self.my_seat
                and not self.seats[self.my_seat].resigned)

    @property
    def mover(self) -> Seat | None:
        """The seat to move in a running game (the lobby says who, and since when)."""
        if self.status != GameStatus.RUNNING.value or self.to_move is None:
            return None
        return next((seat for seat in self.seats if seat.number == self.to_move), None)

    @property
    def pace(self) -> str:
        if not self.turn_hours:
            return gettext("no deadline")
        days, hours = divmod(self.turn_hours, 24)
        if hours == 0:
            return ngettext("%(num)d day a move", "%(num)d days a move", days)
        return ngettext("%(num)d hour a move", "%(num)d hours a move", self.turn_hours)

    @property
    def option_words(self) -> list[str]:
        return option_text(self.title, self.options)

    @property
    def free_colours(self) -> list[str]:
        return games.free_colours(engine.get(self.title), self.seats) if self.status == GameStatus.OPEN.value else []

    def marks(self):
        """(seat, name, colour, shape, letter) for each seat, as the pictures mark them."""
        return [(x, x.display_name, x.colour, board.MARK_SHAPES[x.number % len(board.MARK_SHAPES)],
                 (x.colour or "?")[:1].upper()) for x in self.seats]


def _rows(query, mine: dict[int, int] | None = None) -> list[Row]:
    """The games a query selects, with their seats (one more query)."""
    with get_db(current_app).sessions() as s:
        found = list(s.scalars(query))
        ids = [g.id for g in found]
        seats: dict[int, list[Seat]] = {}
        if ids:
            for seat in s.scalars(select(Seat).where(Seat.game_id.in_(ids)).order_by(Seat.game_id, Seat.number)):
                seats.setdefault(seat.game_id, []).append(seat)
        titles = _titles()
        return [Row(g.id, g.title, titles.get(g.title, g.title), g.status, g.players, g.version, g.to_move,
                    g.turn_hours, dict(g.options or {}), seats.get(g.id, []), (mine or {}).get(g.id),
                    g.turn_started_at) for g in found]


def _page_of(query, page: int):
    """One page of a list: (rows query limited, number of pages)."""
    with get_db(current_app).sessions() as s:
        total = s.scalar(select(func.count()).select_from(query.order_by(None).subquery()))
    pages = max(1, -(-total // PAGE_SIZE))
    return query.limit(PAGE_SIZE).offset((min(page, pages) - 1) * PAGE_SIZE), pages


@bp.get("/")
def index():
    if not current_user.is_authenticated:
        return render_template("home.html", describes=[engine.get(n).describe() for n in engine.names()])
    title = request.args.get("title") if request.args.get("title") in engine.names() else None
    page = max(1, request.args.get("page", 1, type=int) or 1)
    etag = lobby_etag()  # read before the lists: a change while they are read shows at the next poll
    with get_db(current_app).sessions() as s:
        mine = dict(s.execute(select(Seat.game_id, Seat.number).where(Seat.user_id == current_user.id)).all())
    by_title = (Game.title == title) if title else True
    live = (GameStatus.OPEN.value, GameStatus.RUNNING.value)
    my_games = _rows(select(Game).where(Game.id.in_(mine), Game.status.in_(live), by_title)
                     .order_by(Game.id.desc()), mine) if mine else []
    my_turn = [r for r in my_games if r.my_turn]
    my_other = [r for r in my_games if not r.my_turn]
    # The tables mail's /list shows too (pbem.games.tables), less those where I sit.
    open_query, open_pages = _page_of(tables.open_tables_query(title, current_user.id), page)
    watch = _rows(select(Game).where(Game.status == GameStatus.RUNNING.value, Game.id.not_in(mine or [-1]), by_title)
                  .order_by(Game.id.desc()).limit(PAGE_SIZE))
    finished = _rows(select(Game).where(Game.status == GameStatus.FINISHED.value, by_title)
                     .order_by(Game.id.desc()).limit(PAGE_SIZE), mine)
    # Seats whose players missed their deadlines or left, played by a bot until someone takes them (issue 37).
    offered = [seat for seat in bot_seats.open_seats(get_db(current_app), title) if seat[0] not in mine][:PAGE_SIZE]
    return render_template("index.html", my_turn=my_turn, my_other=my_other, open_games=_rows(open_query),
                           page=min(page, open_pages), pages=open_pages, watch=watch, finished=finished,
                           title=title, titles=_titles(), button=ButtonForm(), etag=etag,
                           poll_ms=LOBBY_POLL_MS, offered=offered)


def lobby_etag() -> str:
    """The stamp of the lobby's lists: it changes when a move is played, a seat taken or left, a game opened,
    started or ended anywhere (the lists show others' games too)."""
    row = get_db(current_app).read(_LOBBY_STAMP)[0]
    return hashlib.sha256(repr(tuple(row)).encode()).hexdigest()[:24]


@bp.get("/lobby/live")
@login_required
def live():
    """The lobby's stamp: an open lobby asks it every LOBBY_POLL_MS (304 while unchanged) and reloads its lists."""
    etag = lobby_etag()
    response = jsonify(etag=etag)
    response.set_etag(etag)
    response.headers["Cache-Control"] = "no-cache"
    return response.make_conditional(request)


def _titles() -> dict[str, str]:
    return {name: engine.get(name).title for name in engine.names()}


@bp.get("/games/new")
@login_required
def new_game():
    return render_template("new_game.html", describes=[engine.get(n).describe() for n in engine.names()])


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
                                        timeout_policy=form.timeout_policy.data, colour=_colour(form),
                                        press=form.press.data, press_spectators=form.press_spectators.data,
                                        press_after_end=form.press_after_end.data,
                                        press_late_blocked=form.press_late_blocked.data,
                                        rated=form.rated.data, min_reliability=form.min_reliability.data,
                                        replace_after=form.replace_after.data,
                                        bot_level=form.replace_level.data if form.replace_after.data else None)
        except games.GameError as error:
            _refusal_beside(form, error)
        else:
            flash(gettext("Game %(game)d is open. Invite players or wait for them to join.", game=game_id))
            return redirect(url_for("play.game_page", game_id=game_id))
    return render_template("create_game.html", form=form, describe=describe), 400 if form.errors else 200


def bots_form_for(describe: dict) -> FlaskForm:
    """The short form of a game against bots (issue 37): how many seats (all but the player's are bots) and
    the bots' level, both filled in (the fewest players, the easiest level), so one more click starts it."""

    class BotsForm(FlaskForm):
        players = IntegerField(gettext("Players, you and the bots (%(least)d to %(most)d)",
                                       least=describe["min_players"], most=describe["max_players"]),
                               default=describe["min_players"], validators=[
                                   InputRequired(), NumberRange(describe["min_players"], describe["max_players"])])
        bot_level = SelectField(gettext("The bots' level"), default=tables.DEFAULT_BOT_LEVEL,
                                choices=bot_level_choices())
        submit = SubmitField(gettext("Start the game"))

    if describe["min_players"] == describe["max_players"]:
        BotsForm.players = HiddenField(default=str(describe["min_players"]), filters=[lambda v: int(v) if v else v],
                                       validators=[InputRequired(), NumberRange(describe["min_players"],
                                                                                describe["max_players"])])
    form = BotsForm()
    form.fixed_players = describe["min_players"] == describe["max_players"]
    return form


@bp.route("/games/bots/<title>", methods=["GET", "POST"])
@login_required
def play_with_bots(title: str):
    """Start a game against bots: the lobby's "Play against bots" opens this form, filled in; its button
    starts the game at once, every other seat a bot's (games.create_game with bot seats), and shows it."""
    if title not in engine.names():
        abort(404)
    describe = engine.get(title).describe()
    form = bots_form_for(describe)
    if form.validate_on_submit():
        players = int(form.players.data)
        try:
            game_id = games.create_game(get_db(current_app), title, current_user.id, players, {},
                                        turn_hours=tables.DEFAULT_TURN_HOURS, bot_seats=players - 1,
                                        bot_level=form.bot_level.data)
        except games.GameError as error:
            form.players.errors = [reason(error)]
        else:
            flash(ngettext("Game %(game)d has started: you against %(num)d bot.",
                           "Game %(game)d has started: you against %(num)d bots.", players - 1, game=game_id))
            return redirect(url_for("play.game_page", game_id=game_id))
    return render_template("create_game.html", bots_form=form, describe=describe), 400 if form.errors else 200


def _refusal_beside(form, error: games.GameError) -> None:
    """A create form's refusal shown beside the field it is about: a policy for abandoned seats at a rated table
    (issue 37: bots may play there, so it is not rated) beside the policy's field, any other beside the seats."""
    policy_refused = form.replace_after.data is not None and form.rated.data and "not rated" in error.message
    (form.replace_after if policy_refused else form.players).errors = [reason(error)]


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
        flash(reason(error), "error")
        return redirect(url_for("play.game_page", game_id=game_id)), 303
    flash(done)
    return redirect(url_for("play.game_page", game_id=game_id)), 303


@bp.post("/games/<id:game_id>/join")
@login_required
def join(game_id: int):
    db = get_db(current_app)
    colour = _colour(JoinForm())  # absent (the game page's button): any colour
    done = gettext("You have a seat, in %(colour)s.", colour=_colour_word(colour)) if colour else gettext("You have a seat.")
    return _act(game_id, lambda: games.join_game(db, game_id, current_user.id, colour), done)


@bp.post("/games/<id:game_id>/leave")
@login_required
def leave(game_id: int):
    db = get_db(current_app)
    return _act(game_id, lambda: games.leave_game(db, game_id, current_user.id), gettext("You left the table."))


@bp.post("/games/<id:game_id>/seats/<int:seat>/take")
@login_required
def take_seat(game_id: int, seat: int):
    """Take over a seat offered to a replacement (issue 37 item 3): its position and turn, not its notes."""
    db = get_db(current_app)
    return _act(game_id, lambda: tables.take_seat(db, game_id, seat, current_user.id),
                gettext("The seat is yours: you play on from the position it is in."))


@bp.post("/games/<id:game_id>/start")
@login_required
def start(game_id: int):
    db = get_db(current_app)
    return _act(game_id, lambda: games.start_game(db, game_id, current_user.id), gettext("The game has started."))


@bp.post("/games/<id:game_id>/resign")
@login_required
def resign(game_id: int):
    db = get_db(current_app)
    return _act(game_id, lambda: games.resign(db, game_id, current_user.id, source="web"), gettext("You resigned."))


@bp.post("/games/<id:game_id>/invite")
@login_required
@ratelimit.limited(ratelimit.invites)
def invite(game_id: int):
    form = InviteForm()
    if not form.validate_on_submit():
        flash(gettext("Give an email address to invite."), "error")
        return redirect(url_for("play.game_page", game_id=game_id)), 303
    try:
        invite_by_email(get_db(current_app), game_id, current_user.id, form.email.data,
                        current_app.config["BASE_URL"])
    except (games.GameError, accounts.AccountError) as error:
        flash(reason(error), "error")
    else:
        flash(gettext("Invitation sent to %(address)s.", address=form.email.data.strip()))
    return redirect(url_for("play.game_page", game_id=game_id)), 303


# --- Web Push: a browser's subscription to "your turn" notifications ----------------------------------


@bp.get("/push/key")
def push_key():
    """The server's VAPID public key (the browser's `applicationServerKey`)."""
    return jsonify(key=push.public_key(config.load().data_dir))


@bp.post("/push/subscribe")
@login_required
def push_subscribe():
    """Keep this browser's push subscription (JSON as `PushSubscription.toJSON()` gives it) for the user."""
    try:
        push.subscribe(get_db(current_app), current_user.id, request.get_json(silent=True) or {},
                       request.headers.get("User-Agent", ""))
    except push.SubscriptionError as error:
        return jsonify(ok=False, message=reason(error)), 400
    return jsonify(ok=True, count=push.count(get_db(current_app), current_user.id))


@bp.post("/push/unsubscribe")
@login_required
def push_unsubscribe():
    """Forget one of the user's browsers (by its endpoint), or all of them without one."""
    endpoint = (request.get_json(silent=True) or {}).get("endpoint")
    push.unsubscribe(get_db(current_app), current_user.id, endpoint if isinstance(endpoint, str) else None)
    return jsonify(ok=True, count=push.count(get_db(current_app), current_user.id))


@bp.get("/healthz")
def healthz():
    return jsonify(status="ok")
