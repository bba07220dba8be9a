"""Loopback ports and polling: a free port, whether a port answers, waiting for a condition.

Everything the tests and the soak start listens on 127.0.0.1 and a port of its own, so that
runs side by side never meet. A free port is found by binding port 0 and closing it again:
another process could take it before the server binds it, a window the tests accept.
"""

from __future__ import annotations

import http.server
import socket
import threading
import time


class WaitTimeoutError(Exception):
    """What `wait_for` waited for did not happen in time."""


def free_port() -> int:
    """A loopback TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_open(port: int) -> bool:
    """Whether something accepts connections on this loopback port."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def wait_for(predicate, timeout: float, what: str, every: float = 0.1):
    """Poll `predicate` until it returns something true and return that; WaitTimeoutError naming
    `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise WaitTimeoutError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(every)


class ServedHTTP:
    """A `with` block serving `self.server` (an HTTP server bound to a port the kernel gave, set by
    the subclass's __init__) from a daemon thread; shut down and closed at the end of the block."""

    server: "http.server.HTTPServer"

    def __enter__(self):
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
