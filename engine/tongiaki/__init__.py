"""Tongiaki: Polynesian islands discovered by fleets of ships (rules digest T1..T23).

Rule vocabulary, one English name per rulebook term:
  island (TONGA is the start island), water tile, tile, pile, red dot (a tile's local edge r0),
  side (world side N, NE, SE, S, SW, NW), beach (numbered 1.. per island), place (room for one
  ship on a beach), full beach, jetty, track (foam track of a water tile), risk (its number),
  supply, expand (T7), king island (T8), new settlement / settle (T9), emigrate (T11),
  fleet, sail, shipwreck (T12), land (T13), chain move (T14), turned back (T15),
  infinite chain (T16), open position (where the next tile of T9/T16 may go).

Decisions (moves): place, expand, king, settle, emigrate, land, tile; see moves.py and
docs/games/tongiaki.md. Modules: tiles (data), state (state, JSON, test positions),
moves (notation), chain (emigration, landing, T16 search), orders (standing orders), rules (the
Rules object), view. `TITLE` is the game's entry in the registry (engine.registry); its rules
pages ship in docs/ beside these modules (docs/games/tongiaki.md links there).
"""

from engine.core import Message
from engine.registry import Title
from engine.tongiaki.rules import TongiakiRules

RULES = TongiakiRules()

TITLE = Title(
    RULES,
    blurb=Message("Polynesian seafarers: sail from Tonga into an ocean laid tile by tile, crowd the beaches, "
                  "emigrate when they are full, and found kingdoms on the islands you reach."),
    rules_pages=__name__,
    picture="renderers.tongiaki",
    text_board="renderers.text.tongiaki",
)

__all__ = ["RULES", "TITLE", "TongiakiRules"]
