"""A Celery worker of the soak with the mail claim timeout shortened (`--claim-timeout`).

`python -m bench.soak.celery_child worker ...` runs the production worker (`worker.app`)
with the arguments of `pbem.runner.plan`. A worker killed while sending leaves its outbox
row claimed for outbound.CLAIM_TIMEOUT (5 minutes in production) before the sweep hands it
to another sender; a short soak cannot wait that long. Only the soak's workers run this;
nothing else of the service changes, and the child imports nothing of the soak.
"""

from __future__ import annotations

import os
import sys
from datetime import timedelta

CLAIM_TIMEOUT_ENV = "PBEM_SOAK_CLAIM_TIMEOUT_S"  # seconds, set by the world for the workers


def main(argv: list[str]) -> None:
    """Shorten the claim timeout from the environment, then run Celery with `argv`."""
    from pbem.mail import outbound

    outbound.CLAIM_TIMEOUT = timedelta(seconds=float(os.environ[CLAIM_TIMEOUT_ENV]))
    from worker.app import app

    app.start(argv=argv)


if __name__ == "__main__":
    main(sys.argv[1:])
