"""Rules engines for the games pbem runs: one package per game, one registry for all.

`engine.get("tongiaki")` returns a game's `Rules` object, `engine.entry("tongiaki")` its
whole `Title` (the rules and what the site says and shows of it), `engine.names()` lists the
games (`engine.registry`: a package of engine/ with a `TITLE` is found by itself; a game
defined elsewhere is added with `engine.register`). This package imports nothing but the
standard library and never does I/O.
"""

from __future__ import annotations

from engine.core import (
    IllegalMove, Message, Move, Option, OptionError, Order, OrderError, OrderNotNeeded, Result, Rng, Rules,
)
from engine.registry import Title, UnknownGameError, entries, entry, get, names, register, unregister

__all__ = ["IllegalMove", "Message", "Move", "Option", "OptionError", "Order", "OrderError", "OrderNotNeeded", "Result",
           "Rng", "Rules",
           "Title", "UnknownGameError", "entries", "entry", "get", "names", "register", "unregister"]
