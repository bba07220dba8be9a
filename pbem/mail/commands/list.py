"""/list [GAME]: the open tables one may join, by title, each with the line to send to join it.

The same tables as the web lobby's "Open tables" (`pbem.games.tables.open_tables`: open, a seat
free, and none of them the reader's own, which /games lists), newest first, at most PER_TITLE of
each title with a count of the rest and where to see them. Read-only: answered without a key too.
The opener's name is one a stranger may have typed, so it is quoted as a name, cleaned
(`accounts.quoted_name`), as an invitation quotes it.
"""

from __future__ import annotations

import engine
from pbem import accounts
from pbem.games import tables
from pbem.i18n import N_
from pbem.mail.commands import ACCOUNT, CommandError, Spec
from pbem.mail.commands.new import POLICY_WORDS, pace

PER_TITLE = 20  # tables listed of one title; the rest are counted


def check(args: tuple[str, ...]) -> None:
    if len(args) > 1 or (args and args[0].lower() not in engine.names()):
        raise CommandError(N_("Write /list, or /list GAME for the tables of one game (%(games)s)."),
                           games=", ".join(engine.names()))


def _value(value) -> str:
    """An option's value as /new takes it (yes or no for a switch)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def run(context, command) -> None:
    _ = context.gettext
    title = command.args[0].lower() if command.args else None
    found = tables.open_tables(context.db, context.user.id, title, per_title=PER_TITLE)
    if not found:
        context.say(_("No table is waiting for players now. Open one with /new GAME (/help lists the games)."))
        return
    for name, listed, total in found:
        rules = engine.get(name)
        lines = [context.ngettext("%(title)s: %(num)d open table", "%(title)s: %(num)d open tables", total,
                                  title=rules.title)]
        for table in listed:
            opener = f'"{accounts.quoted_name(table.opened_by)}"' if table.opened_by else "-"
            lines += ["", "  " + _("Game %(game)d, %(seated)d of %(players)d seats taken, opened by %(name)s.",
                                   game=table.id, seated=len(table.seats), players=table.players, name=opener)]
            chosen = [f"{option['name']}={_value(table.options.get(option['name'], option['default']))}"
                      for option in rules.describe()["options"]
                      if table.options.get(option["name"], option["default"]) != option["default"]]
            if chosen:
                lines.append("  " + _("Options: %(options)s.", options=" ".join(chosen)))
            if table.turn_hours:
                policy = _(POLICY_WORDS.get(table.timeout_policy, table.timeout_policy))
                lines.append("  " + _("Pace: %(pace)s; when a deadline passes: %(policy)s.",
                                      pace=pace(context, table.turn_hours), policy=policy))
            else:
                lines.append("  " + _("Pace: no deadline."))
            lines.append("  " + _("Free colours: %(colours)s. To join, send:", colours=", ".join(table.free_colours)))
            lines.append(f"    /join {table.id}")
            if table.free_colours:
                lines.append("  " + _("or, in a colour: %(line)s", line=f"/join {table.id} {table.free_colours[0]}"))
        if total > len(listed):
            link = f"{context.settings.base_url.rstrip('/')}/?title={name}"
            lines += ["", "  " + _("... and %(num)d more, older ones: all are on %(link)s", num=total - len(listed),
                                   link=link)]
        context.say(*lines)
    context.say(_("Your own open tables are not listed here: /games lists them."))


COMMAND = Spec("list", 5, run, doors=frozenset({ACCOUNT}), check=check, usage=N_("/list [GAME]"),
               help=N_("the open tables you may join, by game, with the line to join each"))
