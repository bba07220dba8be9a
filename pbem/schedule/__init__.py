"""Scheduling: the time each turn may take (deadlines), players away (absences), and what is due.

It listens to the game service for the start of each turn (`connect`), and announces what
is due for mail (a reminder, a player late, a vacation bank at 1 or 0 days) through
`pbem.events`; pbem.notify writes those mails. Timeouts play through the game service like
any other submission.
"""

from pbem.schedule import absences, deadlines


def connect() -> None:
    """Listen to the game service's announcements (pbem.wiring.connect calls this once per process)."""
    deadlines.connect()


__all__ = ["absences", "deadlines", "connect"]
