"""The ways a notice reaches its reader: one module per channel behind one small protocol.

pbem.notify decides who is told what: a `Notice` (this reader, at this seat, is told this kind of
news about this game). A channel decides only how it gets there (DESIGN.md, "Channels"):

- `take(s, notice)`, in the transaction of the change: whether its reader takes news this way
  (the mail settings, a browser subscribed) and, if so, what it stores (an outbox row) and the
  job it posts once the transaction commits (`pbem.jobs.after_commit`, under its `task` name);
- `deliver(db, settings, *job)`, in the worker: carry one job. The worker has one delivery task,
  registered under each channel's job name (`worker.tasks.delivery_task`); a job delivered twice
  must send nothing twice (a claim per row, a mark per browser);
- `due(db, settings)`: the jobs whose work is stored and not done (rows older than the sweep's
  delay); the worker's sweep posts them again, so a broker that was away delays news, it loses
  none. A channel that stores nothing (a nudge such as Web Push) has nothing due.

Mail (`channels.mail`) and Web Push (`channels.push`) are registered by `pbem.wiring.connect()`;
a new channel (a webhook: Discord, Slack, Matrix) is one module with one class like theirs and
one `register` there. This package sends nothing itself and changes no game.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from pbem.config import Settings
    from pbem.db import Database
    from pbem.models import Game, Seat, User

KINDS = ("turn", "move", "result", "reminder", "late", "message", "vacation")


@dataclass(frozen=True)
class Notice:
    """One piece of news for one reader, decided by pbem.notify in the transaction of the change.

    `turn`: it is the reader's turn (move `move`); `move`: move `move` was played (for those who
    follow every move); `result`: the game is over; `reminder`: the deadline of the reader's turn
    is near; `late`: the player at seat `late` missed the deadline and the game waits; `message`:
    a player wrote `message` (pbem.talk) that the reader may read (`mentioned`: it names them);
    `vacation`: a vacation day was spent at this game's deadline and the reader's bank has `left`
    days (1, then 0): after them a missed deadline counts.
    The game is as the change left it (`game.version` is the move the news is about).
    """

    kind: str  # one of KINDS
    game: Game
    seat: Seat  # the reader's seat
    user: User  # the reader
    title: str  # the game's title as players read it ("Tongiaki")
    move: int | None = None  # turn: the move to make; move: the move played
    late: Seat | None = None  # late: the seat that missed the deadline
    policy: str | None = None  # reminder, late: what happens at the deadline
    message: Any = None  # message: the models.Message written
    mentioned: bool = False  # message: the text names the reader with @
    left: int | None = None  # vacation: the days left in the reader's bank


class Channel(Protocol):
    """How news reaches a reader one way (mail, Web Push, a webhook)."""

    name: str  # "mail", "push": the channel's key here and in the sweep's counts
    task: str  # the name its jobs are posted under ("pbem.send_mail"); the worker delivers them

    def take(self, s: Session, notice: Notice) -> None:
        """Store what the notice needs and post its job after the commit, if the reader takes news this way."""

    def deliver(self, db: Database, settings: Settings, *job: Any) -> Any:
        """Carry one job; does nothing for a job carried before. Raises TransientDeliveryError to be retried."""

    def due(self, db: Database, settings: Settings) -> Iterable[tuple]:
        """The jobs (argument tuples) whose stored work is still undone, for the sweep to post again."""


class TransientDeliveryError(Exception):
    """A delivery that failed in a way worth trying again (a server away, a 4xx); the worker retries it."""


_CHANNELS: dict[str, Channel] = {}


def register(channel: Channel) -> Channel:
    """Make a channel take notices and be delivered by the worker (the same name again replaces it)."""
    _CHANNELS[channel.name] = channel
    return channel


def unregister(name: str) -> None:
    """Take a channel away (tests)."""
    _CHANNELS.pop(name, None)


def registered() -> tuple[Channel, ...]:
    """The channels, in the order they were registered."""
    return tuple(_CHANNELS.values())


def get(name: str) -> Channel:
    """A registered channel by name (KeyError: nobody registered it: pbem.wiring.connect() was not called)."""
    return _CHANNELS[name]


def tell(s: Session, notice: Notice) -> None:
    """Hand one notice to every channel, in the transaction of the change."""
    for channel in _CHANNELS.values():
        channel.take(s, notice)
