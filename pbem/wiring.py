"""Connects the listeners of the domain packages to what the game service announces.

Every process that may change a game calls `connect()` once when it starts: the web app
(`pbem.web.create_app`), the command line (`pbem.cli`), the worker (`worker.app`), and the
tests and benches. The game service refuses to change a game while nobody listens
(`pbem.events.require_listeners`), so a process that forgot cannot lose a move's mails.
"""

from __future__ import annotations

from pbem import boards, notify, schedule
from pbem.notify import push


def connect() -> None:
    """Connect every listener (safe to call more than once: a listener is connected once)."""
    schedule.connect()
    notify.connect()
    boards.connect()
    push.connect()
