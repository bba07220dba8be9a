"""Rules engines for the games pbem runs: one package per game, one registry for all.

`engine.get("tongiaki")` returns a game's `Rules` object; `engine.names()` lists the
games. This package imports nothing but the standard library and never does I/O.
"""

from __future__ import annotations

import importlib
import importlib.util

from engine.core import IllegalMove, Message, Move, Option, OptionError, Order, OrderError, Result, Rng, Rules

__all__ = ["IllegalMove", "Message", "Move", "Option", "OptionError", "Order", "OrderError", "Result", "Rng", "Rules",
           "get", "names", "register", "UnknownGameError"]

# Name -> module that defines RULES. A game package is listed here once it exists.
_MODULES: dict[str, str] = {
    "tongiaki": "engine.tongiaki",
    "discovery": "engine.discovery",
    "tapaono": "engine.tapaono",
}
_LOADED: dict[str, Rules] = {}


class UnknownGameError(KeyError):
    """A game name that no engine is registered for."""

    def __str__(self) -> str:
        return f"There is no game called {self.args[0]!r}; the games are: {', '.join(names())}."


def _available() -> dict[str, str]:
    found = {}
    for name, module in _MODULES.items():
        if importlib.util.find_spec(module) is not None:
            found[name] = module
    return found


def names() -> list[str]:
    """The names of every registered game, sorted."""
    return sorted(set(_available()) | set(_LOADED))


def get(name: str) -> Rules:
    """The rules object of one game; raises UnknownGameError for an unknown name."""
    key = str(name).strip().lower()
    if key not in _LOADED:
        module = _available().get(key)
        if module is None:
            raise UnknownGameError(name)
        _LOADED[key] = importlib.import_module(module).RULES
    return _LOADED[key]


def register(rules: Rules) -> Rules:
    """Add a game at run time (tests use this for a small game of their own)."""
    _LOADED[rules.name] = rules
    return rules

