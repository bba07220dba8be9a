"""The rules pages (`/rules/<title>`) and the titles' pictures on the home page (`/titles/<title>.png`).

A title's rules pages ship with it as package data: the registry entry names the package
(`engine.entry(title).rules_pages`), whose folder `docs/` holds the English page `<title>.md` and its
translations `<language>/<title>.md` (docs/games/ links to them for developers). A page shows the
sections written for players; those for developers (DEVELOPER_SECTIONS) stay in the file.
"""

from __future__ import annotations

import io
import random
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable

from flask import Response, abort, render_template
from flask_babel import gettext
from markdown_it import MarkdownIt
from markupsafe import Markup
from PIL import Image

import engine
import renderers
from pbem import i18n
from pbem.web.play import bp
from pbem.web.play.helpers import page_language, picture_language, title_name

DEVELOPER_SECTIONS = ("View", "The view", "Recorded decisions", "Building positions", "Speed",
                      "How long a game lasts")  # rules-page headings left to the developers' docs


def player_sections(text: str) -> str:
    """A rules page's Markdown without the sections written for developers (DEVELOPER_SECTIONS: the view's
    schema, the recorded decisions, the engine's speed), which only the file shows."""
    kept, skipping = [], False
    for line in text.splitlines():
        if line.startswith("## "):
            skipping = line[3:].strip().startswith(DEVELOPER_SECTIONS)
        if not skipping:
            kept.append(line)
    return "\n".join(kept) + "\n"


def pages_folder(title: str) -> Traversable | None:
    """The folder of a title's rules pages: `docs/` in the package its registry entry names (None: none)."""
    try:
        package = engine.entry(title).rules_pages
    except engine.UnknownGameError:
        return None
    return None if package is None else resources.files(package) / "docs"


def rules_source(title: str, language: str) -> tuple[Traversable, str] | None:
    """Where a game's rules page is written in `language`, and the language it is in: its translation
    docs/<language>/<title>.md if there is one, else the English docs/<title>.md; None without one."""
    folder = pages_folder(title)
    if folder is None:
        return None
    language = i18n.normalize(language) or i18n.DEFAULT  # only a language of ours names a folder
    translated = folder / language / f"{title}.md"
    if language != i18n.DEFAULT and translated.is_file():
        return translated, language
    english = folder / f"{title}.md"
    return (english, i18n.DEFAULT) if english.is_file() else None


@lru_cache(maxsize=None)
def rules_html(title: str, language: str = i18n.DEFAULT) -> tuple[Markup, str] | None:
    """A game's rules page (notation, options, how a turn goes) as HTML in `language` where it is translated
    (docs/<language>/), else in English; with the language it is written in. None: no page. Kept per
    process: rendering one costs a rules page's request milliseconds of CPU (docs/web.md, "Benchmark")."""
    found = rules_source(title, language)
    if found is None:
        return None
    path, written_in = found
    html = MarkdownIt("commonmark", {"html": False}).enable("table").render(
        player_sections(path.read_text(encoding="utf-8")))
    # Wide tables and the board diagrams scroll sideways on a phone: a scrolling box must take the keyboard.
    texts = i18n.texts(language)
    for tag, name in (("table", texts.gettext("Table")), ("pre", texts.gettext("Example"))):
        html = html.replace(f"<{tag}>", f'<div class="scroll" tabindex="0" role="region" aria-label="{name}"><{tag}>')
        html = html.replace(f"</{tag}>", f"</{tag}></div>")
    return Markup(html), written_in


@bp.get("/rules/<title>")
def rules_page(title: str):
    if title not in engine.names():
        abort(404)
    found = rules_html(title, page_language())
    if found is None:
        return render_template("error.html", message=gettext(
            "The rules of %(title)s are not installed here.", title=title_name(title))), 404
    html, written_in = found
    return render_template("rules.html", title=title, title_name=title_name(title), rules=html,
                           rules_language=written_in, describe=engine.get(title).describe())


TITLE_PICTURE_SIDE = 520  # the longest side of a title's picture on the home page
TITLE_PICTURE_NAMES = ("Ana", "Ben", "Cy", "Dee", "Eli", "Fay")
TITLE_PICTURE_MOVES = 40  # random decisions into a seeded game: a board with something on it


@lru_cache(maxsize=None)
def title_picture(title: str, language: str = i18n.DEFAULT) -> bytes | None:
    """A picture of a game of this title in progress (seeded random moves), small enough for the home page,
    its words in `language`. Kept per process: drawing one costs a home page's request tens of milliseconds
    of CPU (docs/web.md, "Benchmark")."""
    if not renderers.available(title):
        return None
    rules = engine.get(title)
    state = rules.setup(rules.min_players, {}, 2026)
    chooser = random.Random(2026)
    for _ in range(TITLE_PICTURE_MOVES):
        if rules.to_move(state) is None:
            break
        state = rules.apply(state, chooser.choice(rules.legal_moves(state)))
    view = {**rules.view(state, None), "player_names": list(TITLE_PICTURE_NAMES[:rules.min_players])}
    image = renderers.draw(title, view, texts=i18n.texts(language)).convert("RGB")
    image.thumbnail((TITLE_PICTURE_SIDE, TITLE_PICTURE_SIDE), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


@bp.get("/titles/<title>.png")
def title_png(title: str):
    if title not in engine.names():
        abort(404)
    png = title_picture(title, picture_language())
    if png is None:
        abort(404)
    return Response(png, mimetype="image/png", headers={"Cache-Control": "public, max-age=86400"})
