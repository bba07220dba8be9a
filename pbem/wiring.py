"""Connects the listeners of the domain packages to what the game service announces, and the channels.

Every process that may change a game calls `connect()` once when it starts: the web app
(`pbem.web.create_app`), the command line (`pbem.cli`), the worker (`worker.app`), and the
tests and benches. The game service refuses to change a game while nobody listens
(`pbem.events.require_listeners`), so a process that forgot cannot lose a move's mails.

The ratings (pbem.players) listen to a game's end too, and change in its transaction; the bot seats
(pbem.players.bot_seats) listen to every change of a game, to post the job of a bot that is to move.

It registers the channels news goes out through (pbem.notify.channels): mail, with
`pbem.mail.outbound` as its sender (pbem.notify may not import pbem.mail), Web Push, and the
players' chat webhooks (issue 35 item 7). The worker registers its delivery task for each channel
registered here.
"""

from __future__ import annotations

from pbem import boards, notify, players, schedule
from pbem.mail import outbound
from pbem.notify import channels, seat_offers
from pbem.notify.channels.mail import MailChannel
from pbem.notify.channels.push import PushChannel
from pbem.notify.channels.webhook import WebhookChannel
from pbem.players import bot_seats


def connect() -> None:
    """Connect every listener and register the channels (safe to call more than once: each is there once)."""
    schedule.connect()
    notify.connect()
    boards.connect()
    players.connect()
    bot_seats.connect()  # a bot to move gets its job after the commit (issue 37)
    seat_offers.connect()  # a seat handed to a bot is offered to the volunteers by mail (issue 37)
    channels.register(MailChannel(outbound))
    channels.register(PushChannel())
    channels.register(WebhookChannel())
