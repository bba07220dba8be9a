"""/leave GAME-ID: leave a table; in a running game whose table declared a policy for abandoned seats (issue 37
item 3), the seat goes to a bot of the table's level and is offered to a replacement.

Before the start it gives up the seat as the web's "Leave" does. In a running game without the policy it
is refused with the way out (resign through the turn mail). It changes a table, so a mail without a key only
asks to confirm it (`changes`).
"""

from __future__ import annotations

from pbem import games
from pbem.i18n import N_
from pbem.mail.commands import ACCOUNT, Spec
from pbem.models import Game, GameStatus


def run(context, command) -> None:
    _ = context.gettext
    games.leave_game(context.db, command.game_id, context.user.id)
    context.answer.game_id = command.game_id
    with context.db.sessions() as s:
        game = s.get(Game, command.game_id)
        running, level = game.status == GameStatus.RUNNING.value, game.bot_level
    if running:
        context.say(_("You left game %(game)d. A bot (%(level)s) plays your seat until a replacement takes it; "
                      "you get no more mail of this game.", game=command.game_id, level=level))
    else:
        context.say(_("You left the table of game %(game)d.", game=command.game_id))


COMMAND = Spec("leave", 32, run, doors=frozenset({ACCOUNT}), needs_game=True, changes=True,
               usage=N_("/leave GAME-ID"),
               help=N_("leave a table; in a running game whose table allows it,\na bot plays your seat "
                       "until a replacement takes it"))
