"""Configuration from environment variables only (PBEM_*), with embedded defaults.

Unset, everything runs on one machine from the data folder: a SQLite database, a Celery
broker on SQLite, a local outbox. Production sets PBEM_DATABASE_URL and friends.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    database_url: str
    secret_key: str
    broker_url: str
    smtp_url: str
    mail_domain: str
    base_url: str
    require_services: bool
    # Mail (issue 7): the largest inbound message taken, and answers per sender per hour.
    mail_max_bytes: int = 10_000_000
    mail_rate_per_hour: int = 60
    # Mail (issue 19): how long raw inbound mail is kept, and after how many days an address whose
    # notifications stopped after hard bounces is tried again.
    inbound_keep_days: float = 30.0
    suppression_retry_days: float = 7.0
    # Worker (issue 8): how old unsent work must be before the sweep posts it again, how often
    # beat runs the sweep, and how long a Redis broker waits before redelivering an unacked task.
    sweep_after_s: float = 60.0
    sweep_every_s: float = 30.0
    broker_visibility_s: int = 3600


def _secret(data_dir: Path) -> str:
    """The server secret: PBEM_SECRET_KEY, or one made once and kept in the data folder."""
    path = data_dir / "secret_key"
    if path.exists():
        return path.read_text().strip()
    data_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(key + "\n")
    return key


def normalize_database_url(url: str) -> str:
    """Use the psycopg 3 driver for PostgreSQL URLs given without a driver."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def broker_url(env: dict | None = None) -> str:
    """PBEM_BROKER_URL or the embedded SQLite broker in the data folder."""
    env = os.environ if env is None else env
    url = env.get("PBEM_BROKER_URL")
    if url:
        return url
    return f"sqla+sqlite:///{Path(env.get('PBEM_DATA_DIR', 'var')).resolve() / 'broker.sqlite3'}"


def load(env: dict | None = None) -> Settings:
    env = os.environ if env is None else env
    data_dir = Path(env.get("PBEM_DATA_DIR", "var")).resolve()
    database_url = env.get("PBEM_DATABASE_URL") or f"sqlite:///{data_dir / 'pbem.sqlite3'}"
    return Settings(
        data_dir=data_dir,
        database_url=normalize_database_url(database_url),
        secret_key=env.get("PBEM_SECRET_KEY") or _secret(data_dir),
        broker_url=broker_url(env),
        smtp_url=env.get("PBEM_SMTP_URL") or "outbox:",
        mail_domain=env.get("PBEM_MAIL_DOMAIN") or "pbem.localhost",
        base_url=(env.get("PBEM_BASE_URL") or "http://127.0.0.1:5000").rstrip("/"),
        require_services=env.get("PBEM_REQUIRE_SERVICES") == "1",
        mail_max_bytes=int(env.get("PBEM_MAIL_MAX_BYTES") or 10_000_000),
        mail_rate_per_hour=int(env.get("PBEM_MAIL_RATE_PER_HOUR") or 60),
        inbound_keep_days=float(env.get("PBEM_INBOUND_KEEP_DAYS") or 30),
        suppression_retry_days=float(env.get("PBEM_SUPPRESSION_RETRY_DAYS") or 7),
        sweep_after_s=float(env.get("PBEM_SWEEP_AFTER_S") or 60),
        sweep_every_s=float(env.get("PBEM_SWEEP_EVERY_S") or 30),
        broker_visibility_s=int(env.get("PBEM_BROKER_VISIBILITY_S") or 3600),
    )
