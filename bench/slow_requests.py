"""A gunicorn config module for bench/web.py --slow-stacks: the stack of every request in flight
for longer than PBEM_SLOW_REQUEST_MS, written to PBEM_SLOW_REQUEST_LOG.<worker pid>.

A thread in each worker looks every 20 ms at the requests in flight (gunicorn's pre_request and
post_request hooks) and writes the stack of each one past the limit once, so that a tail of slow
requests shows where they wait. For benchmarks and debugging only: it is not loaded by `pbem run`.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import traceback

LIMIT_S = float(os.environ.get("PBEM_SLOW_REQUEST_MS", "250")) / 1000
LOG = os.environ.get("PBEM_SLOW_REQUEST_LOG", "slow-requests.log")
_in_flight: dict[int, tuple[float, str]] = {}


def pre_request(worker, req):
    _in_flight[threading.get_ident()] = (time.perf_counter(), req.path)


def post_request(worker, req, environ, resp):
    _in_flight.pop(threading.get_ident(), None)


def post_fork(server, worker):
    out = open(f"{LOG}.{os.getpid()}", "w", buffering=1)
    written: set[tuple[int, float]] = set()

    def watch():
        while True:
            time.sleep(0.02)
            now = time.perf_counter()
            frames = sys._current_frames()
            for thread, (start, path) in list(_in_flight.items()):
                if now - start > LIMIT_S and (thread, start) not in written:
                    written.add((thread, start))
                    out.write(f"=== {path}: {(now - start) * 1000:.0f} ms in flight (thread {thread})\n")
                    frame = frames.get(thread)
                    if frame is not None:
                        out.write("".join(traceback.format_stack(frame)[-14:]))

    threading.Thread(target=watch, name="slow-requests", daemon=True).start()
