"""`Kept`: a small least-recently-used store shared by the threads of one process.

What a process keeps between requests or jobs (decoded game states, rendered parts of a page,
preview pictures) is kept in one of these, each with its own size. A value is immutable or
rebuilt from what its key names, so a process that lost it (a restart, another worker) only
works it out again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict


class Kept:
    """At most `size` values by key; the least recently used goes first."""

    def __init__(self, size: int):
        self.size = size
        self.items: OrderedDict = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key):
        with self.lock:
            value = self.items.get(key)
            if value is not None:
                self.items.move_to_end(key)
            return value

    def put(self, key, value) -> None:
        with self.lock:
            self.items[key] = value
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.items.clear()
