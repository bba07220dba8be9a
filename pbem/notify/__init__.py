"""Which mails a change to a game causes, written as outbox rows in the transaction of the change.

It listens to what the game service and the scheduler announce (`pbem.events`): a game
started, a move applied, a game over, a reminder due, a player late. Exactly one turn
notification goes out per turn: when the turn passes to another seat. The text of a mail
about the board is what that seat saw after the move (`games.seat_view_at`), written when the
mail is sent (`view_text`), so no seed of a running game, deck or other hand reaches a mail,
and a mail sent late still says what the seat saw at its move. The board picture and the
seat's reply address are added when the row is sent too (pbem.mail.outbound).

Each mail is written in its recipient's language (`User.language`), a mail to the whole table
(the result, a player late) in each player's own.

Per-user settings (User.notify): every (a mail after each move), turn (default: only when
it is my turn), digest (one mail a day, see `digest`), none.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

import engine
from pbem import events, games, i18n
from pbem.models import Game, OutboundMail, Seat, User
from pbem.notify import outbox, texts
from pbem.schedule import deadlines


_VIEW_TEXTS = {"turn": texts.turn_text, "move": texts.move_text, "result": texts.result_text}


def _mail_seat(s: Session, kind: str, game: Game, rules: engine.Rules, seat: Seat, **values) -> None:
    """One mail about the game to one seat, in its user's language; its text is what that seat
    saw after this move, written when the mail is sent (`view_text`)."""
    language = seat.user.language
    reply = seat.number if kind == "turn" else None
    outbox.queue(s, kind=kind, recipient=seat.user.email, user_id=seat.user.id, game_id=game.id, seq=game.version,
                 subject=texts.game_subject(game.id, rules.title, texts.subject(kind, language, **values)),
                 body=None, reply_seat=reply, reply_seq=game.version if reply is not None else None,
                 board_viewer=seat.number, language=language)


def view_text(s: Session, row: OutboundMail) -> str:
    """The text of a mail queued with the seat's view (`_mail_seat`): what the seat saw right after
    move `row.seq` (`games.seat_view_at`), in the row's language.

    It is written when the mail is sent, not inside the move's transaction: the move commits
    sooner (this text was a third of a move's CPU), and a mail sent late still tells the
    position of its move. pbem.mail.outbound stores it in the row before the first try."""
    game = games.load_game(s, row.game_id)
    rules = games.rules_of(game)
    language = (row.headers or {}).get("language") or i18n.DEFAULT
    viewer = next(a["board"]["viewer"] for a in row.attachments or [] if "board" in a)
    data = games.seat_view_at(s, game, games.seats_of(s, game), rules, row.seq, viewer, language)
    return _VIEW_TEXTS[row.kind](data, rules.title, language)


def _turn_mail(s: Session, game: Game, seats: list[Seat], rules: engine.Rules) -> None:
    seat = seats[game.to_move]
    if seat.user is None or seat.resigned or seat.user.notify in ("none", "digest"):
        return
    _mail_seat(s, "turn", game, rules, seat, move=game.version + 1)


def _on_game_started(s: Session, *, game: Game, seats: list[Seat], rules: engine.Rules, state: Any) -> None:
    _turn_mail(s, game, seats, rules)


def _on_move_applied(s: Session, *, game: Game, seats: list[Seat], rules: engine.Rules, mover: int | None,
                     state: Any) -> None:
    """A mail after every move to those who asked for it, and the turn mail when the turn passes."""
    for seat in seats:
        user: User | None = seat.user
        if user is None or user.notify != "every" or seat.number in (game.to_move, mover) or seat.resigned:
            continue
        _mail_seat(s, "move", game, rules, seat, move=game.version)
    if game.to_move is not None and game.to_move != mover:
        _turn_mail(s, game, seats, rules)


def _on_game_finished(s: Session, *, game: Game, seats: list[Seat], rules: engine.Rules, state: Any) -> None:
    """The result to every player who wants mail, each in their own language."""
    for seat in seats:
        if seat.user is not None and seat.user.notify != "none":
            _mail_seat(s, "result", game, rules, seat)


def _on_reminder_due(s: Session, *, game: Game, seat: Seat, user: User) -> None:
    if user.notify == "none":
        return
    language = user.language
    _ = i18n.texts(language).gettext
    deadline = texts.when(game.deadline, language)
    outbox.queue(s, kind="reminder", recipient=user.email, user_id=user.id, game_id=game.id, seq=game.version,
                 subject=texts.game_subject(game.id, engine.get(game.title).title,
                                            texts.subject("reminder", language, deadline=deadline)),
                 body=_("It is still your turn in game %(game)d (move %(move)d). The deadline is %(deadline)s "
                        "(UTC); after it the game's timeout policy (%(policy)s) applies. Reply to this mail with "
                        "your move.", game=game.id, move=game.version + 1, deadline=deadline,
                        policy=game.timeout_policy),
                 reply_seat=seat.number, reply_seq=game.version, language=language)


def late_text(game: Game, seat: Seat, policy: str, language: str) -> str:
    """What the table is told when a player missed the deadline and the game waits for them."""
    _ = i18n.texts(language).gettext
    sentences = [_("%(name)s missed the deadline in game %(game)d (move %(move)d).", name=seat.display_name,
                   game=game.id, move=game.version + 1),
                 _("The rules allow no pass here, so the game waits.") if policy == "skip"
                 else _("The game waits for them (policy: %(policy)s).", policy=policy)]
    if game.deadline:
        sentences.append(_("The new deadline is %(deadline)s.", deadline=texts.when(game.deadline, language)))
    return " ".join(sentences)


def _on_player_late(s: Session, *, game: Game, seat: Seat, policy: str) -> None:
    """Tell the table (every player still in, who wants mail) that a player missed the deadline."""
    title = engine.get(game.title).title
    for other in s.scalars(select(Seat).where(Seat.game_id == game.id, Seat.user_id.is_not(None))):
        if other.user.notify != "none" and not other.resigned:
            language = other.user.language
            outbox.queue(s, kind="late", recipient=other.user.email, user_id=other.user.id, game_id=game.id,
                         seq=game.version, language=language,
                         subject=texts.game_subject(game.id, title,
                                                    texts.subject("late", language, name=seat.display_name)),
                         body=late_text(game, seat, policy, language))


def connect() -> None:
    """Listen to the game service and the scheduler (pbem.wiring.connect calls this once per process)."""
    events.game_started.connect(_on_game_started)
    events.move_applied.connect(_on_move_applied)
    events.game_finished.connect(_on_game_finished)
    events.reminder_due.connect(_on_reminder_due)
    events.player_late.connect(_on_player_late)
