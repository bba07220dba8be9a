"""Carcassonne: The Discovery (Hans im Glück 2005, Leo Colovini) for 2 to 5 players.

Rule vocabulary (one English name per rulebook term; ids D1..D19 of the rules digest):
- tile: a square land tile; the start tile lies at 0,0 (x east, y north); open square:
  an empty square next to a placed tile, with the terrains its sides must match.
- side: N, E, S or W; rotation: 0, 90, 180 or 270 degrees clockwise.
- terrain: grassland, mountain, sea. segment: one piece of terrain on a tile, named by the
  sides it touches (`N+E`), or by its terrain when it touches none (a lake: `sea`).
- region: all segments joined across tiles; complete when it has no open side.
- port city: a city on the coast between a land segment and a sea segment.
- follower: explorer (grassland), brigand (mountain), navigator (sea); supply: the
  followers not on the board (4 each). deploy / remove: put a follower out / take it back
  and score its region.
- variants: double tile (two hidden tiles each), equal turns (tiles removed at the start).

Modules: tileset (the provisional tile data), tiles (tile model), board (regions kept
incrementally), state (state and JSON), moves (notation), orders (standing orders), rules (the
Rules), view. `TITLE` is the game's entry in the registry (engine.registry); its rules pages ship
in docs/ beside these modules (docs/games/discovery.md links there).
"""

from engine.core import Message
from engine.discovery.rules import DiscoveryRules
from engine.registry import Title

RULES = DiscoveryRules()

TITLE = Title(
    RULES,
    blurb=Message("Lay tiles of grassland, mountain and sea side by side and send explorers, brigands and "
                  "navigators to claim them; take a follower back to score its region."),
    option_labels={"double": Message("Double tile"), "equal": Message("Equal number of turns")},
    option_help={
        "double": Message("Double tile: everyone keeps two hidden tiles and places one of them each turn."),
        "equal": Message("Equal number of turns: a few tiles are removed at the start so that everyone places "
                         "the same number."),
    },
    # The page turns a tile through its rotations ("Rotate") and shows each: it asks for those pictures itself.
    preview_words=("place",),
    rules_pages=__name__,
    picture="renderers.discovery",
    text_board="renderers.text.discovery",
)

__all__ = ["RULES", "TITLE", "DiscoveryRules"]
