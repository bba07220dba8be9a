"""Board positions in plain text, for players whose mail client does not show the picture.

`board_text(title, view, names=..., seat=...)` writes one viewer's position in the game's
own words: who leads, every player's score and what they have left, what the moves since
the reader's last turn did, the part of the board the reader's legal moves touch, and the
whole board in short: everything of the view a player decides by (issue 33 item 7; the
news give way to it when room is short). Lines are at most 72 characters and
need no fixed-width font; a text is at most 40 lines and says where the rest is. It is
written in the reader's language: `texts=` holds its messages (renderers.i18n; English when
not given), while the notation (moves, places, colours) stays as players type it.

Like the pictures, a text is a pure function of the engine's view for that viewer (plus
the names, the reader's legal moves and the recent moves in notation), never of the
state, so it cannot tell what the viewer may not see. It draws no map: where tiles and
fields lie is the picture's job. It imports neither Pillow nor anything outside the
standard library and `engine`. Which module writes a title's text is said once, by the title's
entry in the engine's registry (`engine.entry(title).text_board`, "renderers.text.tongiaki").
"""

from __future__ import annotations

import importlib

import engine

from renderers.i18n import ENGLISH, Texts
from renderers.text.base import MAX_LINES, MIN_BOARD_LINES, RECENT_LINES, REST, WIDTH, Reader

__all__ = ["MAX_LINES", "WIDTH", "board_text", "titles", "TextError"]


class TextError(ValueError):
    """A title without a text board."""


def titles() -> list[str]:
    """Titles that have a text board (the module each title's registry entry names: `engine.entry(t).text_board`)."""
    return [entry.name for entry in engine.entries() if entry.text_board]


def board_text(title: str, view: dict, *, names: list[str], seat: int | None,
               legal_moves: list[str] = (), recent: list[dict] = (), texts: Texts = ENGLISH,
               news: bool = True) -> list[str]:
    """The position of one view as lines of text for people (no trailing newlines).

    `view` is `engine.get(title).view(state, seat)`; `names` the players' display names by
    seat; `seat` the reader (None: a spectator); `legal_moves` the reader's legal moves in
    notation (empty when it is not their turn); `recent` the moves since the reader's last
    turn as dicts with "seat" and "notation" (also "seq" and "player"; when empty, the
    view's own last move is told); `texts` the messages of the reader's language
    (`pbem.i18n.texts(language)`; English when not given); `news=False` leaves out the moves
    since the reader's last turn (a mail that tells them whole, `renderers.text.events`). The
    same arguments always give the same lines.
    """
    try:
        entry = engine.entry(title)
    except engine.UnknownGameError:
        entry = None
    if entry is None or entry.text_board is None:
        raise TextError(f"There is no text board for {title!r}; there is one for: {', '.join(titles())}.")
    module = importlib.import_module(entry.text_board)
    # Every view names the seats' colours; the title's default order stands in for one that does not.
    colours = view.get("colours") or list(entry.rules.colours[:len(view.get("scores") or ())])
    reader = Reader(names=list(names), colours=list(colours), seat=seat,
                    legal=[str(m) for m in legal_moves], recent=list(recent), texts=texts)
    parts = module.parts(view, reader)
    lines = parts.head + [""] + parts.standing
    # The board part keeps MIN_BOARD_LINES, or the lines it needs to name the whole board; the news
    # takes what is left, up to RECENT_LINES.
    news = parts.news(min(RECENT_LINES, MAX_LINES - len(lines) - 4 - max(MIN_BOARD_LINES, parts.least))) if news else []
    if news:
        lines += [""] + news
    budget = MAX_LINES - len(lines) - 3
    part = parts.board(budget)
    if len(part) > budget:
        part = part[:budget - 1] + ["..."]
    return lines + [""] + part + ["", texts.gettext(REST)]
