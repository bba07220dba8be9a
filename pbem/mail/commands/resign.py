"""/resign: leave a game for good, through the current turn key and from the seat's own address only."""

from __future__ import annotations

from pbem import games
from pbem.i18n import N_
from pbem.mail.commands import TURN, CommandError, Spec


def run(turn, command) -> None:
    if not turn.who.from_owner:
        raise CommandError(N_("A resignation is taken only from your own address (%(address)s), even with the "
                              "From-check off."), address=turn.user.email)
    data = turn.current()
    if turn.expected is not None and data["version"] != turn.expected:
        raise CommandError(N_("This reply address is for move %(key_move)d, and game %(game)d is at move %(move)d: "
                              "resign through your latest turn mail."), key_move=turn.expected + 1,
                           game=command.game_id, move=data["version"] + 1)
    try:  # checked again under the game's lock: a move that came meanwhile makes the key stale
        games.resign(turn.db, command.game_id, turn.user.id, source="email", expected_version=turn.expected)
    except games.StalePositionError:
        raise CommandError(N_("This reply address is for move %(key_move)d, and game %(game)d has moved on since: "
                              "resign through your latest turn mail."), key_move=turn.expected + 1,
                           game=command.game_id) from None
    turn.say(turn.gettext("You resigned from game %(game)d.", game=command.game_id))
    turn.resigned = True


COMMAND = Spec("resign", 160, run, doors=frozenset({TURN}), needs_game=True)
