"""The catalogues (pbem/translations): complete, not fuzzy, compiled, and in step with the code.

- every message of every language is translated and none is fuzzy;
- each `.mo` is what compiling its `.po` gives now (compiled in memory with babel.messages);
- the template `messages.pot` holds exactly the strings the code marks (extracted again here
  with babel's Python API, as `pybabel extract -F babel.cfg` does), and each `.po` the same;
- a translation keeps its message's placeholders (`%(name)s`) and HTML tags.
"""

from __future__ import annotations

import re

import pytest
from babel.messages import extract

from pbem import i18n
from tests.support.catalogues import (TRANSLATED, TRANSLATIONS, compiled, extracted_ids, key, open_problems,
                                      read_catalog)

# What the code marks: the keywords pybabel knows, and lazy_gettext (class-level form labels).
KEYWORDS = {**extract.DEFAULT_KEYWORDS, "lazy_gettext": None}
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]")
TAG = re.compile(r"</?[a-z]+[^>]*>")


def messages(catalog) -> dict:
    return {key(m): m for m in catalog if m.id}


@pytest.fixture(scope="module")
def template():
    return read_catalog(TRANSLATIONS / "messages.pot")


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_catalogue_is_complete_and_nothing_is_fuzzy(language, template):
    catalog = read_catalog(TRANSLATIONS / language / "LC_MESSAGES" / "messages.po")
    assert not catalog.fuzzy, f"{language}: the catalogue's header is fuzzy"
    assert open_problems(catalog) == []
    assert set(messages(catalog)) == set(messages(template)), f"{language}: run pybabel update (docs/i18n.md)"
    assert not catalog.obsolete, f"{language}: obsolete messages left in the catalogue"


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_compiled_catalogue_is_that_of_the_po(language):
    committed, fresh = compiled(language, "messages")
    assert committed == fresh, f"{language}: run pybabel compile -d pbem/translations"
    assert fresh, f"{language}: an empty catalogue"


def test_the_template_holds_every_string_the_code_marks(template):
    in_code = extracted_ids("babel.cfg", KEYWORDS)
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
