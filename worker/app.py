"""The Celery app of the worker, configured from PBEM_* settings like every other part.

The settings are pbem.jobs.celery_config (the same as the client that posts jobs), and beat
runs the sweep every PBEM_SWEEP_EVERY_S seconds.
"""

from __future__ import annotations

from celery import Celery
from celery.signals import worker_init

from pbem import config, jobs


def create_app(settings: config.Settings | None = None) -> Celery:
    settings = settings or config.load()
    celery = Celery("pbem-worker", include=["worker.tasks"])
    celery.conf.update(jobs.celery_config(settings))
    celery.conf.update(
        beat_schedule={"sweep": {"task": jobs.SWEEP, "schedule": settings.sweep_every_s,
                                 "options": {"expires": settings.sweep_every_s}}},
        beat_schedule_filename=str(settings.data_dir / "celerybeat-schedule"),
        worker_hijack_root_logger=False,
        worker_redirect_stdouts=False,
    )
    return celery


app = create_app()


@worker_init.connect
def _protect(**_kwargs) -> None:
    """A worker writes outbox mails and the beat schedule: private to the service's user (docs/security.md)."""
    config.protect(config.load())
