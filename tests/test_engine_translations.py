"""The engine catalogue (pbem/translations/*/LC_MESSAGES/engine.po) and pbem.reasons (issue 24).

As tests/test_translations.py does for the `messages` domain: every message of every language is
translated and none is fuzzy; each `.mo` is what compiling its `.po` gives now; `engine.pot` holds
exactly what engine/ marks (extracted again with babel's Python API and babel-engine.cfg), and each
`.po` the same; a translation keeps its placeholders (`%(name)s`, `%(name)r`). Then a real illegal
move of each title, refused by its engine, answered in English, Dutch, German and French.
"""

from __future__ import annotations

import gettext
import random
import re
from pathlib import Path

import pytest
from babel.messages import extract

import engine
from engine.core import IllegalMove, OptionError
from pbem import i18n, reasons
from tests.support.catalogues import TRANSLATED, TRANSLATIONS, compiled, extracted_ids, open_problems, read_catalog

PLACEHOLDER = re.compile(r"%\(\w+\)[sdr]")


def ids(catalog) -> set[str]:
    return {m.id for m in catalog if m.id}


@pytest.fixture(scope="module")
def template():
    return read_catalog(TRANSLATIONS / "engine.pot")


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_catalogue_is_complete_and_nothing_is_fuzzy(language, template):
    catalog = read_catalog(TRANSLATIONS / language / "LC_MESSAGES" / "engine.po")
    assert not catalog.fuzzy, f"{language}: the catalogue's header is fuzzy"
    problems = open_problems(catalog)
    problems += [f"not translated at all: {m.id!r}" for m in catalog
                 if m.id and m.string == m.id and PLACEHOLDER.sub("", m.id).strip(" ,.:;()'") != ""]
    assert problems == []
    assert ids(catalog) == ids(template), f"{language}: run pybabel update -D engine (docs/i18n.md)"
    assert not catalog.obsolete, f"{language}: obsolete messages left in the catalogue"


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_compiled_catalogue_is_that_of_the_po(language):
    committed, fresh = compiled(language, "engine")
    assert committed == fresh, f"{language}: run pybabel compile -D engine -d pbem/translations"
    assert fresh, f"{language}: an empty catalogue"


def test_the_template_holds_every_message_the_engines_mark(template):
    in_code = extracted_ids("babel-engine.cfg", extract.DEFAULT_KEYWORDS)
    assert len(in_code) > 150, "nothing much extracted: is babel-engine.cfg right?"
    assert sorted(in_code - ids(template)) == [], "marked in engine/, missing from engine.pot: run pybabel extract"
    assert sorted(ids(template) - in_code) == [], "in engine.pot, no longer in engine/: run pybabel extract"


@pytest.mark.parametrize("language", TRANSLATED)
def test_translations_keep_the_placeholders(language):
    catalog = read_catalog(TRANSLATIONS / language / "LC_MESSAGES" / "engine.po")
    problems = []
    for message in catalog:
        if not message.id:
            continue
        if sorted(set(PLACEHOLDER.findall(message.string))) != sorted(set(PLACEHOLDER.findall(message.id))):
            problems.append(f"placeholders of {message.id!r}: {message.string!r}")
        if re.search(r"%\((\w+)\)(?![sdr])", message.string) or re.search(r"%(?![(%])", message.string):
            problems.append(f"a broken placeholder in {message.string!r}")
    assert problems == []


def test_the_engine_domain_is_separate_from_the_messages_domain():
    for language in TRANSLATED:
        assert (TRANSLATIONS / language / "LC_MESSAGES" / "engine.mo").is_file()
        domains = gettext.find("engine", TRANSLATIONS, languages=[language], all=True)
        assert [Path(p).name for p in domains] == ["engine.mo"]


# ---------------------------------------------------------------------------------------
# pbem.reasons: real illegal moves, answered in the player's language


def refusal(title: str, text: str, *moves: str, players: int = 2, options: dict | None = None) -> IllegalMove:
    """The error the engine raises for `text` after `moves` (notation) from a seeded start."""
    rules = engine.get(title)
    state = rules.setup(players, rules.check_options(options or {}), 11)
    for move in moves:
        state = rules.apply(state, rules.parse(state, move))
    with pytest.raises(IllegalMove) as error:
        rules.apply(state, rules.parse(state, text))
    return error.value


ANSWERS = {
    # Tongiaki: a beach that is not there; a move of the wrong phase (its clause and list of moves inside)
    ("tongiaki", "place Tonga 9"): {
        "en": "Tonga has beaches 1 to 6; '9' is not one of them.",
        "nl": "Tonga heeft de stranden 1 tot en met 6; '9' is er geen van.",
        "de": "Tonga hat die Strände 1 bis 6; '9' ist keiner davon.",
        "fr": "Tonga a les plages 1 à 6 ; '9' n'en fait pas partie.",
    },
    ("tongiaki", "expand Tonga 1"): {
        "en": "You cannot expand now: it is setup: place one ship on a Tonga beach with fewer than 2 ships "
              "(place Tonga 1, place Tonga 2, place Tonga 3, place Tonga 4, ...).",
        "nl": "Je kunt nu niet vermeerderen: het is de spelvoorbereiding: plaats één schip op een strand van Tonga "
              "met minder dan 2 schepen (place Tonga 1, place Tonga 2, place Tonga 3, place Tonga 4, ...).",
        "de": "Du kannst dich jetzt nicht vermehren: es ist die Spielvorbereitung: setz ein Schiff an einen Strand "
              "von Tonga mit weniger als 2 Schiffen (place Tonga 1, place Tonga 2, place Tonga 3, place Tonga 4, ...).",
        "fr": "Vous ne pouvez pas ajouter de bateaux maintenant : c'est la mise en place : posez un bateau sur une "
              "plage de Tonga qui en a moins de 2 (place Tonga 1, place Tonga 2, place Tonga 3, place Tonga 4, ...).",
    },
    # Carcassonne: The Discovery: a square that touches no tile; a follower where there is no tile
    ("discovery", "place 5,5 0"): {
        "en": "Square 5,5 does not touch a placed tile along a side.",
        "nl": "Vak 5,5 grenst met geen enkele zijde aan een gelegde tegel.",
        "de": "Feld 5,5 grenzt mit keiner Seite an ein gelegtes Plättchen.",
        "fr": "La case 5,5 ne touche aucune tuile posée par un côté.",
    },
    # Tapaono: a command of another phase ("move or stop", an or-list translated inside the sentence)
    ("tapaono", "roll 1"): {
        "en": "Now you move your pieces (phase 1): you can move, not 'roll'.",
        "nl": "Nu verplaats je je pionnen (fase 1): je kunt move, niet 'roll'.",
        "de": "Jetzt bewegst du deine Spielsteine (Phase 1): du kannst move, nicht 'roll'.",
        "fr": "Vous déplacez maintenant vos pions (phase 1) : vous pouvez move, pas 'roll'.",
    },
}


@pytest.mark.parametrize("title,text", list(ANSWERS))
def test_an_illegal_move_is_answered_in_each_language(title, text):
    error = refusal(title, text)
    answers = ANSWERS[title, text]
    assert str(error) == answers["en"]
    for language in i18n.LANGUAGES:
        assert reasons.reason(error, language) == answers[language], language


def test_a_list_inside_a_reason_is_translated_with_it():
    """Tapaono's 'you can move or stop' and the like: the 'or' between the commands follows the language."""
    rules = engine.get("tapaono")
    state, chooser = rules.setup(2, rules.check_options({}), 3), random.Random(3)
    while len(kinds := list(dict.fromkeys(m.kind for m in rules.legal_moves(state)))) < 2:
        state = rules.apply(state, chooser.choice(rules.legal_moves(state)))
    wrong = next(k for k in ("recall", "decline", "accept", "skip") if k not in kinds)
    with pytest.raises(IllegalMove) as error:
        rules.apply(state, engine.Move(wrong, ()))
    assert f"you can {' or '.join(kinds)}, not {wrong!r}." in str(error.value)
    assert f"je kunt {' of '.join(kinds)}, niet {wrong!r}." in reasons.reason(error.value, "nl")
    assert f"du kannst {' oder '.join(kinds)}, nicht {wrong!r}." in reasons.reason(error.value, "de")
    assert f"vous pouvez {' ou '.join(kinds)}, pas {wrong!r}." in reasons.reason(error.value, "fr")


def test_a_refused_option_and_order_are_translated_too():
    with pytest.raises(OptionError) as option:
        engine.get("tapaono").check_options({"markers": 0})
    assert reasons.reason(option.value, "de") == "Die Option markers muss zwischen 1 und 200 liegen."
    rules = engine.get("discovery")
    state = rules.setup(2, {}, 11)
    with pytest.raises(engine.OrderError) as order:
        rules.parse_order(state, 1 - rules.to_move(state), "pass")
    assert reasons.reason(order.value, "fr") == ("Les consignes se donnent pendant votre propre tour, pour la "
                                                 "décision qui suit la pose de votre tuile.")


def test_the_language_is_read_as_pbem_reads_it_and_english_is_the_fallback():
    error = refusal("discovery", "place 5,5 0")
    assert reasons.reason(error, "DE-at") == reasons.reason(error, "de")
    for language in ("es", "", None, "xx-YY"):
        assert reasons.reason(error, language) == str(error)
    # A message the catalogue does not know (a game added later) reads in English.
    assert reasons.reason(IllegalMove("Brand new %(thing)s.", thing="rule"), "nl") == "Brand new rule."
    # An exception without a message id: its text.
    assert reasons.reason(ValueError("plain words"), "fr") == "plain words"


def test_a_translation_that_broke_its_placeholders_gives_the_english(monkeypatch):
    class Broken(gettext.NullTranslations):
        def gettext(self, message):
            return "Kaputt %(nothing)s."

    monkeypatch.setattr(reasons, "translations", lambda language: Broken())
    error = refusal("discovery", "place 5,5 0")
    assert reasons.reason(error, "de") == str(error)
