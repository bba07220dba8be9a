"""Set-up helpers shared by the tests and the soak (bench/soak/): plain classes and functions, no pytest.

- `net`: free loopback ports, waiting for a port or for any condition.
- `processes`: a command in a process group of its own with its output in a log file (the
  Celery workers of tests/worker, every part of the soak), a private redis-server.
- `smtp`: an SMTP sink on loopback that keeps, or hands on, every mail it accepts.
- `mail`: reading a mail as a player does (its text, the legal moves it lists) and writing
  one as a mail client does.
- `databases`: a scratch PostgreSQL database next to an admin URL.
- `catalogues`: the Babel catalogues as the catalogue tests read them (complete, compiled, extracted).

The pytest side (fixtures, skipping when a service is missing) stays in the conftest.py
files, which build on these; the soak imports them with the repository root on sys.path.
"""
