"""What the domain packages announce, for the others to act on in the same transaction.

The game service says what happened to a game (it started, a turn began, a move was applied,
it ended) and the scheduler says what is due (a reminder, a player late, a vacation bank low);
it does not know who listens. Notification (pbem.notify: the mails), scheduling (pbem.schedule: the turn's
clock) and the pictures (pbem.boards) listen. Every signal is sent with the open
`Session` as its sender, so a listener writes in the transaction of the change: the change
and its consequences commit together or not at all.

Listeners are connected by `pbem.wiring.connect()`, which every process calls at its start.
A change that nobody would hear is refused (`require_listeners`): a process that forgot
to connect would otherwise lose the mails of every move without a trace.

The signals are blinker's (the library Flask's own signals use). This module only
declares them; it imports nothing of ours.
"""

from __future__ import annotations

from blinker import Namespace

_signals = Namespace()

# Sent by pbem.games (sender: the Session; keyword arguments as named).
game_started = _signals.signal("game-started", doc="game, seats, rules, state: a table became a running game.")
turn_started = _signals.signal("turn-started", doc="game, seats: the seat to move changed (or the first turn "
                                                   "began).")
move_applied = _signals.signal("move-applied", doc="game, seats, rules, mover, state: moves were applied "
                                                   "(or a seat resigned) and the game goes on.")
game_finished = _signals.signal("game-finished", doc="game, seats, rules, state: the game is over.")
seat_changed = _signals.signal("seat-changed", doc="game, seats, seat, reason: a running game's seat changed hands "
                                                   "(issue 37: to a bot when its player missed deadlines or left, "
                                                   "or to a replacement).")

# Sent by pbem.schedule (sender: the Session).
reminder_due = _signals.signal("reminder-due", doc="game, seat, user: the reminder before a deadline.")
player_late = _signals.signal("player-late", doc="game, seat, policy: a player missed a deadline; the game waits.")
vacation_low = _signals.signal("vacation-low", doc="game, seat, user, left: a vacation day spent at this game's "
                                                   "deadline left the player's bank at `left` days (1, then 0).")

# Sent by pbem.talk (sender: the Session).
message_posted = _signals.signal("message-posted", doc="game, seats, message, mentioned: a player wrote to the "
                                                       "table or to some of its players.")

GAME_SIGNALS = (game_started, turn_started, move_applied, game_finished)


class NoListenersError(RuntimeError):
    """A game would change with nobody listening: pbem.wiring.connect() was not called in this process."""


def require_listeners() -> None:
    """Refuse to change a game while any of the game service's signals has no listener."""
    silent = [signal.name for signal in GAME_SIGNALS if not signal.receivers]
    if silent:
        raise NoListenersError(f"Nobody listens to {', '.join(silent)}: call pbem.wiring.connect() "
                               "when the process starts, or the mails and deadlines of a move are lost.")
