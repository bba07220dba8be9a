"""A player's chat webhooks (Discord, Slack, Matrix): adding, listing and removing them, and the address guard.

A webhook is a URL a chat service gave the player (a Discord channel's webhook, a Slack incoming
webhook, a Matrix room's hookshot generic webhook) and the news it takes: some of the notice kinds
(`pbem.notify.channels.KINDS`: your turn, every move, the result, the deadline near, a player late,
your vacation bank at 1 or 0 days, every message) and "mentioned", a message that names the player. The webhook channel
(`pbem.notify.channels.webhook`) posts them; the web's settings page, the JSON API and the `/webhook`
mail command change them through the functions here, so all three refuse the same things the same way.

The address guard is the one push endpoints have (pbem.notify.outgoing, docs/security.md): the URL is
read once and kept as normalised; it must be https (plain http only to a loopback host, as push's
`LOOPBACK`); and every address its host resolves to must be one the site's address policy lets
requests reach: public unicast only, unless the operator lists networks in PBEM_OUTGOING_ALLOW (the
explicit allowance a test's local sink on 127.0.0.1 needs). The check is made when the webhook is
saved, so the player reads the refusal beside the field, and again by the connection at every post.

The URL is a secret (whoever has it may post to that channel): it is shown again only shortened
(`shown`). This module sends nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

import requests
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from pbem.db import Database
from pbem.i18n import N_
from pbem.models import User, Webhook, utcnow
from pbem.notify import outgoing, push
from pbem.reasons import Refusal

FORMATS = ("discord", "slack", "matrix")
FORMAT_LABELS = {"discord": N_("Discord"), "slack": N_("Slack"), "matrix": N_("Matrix (hookshot)")}
# The news a webhook may take: the notice kinds (pbem.notify.channels.KINDS), and "mentioned", a message that
# names its reader, as a choice of its own.
CHOICES = ("turn", "move", "result", "reminder", "late", "vacation", "message", "mentioned")
KIND_LABELS = {
    "turn": N_("your turn"),
    "move": N_("every move played"),
    "result": N_("game over"),
    "reminder": N_("the deadline of your turn near"),
    "late": N_("a player missed a deadline"),
    "vacation": N_("your vacation days running out"),
    "message": N_("every message you may read"),
    "mentioned": N_("a message that names you"),
}
DEFAULT_KINDS = ("turn", "result", "reminder", "vacation", "mentioned")
# The hosts whose format is known, for an address given without one (by mail, by the API).
KNOWN_HOSTS = {"discord.com": "discord", "discordapp.com": "discord", "hooks.slack.com": "slack"}
MAX_WEBHOOKS = 5  # per user
PAUSE_AFTER = 10  # posts failed for good in a row: the webhook takes no more news until it is saved again
TIME = "%Y-%m-%dT%H:%M:%SZ"


class WebhookError(Refusal, ValueError):
    """A webhook the server will not keep; says why, in the reader's language (`text(language)`).

    `code` is the API's reason kind, `field` the form field it is about (url, format, kinds)."""

    def __init__(self, message: str, /, *, code: str = "bad_webhook", field: str = "url", **values):
        super().__init__(message, **values)
        self.code, self.field = code, field


# --- the address guard ----------------------------------------------------------------------------------


def sendable(url: str) -> outgoing.Destination:
    """The URL read once, as it is kept and posted to, if it is https (or http to a loopback host), else
    WebhookError. The channel asks again before each post: a row may be older than the rules."""
    try:
        destination = outgoing.normalise(url.strip() if isinstance(url, str) else url, schemes=("https", "http"))
    except outgoing.URLRefusedError:
        raise WebhookError(N_("That is not a web address pbem can post to (https://...)."), code="bad_url") from None
    if destination.scheme != "https" and destination.host not in push.LOOPBACK:
        raise WebhookError(N_("A webhook must be an https address."), code="bad_url")
    return destination


def check_url(url: str, resolver: outgoing.Resolver | None = None) -> outgoing.Destination:
    """Where a post to this URL goes, if the guard lets it (`sendable`, and every address of its host allowed
    by the site's address policy, as the connection will check it), else WebhookError with the reason."""
    destination = sendable(url)
    adapter = outgoing.CheckedAdapter(outgoing.AddressPolicy.from_environment(), resolver)
    try:
        adapter.checked_address(destination.host, destination.port, None)  # the connection's own check
    except outgoing.AddressRefusedError:
        raise WebhookError(N_("%(host)s is an address inside this server's network (loopback or private); "
                              "pbem posts only to public addresses."), code="address_refused",
                           host=destination.host) from None
    except requests.exceptions.ConnectionError:
        raise WebhookError(N_("%(host)s cannot be found."), code="bad_url", host=destination.host) from None
    finally:
        adapter.close()
    return destination


def shown(url: str) -> str:
    """The URL as pages, mails and the API show it: the service and the last characters of its secret."""
    try:
        destination = outgoing.normalise(url, schemes=("https", "http"))
    except outgoing.URLRefusedError:
        return "…"
    tail = destination.target.rstrip("/")
    return f"{destination.origin}/…{tail[-4:]}" if len(tail) > 8 else f"{destination.origin}/…"


# --- what a webhook takes ------------------------------------------------------------------------------


def kinds_of(chosen: Iterable[str] | None) -> list[str]:
    """The news chosen, in CHOICES' order (None: the default); WebhookError for an unknown one or none."""
    if chosen is None:
        return list(DEFAULT_KINDS)
    words = {str(word).strip().lower() for word in chosen if str(word).strip()}
    unknown = sorted(words - set(CHOICES))
    if unknown:
        raise WebhookError(N_("%(kind)s is no kind of news; the kinds are: %(kinds)s."), code="bad_kinds",
                           field="kinds", kind=unknown[0], kinds=", ".join(CHOICES))
    if not words:
        raise WebhookError(N_("Choose at least one kind of news for the webhook."), code="bad_kinds", field="kinds")
    return [kind for kind in CHOICES if kind in words]


def format_of(chosen: str | None, destination: outgoing.Destination) -> str:
    """The format chosen, or the one of a known service's host; WebhookError when neither says."""
    if chosen:
        if chosen.strip().lower() not in FORMATS:
            raise WebhookError(N_("%(format)s is not a format pbem posts in; choose discord, slack or matrix."),
                               code="bad_format", field="format", format=chosen)
        return chosen.strip().lower()
    for host, format_ in KNOWN_HOSTS.items():
        if destination.on((host,)):
            return format_
    raise WebhookError(N_("Say which service the webhook is of: discord, slack or matrix."), code="bad_format",
                       field="format")


def takes(kinds: Iterable[str], kind: str, mentioned: bool = False) -> bool:
    """Whether a webhook with these kinds takes a notice of this kind (a message: every one, or those naming
    the reader)."""
    kinds = set(kinds)
    return kind in kinds or (kind == "message" and mentioned and "mentioned" in kinds)


# --- adding, listing, removing --------------------------------------------------------------------------


def add(db: Database, user_id: int, url: str, format: str | None = None, kinds: Iterable[str] | None = None,
        resolver: outgoing.Resolver | None = None) -> dict:
    """Keep a webhook for the user (the same address again changes its format and kinds, and un-pauses it);
    returns it as `listed` shows it. WebhookError, and nothing changes, when anything is refused."""
    if not isinstance(url, str) or not url.strip():
        raise WebhookError(N_("Give the webhook's address."), code="bad_url")
    destination = check_url(url, resolver)
    chosen_format, chosen_kinds = format_of(format, destination), kinds_of(kinds)
    with db.transaction() as s:
        if s.scalars(select(User.id).where(User.id == user_id).with_for_update()).first() is None:
            raise WebhookError(N_("There is no user %(user)d."), code="not_found", user=user_id)
        hook = s.scalars(select(Webhook).where(Webhook.user_id == user_id, Webhook.url == destination.url)).first()
        if hook is None:
            if len(_of(s, user_id)) >= MAX_WEBHOOKS:
                raise WebhookError(N_("You have %(most)d webhooks, the most pbem keeps; remove one first."),
                                   code="too_many", most=MAX_WEBHOOKS)
            hook = Webhook(user_id=user_id, url=destination.url, created_at=utcnow(), failures=0)
            s.add(hook)
        hook.format, hook.kinds, hook.failures = chosen_format, chosen_kinds, 0
        s.flush()
        return _row(hook)


def remove(db: Database, user_id: int, webhook_id: int) -> bool:
    """Forget one of the user's webhooks (and what it had still to post); False when they have no such one."""
    with db.transaction() as s:
        return s.execute(delete(Webhook).where(Webhook.id == webhook_id, Webhook.user_id == user_id)).rowcount > 0


def listed(db: Database, user_id: int) -> list[dict]:
    """The user's webhooks, oldest first, as the pages, the mails and the API show them."""
    with db.sessions() as s:
        return [_row(hook) for hook in _of(s, user_id)]


def overview(db: Database, user_id: int) -> dict:
    """What the settings page shows and offers: the webhooks, the formats and kinds with their labels."""
    return {"hooks": listed(db, user_id), "formats": FORMAT_LABELS, "kinds": KIND_LABELS,
            "defaults": DEFAULT_KINDS, "most": MAX_WEBHOOKS}


def _of(s: Session, user_id: int) -> list[Webhook]:
    return list(s.scalars(select(Webhook).where(Webhook.user_id == user_id).order_by(Webhook.id)))


def _row(hook: Webhook) -> dict:
    return {"id": hook.id, "url": shown(hook.url), "format": hook.format, "kinds": list(hook.kinds),
            "created_at": _time(hook.created_at), "last_status": hook.last_status, "last_error": hook.last_error,
            "last_sent_at": _time(hook.last_sent_at), "failures": hook.failures,
            "paused": hook.failures >= PAUSE_AFTER}


def _time(at: datetime | None) -> str | None:
    return at.strftime(TIME) if at is not None else None
