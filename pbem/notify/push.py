"""Web Push: "your turn" in the browser, a channel beside the mails, for users who opt in per browser.

- A browser subscribes on the settings page (the service worker `static/sw.js` and
  `static/push.js`); its subscription (the push service's endpoint and the browser's keys) is
  a `PushSubscription` row of its user. Having one is the opt-in; each browser can leave.
- A turn notice to a user with subscriptions makes the push channel
  (`pbem.notify.channels.push`) post a SEND_PUSH job after the commit (as the mails post
  theirs); the worker's delivery task calls `send_turn`, which encrypts a short message in the
  user's language (RFC 8291, aes128gcm) and posts it to each endpoint with a VAPID signature
  (RFC 8292), through pywebpush. A message at the table that names the user (`@name`, issue 34)
  is pushed the same way by `send_mention`, whether or not it is their turn: who wrote, in which
  game, and the start of the text (the push is encrypted for the reader's browser, who may read it). An endpoint the push service says is gone (404, 410) is
  forgotten; one that fails MAX_FAILURES times in a row too.
- The server's VAPID key pair is made once and kept beside the secret, in the data folder
  (`vapid_private.pem`); the browser gets the public key.

Endpoints must belong to a known push service (PUSH_HOSTS, or PBEM_PUSH_HOSTS: host name
suffixes), over https, so a subscription cannot make the worker post to any other address. An
endpoint is read once, by `pbem.notify.outgoing` (issue 31 item 5): the host the allow-list
compares is the host the push goes to, the normalised URL is what is kept and sent, and the
connection refuses an address inside the site (loopback, private, link-local...) even when a
listed push service's name resolves to one. This module sends no mail and changes no game.
"""

from __future__ import annotations

import json
import logging
import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

import engine
from pbem import i18n, talk
from pbem.db import Database
from pbem.i18n import N_
from pbem.models import Game, GameStatus, Message, MoveRecord, PushSubscription, Seat, User, utcnow
from pbem.reasons import Refusal

if TYPE_CHECKING:
    from pbem.notify.outgoing import Destination

log = logging.getLogger(__name__)

SEND_PUSH = "pbem.send_push"  # (user_id, game_id, version[, message_id]): "your turn", or "you are mentioned"
KEY_FILE = "vapid_private.pem"
# The push services of the browsers people use (host name suffixes); PBEM_PUSH_HOSTS replaces the list.
PUSH_HOSTS = ("fcm.googleapis.com", "push.services.mozilla.com", "notify.windows.com", "push.apple.com")
LOOPBACK = ("127.0.0.1", "localhost", "::1")  # a listed loopback host may be plain http (tests, a local relay)
MAX_ENDPOINT_CHARS = 1024  # PushSubscription.endpoint
MAX_SUBSCRIPTIONS = 10  # browsers per user
MAX_FAILURES = 5  # pushes refused in a row before a subscription is dropped
TTL_S = 24 * 3600  # how long the push service keeps a message for a browser that is offline
TIMEOUT_S = 10.0
MENTION_CHARS = 120  # of a message's text in the push that says it names the reader


class SubscriptionError(Refusal, ValueError):
    """A subscription the server will not keep (malformed, or an endpoint of no known push service);
    the page's script shows the reason, in the page's language (`error.text(language)`)."""


# --- the server's key ------------------------------------------------------------------------------


def vapid(data_dir: Path):
    """The server's VAPID key (py_vapid.Vapid02), made once in the data folder and read from there after."""
    from py_vapid import Vapid02

    path = Path(data_dir) / KEY_FILE
    if not path.exists():
        key = Vapid02()
        key.generate_keys()
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another process made it first: use theirs
        else:
            with os.fdopen(fd, "wb") as handle:
                handle.write(key.private_pem())
    return Vapid02.from_file(str(path))


@lru_cache(maxsize=8)
def public_key(data_dir: Path) -> str:
    """The VAPID public key as the browser's `applicationServerKey` takes it (base64url, uncompressed point)."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    from py_vapid import b64urlencode

    point = vapid(data_dir).public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return b64urlencode(point)


# --- subscriptions -----------------------------------------------------------------------------------


def push_hosts() -> tuple[str, ...]:
    """The push services' hosts, in the canonical form `outgoing.normalise` gives an endpoint's host."""
    return _canonical_hosts(os.environ.get("PBEM_PUSH_HOSTS") or ",".join(PUSH_HOSTS))


@lru_cache(maxsize=4)
def _canonical_hosts(configured: str) -> tuple[str, ...]:
    from pbem.notify import outgoing  # here, as pywebpush below: requests is slow to import, and few processes push

    hosts = []
    for entry in filter(None, (h.strip() for h in configured.split(","))):
        try:
            hosts.append(outgoing.canonical_host(entry))
        except outgoing.URLRefusedError as error:  # it could match no endpoint: say so once, and go on
            log.warning("PBEM_PUSH_HOSTS: %s is left out: %s", entry, error)
    return tuple(hosts)


def check_endpoint(endpoint: str) -> Destination:
    """Where a push to this endpoint goes, if that is a known push service's https URL (or a listed
    loopback host's http URL), else SubscriptionError."""
    from pbem.notify import outgoing

    try:
        destination = outgoing.normalise(endpoint, schemes=("https", "http"))
    except outgoing.URLRefusedError:
        raise SubscriptionError(N_("That address is not a push service this server sends to.")) from None
    if not destination.on(push_hosts()):
        raise SubscriptionError(N_("%(host)s is not a push service this server sends to."), host=destination.host)
    if destination.scheme != "https" and destination.host not in LOOPBACK:
        raise SubscriptionError(N_("A push endpoint must be an https address."))
    return destination


def subscribe(db: Database, user_id: int, info: dict, user_agent: str = "") -> None:
    """Keep one browser's subscription for a user (the same endpoint again replaces its keys and owner)."""
    keys = info.get("keys") if isinstance(info, dict) else None
    endpoint = info.get("endpoint") if isinstance(info, dict) else None
    if not isinstance(endpoint, str) or not isinstance(keys, dict) or len(endpoint) > MAX_ENDPOINT_CHARS:
        raise SubscriptionError(N_("That is not a browser's push subscription."))
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    if not (isinstance(p256dh, str) and isinstance(auth, str) and 0 < len(p256dh) <= 200 and 0 < len(auth) <= 64):
        raise SubscriptionError(N_("The subscription's keys are missing."))
    url = check_endpoint(endpoint).url  # kept as it is sent
    if len(url) > MAX_ENDPOINT_CHARS:  # percent-encoding made it longer
        raise SubscriptionError(N_("That is not a browser's push subscription."))
    with db.transaction() as s:
        s.execute(delete(PushSubscription).where(PushSubscription.endpoint.in_({endpoint, url})))
        if count_in(s, user_id) >= MAX_SUBSCRIPTIONS:
            raise SubscriptionError(N_("At most %(most)d browsers can get pushes; turn one off first."),
                                    most=MAX_SUBSCRIPTIONS)
        s.add(PushSubscription(user_id=user_id, endpoint=url, p256dh=p256dh, auth=auth,
                               user_agent=(user_agent or "")[:200] or None))


def unsubscribe(db: Database, user_id: int, endpoint: str | None = None) -> int:
    """Forget one of the user's browsers (by endpoint, as the browser gives it or as it is kept), or all
    of them; returns how many went."""
    from pbem.notify import outgoing

    with db.transaction() as s:
        query = delete(PushSubscription).where(PushSubscription.user_id == user_id)
        if endpoint is not None:
            try:
                forms = {endpoint, outgoing.normalise(endpoint, schemes=("https", "http")).url}
            except outgoing.URLRefusedError:
                forms = {endpoint}  # a row kept before endpoints were normalised may still be this text
            query = query.where(PushSubscription.endpoint.in_(forms))
        return s.execute(query).rowcount


def count_in(s: Session, user_id: int) -> int:
    return s.scalar(select(func.count()).select_from(PushSubscription).where(PushSubscription.user_id == user_id))


def count(db: Database, user_id: int) -> int:
    """How many browsers of the user get "your turn" pushes."""
    with db.sessions() as s:
        return count_in(s, user_id)


# --- the message and its sending ----------------------------------------------------------------------------


def turn_message(s: Session, game: Game, user_id: int) -> dict | None:
    """What the push says, in the user's language: whose move it was and that it is the user's turn now
    (None: the turn is not theirs)."""
    seat = s.scalars(select(Seat).where(Seat.game_id == game.id, Seat.number == game.to_move)).first()
    if game.status != GameStatus.RUNNING.value or seat is None or seat.user_id != user_id:
        return None
    _ = i18n.texts(s.scalar(select(User.language).where(User.id == user_id))).gettext
    last = s.scalars(select(MoveRecord).where(MoveRecord.game_id == game.id).order_by(MoveRecord.seq.desc())).first()
    names = dict(s.execute(select(Seat.number, Seat.display_name).where(Seat.game_id == game.id)).all())
    title = engine.get(game.title).title
    move = game.version + 1
    if last is None:
        body = _("Move %(move)d is yours.", move=move)
    elif last.seat in names:
        body = _("%(player)s played %(notation)s. Move %(move)d is yours.", player=names[last.seat],
                 notation=last.notation, move=move)
    else:
        body = _("Someone played %(notation)s. Move %(move)d is yours.", notation=last.notation, move=move)
    return {"title": _("Your turn: %(title)s, game %(game)d", title=title, game=game.id), "body": body,
            "url": f"/games/{game.id}", "tag": f"pbem-game-{game.id}"}


def send_turn(db: Database, data_dir: Path, contact: str, user_id: int, game_id: int, version: int) -> int:
    """Push "your turn" in one game to each browser of the user; returns how many took it.

    Nothing is sent when the game has moved on since (the turn is over) or it is not the
    user's turn. A browser that got this very push before (a job delivered twice) is skipped.
    """
    with db.sessions() as s:
        game = s.get(Game, game_id)
        if game is None or game.version != version:
            return 0
        message = turn_message(s, game, user_id)
    return _push(db, data_dir, contact, user_id, message, f"{game_id}:{version}")


def mention_message(s: Session, message_id: int, user_id: int) -> dict | None:
    """What the push says of a message that names the user, in their language (None: the message is gone
    or hidden by an operator since, or it does not name them, or they may not read it)."""
    message = s.get(Message, message_id)
    if message is None or message.hidden_at is not None:
        return None
    seats = list(s.scalars(select(Seat).where(Seat.game_id == message.game_id)))
    mine = {seat.number for seat in seats if seat.user_id == user_id}
    if not mine & talk.mentions(message.body, seats) & talk.readers(message, seats):
        return None
    author = next((seat.display_name for seat in seats if seat.number == message.seat), "?")
    game = s.get(Game, message.game_id)
    _ = i18n.texts(s.scalar(select(User.language).where(User.id == user_id))).gettext
    text = message.body if len(message.body) <= MENTION_CHARS else message.body[:MENTION_CHARS - 1] + "\u2026"
    return {"title": _("%(player)s mentioned you: %(title)s, game %(game)d", player=author,
                       title=engine.get(game.title).title, game=game.id),
            "body": text, "url": f"/games/{game.id}#talk", "tag": f"pbem-message-{message.id}"}


def send_mention(db: Database, data_dir: Path, contact: str, user_id: int, message_id: int) -> int:
    """Push "you are mentioned" for one message to each browser of the user; returns how many took it.
    A browser that got this very push before (a job delivered twice) is skipped."""
    with db.sessions() as s:
        message = mention_message(s, message_id, user_id)
    return _push(db, data_dir, contact, user_id, message, f"m{message_id}")


def _push(db: Database, data_dir: Path, contact: str, user_id: int, message: dict | None, done: str) -> int:
    """Push `message` to each browser of the user that has not taken the push called `done` yet."""
    from pywebpush import WebPushException, webpush
    from requests import RequestException

    from pbem.notify import outgoing

    with db.sessions() as s:
        subscriptions = list(s.scalars(select(PushSubscription).where(PushSubscription.user_id == user_id)))
    if message is None or not subscriptions:
        return 0
    key = vapid(data_dir)
    sent = 0
    # Every push goes through a session that connects only to addresses outside the site.
    with outgoing.session() as http:
        for sub in subscriptions:
            if sub.last_push == done:
                continue
            gone = False
            try:
                # Checked again: a row may be older than a change of PBEM_PUSH_HOSTS or of the rules.
                destination = check_endpoint(sub.endpoint)
                info = {"endpoint": destination.url, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}}
                webpush(info, json.dumps(message), vapid_private_key=key,
                        vapid_claims={"sub": f"mailto:{contact}", "aud": destination.origin}, ttl=TTL_S,
                        timeout=TIMEOUT_S, headers={"Urgency": "normal", "Topic": message["tag"][:32]},
                        requests_session=http)
            except SubscriptionError:
                gone = True
            except WebPushException as error:  # an answer over 202, a redirect (never followed) among them
                status = error.response.status_code if error.response is not None else None
                log.warning("push to subscription %s refused: %s", sub.id, status or error)
                _record(db, sub.id, ok=False, gone=status in (404, 410))
                continue
            except RequestException as error:  # unreachable, or an address inside the site: count it, go on
                log.warning("push to subscription %s failed: %s", sub.id, error)
                _record(db, sub.id, ok=False, gone=False)
                continue
            _record(db, sub.id, ok=not gone, gone=gone, done=done)
            sent += not gone
    return sent


def _record(db: Database, subscription_id: int, ok: bool, gone: bool, done: str | None = None) -> None:
    with db.transaction() as s:
        sub = s.get(PushSubscription, subscription_id)
        if sub is None:
            return
        if gone:
            s.delete(sub)
        elif ok:
            sub.last_sent_at, sub.last_push, sub.failures = utcnow(), done, 0
        else:
            sub.failures += 1
            if sub.failures >= MAX_FAILURES:
                s.delete(sub)
