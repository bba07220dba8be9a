"""The webhook channel: the news a player chose, posted to their chat webhooks (Discord, Slack, Matrix).

`take`, in the transaction of the change: for each of the reader's webhooks that takes the notice's
kind (pbem.notify.webhooks: "mentioned" is a choice of its own for the messages that name the
reader), and is not paused after failures, one `WebhookDelivery` row (this channel's outbox) with the
news written in the reader's language, and the job `pbem.send_webhook` (its id) after the commit.
Asking the database for the webhooks only happens for a reader who has some (`User.has_webhooks`,
loaded with the user).

`deliver`, in the worker: the row is claimed (as the mail channel claims its rows: a row sent, or
being sent by another worker, is left alone), the JSON of the webhook's format is posted through
the checked outgoing session (pbem.notify.outgoing: the address read once, nothing inside the site
unless PBEM_OUTGOING_ALLOW lets it, no redirect followed) with a short timeout, and the answer
decides: 2xx sent; 429, 5xx or no connection: tried again with the worker's backoff
(TransientDeliveryError) up to MAX_ATTEMPTS tries, then failed; any other answer (a webhook deleted
at the service: 404; a redirect) failed at once. The webhook keeps how its last post went; after
`webhooks.PAUSE_AFTER` failures in a row it takes no news until it is saved again. A crash between
the post and its mark posts it again after CLAIM_TIMEOUT: a notice may come twice, never be lost.

`due`: the rows still pending after the sweep's delay, and those whose worker died while sending.

What is posted (one short text and the game's link, in the reader's language):

- discord: `{"content": text, "allowed_mentions": {"parse": []}}`, the text with Discord's markdown
  escaped and no mention of anybody allowed (a player's message cannot ping @everyone);
- slack: `{"text": text}`, with `&`, `<`, `>` escaped as Slack asks (no `<!channel>` from a message);
- matrix: the generic webhook of matrix-hookshot, `{"text": plain text, "html": the same as HTML}`
  (with `html` given, hookshot does not read the text as Markdown).

No view of a game is ever part of the news: the turn, the move's number, the result's "over", the
deadline, a late player's name, and a message's text to a reader of that message (the notice is
only made for its readers, pbem.talk.readers), which is not posted if an operator hid it meanwhile.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Iterable
from datetime import timedelta

import requests
from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from pbem import i18n, jobs
from pbem.config import Settings
from pbem.db import Database
from pbem.i18n import N_
from pbem.models import Message, Webhook, WebhookDelivery, utcnow
from pbem.notify import outgoing, webhooks, wording
from pbem.notify.channels import Notice, TransientDeliveryError

log = logging.getLogger(__name__)

SEND_WEBHOOK = "pbem.send_webhook"  # (delivery_id,)
TIMEOUT_S = 5.0  # to connect, and to read the answer
MAX_ATTEMPTS = 5  # tries of one post before it is given up
CLAIM_TIMEOUT = timedelta(minutes=2)  # a claim older than this belongs to a worker that died
SWEEP_BATCH = 500
QUOTED = 300  # characters of a player's message quoted in the news
ERROR_CHARS = 300

TEXTS = {
    "turn": N_("Your turn in %(title)s, game %(game)d: move %(move)d."),
    "move": N_("%(title)s, game %(game)d: move %(move)d was played."),
    "result": N_("%(title)s, game %(game)d is over."),
    "reminder": N_("Reminder: your move %(move)d in %(title)s, game %(game)d, is due by %(deadline)s."),
    "late": N_("%(title)s, game %(game)d: %(name)s missed the deadline of move %(move)d."),
    "message": N_("%(title)s, game %(game)d: %(name)s wrote to the table: %(text)s"),
    "private": N_("%(title)s, game %(game)d: %(name)s wrote privately: %(text)s"),
    "mentioned": N_("%(title)s, game %(game)d: %(name)s mentioned you: %(text)s"),
}
_DISCORD_MARKUP = re.compile(r"([\\*_~`|>\[\]()#@<])")
_ROW_LOCKED = select(WebhookDelivery).where(WebhookDelivery.id == bindparam("delivery_id")).with_for_update()


class WebhookChannel:
    """News to chat webhooks: a row per notice and webhook that takes it, the job `pbem.send_webhook` per row."""

    name = "webhook"
    task = SEND_WEBHOOK

    def take(self, s: Session, notice: Notice) -> None:
        if not notice.user.has_webhooks:
            return
        hooks = [hook for hook in s.scalars(select(Webhook).where(Webhook.user_id == notice.user.id,
                                                                  Webhook.failures < webhooks.PAUSE_AFTER))
                 if webhooks.takes(hook.kinds, notice.kind, notice.mentioned)]
        if not hooks:
            return
        text = news(notice)
        kind = "mentioned" if notice.mentioned else notice.kind
        message_id = notice.message.id if notice.kind == "message" else None
        for hook in hooks:
            row = WebhookDelivery(webhook_id=hook.id, game_id=notice.game.id, message_id=message_id, kind=kind,
                                  text=text, status="pending", attempts=0, created_at=utcnow())
            s.add(row)
            s.flush()
            jobs.after_commit(s, SEND_WEBHOOK, row.id)

    def deliver(self, db: Database, settings: Settings, delivery_id: int) -> str:
        status, claimed = _claim(db, delivery_id)
        if status != "claimed":
            return status
        row, hook = claimed
        try:
            url = webhooks.sendable(hook.url).url
        except webhooks.WebhookError:  # a webhook kept before the rules changed: never sendable
            return _finish(db, row, "failed", None, "The address is no longer one pbem posts to.")
        body = payload(hook.format, row.text, f"{settings.base_url}/games/{row.game_id}")
        return _finish(db, row, *_post(url, body))

    def due(self, db: Database, settings: Settings) -> Iterable[tuple]:
        now = utcnow()
        waiting = now - timedelta(seconds=settings.sweep_after_s)
        query = (select(WebhookDelivery.id)
                 .where(((WebhookDelivery.status == "pending")
                         & (WebhookDelivery.created_at <= waiting)
                         & ((WebhookDelivery.claimed_at.is_(None)) | (WebhookDelivery.claimed_at <= waiting)))
                        | ((WebhookDelivery.status == "sending") & (WebhookDelivery.claimed_at < now - CLAIM_TIMEOUT)))
                 .order_by(WebhookDelivery.id).limit(SWEEP_BATCH))
        with db.sessions() as s:
            return [(delivery_id,) for delivery_id in s.scalars(query)]


# --- the news ---------------------------------------------------------------------------------------------


def news(notice: Notice) -> str:
    """The notice in one short sentence, in its reader's language (the game's link is added when posted)."""
    game, language = notice.game, notice.user.language
    values = {"title": notice.title, "game": game.id}
    if notice.kind == "message":
        message = notice.message
        body = " ".join(message.body.split())
        key = "mentioned" if notice.mentioned else "private" if message.to_seats is not None else "message"
        author = next((seat.display_name for seat in game.seats if seat.number == message.seat), "?")
        values.update(name=author, text=body if len(body) <= QUOTED else body[:QUOTED - 1] + "…")
    else:
        key = notice.kind
        values["move"] = game.version if notice.kind == "move" else game.version + 1
        if notice.kind == "reminder":
            values["deadline"] = wording.when(game.deadline, language) if game.deadline else "?"
        if notice.kind == "late":
            values["name"] = notice.late.display_name
    if key == "vacation":  # in one call, for pybabel to read the plural forms
        return i18n.texts(language).ngettext(
            "%(title)s, game %(game)d: a vacation day was spent at your deadline; %(num)d day is left.",
            "%(title)s, game %(game)d: a vacation day was spent at your deadline; %(num)d days are left.",
            notice.left, **values)
    return i18n.texts(language).gettext(TEXTS[key], **values)


def payload(format_: str, text: str, link: str) -> dict:
    """The JSON a service's webhook reads, for one piece of news and the game's link."""
    if format_ == "discord":
        escaped = _DISCORD_MARKUP.sub(r"\\\1", text)
        return {"content": f"{escaped}\n{link}"[:2000], "allowed_mentions": {"parse": []}}
    if format_ == "slack":
        escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return {"text": f"{escaped}\n<{link}>"}
    return {"text": f"{text}\n{link}",
            "html": f'{html.escape(text)}<br><a href="{html.escape(link)}">{html.escape(link)}</a>'}


# --- one post: claimed, then marked ---------------------------------------------------------------------------


def _claim(db: Database, delivery_id: int) -> tuple[str, tuple[WebhookDelivery, Webhook] | None]:
    """Lock the row and mark it as being posted by us; returns why not, or the row and its webhook."""
    with db.transaction() as s:
        row = s.scalars(_ROW_LOCKED, {"delivery_id": delivery_id}).first()
        if row is None:
            return "missing", None  # its webhook was removed
        if row.status in ("sent", "failed"):
            return "already sent" if row.status == "sent" else "failed", None
        now = utcnow()
        if row.status == "sending" and row.claimed_at and now - row.claimed_at < CLAIM_TIMEOUT:
            return "in progress", None
        if row.message_id is not None and s.scalar(select(Message.hidden_at).where(Message.id == row.message_id)):
            row.status, row.last_error = "failed", "The message was hidden by the site's operators."
            return "hidden", None
        hook = s.get(Webhook, row.webhook_id)
        row.status, row.claimed_at = "sending", now
        row.attempts += 1
        s.flush()
        s.expunge(row)
        s.expunge(hook)
        return "claimed", (row, hook)


def _post(url: str, body: dict) -> tuple[str, int | None, str | None]:
    """POST the JSON once; the outcome (sent, retry, failed), the HTTP status and the error, without the URL (a
    secret) in it."""
    try:
        answer = outgoing.request("POST", url, schemes=("https", "http"), json=body, timeout=(TIMEOUT_S, TIMEOUT_S))
    except outgoing.AddressRefusedError as error:  # its host resolves inside the site now: it names the host only
        return "failed", None, str(error)
    except requests.Timeout:
        return "retry", None, "No answer in time."
    except requests.RequestException as error:  # refused, reset, no such name: the service is away
        return "retry", None, f"No connection ({type(error).__name__})."
    code = answer.status_code
    answer.close()
    if 200 <= code < 300:
        return "sent", code, None
    return ("retry" if code == 429 or code >= 500 else "failed"), code, f"HTTP {code}"


def _finish(db: Database, row: WebhookDelivery, outcome: str, code: int | None, error: str | None) -> str:
    """Mark the row (sent, failed, or pending again to be retried) and the webhook's last status; raise
    TransientDeliveryError for a try worth making again, while tries are left."""
    if outcome == "retry" and row.attempts >= MAX_ATTEMPTS:
        outcome, error = "failed", f"{error} (after {row.attempts} tries)"
    error = error[:ERROR_CHARS] if error else None
    with db.transaction() as s:
        stored, hook = s.get(WebhookDelivery, row.id), s.get(Webhook, row.webhook_id)
        if stored is not None:
            stored.status = {"retry": "pending"}.get(outcome, outcome)
            stored.last_error = error
            stored.sent_at = utcnow() if outcome == "sent" else None
        if hook is not None:
            hook.last_status, hook.last_error = code, error
            if outcome == "sent":
                hook.last_sent_at, hook.failures = utcnow(), 0
            elif outcome == "failed":
                hook.failures += 1
    if outcome == "retry":
        log.info("webhook %s: delivery %s will be tried again: %s", row.webhook_id, row.id, error)
        raise TransientDeliveryError(f"webhook delivery {row.id}: {error}")
    if outcome == "failed":
        log.warning("webhook %s: delivery %s failed: %s", row.webhook_id, row.id, error)
    return outcome
