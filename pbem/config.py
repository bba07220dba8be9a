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
    # Mail (issue 7): the largest inbound message taken, and mails read per budget per hour (issue 31:
    # a user's mails through a valid key, or one unproven sender's), and of all unproven senders together.
    mail_max_bytes: int = 10_000_000
    mail_rate_per_hour: int = 60
    mail_unproven_per_hour: int = 1000
    # Mail (issue 19): how long raw inbound mail is kept, and after how many days an address whose
    # notifications stopped after hard bounces is tried again.
    inbound_keep_days: float = 30.0
    suppression_retry_days: float = 7.0
    # Worker (issue 8): how old unsent work must be before the sweep posts it again, how often
    # beat runs the sweep, and how long a Redis broker waits before redelivering an unacked task.
    sweep_after_s: float = 60.0
    sweep_every_s: float = 30.0
    broker_visibility_s: int = 3600
    # The web (issue 19): where rate-limit counters live ("" = the service's database), and how
    # many proxies in front of the web server set X-Forwarded-For/-Proto (0: none is trusted).
    ratelimit_storage_url: str = ""
    proxies: int = 0


def _secret(data_dir: Path) -> str:
    """The server secret: PBEM_SECRET_KEY, or one made once and kept in the data folder."""
    path = data_dir / "secret_key"
    if path.exists():
        return path.read_text().strip()
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
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


def ratelimit_storage_url(env: dict) -> str:
    """PBEM_RATELIMIT_STORAGE_URL, else a Redis broker's URL, else "" (the service's database)."""
    explicit = env.get("PBEM_RATELIMIT_STORAGE_URL")
    if explicit:
        return explicit
    broker = env.get("PBEM_BROKER_URL") or ""
    return broker if broker.startswith(("redis://", "rediss://")) else ""


PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def protect(settings: Settings) -> None:
    """Make what the service keeps readable by its owner only, and whatever it writes from now on.

    The data folder (the SQLite database, its WAL, the secret, the outbox, the embedded
    broker) becomes 0700, a SQLite database elsewhere and the secret file 0600, and the
    process's umask 077, so files written later (outbox mails, the database's WAL) are
    private too. A server process calls this at its start (`pbem.web.create_app`).
    """
    os.umask(0o077)
    if settings.data_dir.exists():
        _tighten(settings.data_dir, PRIVATE_DIR)
        for name in ("secret_key", "pbem.sqlite3", "broker.sqlite3"):
            _tighten(settings.data_dir / name, PRIVATE_FILE)
        if (settings.data_dir / "outbox").is_dir():
            _tighten(settings.data_dir / "outbox", PRIVATE_DIR)
    if settings.database_url.startswith("sqlite:///"):
        path = Path(settings.database_url[len("sqlite:///"):])
        for suffix in ("", "-wal", "-shm"):
            _tighten(Path(f"{path}{suffix}"), PRIVATE_FILE)


def _tighten(path: Path, mode: int) -> None:
    """chmod a file or folder of ours that exists and is open to others (someone else's is left alone)."""
    try:
        info = path.stat()
    except OSError:
        return
    if info.st_uid == os.getuid() and info.st_mode & 0o077:
        path.chmod(mode)


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
        mail_unproven_per_hour=int(env.get("PBEM_MAIL_UNPROVEN_PER_HOUR") or 1000),
        inbound_keep_days=float(env.get("PBEM_INBOUND_KEEP_DAYS") or 30),
        suppression_retry_days=float(env.get("PBEM_SUPPRESSION_RETRY_DAYS") or 7),
        sweep_after_s=float(env.get("PBEM_SWEEP_AFTER_S") or 60),
        sweep_every_s=float(env.get("PBEM_SWEEP_EVERY_S") or 30),
        broker_visibility_s=int(env.get("PBEM_BROKER_VISIBILITY_S") or 3600),
        ratelimit_storage_url=ratelimit_storage_url(env),
        proxies=int(env.get("PBEM_PROXIES") or 0),
    )
