"""What the play blueprint's modules share: who is asking and in which language and zone, the address
and language of a picture, a title's name and whether it has pictures, the board in simple words,
stored image bytes as an answer, the small per-process LRU the pages keep rendered parts in, and the
steps of a turn built on the game page as the engine's preview plays them (issue 36).

It serves no page and reads no database.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Response, request
from flask_babel import get_locale, gettext
from flask_login import current_user

import engine
import renderers
from engine.core import IllegalMove
from pbem import i18n


def viewer_id() -> int | None:
    """The logged-in user's id (None: a visitor)."""
    return current_user.id if current_user.is_authenticated else None


def viewer_zone() -> str:
    """The time zone the page shows times in: the user's, else UTC."""
    return getattr(current_user, "timezone", None) or "UTC"


def page_language() -> str:
    """The page's language."""
    return str(get_locale() or "en")


def page_texts() -> i18n.Texts:
    """The messages of the page's language, for what renderers write (the pictures' words, the board in words)."""
    return i18n.texts(page_language())


def picture_args(language: str | None = None) -> dict:
    """The query of a picture's address in the page's language: none in English, `lang=de` in German.

    A picture's words are in its viewer's language, so each language has its own address: a
    cache (the browser's, a proxy's) never hands one language's picture to another's page."""
    language = i18n.normalize(language or page_language()) or i18n.DEFAULT
    return {} if language == i18n.DEFAULT else {"lang": language}


def picture_language() -> str:
    """The language a picture is asked in: its address's `lang`, else the page's."""
    return i18n.normalize(request.args.get("lang")) or i18n.normalize(page_language()) or i18n.DEFAULT


def pictures_for(title: str) -> bool:
    """Whether board pictures exist for this game: its registry entry names a module that draws it."""
    return renderers.available(title)


def title_name(name: str) -> str:
    """A title's display name ("Carcassonne: The Discovery"), or the name itself for a title not registered."""
    try:
        return engine.get(name).title
    except engine.UnknownGameError:
        return name


def board_items(board_view) -> list[tuple[str, str]]:
    """The view's simple entries as (name, text): the board in words for a title with neither picture nor text."""
    if not isinstance(board_view, dict):
        return []
    items = []
    for key, value in board_view.items():
        if isinstance(value, (str, int, float, bool)) and key not in ("game", "viewer"):
            items.append((key.replace("_", " "), str(value)))
        elif isinstance(value, list) and 0 < len(value) <= 12 and all(isinstance(v, (str, int)) for v in value):
            items.append((key.replace("_", " "), ", ".join(str(v) for v in value)))
    return items


def stored_image(found, mimetype: str, cache: str, **headers):
    """An answer with stored image bytes: their SHA-256 as ETag (a 304 when the browser has them).

    A picture's words are in the language of its address's `lang`; without one, in the page's (the
    user's setting or Accept-Language), so a shared cache must then keep one copy per those."""
    response = Response(found.data, mimetype=mimetype, headers=headers)
    if "lang" not in request.args:
        response.vary.update(("Accept-Language", "Cookie"))
    response.set_etag(found.sha256)
    response.headers["Cache-Control"] = f"{cache}, max-age=3600"
    if found.drawn:
        response.headers["X-Pbem-Drawn"] = "1"
    return response.make_conditional(request)


# --- a turn built on the game page, played by the engine's preview (issue 36 item 1: /turn, /preview.png) ---

MAX_STEPS = 60  # decisions a turn built on the page holds at most (a Tapaono turn is a dozen)
STEP_TEXT_MAX = 400  # characters of one step, as the move form takes


@dataclass(frozen=True)
class Steps:
    """The decisions of a turn as the engine's preview plays them (`preview_steps`)."""

    state: object  # the position after them, as far as the preview goes
    notations: list  # each step in the engine's notation
    stopped: bool  # the last step reached a draw or a roll: the rest comes with the submission
    over: bool  # the seat's turn (or the game) ended without chance: nothing more to decide


def preview_steps(rules: engine.Rules, state, seat: int, texts: list[str]) -> Steps:
    """Play typed steps with the engine's preview (`Rules.preview`), which never crosses a draw or a roll.

    Raises IllegalMove (the engine's reason) for a step the position does not allow, and for one
    after a step that stopped at chance or ended the seat's turn: what comes then is not known
    yet, or not the seat's to decide."""
    notations: list[str] = []
    stopped = False
    for text in texts:
        if stopped or rules.to_move(state) != seat:
            raise IllegalMove(gettext("The turn you built stops before this step (a draw, a roll, or the end of "
                                      "your turn): confirm it, then go on."))
        move = rules.parse(state, text)
        notations.append(rules.notation(state, move))
        built = rules.preview(state, move)
        state, stopped = built.state, built.stopped
    return Steps(state, notations, stopped, not stopped and rules.to_move(state) != seat)
