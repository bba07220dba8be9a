"""/invite GAME-ID ADDRESS...: invite people, by their mail addresses, to one's open table.

The table's part is the web's (`pbem.accounts.invitations.invite`): only a player at an open table
may invite, at most MAX_INVITES_PER_GAME a table, and the invitee's mail carries the line
`/join GAME-ID` (and the game page). The door's part is here: at most MAX_ADDRESSES addresses a
line, each checked as an address, and the web's limits with the web's figures
(`invitations.PER_ACCOUNT`: 20 an hour and 50 a day per inviting player; `PER_ADDRESS`: 3 a day
per invited address), counted in the mail budgets (`pbem.mail.budgets`, the invited address as an
HMAC, as the web counts it). A line is done whole or not at all: one address refused (not an
address, over a limit, or the table's refusal) sends none of them and counts nothing.
It changes a table, so a mail without a key only asks to confirm it.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import timedelta

from pbem import accounts
from pbem.accounts import invitations
from pbem.i18n import N_
from pbem.mail import budgets
from pbem.mail.commands import ACCOUNT, CommandError, Spec

MAX_ADDRESSES = 5  # addresses one /invite line may name
_TRIM = ",;<>\"'"  # what a list of addresses pasted from a mail program leaves around them


def addresses_of(args: tuple[str, ...]) -> list[str]:
    """The addresses of an /invite line, checked and each once, or CommandError naming the one that is none."""
    if not args:
        raise CommandError(N_("Write /invite GAME-ID ADDRESS, with up to %(most)d addresses."), most=MAX_ADDRESSES)
    words = [word.strip(_TRIM) for word in args if word.strip(_TRIM)]
    if len(words) > MAX_ADDRESSES:
        raise CommandError(N_("/invite takes at most %(most)d addresses at once, not %(count)d; nothing was sent."),
                           most=MAX_ADDRESSES, count=len(words))
    found = []
    for word in words:
        try:
            found.append(accounts.normalize_email(word))
        except accounts.AccountError as error:
            raise CommandError(str(error), cause=error) from None
    return list(dict.fromkeys(found))


def check(args: tuple[str, ...]) -> None:
    addresses_of(args)


def _window(window: timedelta) -> str:
    return f"{int(window.total_seconds())}s"


def limits_text(context, limits) -> str:
    """The figures of one limit as a reader reads them ("20 an hour, 50 a day")."""
    words = []
    for most, window in limits:
        if window == timedelta(hours=1):
            words.append(context.gettext("%(num)d an hour", num=most))
        else:
            words.append(context.gettext("%(num)d a day", num=most))
    return ", ".join(words)


def _spend(s, context, address: str) -> None:
    """Count one invitation against the inviter's budgets and the invited address's, or refuse it."""
    for most, window in invitations.PER_ACCOUNT:
        if budgets.spend(s, f"invites/{_window(window)}:key:{context.user.id}", most, window) != "ok":
            raise CommandError(N_("You have sent as many invitations as one player may (%(limits)s); nothing of "
                                  "this line was sent. Try again later."),
                               limits=limits_text(context, invitations.PER_ACCOUNT))
    digest = hmac.new(context.settings.secret_key.encode(), address.encode(), hashlib.sha256).hexdigest()[:32]
    for most, window in invitations.PER_ADDRESS:
        if budgets.spend(s, f"invites/{_window(window)}:to:{digest}", most, window) != "ok":
            raise CommandError(N_("%(address)s has been invited as often as one address may be (%(limits)s); "
                                  "nothing of this line was sent."), address=address,
                               limits=limits_text(context, invitations.PER_ADDRESS))


def run(context, command) -> None:
    addresses = addresses_of(command.args)
    with context.db.transaction() as s:
        for address in addresses:
            _spend(s, context, address)
            invitations.invite(s, command.game_id, context.user.id, address, context.settings.base_url)
    context.answer.game_id = command.game_id
    context.say(context.ngettext("Invitation to game %(game)d sent to %(addresses)s: the mail says how to take "
                                 "a seat (the line /join %(game)d, or the game page).",
                                 "Invitations to game %(game)d sent to %(addresses)s: each mail says how to take "
                                 "a seat (the line /join %(game)d, or the game page).", len(addresses),
                                 game=command.game_id, addresses=", ".join(addresses)))


COMMAND = Spec("invite", 25, run, doors=frozenset({ACCOUNT}), needs_game=True, changes=True, check=check,
               usage=N_("/invite GAME-ID ADDRESS..."),
               help=N_("invite up to 5 people to your open table; each gets a mail\nwith the line that joins it"),
               missing_game=N_("Write /invite GAME-ID ADDRESS, for the table you sit at."))
