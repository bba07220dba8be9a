"""The JSON API under /api/v1 for bots and other clients, with its OpenAPI document (flask-smorest).

Authentication is a bearer token (`Authorization: Bearer pbem_...`, made on the settings
page); reading public things (the game list, a spectator's view, the history, a finished
game's archive) needs none. The view for a seat comes only from `games.view` for the
token's user, so a bot sees exactly what its player would. Errors are JSON:
{"code": <HTTP status>, "status": ..., "message": <one sentence>, "errors": {"reason": <kind>}}.
The message is English, which bots read, unless the request's Accept-Language names one of
pbem's languages (`pbem.web.api_language`): then it speaks that one, the engines' reasons too;
the `reason` kind is the same in every language.
A body that is not JSON a client could mean (nested too deep, numbers of thousands of
digits, larger than MAX_BODY) is refused with 400 before any schema reads it.
"""

from __future__ import annotations

import dataclasses
import json
import re

from flask import Response, current_app, request, url_for
from flask.views import MethodView
from flask_smorest import Api, Blueprint, abort
from marshmallow import Schema, fields, validate

import engine
from pbem import accounts, games, i18n, reasons, talk
from pbem.i18n import N_
from pbem.games import archive
from pbem.games import tables
from pbem.games.tables import PRESS_MODES
from pbem.models import User
from pbem.notify import webhooks
from pbem.players import pages, ratings, reliability
from pbem.mail.commands.rematch import tell as tell_rematch
from pbem.players import rematch
from pbem.web import MAX_ID, IdConverter, api_language, csrf, get_db

API_PREFIX = "/api/v1"
MAX_BODY = 64 * 1024  # no request of this API needs more
SECURITY = [{"bearerAuth": []}]
UTC = "%Y-%m-%dT%H:%M:%SZ"  # how the answers write a time (stored in UTC)

blp = Blueprint("api", __name__, url_prefix=API_PREFIX, description="Games, moves, history and archives.")


# --------------------------------------------------------------------------------------
# Schemas


class ListQuery(Schema):
    status = fields.String(validate=validate.OneOf(["open", "running", "finished", "abandoned"]))


class GameRow(Schema):
    id = fields.Integer()
    title = fields.String()
    status = fields.String()
    players = fields.Integer()
    seated = fields.Integer()
    version = fields.Integer()


class CreateGame(Schema):
    title = fields.String(required=True, validate=validate.Length(1, 40))
    players = fields.Integer(required=True, strict=True, validate=validate.Range(1, 12))
    options = fields.Dict(keys=fields.String(validate=validate.Length(1, 40)), load_default=dict)
    turn_hours = fields.Integer(strict=True, allow_none=True, load_default=None, validate=validate.Range(1, 24 * 60))
    timeout_policy = fields.String(load_default="wait", validate=validate.OneOf(games.TIMEOUT_POLICIES))
    colour = fields.String(allow_none=True, load_default=None, validate=validate.Length(1, 20), metadata={
        "description": "the colour I play, one of the title's colours (see /titles); absent: any"})
    press = fields.String(load_default="full", validate=validate.OneOf(PRESS_MODES), metadata={
        "description": "table talk: messages to the table and to some players (full), to the table only, none"})
    press_spectators = fields.Boolean(load_default=False, metadata={"description": "spectators read the public messages"})
    press_after_end = fields.Boolean(load_default=True, metadata={"description": "the table may talk after the end"})
    press_late_blocked = fields.Boolean(load_default=False, metadata={
        "description": "a player past the deadline of their turn writes again only once they have moved"})
    rated = fields.Boolean(load_default=False, metadata={"description": "the result changes the players' ratings"})
    min_reliability = fields.Integer(strict=True, allow_none=True, load_default=None, validate=validate.Range(0, 100),
                                     metadata={"description": "the least reliability (whole percent, see "
                                                              "/players/{id}/reliability) a player needs to take a "
                                                              "seat, mine too; null or 0: anybody"})
    bots = fields.Integer(strict=True, load_default=0, validate=validate.Range(0, 11), metadata={
        "description": "how many of the other seats bots play (issue 37); a table they fill starts at once, and a "
                       "game with bots is not rated"})
    bot_level = fields.String(allow_none=True, load_default=None, validate=validate.Length(1, 16), metadata={
        "description": "the bots' level: easy, medium or hard; absent: easy"})
    replace_after = fields.Integer(strict=True, allow_none=True, load_default=None, validate=validate.Range(1, 10),
                                   metadata={"description": "abandoned seats (issue 37): after this many missed "
                                                            "deadlines in a row, or when its player leaves, a seat "
                                                            "is offered to a replacement and a bot of bot_level "
                                                            "plays it meanwhile; null: no such policy"})


class JoinGame(Schema):
    colour = fields.String(allow_none=True, load_default=None, validate=validate.Length(1, 20), metadata={
        "description": "a free colour of the table (free_colours in the game); absent: any"})


class Created(Schema):
    id = fields.Integer()


class Joined(Schema):
    seat = fields.Integer()
    colour = fields.String(allow_none=True, metadata={
        "description": "the colour asked for (null: any), or the colour played once the game has started"})
    started = fields.Boolean()


class Done(Schema):
    ok = fields.Boolean()


class SeatInfo(Schema):
    seat = fields.Integer()
    name = fields.String()
    colour = fields.String(allow_none=True, metadata={
        "description": "while the table is open the colour asked for (null: any); from the start the colour played"})
    resigned = fields.Boolean()


class RematchPlayer(Schema):
    name = fields.String()
    colour = fields.String(allow_none=True)
    accepted = fields.Boolean()


class RematchInfo(Schema):
    id = fields.Integer()
    status = fields.String(metadata={"description": "open, started, declined or lapsed"})
    proposed_by = fields.String()
    created_at = fields.String()
    lapses_at = fields.String(metadata={"description": "when an open offer lapses (UTC)"})
    closed_at = fields.String(allow_none=True)
    declined_by = fields.String(allow_none=True)
    new_game_id = fields.Integer(allow_none=True, metadata={"description": "the rematch, once every player accepted"})
    players = fields.List(fields.Nested(RematchPlayer), metadata={"description": "in the new game's seat order"})


class GameView(Schema):
    id = fields.Integer()
    title = fields.String()
    engine_version = fields.String()
    options = fields.Dict()
    players = fields.Integer()
    status = fields.String()
    version = fields.Integer(metadata={"description": "moves applied; send it back as expected_version"})
    to_move = fields.Integer(allow_none=True)
    deadline = fields.String(allow_none=True)
    commitment = fields.String(allow_none=True)
    seed = fields.String(allow_none=True, metadata={"description": "only once the game is over"})
    result = fields.Dict(allow_none=True)
    seats = fields.List(fields.Nested(SeatInfo))
    free_colours = fields.List(fields.String(), metadata={
        "description": "colours a new player may ask for when joining (empty once the game has started)"})
    my_seat = fields.Integer(allow_none=True)
    board = fields.Dict(allow_none=True, metadata={"description": "the game's view for my seat (see docs/games)"})
    legal_moves = fields.List(fields.String())
    rematch = fields.Nested(RematchInfo, allow_none=True, metadata={
        "description": "a finished game's latest rematch offer (null: none was made)"})


class RematchAsk(Schema):
    offer = fields.Integer(strict=True, allow_none=True, load_default=None, validate=validate.Range(1, MAX_ID),
                           metadata={"description": "the offer I answer: refused if it is no longer open; absent: "
                                                    "propose a rematch, or accept the open offer"})


class RematchDone(Schema):
    outcome = fields.String(metadata={"description": "proposed, accepted, started, declined, or already (nothing "
                                                     "changed)"})
    offer = fields.Nested(RematchInfo)


class LegalMoves(Schema):
    version = fields.Integer()
    to_move = fields.Integer(allow_none=True)
    my_seat = fields.Integer(allow_none=True)
    moves = fields.List(fields.String())


class SubmitMove(Schema):
    move = fields.String(required=True, validate=validate.Length(1, 400),
                         metadata={"description": "the move in the game's notation, e.g. 'take 2'"})
    expected_version = fields.Integer(strict=True, allow_none=True, load_default=None,
                                      validate=validate.Range(0, 10_000_000))
    key = fields.String(allow_none=True, load_default=None, validate=validate.Length(1, 128),
                        metadata={"description": "idempotency key: the same key again applies nothing"})


class Submitted(Schema):
    seq = fields.Integer()
    notation = fields.String()
    duplicate = fields.Boolean()
    finished = fields.Boolean()
    to_move = fields.Integer(allow_none=True)
    auto_moves = fields.List(fields.String())


class HistoryRow(Schema):
    seq = fields.Integer()
    seat = fields.Integer()
    player = fields.String(allow_none=True)
    notation = fields.String()
    source = fields.String()
    at = fields.String()


class ReplayStep(Schema):
    game_id = fields.Integer()
    seq = fields.Integer()
    of = fields.Integer()
    move = fields.Dict(allow_none=True)
    board = fields.Dict()


class Title(Schema):
    name = fields.String()
    title = fields.String()
    version = fields.String()
    min_players = fields.Integer()
    max_players = fields.Integer()
    colours = fields.List(fields.String(), metadata={"description": "the colours a player may ask for"})
    options = fields.List(fields.Dict())


class RatingsQuery(Schema):
    title = fields.String(required=True, validate=validate.Length(1, 40), metadata={
        "description": "a title's name (see /titles)"})


class RatingRow(Schema):
    name = fields.String(metadata={"description": "the player's display name"})
    mu = fields.Float(metadata={"description": "openskill's skill estimate"})
    sigma = fields.Float(metadata={"description": "its uncertainty (one standard deviation)"})
    ordinal = fields.Float(metadata={"description": "mu - 3 sigma: what the list is sorted by"})
    games = fields.Integer(metadata={"description": "rated games played at this title"})
    shown = fields.String(metadata={"description": "as the pages show it: mu ± 2 sigma"})


class ReliabilityFigures(Schema):
    games_finished = fields.Integer(metadata={"description": "games they played to the end (or ended by conceding)"})
    games_abandoned = fields.Integer(metadata={"description": "games they left: resigned by the timeout policy, or "
                                                             "resigned while the others played on"})
    finished_share = fields.Float(allow_none=True, metadata={"description": "finished / (finished + abandoned), "
                                                                           "0 to 1; null: no game over for them"})
    turns = fields.Integer(metadata={"description": "the turns the game passed to them"})
    missed = fields.Integer(metadata={"description": "the deadlines they missed"})
    missed_per_100_turns = fields.Float(allow_none=True, metadata={"description": "null: no turn yet"})
    response_hours = fields.List(fields.Float(), allow_none=True, metadata={
        "description": "the quartiles (q1, median, q3) of the hours from the start of a turn to their first move "
                       "in it; null: no turn they moved in yet"})
    percent = fields.Integer(allow_none=True, metadata={
        "description": "the reliability figure a table's min_reliability is compared with: finished_share times "
                       "the share of turns without a missed deadline, whole percent rounded down; null: no "
                       "history yet (joins any table)"})


class Sitter(Schema):
    name = fields.String(metadata={"description": "the name at the table"})
    user_id = fields.Integer(allow_none=True, metadata={"description": "the player (their page: /players/{id}); "
                                                                       "null: a seat without an account"})
    seat = fields.Integer()


class PlayerGame(Schema):
    id = fields.Integer()
    title = fields.String()
    title_name = fields.String()
    status = fields.String()
    version = fields.Integer(metadata={"description": "moves played"})
    seat = fields.Integer(metadata={"description": "the player's seat"})
    colour = fields.String(allow_none=True)
    resigned = fields.Boolean()
    rated = fields.Boolean()
    players = fields.List(fields.Nested(Sitter), metadata={"description": "everyone at the table, in seat order"})
    to_move = fields.Nested(Sitter, allow_none=True, metadata={"description": "who is to move (running games)"})
    since = fields.DateTime(UTC, allow_none=True, metadata={"description": "when that turn began"})
    finished_at = fields.DateTime(UTC, allow_none=True)
    place = fields.Integer(allow_none=True, metadata={"description": "the player's place in the result (1: first)"})
    tied = fields.Boolean(metadata={"description": "another seat shares the place"})
    points = fields.Float(allow_none=True)
    rating_change = fields.Float(allow_none=True, metadata={"description": "what the game did to their rating's mu"})


class PlayerRating(RatingRow):
    """A player's rating at one title: a list's row without the name, with the title."""

    class Meta:
        exclude = ("name",)

    title = fields.String()
    title_name = fields.String()


class PlayerPage(Schema):
    id = fields.Integer()
    name = fields.String()
    url = fields.String(metadata={"description": "the path of the player's page"})
    member_since = fields.DateTime(UTC)
    languages = fields.List(fields.String())
    hidden = fields.Boolean(metadata={"description": "the page is shown only to players who played with them"})
    ratings = fields.List(fields.Nested(PlayerRating))
    reliability = fields.Nested(ReliabilityFigures)
    waiting = fields.List(fields.Nested(PlayerGame), metadata={
        "description": "running games where the others wait for them, the longest waiting first"})
    playing = fields.List(fields.Nested(PlayerGame), metadata={"description": "their other running games"})
    open = fields.List(fields.Nested(PlayerGame), metadata={"description": "open tables they sit at"})
    finished = fields.List(fields.Nested(PlayerGame), metadata={"description": "their newest ended games"})
    finished_count = fields.Integer(metadata={"description": "their ended games in all"})


class MessageRow(Schema):
    id = fields.Integer()
    seq = fields.Integer(metadata={"description": "moves played when it was written"})
    seat = fields.Integer(metadata={"description": "the author's seat"})
    author = fields.String()
    to = fields.List(fields.Integer(), allow_none=True, metadata={"description": "the seats it was written to; "
                                                                                "null: the whole table"})
    body = fields.String(allow_none=True, metadata={"description": "null: hidden by the site's operators"})
    at = fields.String()
    hidden = fields.Boolean()


class PostMessage(Schema):
    text = fields.String(required=True, validate=validate.Length(1, 4000))
    to = fields.List(fields.Integer(strict=True, validate=validate.Range(0, 99)), allow_none=True,
                     load_default=None, validate=validate.Length(1, 12),
                     metadata={"description": "seats to write to; absent or null: the whole table"})


class NoteRow(Schema):
    id = fields.Integer()
    seq = fields.Integer()
    body = fields.String()
    at = fields.String()


class PostNote(Schema):
    text = fields.String(required=True, validate=validate.Length(1, 4000))


class Posted(Schema):
    id = fields.Integer()


class WebhookRow(Schema):
    id = fields.Integer()
    url = fields.String(metadata={"description": "the address shortened: the whole address is a secret, never shown "
                                                "again"})
    format = fields.String(metadata={"description": "discord, slack or matrix"})
    kinds = fields.List(fields.String(), metadata={"description": "the news it takes"})
    created_at = fields.String()
    last_status = fields.Integer(allow_none=True, metadata={"description": "the HTTP status of the last answer"})
    last_error = fields.String(allow_none=True, metadata={"description": "why the last post failed"})
    last_sent_at = fields.String(allow_none=True)
    failures = fields.Integer(metadata={"description": "posts failed for good in a row"})
    paused = fields.Boolean(metadata={"description": "it takes no news after too many failures; add it again"})


class AddWebhook(Schema):
    url = fields.String(required=True, validate=validate.Length(1, 2048), metadata={
        "description": "the webhook's https address (public addresses only)"})
    format = fields.String(allow_none=True, load_default=None, validate=validate.OneOf(webhooks.FORMATS), metadata={
        "description": "the service; absent: found from a discord.com or hooks.slack.com address"})
    kinds = fields.List(fields.String(validate=validate.OneOf(webhooks.CHOICES)), allow_none=True, load_default=None,
                        validate=validate.Length(1, len(webhooks.CHOICES)), metadata={
                            "description": "the news it takes; absent: turn, result, reminder and mentioned"})


# --------------------------------------------------------------------------------------
# Helpers


def _token_user() -> int | None:
    header = request.headers.get("Authorization", "")
    if not header.startswith("Bearer "):
        return None
    return accounts.user_for_token(get_db(current_app), header[len("Bearer "):].strip())


def _need_user() -> int:
    user_id = _token_user()
    if user_id is None:
        abort(401, message=_texts().gettext("Send a valid API token: 'Authorization: Bearer <token>' (made on the "
                                            "settings page)."), headers={"WWW-Authenticate": "Bearer"})
    return user_id


def _texts() -> i18n.Texts:
    """The API's own messages in the request's language (English unless Accept-Language names one of ours)."""
    return i18n.texts(api_language())


def _fail(error: games.GameError):
    abort(error.http_status, message=reasons.reason(error, api_language()),
          errors={"reason": error.code})


@blp.before_request
def _readable_body():
    """Refuse, with the reason, a JSON body the schemas could not even be given (never a 500)."""
    if request.method not in ("POST", "PUT", "PATCH"):
        return
    if (request.content_length or 0) > MAX_BODY:
        abort(413, message=_texts().gettext("The body is larger than %(size)d KB; no request of this API needs that.",
                                            size=MAX_BODY // 1024), errors={"reason": "too_large"})
    body = request.get_data(cache=True)
    if not body or not request.is_json:
        return
    try:
        json.loads(body)
    except RecursionError:
        abort(400, message=_texts().gettext("The JSON is nested too deeply."), errors={"reason": "bad_json"})
    except json.JSONDecodeError as error:
        abort(400, message=_texts().gettext("The body is not valid JSON: %(error)s at line %(line)d, column "
                                            "%(column)d.", error=error.msg, line=error.lineno, column=error.colno),
              errors={"reason": "bad_json"})
    except ValueError:  # Python's limit on converting a number of thousands of digits
        abort(400, message=_texts().gettext("The JSON holds a number with far too many digits."),
              errors={"reason": "bad_json"})


# --------------------------------------------------------------------------------------
# A body or query the schemas refuse (422)

# marshmallow's messages for what these schemas check (its `{name}` placeholders), and the
# catalogue's sentence for each: a refusal's field messages are given in the request's language.
# tests/web/test_api.py sends a body that fails each check, so a new wording in a marshmallow
# release shows there.
SCHEMA_MESSAGES = {
    "Missing data for required field.": N_("Missing data for required field."),
    "Field may not be null.": N_("Field may not be null."),
    "Unknown field.": N_("Unknown field."),
    "Invalid input type.": N_("Invalid input type."),
    "Not a valid string.": N_("Not a valid string."),
    "Not a valid integer.": N_("Not a valid integer."),
    "Not a valid mapping type.": N_("Not a valid mapping type."),
    "Must be one of: {choices}.": N_("Must be one of: %(choices)s."),
    "Length must be between {min} and {max}.": N_("Length must be between %(min)s and %(max)s."),
    "Must be greater than or equal to {min} and less than or equal to {max}.":
        N_("Must be at least %(min)s and at most %(max)s."),
}
_SCHEMA_PATTERNS = [(re.compile(re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.*)", re.escape(english)) + "$"), message)
                    for english, message in SCHEMA_MESSAGES.items()]


def _schema_message(text: str, texts: i18n.Texts) -> str:
    for pattern, message in _SCHEMA_PATTERNS:
        found = pattern.match(text)
        if found:
            return texts.gettext(message, **found.groupdict())  # no placeholders: the message as it is
    return text


def _translated(errors, texts: i18n.Texts):
    """webargs' errors (location -> field -> messages, nested) with each message in `texts`' language."""
    if isinstance(errors, dict):
        return {key: _translated(value, texts) for key, value in errors.items()}
    if isinstance(errors, list):
        return [_translated(value, texts) for value in errors]
    return _schema_message(errors, texts) if isinstance(errors, str) else errors


def _invalid_fields(api: Api, error):
    """flask-smorest's answer to a refusal of the schemas, with a `message` naming the fields and the fields'
    messages in the request's language (English unless Accept-Language names one of ours)."""
    response = current_app.make_response(api.handle_http_exception(error))
    if not request.path.startswith(API_PREFIX) or "messages" not in (getattr(error, "data", None) or {}):
        return response  # not a schema's refusal: an engine's or the service's, which says its own reason
    texts = _texts()
    body = response.get_json()
    body["errors"] = _translated(body.get("errors", {}), texts)
    names = sorted({str(name) for fields_of in body["errors"].values() if isinstance(fields_of, dict)
                    for name in fields_of})
    body["message"] = texts.gettext("These fields are not valid: %(fields)s (see errors).",
                                    fields=", ".join(names)) if names else texts.gettext(
        "The request is not valid (see errors).")
    response.set_data(json.dumps(body))
    return response


# --------------------------------------------------------------------------------------
# Routes


@blp.route("/titles")
class Titles(MethodView):
    @blp.response(200, Title(many=True))
    def get(self):
        """The games this server runs, with their options."""
        return [engine.get(name).describe() for name in engine.names()]


@blp.route("/ratings")
class Ratings(MethodView):
    @blp.arguments(RatingsQuery, location="query")
    @blp.response(200, RatingRow(many=True))
    def get(self, query):
        """The best ratings at a title (at most 50), by ordinal (mu - 3 sigma), highest first."""
        if query["title"] not in engine.names():
            abort(400, message=_texts().gettext("There is no game called %(name)s; the games are: %(games)s.",
                                                name=repr(query["title"]), games=", ".join(engine.names())),
                  errors={"reason": "unknown_title"})
        return ratings.top(get_db(current_app), query["title"])


@blp.route("/players/<id:user_id>")
class PlayerItem(MethodView):
    @blp.response(200, PlayerPage)
    @blp.doc(security=SECURITY + [{}])
    def get(self, user_id):
        """A player's page as data: their games, ratings, reliability, member since, languages; 404 for a page
        hidden from those who never played with them, as for nobody."""
        found = pages.page(get_db(current_app), user_id, _token_user())
        if found is None:
            abort(404, message=_texts().gettext("There is no player %(user)d.", user=user_id),
                  errors={"reason": "not_found"})
        return {**dataclasses.asdict(found), "url": url_for("players.page", user_id=found.id, name=found.slug)}


@blp.route("/players/<id:user_id>/reliability")
class PlayerReliability(MethodView):
    @blp.response(200, ReliabilityFigures)
    @blp.doc(security=SECURITY + [{}])
    def get(self, user_id):
        """A player's reliability and pace (docs/web.md); 404 where their page is (hidden from those who never
        played with them)."""
        viewer = _token_user()
        with get_db(current_app).sessions() as s:
            user = s.get(User, user_id)
            if user is None or not pages.may_see(s, user, viewer):
                abort(404, message=_texts().gettext("There is no player %(user)d.", user=user_id),
                      errors={"reason": "not_found"})
            figures = reliability.of_user(s, user_id)
        return {**figures, "percent": reliability.figure(figures)}


@blp.route("/games")
class GameList(MethodView):
    @blp.arguments(ListQuery, location="query")
    @blp.response(200, GameRow(many=True))
    def get(self, query):
        """List games, optionally by status."""
        return games.list_games(get_db(current_app), query.get("status"))

    @blp.arguments(CreateGame)
    @blp.response(201, Created)
    @blp.doc(security=SECURITY)
    def post(self, body):
        """Open a new table with me in the first seat."""
        user_id = _need_user()
        try:
            game_id = games.create_game(get_db(current_app), body["title"], user_id, body["players"], body["options"],
                                        turn_hours=body["turn_hours"], timeout_policy=body["timeout_policy"],
                                        colour=body["colour"], press=body["press"],
                                        press_spectators=body["press_spectators"],
                                        press_after_end=body["press_after_end"],
                                        press_late_blocked=body["press_late_blocked"], rated=body["rated"],
                                        min_reliability=body["min_reliability"], bot_seats=body["bots"],
                                        bot_level=body["bot_level"], replace_after=body["replace_after"])
        except games.GameError as error:
            _fail(error)
        return {"id": game_id}


@blp.route("/games/<id:game_id>")
class GameItem(MethodView):
    @blp.response(200, GameView)
    @blp.doc(security=SECURITY + [{}])
    def get(self, game_id):
        """The game as my seat sees it (a spectator's view without a token)."""
        try:
            data = games.view(get_db(current_app), game_id, _token_user())
        except games.GameError as error:
            _fail(error)
        offer = rematch.current(get_db(current_app), game_id) if data["status"] == "finished" else None
        return {**data, "rematch": offer.to_json() if offer is not None else None}


def _action(game_id: int, name: str, colour: str | None = None):
    user_id = _need_user()
    db = get_db(current_app)
    try:
        if name == "join":
            return games.join_game(db, game_id, user_id, colour)
        if name == "leave":
            games.leave_game(db, game_id, user_id)
        elif name == "start":
            games.start_game(db, game_id, user_id)
        elif name == "resign":
            games.resign(db, game_id, user_id, source="api")
        elif name.startswith("take:"):
            tables.take_seat(db, game_id, int(name.removeprefix("take:")), user_id)
    except games.GameError as error:
        _fail(error)
    return {"ok": True}


@blp.route("/games/<id:game_id>/join", methods=["POST"])
@blp.arguments(JoinGame, required=False)
@blp.response(200, Joined)
@blp.doc(security=SECURITY)
def join(body, game_id):
    """Take a free seat, in a free colour if the body asks for one (the game starts when the last seat is taken)."""
    return _action(game_id, "join", body.get("colour"))


@blp.route("/games/<id:game_id>/leave", methods=["POST"])
@blp.response(200, Done)
@blp.doc(security=SECURITY)
def leave(game_id):
    """Give up my seat before the start; in a running game whose table declared a policy for abandoned seats
    (replace_after), hand it to a bot and offer it to a replacement."""
    return _action(game_id, "leave")


@blp.route("/games/<id:game_id>/seats/<int:seat>/take", methods=["POST"])
@blp.response(200, Done)
@blp.doc(security=SECURITY)
def take_seat(game_id, seat):
    """Take over a seat offered to a replacement in a running game (issue 37): its position and turn, not the
    previous player's notes."""
    return _action(game_id, f"take:{seat}")


@blp.route("/games/<id:game_id>/start", methods=["POST"])
@blp.response(200, Done)
@blp.doc(security=SECURITY)
def start(game_id):
    """Start my table before it is full (its creator only)."""
    return _action(game_id, "start")


@blp.route("/games/<id:game_id>/resign", methods=["POST"])
@blp.response(200, Done)
@blp.doc(security=SECURITY)
def resign(game_id):
    """Resign from a running game."""
    return _action(game_id, "resign")


@blp.route("/games/<id:game_id>/rematch")
class Rematch(MethodView):
    @blp.arguments(RematchAsk, required=False)
    @blp.response(200, RematchDone)
    @blp.doc(security=SECURITY)
    def post(self, body, game_id):
        """Ask for the rematch of a finished game of mine: propose it, or accept the open offer; the last
        acceptance starts the new game (the same players and options, a new seed, the seats moved round by one)."""
        user_id = _need_user()
        try:
            done = rematch.accept(get_db(current_app), game_id, user_id, tell=tell_rematch,
                                  offer_id=(body or {}).get("offer"))
        except games.GameError as error:
            _fail(error)
        return {"outcome": done.kind, "offer": done.offer.to_json()}

    @blp.response(200, RematchDone)
    @blp.doc(security=SECURITY)
    def delete(self, game_id):
        """Decline the open rematch offer of a finished game of mine: it ends, and the other players are told."""
        user_id = _need_user()
        try:
            done = rematch.decline(get_db(current_app), game_id, user_id, tell=tell_rematch)
        except games.GameError as error:
            _fail(error)
        return {"outcome": done.kind, "offer": done.offer.to_json()}


@blp.route("/games/<id:game_id>/legal-moves")
class Legal(MethodView):
    @blp.response(200, LegalMoves)
    @blp.doc(security=SECURITY)
    def get(self, game_id):
        """My legal moves in notation (empty when it is not my turn)."""
        user_id = _need_user()
        try:
            data = games.view(get_db(current_app), game_id, user_id)
        except games.GameError as error:
            _fail(error)
        if data.get("my_seat") is None:
            abort(403, message=_texts().gettext("You have no seat in a started game %(game)d.", game=game_id),
                  errors={"reason": "not_allowed"})
        return {"version": data["version"], "to_move": data["to_move"], "my_seat": data["my_seat"],
                "moves": data["legal_moves"]}


@blp.route("/games/<id:game_id>/moves")
class Moves(MethodView):
    @blp.response(200, HistoryRow(many=True))
    def get(self, game_id):
        """The history: every move with who made it."""
        try:
            return games.history(get_db(current_app), game_id)
        except games.GameError as error:
            _fail(error)

    @blp.arguments(SubmitMove)
    @blp.response(201, Submitted)
    @blp.doc(security=SECURITY)
    def post(self, body, game_id):
        """Submit a move for my seat; send expected_version and a key so a retry applies once."""
        user_id = _need_user()
        key = f"api:{user_id}:{body['key']}" if body["key"] else None
        try:
            result = games.submit(get_db(current_app), game_id, body["move"], user_id=user_id, source="api",
                                  key=key, expected_version=body["expected_version"])
        except games.GameError as error:
            _fail(error)
        return {"seq": result.seq, "notation": result.notation, "duplicate": result.duplicate,
                "finished": result.finished, "to_move": result.to_move, "auto_moves": result.auto_moves}


@blp.route("/games/<id:game_id>/messages")
class Messages(MethodView):
    @blp.response(200, MessageRow(many=True))
    @blp.doc(security=SECURITY + [{}])
    def get(self, game_id):
        """The table's messages I may read (pbem.talk): public ones, and private ones to or from me."""
        said = talk.conversation(get_db(current_app), game_id, _token_user())
        return [{"id": m.id, "seq": m.seq, "seat": m.seat, "author": m.author,
                 "to": list(m.to) if m.to is not None else None, "body": m.body,
                 "at": m.at.strftime("%Y-%m-%dT%H:%M:%SZ"), "hidden": m.hidden} for m in said]

    @blp.arguments(PostMessage)
    @blp.response(201, Posted)
    @blp.doc(security=SECURITY)
    def post(self, body, game_id):
        """Write to the table, or to the seats in `to`."""
        user_id = _need_user()
        to = tuple(body["to"]) if body["to"] else None
        try:
            return {"id": talk.post(get_db(current_app), game_id, user_id, body["text"], to=to, source="api")}
        except games.GameError as error:
            _fail(error)


@blp.route("/games/<id:game_id>/notes")
class Notes(MethodView):
    @blp.response(200, NoteRow(many=True))
    @blp.doc(security=SECURITY)
    def get(self, game_id):
        """My private notes on the game (nobody else's can be read)."""
        user_id = _need_user()
        return [{"id": n.id, "seq": n.seq, "body": n.body, "at": n.at.strftime("%Y-%m-%dT%H:%M:%SZ")}
                for n in talk.notes(get_db(current_app), game_id, user_id)]

    @blp.arguments(PostNote)
    @blp.response(201, Posted)
    @blp.doc(security=SECURITY)
    def post(self, body, game_id):
        """Keep a private note on the game, at its current move."""
        user_id = _need_user()
        try:
            return {"id": talk.write_note(get_db(current_app), game_id, user_id, body["text"])}
        except games.GameError as error:
            _fail(error)


@blp.route("/me/webhooks")
class MyWebhooks(MethodView):
    @blp.response(200, WebhookRow(many=True))
    @blp.doc(security=SECURITY)
    def get(self):
        """My chat webhooks (Discord, Slack, Matrix) and the news each takes."""
        return webhooks.listed(get_db(current_app), _need_user())

    @blp.arguments(AddWebhook)
    @blp.response(201, WebhookRow)
    @blp.doc(security=SECURITY)
    def post(self, body):
        """Add a webhook (the same address again changes it); an address inside the site is refused."""
        user_id = _need_user()
        try:
            return webhooks.add(get_db(current_app), user_id, body["url"], body["format"], body["kinds"])
        except webhooks.WebhookError as error:
            abort(400, message=reasons.reason(error, api_language()), errors={"reason": error.code})


@blp.route("/me/webhooks/<id:webhook_id>")
class MyWebhook(MethodView):
    @blp.response(200, Done)
    @blp.doc(security=SECURITY)
    def delete(self, webhook_id):
        """Remove one of my webhooks."""
        if not webhooks.remove(get_db(current_app), _need_user(), webhook_id):
            abort(404)  # none, or another player's: the same answer
        return {"ok": True}


@blp.route("/games/<id:game_id>/replay/<id:seq>")
class Replay(MethodView):
    @blp.response(200, ReplayStep)
    @blp.doc(security=SECURITY + [{}])
    def get(self, game_id, seq):
        """The board after move `seq` (a spectator's view while the game runs)."""
        db = get_db(current_app)
        user_id = _token_user()
        try:
            seat = None
            if user_id is not None:
                data = games.view(db, game_id, user_id)
                seat = data.get("my_seat") if data["status"] == "finished" else None
            return games.view_at(db, game_id, seq, seat)
        except games.GameError as error:
            _fail(error)


@blp.route("/games/<id:game_id>/archive")
class Archive(MethodView):
    @blp.response(200, {"type": "object"}, content_type="application/json")
    def get(self, game_id):
        """The archive of a finished game (docs/archive-format.md)."""
        try:
            db = get_db(current_app)
            body = archive.export_bytes(db, game_id, talk.archived(db, game_id, _token_user()))
        except games.GameError as error:
            _fail(error)
        return Response(body, mimetype="application/json", headers={
            "Content-Disposition": f'attachment; filename="pbem-game-{game_id}.json"'})


def init_app(app) -> None:
    api = Api(app, spec_kwargs={"info": {"description": "The pbem JSON API. Make a token on the settings page."}})
    api.spec.components.security_scheme("bearerAuth", {"type": "http", "scheme": "bearer"})
    api.register_converter(IdConverter, lambda converter: {"type": "integer", "minimum": 0, "maximum": MAX_ID})
    csrf.exempt(blp)
    api.register_blueprint(blp)
    app.register_error_handler(422, lambda error: _invalid_fields(api, error))
    app.extensions["pbem_api"] = api
