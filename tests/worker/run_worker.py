"""Start the real Celery worker or beat for a test, with the test games registered.

`python -m tests.worker.run_worker worker|beat [celery options]`. The worker process is
the production one (worker.app); this only adds the test games (counters, passing) to the
engine registry and, from PBEM_TEST_CLAIM_TIMEOUT_S, shortens the mail layer's claim
timeout so a test need not wait minutes for a killed sender's claim to expire.
"""

from __future__ import annotations

import os
import sys
from datetime import timedelta

import engine
import tests.worker.helpers  # noqa: F401 - registers "passing"
from tests.engine import toygame

engine.register(toygame.RULES)

if os.environ.get("PBEM_TEST_CLAIM_TIMEOUT_S"):
    from pbem.mail import outbound

    outbound.CLAIM_TIMEOUT = timedelta(seconds=float(os.environ["PBEM_TEST_CLAIM_TIMEOUT_S"]))

from worker.app import app  # noqa: E402 - after the registrations above

if __name__ == "__main__":
    app.start(argv=sys.argv[1:])
