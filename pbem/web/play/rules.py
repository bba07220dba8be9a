"""The rules pages: how to play a title (`/rules/<title>`), its notation (`/rules/<title>/notation`), the
how-to's pictures (`/rules/<title>/pictures/<move>.png`), and the titles' pictures on the home page
(`/titles/<title>.png`).

Both pages ship with the title as package data in the package its registry entry names
(`engine.entry(title).rules_pages`), folder `docs/`:

- `howto/<language>.md`: how to play, for a newcomer (goal, a turn, each action, scoring, the end),
  written per language (issue 36, item 5). An action's heading names its notation words as code spans
  (`### Emigration (`emigrate`)`): the heading's anchor is `move-<first word>`, and the game page links
  each kind of decision to it (`howto_links`). A paragraph that is only `![words](picture:<move>)` is a
  picture of a real position: a seeded game played until a move beginning with <move> is legal, then
  played; drawn by the renderers on request, in the reader's language, and kept per process.
- `<title>.md` and `<language>/<title>.md`: the notation reference, for those who type moves. It shows the
  sections written for players; the opening paragraphs (engine, specification, tests) and the sections
  for developers (DEVELOPER_SECTIONS) stay in the file, which docs/games/ links to.
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable

from flask import Response, abort, render_template, url_for
from flask_babel import gettext
from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup, escape
from PIL import Image

import engine
import renderers
from pbem import i18n
from pbem.web.play import bp
from pbem.web.play.helpers import page_language, picture_language, title_name

DEVELOPER_SECTIONS = ("View", "The view", "Recorded decisions", "Building positions", "Speed",
                      "How long a game lasts")  # rules-page headings left to the developers' docs
DEVELOPER_PATHS = ("engine/", "tests/", "shared/rules/")  # an opening paragraph naming these is the developers'


def player_sections(text: str) -> str:
    """A rules page's Markdown without what is written for developers: the paragraphs above the first section
    that name the repository's paths (DEVELOPER_PATHS: the engine, the specification, the tests) and the
    sections DEVELOPER_SECTIONS (the view's schema, the recorded decisions, the engine's speed), which only
    the file (docs/games/) shows."""
    head, _, rest = text.partition("\n## ")
    paragraphs = [p for p in head.split("\n\n") if not any(path in p for path in DEVELOPER_PATHS)]
    kept, skipping = ["\n\n".join(paragraphs).rstrip("\n"), ""], False
    for line in ("## " + rest).splitlines() if rest else []:
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
    return Markup(scrolling(html, language)), written_in


def scrolling(html: str, language: str) -> str:
    """Wide tables and the board diagrams scroll sideways on a phone: each in a box that takes the keyboard."""
    texts = i18n.texts(language)
    for tag, name in (("table", texts.gettext("Table")), ("pre", texts.gettext("Example"))):
        html = html.replace(f"<{tag}>", f'<div class="scroll" tabindex="0" role="region" aria-label="{name}"><{tag}>')
        html = html.replace(f"</{tag}>", f"</{tag}></div>")
    return html


@bp.get("/rules/<title>")
def rules_page(title: str):
    """How to play a title in the reader's language; a title without a how-to shows its notation page."""
    if title not in engine.names():
        abort(404)
    found = howto_html(title, page_language())
    if found is None:
        return notation_page(title)
    return render_template("howto.html", title=title, title_name=title_name(title), howto=found,
                           has_notation=rules_source(title, page_language()) is not None)


@bp.get("/rules/<title>/notation")
def notation_page(title: str):
    """The notation reference: how to type each decision, the options, the standing orders."""
    if title not in engine.names():
        abort(404)
    found = rules_html(title, page_language())
    if found is None:
        return render_template("error.html", message=gettext(
            "The rules of %(title)s are not installed here.", title=title_name(title))), 404
    html, written_in = found
    return render_template("rules.html", title=title, title_name=title_name(title), rules=html,
                           rules_language=written_in, describe=engine.get(title).describe(),
                           has_howto=howto_source(title, page_language()) is not None)


# --- how to play (issue 36, item 5) ---------------------------------------------------------------------

PICTURE_SCHEME = "picture:"  # the address of a how-to picture in the Markdown: picture:<move words, _ for space>
HOWTO_PICTURE_SIDE = 640  # the longest side of a how-to picture
EXAMPLE_SEEDS = range(1, 9)  # seeded games tried, in turn, for a position where a move is legal
EXAMPLE_MOVES = 700  # random decisions into each before giving up on it


@dataclass(frozen=True)
class Howto:
    """A how-to page as HTML, the language it is written in, its actions (notation word -> (anchor, heading))
    and the moves its pictures show (picture:<key>)."""

    html: Markup
    language: str
    actions: dict[str, tuple[str, str]]
    pictures: frozenset[str]


def howto_source(title: str, language: str) -> tuple[Traversable, str] | None:
    """Where a title's how-to is written in `language` (docs/howto/<language>.md), else in English; None: none."""
    folder = pages_folder(title)
    if folder is None:
        return None
    language = i18n.normalize(language) or i18n.DEFAULT
    for code in dict.fromkeys((language, i18n.DEFAULT)):
        path = folder / "howto" / f"{code}.md"
        if path.is_file():
            return path, code
    return None


# Kept per process: a page is drawn with its pictures' sizes, 85-236 ms for a title's first view in a language
# (measured 2026-11-28 with the cache's __wrapped__), then 1.6-4.3 ms of Markdown on every view without it.
@lru_cache(maxsize=None)
def howto_html(title: str, language: str = i18n.DEFAULT) -> Howto | None:
    """A title's how-to page in `language` (else English) with anchors on its headings and its pictures' addresses.
    Kept per process, as the notation pages are."""
    found = howto_source(title, language)
    if found is None:
        return None
    path, written_in = found
    parser = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = parser.parse(path.read_text(encoding="utf-8"))
    actions = _anchor_headings(tokens)
    pictures = _figures(title, tokens, written_in)
    html = parser.renderer.render(tokens, parser.options, {})
    return Howto(Markup(scrolling(html, written_in)), written_in, actions, pictures)


def _anchor_headings(tokens: list[Token]) -> dict[str, tuple[str, str]]:
    """Give every section heading an id (`move-<word>` for an action's, else `part-<n>`); returns the actions:
    each notation word a heading names, then each one named only in a section's text (a card's `land`) ->
    (the section's anchor, its heading's words without the code)."""
    named: dict[str, tuple[str, str]] = {}
    mentioned: dict[str, tuple[str, str]] = {}
    section, number = None, 0
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag != "h1":
            number += 1
            children = tokens[index + 1].children or []
            words = [child.content for child in children if child.type == "code_inline"]
            anchor = f"move-{_slug(words[0])}" if words else f"part-{number}"
            token.attrSet("id", anchor)
            section = (anchor, "".join(c.content for c in children if c.type == "text").strip(" (),:·"))
            for word in words:
                named.setdefault(word.split(" ", 1)[0], section)
        elif token.type == "inline" and section and tokens[index - 1].type != "heading_open":
            for child in token.children or []:
                if child.type == "code_inline":
                    mentioned.setdefault(child.content.split(" ", 1)[0], section)
    return {**mentioned, **named}


def _slug(words: str) -> str:
    return "-".join(words.lower().split())


def _figures(title: str, tokens: list[Token], language: str) -> frozenset[str]:
    """A paragraph that is only a picture:<move> image becomes a figure: the picture's address, its words as
    caption, and the move that was played in it. Returns the keys of the pictures."""
    keys = set()
    for index, token in enumerate(tokens):
        children = token.children or []
        if token.type != "inline" or len(children) != 1 or children[0].type != "image":
            continue
        image = children[0]
        source = str(image.attrGet("src") or "")
        if not source.startswith(PICTURE_SCHEME):
            continue
        key = source[len(PICTURE_SCHEME):]
        keys.add(key)
        found = example(title, key)
        if found is None:
            raise LookupError(f"{title}: no seeded game reaches a position where {key!r} can be played")
        image.attrSet("src", url_for("play.howto_png", title=title, key=key, **({} if language == i18n.DEFAULT
                                                                                  else {"lang": language})))
        image.attrSet("alt", image.content)
        png = howto_picture(title, key, language)
        if png is not None:  # its size, so that the page does not move under a reader sent to an anchor
            with Image.open(io.BytesIO(png)) as drawn:
                image.attrSet("width", str(drawn.width))
                image.attrSet("height", str(drawn.height))
        tokens[index - 1].tag = tokens[index + 1].tag = "figure"
        caption = Token("html_inline", "", 0, content=f'<figcaption>{escape(image.content)} '
                                                      f'(<code>{escape(found[1])}</code>)</figcaption>')
        token.children = [image, caption]
    return frozenset(keys)


def example(title: str, key: str) -> tuple[dict, str] | None:
    """A real position for a how-to picture: the public view after a seeded game played at random until a move
    beginning with `key` (`_` for a space) was legal, and that move played; with the move's notation. None:
    no seeded game reaches one. The view is everyone's (`view(state, None)`): a made-up game, nothing hidden."""
    rules = engine.get(title)
    wanted = key.replace("_", " ")
    for seed in EXAMPLE_SEEDS:
        state = rules.setup(rules.min_players, {}, seed)
        chooser = random.Random(seed)
        for _ in range(EXAMPLE_MOVES):
            if rules.to_move(state) is None:
                break
            legal = rules.legal_moves(state)
            notations = [rules.notation(state, move) for move in legal]
            fitting = [i for i, text in enumerate(notations) if text == wanted or text.startswith(wanted + " ")]
            if fitting:  # the move that does the most: the most fields, ships or places named, not "none"
                chosen = max(fitting, key=lambda i: (len(notations[i].split()), not notations[i].endswith(" none")))
                state = rules.apply(state, legal[chosen])
                names = list(TITLE_PICTURE_NAMES[:rules.min_players])
                return {**rules.view(state, None), "player_names": names}, notations[chosen]
            state = rules.apply(state, chooser.choice(legal))
    return None


# Kept per process: each picture costs 27-60 ms to draw, and every reader of a how-to page asks for all of them.
@lru_cache(maxsize=None)
def howto_picture(title: str, key: str, language: str = i18n.DEFAULT) -> bytes | None:
    """A how-to picture as PNG, its words in `language`; None: no such position. Drawn on request and kept per
    process, as the title pictures are: it follows the renderers and the reader's language, and costs a
    seeded game's playing once."""
    if not renderers.available(title):
        return None
    found = example(title, key)
    if found is None:
        return None
    return small_png(renderers.draw(title, found[0], texts=i18n.texts(language)), HOWTO_PICTURE_SIDE)


def small_png(image: Image.Image, side: int) -> bytes:
    """A drawn picture as a PNG whose longest side is at most `side` pixels."""
    image = image.convert("RGB")
    image.thumbnail((side, side), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


@bp.get("/rules/<title>/pictures/<key>.png")
def howto_png(title: str, key: str):
    if title not in engine.names():
        abort(404)
    language = picture_language()
    shown = [howto_html(title, code) for code in dict.fromkeys((i18n.DEFAULT, language))]
    if not any(page and key in page.pictures for page in shown):  # only the pictures a page shows are drawn
        abort(404)
    png = howto_picture(title, key, language)
    if png is None:
        abort(404)
    return Response(png, mimetype="image/png", headers={"Cache-Control": "public, max-age=86400"})


@bp.app_template_global()
def howto_links(title: str, words) -> Markup:
    """Links from the game page's kinds of decision to their sections of the how-to page ("What is
    emigration?"), one per section, in the reader's language; nothing for a title without a how-to."""
    found = howto_html(title, page_language()) if title in engine.names() else None
    if found is None:
        return Markup("")
    links = {}
    for word in words:
        anchor, name = found.actions.get(str(word), (None, None))
        if anchor and anchor not in links:
            href = url_for("play.rules_page", title=title, _anchor=anchor)
            links[anchor] = Markup('<a href="{}" class="howto-link">{}</a>').format(
                href, gettext("What is “%(action)s”?", action=name))
    if not links:
        return Markup("")
    return Markup('<p class="howto-links" id="howto-links">{}</p>').format(Markup(" ").join(links.values()))


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
    return small_png(renderers.draw(title, view, texts=i18n.texts(language)), TITLE_PICTURE_SIDE)


@bp.get("/titles/<title>.png")
def title_png(title: str):
    if title not in engine.names():
        abort(404)
    png = title_picture(title, picture_language())
    if png is None:
        abort(404)
    return Response(png, mimetype="image/png", headers={"Cache-Control": "public, max-age=86400"})
