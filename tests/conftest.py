"""Fixtures shared by every test layer."""

from __future__ import annotations

import engine
from tests.engine import toygame

# The small test game is registered for the whole run, so the platform can be tested on it too.
engine.register(toygame.RULES)
