"""The `play` blueprint: everything about one game, one module per resource.

- `game`: the game page, its moves and its live updates (`/games/<id>`, `/move`, `/live`);
- `pictures`: the board pictures, after a move and previewed before one (`/board/<seq>.png`,
  `/preview.png`);
- `replay`: the replay viewer and the animated replay (`/replay`, `/replay/animation`);
- `rules`: the rules pages and the titles' pictures (`/rules/<title>`, `/titles/<title>.png`);
- `archives`: a finished game's archive and the upload of one (`/archive.json`, `/archives/upload`);
- `talk`: the table's conversation and the reader's notes (`/talk`, `/notes`: pbem.talk);
- `rematch`: a finished game's rematch, asked for and answered (`/rematch`, `/rematch/decline`);
- `seats`: the table's policy for abandoned seats in words, and leaving a running game (`/seat/leave`);
- `helpers`: what they share (the viewer, the page's language, a picture's address, stored images).

One blueprint for all of them, so every endpoint keeps its name (`play.game_page`,
`play.board_png`, ...), as the templates, the scripts and the tests call them. Every view of a game
comes from `pbem.games.view` for the logged-in user, so a page shows only what that user's seat (or
a spectator) may see.
"""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("play", __name__)

# The resources register their views on `bp` as they are imported (Flask's pattern for one blueprint in
# several modules); they import `bp` from here, so these imports come after it.
from pbem.web.play import archives, game, pictures, rematch, replay, rules, seats, talk  # noqa: E402

__all__ = ["bp", "archives", "game", "pictures", "rematch", "replay", "rules", "seats", "talk"]
