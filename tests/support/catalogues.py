"""The Babel catalogues of pbem/translations as the catalogue tests read them (the `messages`
domain in tests/test_translations.py, the `engine` domain in tests/test_engine_translations.py)."""

from __future__ import annotations

import io
from pathlib import Path

from babel.messages import extract, frontend
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po

from pbem import i18n

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "pbem" / "translations"
TRANSLATED = [code for code in i18n.LANGUAGES if code != i18n.DEFAULT]


def read_catalog(path: Path):
    """A `.pot` or a language's `.po` (its locale read from the folder it lies in)."""
    with path.open("rb") as f:
        return read_po(f, locale=path.parent.parent.name if path.suffix == ".po" else None)


def key(message) -> str:
    """A message's msgid (the singular of a plural message)."""
    return message.id if isinstance(message.id, str) else message.id[0]


def open_problems(catalog) -> list[str]:
    """What keeps a language's catalogue from being complete: fuzzy messages, empty translations, plural
    messages with the wrong number of forms."""
    problems = []
    for message in catalog:
        if not message.id:
            continue
        if message.fuzzy:
            problems.append(f"fuzzy: {key(message)!r}")
        strings = message.string if isinstance(message.string, (list, tuple)) else [message.string]
        if not strings or not all((s or "").strip() for s in strings):
            problems.append(f"untranslated: {key(message)!r}")
        if isinstance(message.id, (list, tuple)) and len(strings) != catalog.num_plurals:
            problems.append(f"{len(strings)} plural forms of {catalog.num_plurals}: {key(message)!r}")
    return problems


def compiled(language: str, domain: str) -> tuple[dict, dict]:
    """The committed `.mo` of a domain and what compiling its `.po` gives now, each as {msgid: translation}."""
    folder = TRANSLATIONS / language / "LC_MESSAGES"
    fresh = io.BytesIO()
    write_mo(fresh, read_catalog(folder / f"{domain}.po"))
    fresh.seek(0)
    with (folder / f"{domain}.mo").open("rb") as f:
        committed = read_mo(f)

    def as_dict(catalog) -> dict:
        return {m.id if isinstance(m.id, str) else tuple(m.id): m.string for m in catalog if m.id}

    return as_dict(committed), as_dict(read_mo(fresh))


def extracted_ids(config: str, keywords: dict) -> set[str]:
    """The msgids the code marks, extracted the way `pybabel extract -F <config>` does."""
    with (ROOT / config).open(encoding="utf-8") as f:
        method_map, options_map = frontend.parse_mapping_cfg(f)
    return {message if isinstance(message, str) else message[0]
            for _, _, message, _, _ in extract.extract_from_dir(str(ROOT), method_map, options_map,
                                                                 keywords=keywords)}
