"""The database schema (SQLAlchemy 2.0). Migrations in alembic/ create exactly these tables.

Moves are append-only: a row is never updated or deleted, each carries the state hash
after it and a chain hash over the one before, so any change to the log shows.
"""

from __future__ import annotations

import enum
import secrets
from datetime import datetime, timezone

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    exists,
    false,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, column_property, mapped_column, relationship


def utcnow() -> datetime:
    """The current time in UTC, without tzinfo (stored as such in both databases)."""
    return datetime.now(timezone.utc).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class GameStatus(str, enum.Enum):
    OPEN = "open"
    RUNNING = "running"
    FINISHED = "finished"
    ABANDONED = "abandoned"


class MoveSource(str, enum.Enum):
    WEB = "web"
    EMAIL = "email"
    API = "api"
    CLI = "cli"
    TIMEOUT = "timeout"
    AUTO = "auto"  # a resigned seat's turn, played by the server
    BOT = "bot"  # a bot seat's decision, played by the worker (issue 37: pbem.players.bot_seats)


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    email: Mapped[str] = mapped_column(String(320), unique=True)
    display_name: Mapped[str] = mapped_column(String(80))
    # The name's keys (pbem.accounts.names.key and .skeleton, UTS #39): each unique, so no two names differ only
    # in case or by look-alike characters. NULL only for a row the code before revision 0017 wrote.
    name_key: Mapped[str | None] = mapped_column(String(255), index=True, unique=True)
    name_skeleton: Mapped[str | None] = mapped_column(String(255), index=True, unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(255))
    email_verified: Mapped[bool] = mapped_column(Boolean, default=False)
    notify: Mapped[str] = mapped_column(String(16), default="turn")  # every | turn | digest | none
    from_check: Mapped[bool] = mapped_column(Boolean, default=True)
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    # The language of the pages and (later) the mails: one of pbem.i18n.LANGUAGES.
    language: Mapped[str] = mapped_column(String(8), default="en", server_default="en")
    vacation_days: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    # The user's mail keys (pbem.mailkeys: the command address, confirmations) are signed with it;
    # a new one (/newkeys, a new password, a changed address) kills every key made with the old.
    mail_nonce: Mapped[str] = mapped_column(String(32), default=lambda: secrets.token_hex(16), server_default="")
    # The player page (pbem.players.pages) is shown only to its player and to those who sat with them at a
    # game that started; to everybody else it is not there (404).
    page_hidden: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class Game(Base):
    __tablename__ = "games"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    title: Mapped[str] = mapped_column(String(40))  # engine name: tongiaki, discovery, tapaono
    engine_version: Mapped[str] = mapped_column(String(40))
    options: Mapped[dict] = mapped_column(JSON, default=dict)
    players: Mapped[int] = mapped_column(Integer)  # seats at the table
    status: Mapped[str] = mapped_column(String(16), default=GameStatus.OPEN.value, index=True)
    seed: Mapped[str | None] = mapped_column(String(64))  # hex; secret until the game is over
    commitment: Mapped[str | None] = mapped_column(String(64))  # sha256(seed hex); public
    state: Mapped[str | None] = mapped_column(Text)  # canonical JSON of the current state
    version: Mapped[int] = mapped_column(Integer, default=0)  # moves applied
    to_move: Mapped[int | None] = mapped_column(Integer)
    chain_head: Mapped[str | None] = mapped_column(String(64))
    turn_hours: Mapped[int | None] = mapped_column(Integer)
    timeout_policy: Mapped[str] = mapped_column(String(16), default="wait")
    deadline: Mapped[datetime | None] = mapped_column(DateTime)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime)
    result: Mapped[dict | None] = mapped_column(JSON)
    imported: Mapped[bool] = mapped_column(Boolean, default=False)
    # An imported game: the SHA-256 of its archive's content (pbem.games.archive.archive_digest); unique, so the
    # same archive uploaded again, even at the same moment, is this game and never a second one.
    archive_sha256: Mapped[str | None] = mapped_column(String(64), index=True, unique=True)
    # Deadlines (pbem.deadlines): ISO weekdays that count ("12345" = Monday to Friday; None =
    # every day), missed turns before the resign policy resigns a seat, and the current turn.
    weekdays: Mapped[str | None] = mapped_column(String(7))
    resign_after: Mapped[int] = mapped_column(Integer, default=3)
    turn_started_at: Mapped[datetime | None] = mapped_column(DateTime)
    turn_seq: Mapped[int | None] = mapped_column(Integer)  # game.version when the current turn began
    reminded_seq: Mapped[int | None] = mapped_column(Integer)  # turn_seq of the last reminder sent
    # Table talk (pbem.talk): full (to the table or to some players), public (to the table only) or none;
    # whether spectators read the public messages, whether the table may talk after the end, and whether a
    # player past the deadline of their turn is kept from talking until they move (as njudge does).
    press: Mapped[str] = mapped_column(String(8), default="full", server_default="full")
    press_spectators: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    press_after_end: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    press_late_blocked: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Whether the table was made rated (chosen at creation): its result changes the players' ratings
    # (pbem.players.ratings) in the transaction that finishes it.
    rated: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # The least reliability (whole percent, 1 to 100; None: anybody) a player needs to take a seat, chosen at
    # creation (pbem.players.reliability says how the figure is made and checks it when a seat is taken).
    min_reliability: Mapped[int | None] = mapped_column(Integer)
    # Abandoned seats (issue 37 item 3), declared at creation: after this many missed deadlines in a row, or
    # when its player leaves, a seat is offered to a replacement and a bot of `bot_level` plays it until one
    # takes it (None: no such policy; a leaver resigns). `bot_level` is also the level of the table's bots.
    replace_after: Mapped[int | None] = mapped_column(Integer)
    bot_level: Mapped[str | None] = mapped_column(String(16))

    seats: Mapped[list["Seat"]] = relationship(order_by="Seat.number", back_populates="game")


class Seat(Base):
    __tablename__ = "seats"
    __table_args__ = (
        UniqueConstraint("game_id", "number", name="uq_seat_number"),
        UniqueConstraint("game_id", "user_id", name="uq_seat_user"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)  # join order while open; play order once started
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))  # None for imported games
    display_name: Mapped[str] = mapped_column(String(80))
    colour: Mapped[str | None] = mapped_column(String(20))
    token_nonce: Mapped[str] = mapped_column(String(32))
    resigned: Mapped[bool] = mapped_column(Boolean, default=False)
    joined_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    # A bot's seat (issue 37): the level it plays at (bots.LEVELS), and no user; None: a person's seat.
    bot_level: Mapped[str | None] = mapped_column(String(16))
    # Offered to a replacement since then (issue 37 item 3: its player missed deadlines or left); None: not offered.
    open_since: Mapped[datetime | None] = mapped_column(DateTime)

    game: Mapped[Game] = relationship(back_populates="seats")
    user: Mapped[User | None] = relationship()


class MoveRecord(Base):
    __tablename__ = "moves"
    __table_args__ = (
        UniqueConstraint("game_id", "seq", name="uq_move_seq"),
        UniqueConstraint("game_id", "idempotency_key", name="uq_move_key"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)  # 1, 2, 3, ...
    seat: Mapped[int] = mapped_column(Integer)
    move: Mapped[str] = mapped_column(Text)  # canonical JSON of the engine's Move
    notation: Mapped[str] = mapped_column(String(400))
    source: Mapped[str] = mapped_column(String(16))
    idempotency_key: Mapped[str | None] = mapped_column(String(255))
    state_hash: Mapped[str] = mapped_column(String(64))
    chain_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Snapshot(Base):
    """The state after move `seq` (0 = the state at the start), for replay without re-simulation."""

    __tablename__ = "snapshots"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    state: Mapped[str] = mapped_column(Text)
    state_hash: Mapped[str] = mapped_column(String(64))


class Board(Base):
    """A rendered board picture for one viewer (-1 = spectator) after move `seq`, in one language."""

    __tablename__ = "boards"
    __table_args__ = (UniqueConstraint("game_id", "seq", "viewer", "language", name="uq_board"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    viewer: Mapped[int] = mapped_column(Integer, default=-1)
    # The language of the picture's words (pbem.i18n.LANGUAGES): each language's viewers have their own picture.
    language: Mapped[str] = mapped_column(String(8), default="en", server_default="en")
    sha256: Mapped[str] = mapped_column(String(64), index=True)
    png: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class InboundMail(Base):
    __tablename__ = "inbound_mail"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    message_id: Mapped[str] = mapped_column(String(998), unique=True)
    sender: Mapped[str | None] = mapped_column(String(320))
    recipient: Mapped[str | None] = mapped_column(String(320))
    raw: Mapped[bytes | None] = mapped_column(LargeBinary)  # None once PBEM_INBOUND_KEEP_DAYS have passed
    received_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)
    outcome: Mapped[str] = mapped_column(String(32), default="received")
    detail: Mapped[str | None] = mapped_column(Text)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"))
    # Who is processing the message now (a random token; see pbem.mail.inbound), and since when:
    # only the holder of the claim records the outcome and answers.
    claim: Mapped[str | None] = mapped_column(String(32))
    claimed_at: Mapped[datetime | None] = mapped_column(DateTime)


class OutboundMail(Base):
    """The outbox: written in the transaction that caused the mail, sent after commit."""

    __tablename__ = "outbound_mail"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"), index=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    kind: Mapped[str] = mapped_column(String(32))  # turn, result, reply, verify, ...
    recipient: Mapped[str] = mapped_column(String(320))
    subject: Mapped[str] = mapped_column(String(400))
    body_text: Mapped[str] = mapped_column(Text)
    body_html: Mapped[str | None] = mapped_column(Text)
    headers: Mapped[dict] = mapped_column(JSON, default=dict)
    attachments: Mapped[list] = mapped_column(JSON, default=list)
    seq: Mapped[int | None] = mapped_column(Integer)  # the move the mail is about
    # pending | sending | sent | failed (refused for good, or the mail could not be built) | suppressed
    status: Mapped[str] = mapped_column(String(16), default="pending", index=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    message_id: Mapped[str | None] = mapped_column(String(998))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(DateTime)
    # Mail issue: when a sender claimed the row (a claim older than a few minutes is taken over).
    claimed_at: Mapped[datetime | None] = mapped_column(DateTime)
    # When a sender first took the row, and when its picture was ready: the stages of the path from a
    # move to the next player's mail (created_at: the move's transaction; sent_at: handed to SMTP).
    picked_at: Mapped[datetime | None] = mapped_column(DateTime)
    drawn_at: Mapped[datetime | None] = mapped_column(DateTime)
    # When a hard bounce of this mail came back to its signed bounce address: it counts once.
    bounced_at: Mapped[datetime | None] = mapped_column(DateTime)


class MailAddress(Base):
    """What the mail layer keeps per address: bounces, the reply rate window, the confirmation code."""

    __tablename__ = "mail_addresses"

    address: Mapped[str] = mapped_column(String(320), primary_key=True)
    hard_bounces: Mapped[int] = mapped_column(Integer, default=0)
    soft_bounces: Mapped[int] = mapped_column(Integer, default=0)
    last_bounce_at: Mapped[datetime | None] = mapped_column(DateTime)
    last_bounce: Mapped[str | None] = mapped_column(Text)
    stopped_at: Mapped[datetime | None] = mapped_column(DateTime)  # notifications stopped (bounces)
    # The rate window of the release before 0013 (now in mail_budgets); kept so that code still runs on it.
    window_start: Mapped[datetime | None] = mapped_column(DateTime)
    window_count: Mapped[int] = mapped_column(Integer, default=0)
    flood_noticed: Mapped[bool] = mapped_column(Boolean, default=False)
    verify_hash: Mapped[str | None] = mapped_column(String(64))  # sha256 of the confirmation code
    verify_sent_at: Mapped[datetime | None] = mapped_column(DateTime)


class MailBudget(Base):
    """A count of inbound mails, or of answers, in a one-hour window: one row per budget.

    Whose budget it is stands in its name (pbem.mail.budgets): the mails through a valid key of
    one user, the mails of one unproven sender, all unproven senders together, the answers that
    unproven senders caused to one registered address.
    """

    __tablename__ = "mail_budgets"

    name: Mapped[str] = mapped_column(String(400), primary_key=True)
    window_start: Mapped[datetime | None] = mapped_column(DateTime)
    count: Mapped[int] = mapped_column(Integer, default=0)
    noticed: Mapped[bool] = mapped_column(Boolean, default=False)  # the one notice of this window was sent
    carried: Mapped[int] = mapped_column(Integer, default=0)  # answers dropped in the window before


class ApiToken(Base):
    """A bearer token for the JSON API (bots); only its SHA-256 is stored."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime)


class PendingSignup(Base):
    """A web sign-up waiting for its mailed link: the account exists only once the link is opened.

    An address may have several (at most accounts.MAX_PENDING_SIGNUPS): each link mailed stays
    valid until it is used or it expires (accounts.SIGNUP_MAX_AGE), whatever other sign-ups for
    the address came after it (issue 31, item 7c). The link names its row by address and nonce.
    """

    __tablename__ = "pending_signups"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    email: Mapped[str] = mapped_column(String(320), index=True)
    display_name: Mapped[str] = mapped_column(String(80))
    password_hash: Mapped[str] = mapped_column(String(255))
    nonce: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)
    language: Mapped[str] = mapped_column(String(8), default="en", server_default="en")  # the browser's, at sign-up


class WebSession(Base):
    """A logged-in browser: the session and remember cookies carry its key, only its SHA-256 is stored.

    `remember`: the login asked to stay logged in (a remember cookie); such a session ends after
    accounts.SESSION_MAX_IDLE unused, another after accounts.SESSION_MAX_IDLE_BROWSER.
    """

    __tablename__ = "web_sessions"
    # The sessions that ended by being idle are found by (remember, last_seen_at): two ranges of one index.
    __table_args__ = (Index("ix_web_sessions_idle", "remember", "last_seen_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_agent: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    remember: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class LoginLink(Base):
    """A one-time log-in link mailed to a user's address (the way in when log-ins are throttled).

    Only the SHA-256 of its random key is stored; using it deletes the row, and it is dead after
    accounts.LOGIN_LINK_MAX_AGE.
    """

    __tablename__ = "login_links"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)


class RateLimitCounter(Base):
    """One fixed-window counter of the web's rate limits (Flask-Limiter's storage on the embedded default)."""

    __tablename__ = "rate_limits"

    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0)
    expires_at: Mapped[float] = mapped_column(Float, index=True)  # seconds since the epoch, as `limits` counts


class Animation(Base):
    """The animated replay of a finished game (GIF) in one language, drawn once by the worker and kept with its SHA-256.

    `status` is requested (asked for at `claimed_at`, waiting for the worker), drawing (taken by a
    worker at `claimed_at`), done, or too_large. The site's budget of drawings counts the rows by
    `claimed_at`; the sweep finds the ones asked for and not drawn by `status` (pbem.boards).
    """

    __tablename__ = "animations"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    # The language of its words (captions, legend; pbem.i18n.LANGUAGES): each language's viewers have their own.
    language: Mapped[str] = mapped_column(String(8), primary_key=True, default="en", server_default="en")
    status: Mapped[str] = mapped_column(String(16), index=True)
    sha256: Mapped[str | None] = mapped_column(String(64), index=True)
    gif: Mapped[bytes | None] = mapped_column(LargeBinary)
    frames: Mapped[int] = mapped_column(Integer, default=0)
    claimed_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)


class GameEvent(Base):
    """The game's log of everything but moves: deadlines set or moved, reminders, lateness, timeouts."""

    __tablename__ = "game_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)  # game.version when it happened
    seat: Mapped[int | None] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(32))  # deadline, reminder, late, missed, timeout, vacation, ...
    detail: Mapped[dict] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Absence(Base):
    """A time a player is away (declared, or one vacation day spent): their deadlines stop meanwhile."""

    __tablename__ = "absences"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    starts_at: Mapped[datetime] = mapped_column(DateTime)
    ends_at: Mapped[datetime] = mapped_column(DateTime)
    source: Mapped[str] = mapped_column(String(16), default="declared")  # declared | vacation
    note: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class SeatOrders(Base):
    """A seat's standing orders in a game (issue 20): choices written ahead for the decisions of
    its turn that come after chance, in the order written, as the engine's order JSON.

    Private to the seat's player until used; a used order becomes an ordinary move (source
    "order"). What is left when the seat's turn ends is dropped.
    """

    __tablename__ = "seat_orders"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    orders: Mapped[list] = mapped_column(JSON, default=list)
    last_key: Mapped[str | None] = mapped_column(String(255))  # the idempotency key of the last orders added
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class BotTurn(Base):
    """A game whose seat to move is a bot's, waiting for its decision (issue 37, pbem.players.bot_seats).

    One row per game at most, so one game of bots has at most one bot job queued. `version` is the
    position the bot is to move in; `posted_at` is when its job was posted (None: the site's budget of
    bot jobs was full, and the sweep posts it when a place is free). The row goes when the bot has moved.
    """

    __tablename__ = "bot_turns"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    version: Mapped[int] = mapped_column(Integer)
    posted_at: Mapped[datetime | None] = mapped_column(DateTime, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class SeatHolder(Base):
    """Who held a seat from which move on, once a seat changed hands (issue 37 item 3): its first player (written
    when it first changes), a bot of a level, a replacement. With the moves' sources ("bot") it says who played
    which moves; the rows are never changed."""

    __tablename__ = "seat_holders"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    from_seq: Mapped[int] = mapped_column(Integer)  # the first move number this holder could play
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    bot_level: Mapped[str | None] = mapped_column(String(16))
    display_name: Mapped[str] = mapped_column(String(80))
    reason: Mapped[str] = mapped_column(String(16))  # first | missed | left | replaced
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class ReplacementVolunteer(Base):
    """A user who asked to be offered, by mail, the seats handed to a bot at games of `title` (issue 37 item 3;
    the settings page, pbem.players.volunteers)."""

    __tablename__ = "replacement_volunteers"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    title: Mapped[str] = mapped_column(String(40), primary_key=True, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class SeatOfferMail(Base):
    """A seat offered to a volunteer by mail (pbem.notify.seat_offers): one per (user, game, seat), so a volunteer
    hears of a seat once; those of the last day count against the per-day cap (pbem.players.volunteers)."""

    __tablename__ = "seat_offer_mails"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    sent_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)


class PushSubscription(Base):
    """One browser's Web Push subscription: where to push "your turn" for its user (pbem.notify.push)."""

    __tablename__ = "push_subscriptions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    endpoint: Mapped[str] = mapped_column(String(1024), unique=True)  # the push service's URL for this browser
    p256dh: Mapped[str] = mapped_column(String(200))  # the browser's public key (base64url)
    auth: Mapped[str] = mapped_column(String(64))  # the browser's auth secret (base64url)
    user_agent: Mapped[str | None] = mapped_column(String(200))  # which browser, as the settings page names it
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    last_sent_at: Mapped[datetime | None] = mapped_column(DateTime)
    last_push: Mapped[str | None] = mapped_column(String(40))  # "game:version" of the last push it took
    failures: Mapped[int] = mapped_column(Integer, default=0)  # pushes refused in a row (gone after MAX_FAILURES)


class Message(Base):
    """One message at a table (pbem.talk): to everyone at it (`to_seats` None) or to some seats.

    Not a move: it is outside the chain of moves and changes no state. `seq` is the number of moves
    played when it was written (the replay shows it there). A message an operator hid stays, marked
    with who hid it, when and why; nobody but operators reads its text any more.
    """

    __tablename__ = "messages"
    __table_args__ = (Index("ix_messages_game_created", "game_id", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)  # the author's seat
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))  # the author
    to_seats: Mapped[list | None] = mapped_column(JSON)  # sorted seat numbers; None: the whole table
    body: Mapped[str] = mapped_column(Text)
    source: Mapped[str] = mapped_column(String(8), default="web")  # web | mail | api
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    hidden_at: Mapped[datetime | None] = mapped_column(DateTime)
    hidden_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    hidden_reason: Mapped[str | None] = mapped_column(String(200))


class Note(Base):
    """A player's private note on a game, at a move if they like (pbem.talk): read by its author only."""

    __tablename__ = "notes"
    __table_args__ = (Index("ix_notes_game_user", "game_id", "user_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)  # moves played when it was written
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Mute(Base):
    """A user who does not want to read another: that one's messages are neither shown nor mailed to them."""

    __tablename__ = "mutes"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    muted_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class MessageReport(Base):
    """A message a reader reported to the site's operators, with their reason."""

    __tablename__ = "message_reports"
    __table_args__ = (UniqueConstraint("message_id", "user_id", name="uq_report_once"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("messages.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    reason: Mapped[str] = mapped_column(String(500))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Rating(Base):
    """A user's rating at one title (pbem.players.ratings): openskill's Plackett-Luce mu and sigma."""

    __tablename__ = "ratings"
    __table_args__ = (UniqueConstraint("user_id", "title", name="uq_rating_user_title"),
                      Index("ix_ratings_title_ordinal", "title", "ordinal"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    title: Mapped[str] = mapped_column(String(40))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)  # mu - 3 sigma: what the tables sort by
    games: Mapped[int] = mapped_column(Integer, default=0)  # rated games that changed it
    updated_at: Mapped[datetime] = mapped_column(DateTime)  # when the last of them finished


class RatingUpdate(Base):
    """What one finished rated game did to its players' ratings: at most one row a game, so it counts once."""

    __tablename__ = "rating_updates"
    __table_args__ = (UniqueConstraint("game_id", name="uq_rating_update_game"),
                      Index("ix_rating_updates_players", "title", "players", "finished_at"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    title: Mapped[str] = mapped_column(String(40))
    players: Mapped[str] = mapped_column(String(255))  # the rated users' ids, sorted, comma-separated
    finished_at: Mapped[datetime] = mapped_column(DateTime)  # the game's
    weight: Mapped[float] = mapped_column(Float)  # 1, or less for a game among the same players again
    # {user id: {"rank", "before": [mu, sigma], "after": [mu, sigma]}}
    changes: Mapped[dict] = mapped_column(JSON)


# Whether the user has a browser that takes "your turn" pushes: loaded with the user, so that the
# turn passing to them (pbem.notify.push) asks the database nothing more inside the move.
User.has_push = column_property(exists().where(PushSubscription.user_id == User.id))


class RematchOffer(Base):
    """An offer to play a finished game again (pbem.players.rematch): the same players and options, a new seed,
    the seats moved round by one. Every player must accept; the last acceptance starts the new game, in its
    transaction. A decline, or the offer's lapse (`lapses_at`), ends it.

    `open_for` is the game's id while the offer is open and NULL once it is closed: unique, so a game has
    at most one open offer, whoever proposes at the same moment; `new_game_id` is unique too, so an offer
    starts one game at most.
    """

    __tablename__ = "rematch_offers"
    __table_args__ = (UniqueConstraint("open_for", name="uq_rematch_open"),
                      UniqueConstraint("new_game_id", name="uq_rematch_new_game"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    open_for: Mapped[int | None] = mapped_column(Integer)
    proposed_by: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    status: Mapped[str] = mapped_column(String(16), default="open")  # open | started | declined | lapsed
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    lapses_at: Mapped[datetime] = mapped_column(DateTime)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime)
    declined_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    new_game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"))


class RematchAcceptance(Base):
    """A player who accepted a rematch offer (its proposer too): one row per player, so accepting twice is once."""

    __tablename__ = "rematch_acceptances"

    offer_id: Mapped[int] = mapped_column(ForeignKey("rematch_offers.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    accepted_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Webhook(Base):
    """A chat webhook of a user (Discord, Slack, Matrix): where the webhook channel posts the news they chose
    (pbem.notify.webhooks, pbem.notify.channels.webhook). The URL is a secret of its owner: it is kept as
    pbem.notify.outgoing normalised it, and never shown whole again."""

    __tablename__ = "webhooks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    url: Mapped[str] = mapped_column(String(2048))
    format: Mapped[str] = mapped_column(String(16))  # discord | slack | matrix: the JSON its service reads
    kinds: Mapped[list] = mapped_column(JSON, default=list)  # the news it takes: notice kinds, and "mentioned"
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    last_status: Mapped[int | None] = mapped_column(Integer)  # the HTTP status of the last answer
    last_error: Mapped[str | None] = mapped_column(String(300))  # why the last post failed (no URL in it)
    last_sent_at: Mapped[datetime | None] = mapped_column(DateTime)
    failures: Mapped[int] = mapped_column(Integer, default=0)  # posts failed for good in a row (paused at a limit)


class WebhookDelivery(Base):
    """The webhook channel's outbox: one notice for one webhook, written in the transaction of the change and
    posted after it; claimed before each try, so a job delivered twice posts once."""

    __tablename__ = "webhook_deliveries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    webhook_id: Mapped[int] = mapped_column(ForeignKey("webhooks.id", ondelete="CASCADE"), index=True)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    message_id: Mapped[int | None] = mapped_column(ForeignKey("messages.id", ondelete="CASCADE"))  # a message's news
    kind: Mapped[str] = mapped_column(String(16))  # the notice's kind ("mentioned" for a message naming the reader)
    text: Mapped[str] = mapped_column(Text)  # the news in its reader's language, without the game's link
    status: Mapped[str] = mapped_column(String(16), default="pending", index=True)  # pending | sending | sent | failed
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(String(300))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    claimed_at: Mapped[datetime | None] = mapped_column(DateTime)  # the last try began
    sent_at: Mapped[datetime | None] = mapped_column(DateTime)


# Whether the user has a webhook that takes news: loaded with the user, as has_push, so that a move asks the
# database for the user's webhooks only when there are some.
User.has_webhooks = column_property(exists().where(Webhook.user_id == User.id))
