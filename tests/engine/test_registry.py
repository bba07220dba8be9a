"""The titles' registry (issue 32, item 1): one entry per title, found by its package or registered once,
through which its rules, its words, its rules pages, its picture and its board in words are found."""

from __future__ import annotations

import fnmatch
import json
import subprocess
import sys
import tomllib
from dataclasses import replace
from importlib import resources
from pathlib import Path

import pytest

import engine
import renderers
import renderers.text
from engine.core import Message
from tests.engine import toygame

ROOT = Path(__file__).resolve().parents[2]
BUILT_IN = ("discovery", "tapaono", "tongiaki")


class PebblesRules(toygame.CountersRules):
    """The counters game under another name: a title nobody has registered."""

    name = "pebbles"
    title = "Pebbles"


def test_32_1_every_package_of_engine_is_found_by_its_title_entry():
    for name in BUILT_IN:
        entry = engine.entry(name)
        assert entry.name == name and engine.get(name) is entry.rules
        assert entry.blurb is not None and entry.rules_pages == f"engine.{name}"
        assert entry.picture == f"renderers.{name}" and entry.text_board == f"renderers.text.{name}"
    assert set(BUILT_IN) <= set(engine.names()) and engine.names() == sorted(engine.names())
    assert [e.name for e in engine.entries()] == engine.names()
    assert engine.entry(" Tongiaki ") is engine.entry("tongiaki")  # as players and forms write a name


def test_32_1_a_title_registered_once_is_found_everywhere_and_taken_off_again():
    with pytest.raises(engine.UnknownGameError, match="There is no game called 'pebbles'; the games are: "):
        engine.get("pebbles")
    entry = engine.register(engine.Title(PebblesRules(), blurb=Message("Pebbles.")))
    try:
        assert "pebbles" in engine.names() and engine.entry("pebbles") is entry
        assert engine.get("pebbles").title == "Pebbles"
        assert not renderers.available("pebbles") and "pebbles" not in renderers.titles()
        with pytest.raises(renderers.RenderError, match="no board picture for 'pebbles'"):
            renderers.render("pebbles", {})
        with pytest.raises(renderers.text.TextError, match="no text board for 'pebbles'"):
            renderers.text.board_text("pebbles", {}, names=[], seat=None)
    finally:
        assert engine.unregister("pebbles") is entry
    assert "pebbles" not in engine.names() and engine.unregister("pebbles") is None


def test_32_1_a_bare_rules_object_is_a_title_with_nothing_said_about_it():
    entry = engine.register(PebblesRules())
    try:
        assert entry.rules.name == "pebbles" and entry.blurb is None and entry.rules_pages is None
        assert entry.picture is None and entry.text_board is None and entry.preview_words == ()
    finally:
        engine.unregister("pebbles")


def test_32_1_an_entry_speaks_only_of_options_its_rules_have():
    with pytest.raises(ValueError, match="pebbles has no option 'stones'; its options are: bonus, pile"):
        engine.Title(PebblesRules(), option_labels={"stones": Message("Stones")})
    shouting = type("ShoutingRules", (PebblesRules,), {"name": "PEBBLES"})()
    with pytest.raises(ValueError, match="lower case"):
        engine.register(engine.Title(shouting))
    assert "PEBBLES" not in engine.names() and "pebbles" not in engine.names()


def test_32_1_pictures_and_texts_are_found_through_the_entry():
    drawn = [e.name for e in engine.entries() if e.picture]
    assert set(BUILT_IN) <= set(drawn) and renderers.titles() == drawn
    assert [e.name for e in engine.entries() if e.text_board] == renderers.text.titles()
    assert not renderers.available("counters")  # its entry names no picture: the suite's game has none
    assert not renderers.available("chess")  # no entry at all
    # A title whose entry names another title's drawing module is drawn by it: the entry is what counts.
    rules = engine.get("tapaono")
    view = rules.view(rules.setup(2, {}, 1), None)
    engine.register(replace(engine.entry("counters"), picture="renderers.tapaono"))
    try:
        assert renderers.available("counters")
        assert renderers.render("counters", view) == renderers.render("tapaono", view)
    finally:
        engine.register(toygame.TITLE)


def test_32_1_each_titles_rules_pages_ship_as_package_data_and_docs_games_shows_them():
    """The rules pages are data of the title's package (so a wheel has them, pyproject's package-data), in
    English and in each translation; docs/games/ keeps the developers' paths to the same files."""
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for name in BUILT_IN:
        package = engine.entry(name).rules_pages
        folder = resources.files(package) / "docs"
        for language in ("", "nl/", "de/", "fr/"):
            page = folder / f"{language}{name}.md"
            assert page.is_file(), f"{package}: docs/{language}{name}.md is missing"
            shipped = [p for key in ("*", package) for p in patterns.get(key, [])]
            assert any(fnmatch.fnmatch(f"docs/{language}{name}.md", p) for p in shipped), \
                f"pyproject's package-data does not ship docs/{language}{name}.md of {package}"
            for_developers = ROOT / "docs" / "games" / f"{language}{name}.md"
            assert for_developers.read_text(encoding="utf-8") == page.read_text(encoding="utf-8")


def test_32_1_the_registry_loads_no_renderer_and_nothing_outside_the_standard_library():
    code = ("import sys, json; before = set(sys.modules); import engine; engine.entries(); "
            "print(json.dumps(sorted({m.split('.')[0] for m in set(sys.modules) - before})))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout))
    foreign = {m for m in loaded if m not in sys.stdlib_module_names and m != "engine" and not m.startswith("_")}
    assert foreign == set(), f"the registry loads {sorted(foreign)}"
