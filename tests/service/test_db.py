"""One way to the database (issue 32, item 3): the service's code reaches it through `pbem.db.Database`.

`transaction()` for what writes, `sessions()` for reading through the ORM, `read()` for one
statement in autocommit. Nothing else in `pbem` or `worker` opens a connection or a session
of its own on the service's database: no `db.engine.begin()` or `.connect()`, no engine or
session made outside `pbem/db.py`.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Engines on other databases than the service's: the embedded broker's file (pbem.jobs prunes it) and
# the connection Alembic asks for to read the schema's revision (pbem.migrate).
OTHER_DATABASES = {"pbem/jobs.py", "pbem/migrate.py"}
MAKERS = {"create_engine", "make_engine", "Session", "sessionmaker"}
ENGINE_DOORS = {"begin", "connect", "raw_connection"}


def ways_around(path: Path) -> list[str]:
    """Where a module reaches the database other than through Database's methods: `file:line what`."""
    where = path.relative_to(ROOT).as_posix()
    tree = ast.parse(path.read_text(), where)
    imported = set()  # the names this module imports from SQLAlchemy or pbem.db
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("sqlalchemy", "pbem"):
            if node.module.startswith("sqlalchemy") or node.module == "pbem.db":
                imported |= {alias.asname or alias.name for alias in node.names}
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr in ENGINE_DOORS and isinstance(node.value, ast.Attribute)
                and node.value.attr == "engine"):
            found.append((node.lineno, f".engine.{node.attr}"))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in MAKERS
              and node.func.id in imported and where not in OTHER_DATABASES):
            found.append((node.lineno, f"{node.func.id}()"))
    return [f"{where}:{line} {what}" for line, what in sorted(found)]


def test_32_3_the_service_reaches_its_database_only_through_database():
    modules = [p for folder in ("pbem", "worker") for p in sorted((ROOT / folder).rglob("*.py"))
               if p != ROOT / "pbem" / "db.py"]
    assert len(modules) > 50
    assert [way for path in modules for way in ways_around(path)] == [], \
        "reach the database through pbem.db.Database: transaction(), sessions() or read()"


def test_32_3_the_check_sees_an_engine_reached_around_database(tmp_path, monkeypatch):
    """The check above is not blind: it names each way around in a module written so."""
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    module = tmp_path / "pbem" / "sneaky.py"
    module.parent.mkdir()
    module.write_text("from sqlalchemy import create_engine\nfrom sqlalchemy.orm import Session\n\n"
                      "def f(db):\n    with db.engine.begin() as c:\n        pass\n"
                      "    with db.engine.connect() as c:\n        pass\n"
                      "    Session(create_engine('sqlite://'))\n")
    assert ways_around(module) == ["pbem/sneaky.py:5 .engine.begin", "pbem/sneaky.py:7 .engine.connect",
                                   "pbem/sneaky.py:9 Session()", "pbem/sneaky.py:9 create_engine()"]

