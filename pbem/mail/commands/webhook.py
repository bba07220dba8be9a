"""/webhook: the sender's chat webhooks (Discord, Slack, Matrix): list them, add one, remove one.

- `/webhook` or `/webhook list`: each webhook with its number, service, the news it takes, its address
  shortened (the whole address is a secret: pbem never shows it again) and how its last post went.
- `/webhook add URL [FORMAT] [KIND ...]`: the whole address on the command's line; FORMAT is discord,
  slack or matrix (left out for a discord.com or hooks.slack.com address); the kinds are the news it
  takes (turn, move, result, reminder, late, vacation, message, mentioned; left out: turn, result,
  reminder, vacation and mentioned), by words or commas. The address passes the same guard as on the settings page.
- `/webhook remove NUMBER`.

Adding is allowed by mail, by the same rule as every change (docs/security.md): through the command
key, or from the registered address once the player confirms the mail.
"""

from __future__ import annotations

from pbem.i18n import N_
from pbem.mail.commands import ACCOUNT, CommandError, Spec
from pbem.notify import webhooks

ACTIONS = ("list", "add", "remove")
HOW = N_("Write /webhook, /webhook add URL [discord|slack|matrix] [KINDS], or /webhook remove NUMBER.")


def check(args: tuple[str, ...]) -> None:
    action = args[0].lower() if args else "list"
    if action not in ACTIONS or (action == "list" and len(args) > 1) or (action == "add" and len(args) < 2):
        raise CommandError(HOW)
    if action == "remove" and (len(args) != 2 or not args[1].lstrip("#").isdigit()):
        raise CommandError(N_("Write /webhook remove and the webhook's number, as /webhook lists it."))


def run(context, command) -> None:
    action = command.args[0].lower() if command.args else "list"
    if action == "add":
        _add(context, command.args[1], command.args[2:])
    elif action == "remove":
        number = int(command.args[1].lstrip("#"))
        if not webhooks.remove(context.db, context.user.id, number):
            raise CommandError(N_("You have no webhook %(number)d; /webhook lists yours."), number=number)
        context.say(context.gettext("Webhook %(number)d is removed.", number=number))
    _list(context)


def _add(context, url: str, words: tuple[str, ...]) -> None:
    """Add the webhook of the line: the first word of a format is its format, the other words its kinds."""
    words = [part for word in words for part in word.replace(",", " ").split()]
    place = next((n for n, word in enumerate(words) if word.lower() in webhooks.FORMATS), None)
    format_ = words.pop(place) if place is not None else None
    kinds = words or None
    try:
        added = webhooks.add(context.db, context.user.id, url, format_, kinds)
    except webhooks.WebhookError as error:
        raise CommandError(N_("The webhook was not added: %(reason)s"), reason=error) from None
    context.say(context.gettext("Webhook %(number)d is added: it posts %(kinds)s.", number=added["id"],
                                kinds=_kinds(context, added["kinds"])))


def _list(context) -> None:
    _ = context.gettext
    hooks = webhooks.listed(context.db, context.user.id)
    if not hooks:
        context.say(_("You have no webhook. /webhook add URL posts your news to a Discord, Slack or Matrix room."))
        return
    lines = [_("Your webhooks:")]
    for hook in hooks:
        lines.append(_("%(number)d. %(service)s %(url)s: %(kinds)s", number=hook["id"],
                       service=_(webhooks.FORMAT_LABELS[hook["format"]]), url=hook["url"],
                       kinds=_kinds(context, hook["kinds"])))
        if hook["paused"]:
            lines.append("   " + _("paused after %(failures)d failed posts (%(error)s): add it again to resume",
                                   failures=hook["failures"], error=hook["last_error"] or "?"))
        elif hook["last_error"]:
            lines.append("   " + _("the last post failed: %(error)s", error=hook["last_error"]))
    context.say(*lines)


def _kinds(context, kinds: list[str]) -> str:
    return ", ".join(context.gettext(webhooks.KIND_LABELS[kind]) for kind in kinds)


COMMAND = Spec("webhook", 92, run, doors=frozenset({ACCOUNT}), changes=True, check=check,
               usage=N_("/webhook [add URL|remove NUMBER]"),
               help=N_("your news in a Discord, Slack or Matrix room: list\nyour webhooks, add one (then discord, "
                       "slack or\nmatrix, and the news: turn, move, result, reminder,\nlate, vacation, message, mentioned), "
                       "remove one"))
