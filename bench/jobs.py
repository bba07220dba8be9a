"""What posting one job costs the process that posts it, on each broker that is reachable.

Usage: python bench/jobs.py [--posts N]
Prints `name: value unit` lines per broker: jobs_<broker>_post_cpu (this thread's CPU, which the
poster thread takes from the threads serving moves) and jobs_<broker>_post_wall. Brokers: memory,
the embedded SQLite one (as pbem posts to it, and as kombu's own transport would: `sqlite_kombu`),
Redis and RabbitMQ on their default local ports when they answer. Each post is one
pbem.jobs.send of a game_changed job; the queue is emptied afterwards.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kombu import Connection  # noqa: E402

from pbem import jobs  # noqa: E402


def measure(name: str, post, count: int) -> None:
    for i in range(20):  # connect and declare outside the timing
        post(i)
    cpu, wall = time.thread_time(), time.perf_counter()
    for i in range(count):
        post(i)
    cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
    print(f"jobs_{name}_post_cpu: {cpu / count * 1000:.3f} ms")
    print(f"jobs_{name}_post_wall: {wall / count * 1000:.3f} ms")
    sys.stdout.flush()


def pbem_post(url: str):
    def post(i: int) -> None:
        if not jobs.send(jobs.GAME_CHANGED, 1, i, broker_url=url):
            raise SystemExit(f"a post to {url} failed")
    return post


def kombu_post(url: str):
    """The same message through kombu's own transport for the URL (what pbem did before it stored
    the embedded broker's messages itself)."""
    connection = Connection(url)
    producer = connection.Producer(serializer="json")
    producer.maybe_declare(jobs._queue())

    def post(i: int) -> None:
        producer.publish(([1, i], {}, {}), exchange="", routing_key=jobs.QUEUE, delivery_mode=2,
                         headers={"task": jobs.GAME_CHANGED, "id": str(i)}, retry=False)
    return post


def empty(url: str) -> None:
    with Connection(url) as connection:
        connection.SimpleQueue(jobs.QUEUE).clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--posts", type=int, default=1000)
    args = parser.parse_args()
    folder = tempfile.mkdtemp()
    sqlite = f"sqla+sqlite:///{folder}/broker.sqlite3"
    sqlite_kombu = f"sqla+sqlite:///{folder}/broker_kombu.sqlite3"
    for name, url, post in [("memory", "memory://", pbem_post), ("sqlite", sqlite, pbem_post),
                            ("sqlite_kombu", sqlite_kombu, kombu_post),
                            ("redis", "redis://127.0.0.1:6379/15", pbem_post),
                            ("amqp", "amqp://guest:guest@127.0.0.1:5672//", pbem_post)]:
        try:
            jobs.prepare_broker(url)
        except Exception as error:  # noqa: BLE001 - a broker that is not running here
            print(f"{name}: not reachable ({type(error).__name__})", file=sys.stderr)
            continue
        measure(name, post(url), args.posts)
        empty(url)
    jobs.close_clients()
    for file in Path(folder).iterdir():
        file.unlink()
    os.rmdir(folder)


if __name__ == "__main__":
    main()
