"""The catalogues (pbem/translations): complete, not fuzzy, compiled, and in step with the code.

- every message of every language is translated and none is fuzzy;
- each `.mo` is what compiling its `.po` gives now (compiled in memory with babel.messages);
- the template `messages.pot` holds exactly the strings the code marks (extracted again here
  with babel's Python API, as `pybabel extract -F babel.cfg` does), and each `.po` the same;
- a translation keeps its message's placeholders (`%(name)s`) and HTML tags.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from babel.messages import extract, frontend
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po

from pbem import i18n

ROOT = Path(__file__).resolve().parent.parent
TRANSLATIONS = ROOT / "pbem" / "translations"
TRANSLATED = [code for code in i18n.LANGUAGES if code != i18n.DEFAULT]
# What the code marks: the keywords pybabel knows, and lazy_gettext (class-level form labels).
KEYWORDS = {**extract.DEFAULT_KEYWORDS, "lazy_gettext": None}
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]")
TAG = re.compile(r"</?[a-z]+[^>]*>")


def read_catalog(path: Path):
    with path.open("rb") as f:
        return read_po(f, locale=path.parent.parent.name if path.suffix == ".po" else None)


def key(message) -> str:
    return message.id if isinstance(message.id, str) else message.id[0]


def messages(catalog) -> dict:
    return {key(m): m for m in catalog if m.id}


def extracted_ids() -> set[str]:
    """The msgids the code marks, extracted the way `pybabel extract -F babel.cfg` does."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as f:
        method_map, options_map = frontend.parse_mapping_cfg(f)
    found = set()
    for _, _, message, _, _ in extract.extract_from_dir(str(ROOT), method_map, options_map, keywords=KEYWORDS):
        found.add(message if isinstance(message, str) else message[0])
    return found


@pytest.fixture(scope="module")
def template():
    return read_catalog(TRANSLATIONS / "messages.pot")


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_catalogue_is_complete_and_nothing_is_fuzzy(language, template):
    catalog = read_catalog(TRANSLATIONS / language / "LC_MESSAGES" / "messages.po")
    assert not catalog.fuzzy, f"{language}: the catalogue's header is fuzzy"
    problems = []
    for message in catalog:
        if not message.id:
            continue
        if message.fuzzy:
            problems.append(f"fuzzy: {key(message)!r}")
        strings = message.string if isinstance(message.string, (list, tuple)) else [message.string]
        if not strings or not all(s.strip() for s in strings):
            problems.append(f"untranslated: {key(message)!r}")
        if isinstance(message.id, (list, tuple)) and len(strings) != catalog.num_plurals:
            problems.append(f"{len(strings)} plural forms of {catalog.num_plurals}: {key(message)!r}")
    assert problems == []
    assert set(messages(catalog)) == set(messages(template)), f"{language}: run pybabel update (docs/i18n.md)"
    assert not catalog.obsolete, f"{language}: obsolete messages left in the catalogue"


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_compiled_catalogue_is_that_of_the_po(language):
    folder = TRANSLATIONS / language / "LC_MESSAGES"
    catalog = read_catalog(folder / "messages.po")
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    with (folder / "messages.mo").open("rb") as f:
        committed = read_mo(f)
    fresh = read_mo(compiled)
    as_dict = lambda c: {m.id if isinstance(m.id, str) else tuple(m.id): m.string for m in c if m.id}  # noqa: E731
    assert as_dict(committed) == as_dict(fresh), f"{language}: run pybabel compile -d pbem/translations"
    assert as_dict(fresh), f"{language}: an empty catalogue"


def test_the_template_holds_every_string_the_code_marks(template):
    in_code = extracted_ids()
    in_template = set(messages(template))
    assert in_code, "nothing extracted: is babel.cfg right?"
    assert sorted(in_code - in_template) == [], "marked in the code, missing from messages.pot: run pybabel extract"
    assert sorted(in_template - in_code) == [], "in messages.pot, no longer in the code: run pybabel extract"


@pytest.mark.parametrize("language", TRANSLATED)
def test_translations_keep_the_placeholders_and_the_markup(language):
    catalog = read_catalog(TRANSLATIONS / language / "LC_MESSAGES" / "messages.po")
    problems = []
    for message in catalog:
        if not message.id:
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        strings = [message.string] if isinstance(message.string, str) else list(message.string)
        wanted = sorted(set(PLACEHOLDER.findall(" ".join(ids))))
        tags = sorted(TAG.findall(ids[-1]))
        for string in strings:
            if sorted(set(PLACEHOLDER.findall(string))) != wanted:
                problems.append(f"placeholders of {ids[0]!r}: {string!r}")
            if sorted(TAG.findall(string)) != tags:
                problems.append(f"markup of {ids[0]!r}: {string!r}")
            if "%(" in string.replace("%%", "") and re.search(r"%\((\w+)\)(?![sd])", string):
                problems.append(f"a broken placeholder in {string!r}")
    assert problems == []


def test_a_catalogue_for_every_language_but_english():
    assert i18n.DEFAULT == "en" and set(TRANSLATED) == {"nl", "de", "fr"}
    for language in TRANSLATED:
        assert (TRANSLATIONS / language / "LC_MESSAGES" / "messages.po").is_file()
        assert (TRANSLATIONS / language / "LC_MESSAGES" / "messages.mo").is_file()
