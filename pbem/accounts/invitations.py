"""Invitations: a player at an open table asks someone, by their mail address, to take a seat.

Every door invites through here (the web's game page, `/invite` by mail), so an invitation is
refused for the same reasons and reads the same whoever sent it: only a player at an open table
may invite, at most MAX_INVITES_PER_GAME invitations go out for one table, and the mail (outbox
kind "invite") says how to take the seat on the web and by mail (`/join GAME-ID`).

How often an account may invite, and how often one address may be invited, are the LIMITS
below; each door counts them in its own way (the web with Flask-Limiter, pbem.web.ratelimit's
INVITES_PER_*; mail with its budgets, pbem.mail.commands.invite), with these same figures.
This module does not count them: it is the table's part of an invitation, not the door's.
It lives with the accounts, not the games, because it writes a mail to a person (pbem.notify's
outbox) and quotes a name as the accounts do (`quoted_name`).
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

import engine
from pbem import games, i18n
from pbem.accounts.signup import quoted_name
from pbem.accounts.users import normalize_email
from pbem.db import Database
from pbem.i18n import N_
from pbem.models import Game, GameStatus, OutboundMail, Seat, User
from pbem.notify import outbox

MAX_INVITES_PER_GAME = 20
# How many invitations one account may send, and how many one address may get, in a window: the
# web's figures (pbem.web.ratelimit: INVITES_PER_ACCOUNT "20 per hour;50 per day", INVITES_PER_ADDRESS
# "3 per day"), which mail counts too. Each is (most, window).
PER_ACCOUNT = ((20, timedelta(hours=1)), (50, timedelta(days=1)))
PER_ADDRESS = ((3, timedelta(days=1)),)
# A table that no longer takes invitations, by its status: one whole sentence each.
NOT_INVITING = {
    "running": N_("Game %(game)d is running; only open tables take invitations."),
    "finished": N_("Game %(game)d is finished; only open tables take invitations."),
    "abandoned": N_("Game %(game)d is abandoned; only open tables take invitations."),
}


def invite_by_email(db: Database, game_id: int, user_id: int, email: str, base_url: str) -> None:
    """Queue an invitation mail to `email` (checked as an address: AccountError if it is none) in a
    transaction of its own; the refusals are `invite`'s."""
    address = normalize_email(email)
    with db.transaction() as s:
        invite(s, game_id, user_id, address, base_url)


def invite(s: Session, game_id: int, user_id: int, address: str, base_url: str) -> None:
    """Queue an invitation mail (outbox kind "invite") to a checked `address` in the caller's transaction:
    only a player at an open table may invite (games.GameError otherwise, and nothing is queued).

    The mail speaks the invitee's language, or the inviter's when the address has no account yet.
    Its subject is ours alone; the inviter's display name, chosen by someone the reader may not
    know, stands only in the text, quoted as a name and cleaned (`quoted_name`), so it can never
    read as our own sentence ("URGENT: verify your bank at evil.example invites you"). It says how
    to take the seat: the game page, or the line `/join GAME-ID` in a reply (whose Reply-To is the
    invitee's command address, or pbem's plain address for an address without an account).
    """
    game = s.get(Game, game_id)
    if game is None:
        raise games.NotFoundError(N_("There is no game %(game)d."), game=game_id)
    seats = list(s.scalars(select(Seat).where(Seat.game_id == game_id).order_by(Seat.number)))
    seat = next((x for x in seats if x.user_id == user_id), None)
    if seat is None:
        raise games.NotAllowedError(N_("Only players at game %(game)d can invite others to it."), game=game_id)
    if game.status != GameStatus.OPEN.value:
        raise games.GameStateError(NOT_INVITING[game.status], game=game_id)
    sent = s.scalar(select(func.count(OutboundMail.id)).where(OutboundMail.game_id == game_id,
                                                               OutboundMail.kind == "invite"))
    if sent >= MAX_INVITES_PER_GAME:
        raise games.NotAllowedError(N_("Game %(game)d has had %(most)d invitations already."), game=game_id,
                                    most=MAX_INVITES_PER_GAME)
    invitee = s.scalars(select(User).where(User.email == address)).first()
    # The invitee's language; an address without an account gets the inviter's (the page's).
    t = i18n.texts(invitee.language if invitee else s.get(User, user_id).language)
    rules = engine.get(game.title)
    name = quoted_name(seat.display_name)
    who = (t.gettext('A player who calls themselves "%(name)s" invites you to a game of %(title)s (game '
                     '%(game)d).', name=name, title=rules.title, game=game.id) if name else
           t.gettext("A player invites you to a game of %(title)s (game %(game)d).", title=rules.title, game=game.id))
    by_mail = t.gettext("To take a seat by mail, reply to this mail with the line\n\n  /join %(game)d\n\nor "
                        "/join %(game)d COLOUR for one of the free colours (%(colours)s). If pbem does not know "
                        "your address yet, the answer first asks you to confirm it; send the line again after "
                        "that.", game=game.id, colours=", ".join(games.free_colours(rules, seats)))
    outbox.queue(
        s, game_id=game.id, user_id=invitee.id if invitee else None, kind="invite", recipient=address,
        subject=f"[pbem #{game.id} {rules.title}] " + t.gettext("an invitation to play"),
        body=who + "\n\n" + by_mail + "\n\n" + t.gettext(
            "To take a seat, open:\n\n  %(link)s\n\nIf you do not want to play, ignore this mail.",
            link=f"{base_url.rstrip('/')}/games/{game.id}"),
        language=t.language)
