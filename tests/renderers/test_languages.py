"""The pictures' words and the board in words in the reader's language (issue 24, the renderers step).

`renderers` takes the messages of a language as `texts=` (renderers.i18n). Here they come from
the compiled catalogues through the standard library's gettext, as pbem.i18n reads them (the
renderers may not import pbem): Dutch, German and French texts of every title hold no piece of
three words or more of an English msgid of the renderers, keep to the mail's line width and
length, and a picture in another language has its own stable bytes. Without `texts` everything
is English, exactly as before (the golden pictures and test_text_board.py say so).
"""

from __future__ import annotations

import gettext
import io
import re
import unicodedata
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from PIL import Image, ImageChops, ImageDraw

import engine
import renderers
from renderers import common
from renderers.i18n import ENGLISH, join
from renderers.text import MAX_LINES, WIDTH, board_text
from tests.renderers.games import GAMES, play
from tests.renderers.test_text_board import NAMES, legal_texts, recent_for

TRANSLATIONS = Path(__file__).resolve().parents[2] / "pbem" / "translations"
TEMPLATE = TRANSLATIONS / "messages.pot"
LANGUAGES = ("nl", "de", "fr")
SAMPLES = 12  # positions a game, evenly spread from the start to the end


class Catalogue:
    """The messages of one language from the compiled catalogue, called as pbem.i18n.Texts is."""

    def __init__(self, language: str):
        self.language = language
        self._catalogue = gettext.translation("messages", TRANSLATIONS, languages=[language])

    def gettext(self, message: str, **values) -> str:
        text = self._catalogue.gettext(message)
        return text % values if values else text

    def ngettext(self, singular: str, plural: str, num: int, **values) -> str:
        return self._catalogue.ngettext(singular, plural, num) % {"num": num, **values}


class Recorder:
    """English messages, noting every message asked for."""

    def __init__(self):
        self.asked: set[str] = set()

    def gettext(self, message: str, **values) -> str:
        self.asked.add(message)
        return ENGLISH.gettext(message, **values)

    def ngettext(self, singular: str, plural: str, num: int, **values) -> str:
        self.asked.add(singular)
        return ENGLISH.ngettext(singular, plural, num, **values)


def renderer_msgids() -> list:
    with TEMPLATE.open("rb") as f:
        return [m for m in read_po(f) if m.id and any(path.startswith("renderers/") for path, _ in m.locations)]


def english_pieces(language: str) -> set[str]:
    """The renderers' msgids cut at placeholders, line breaks and sentence punctuation: the pieces of three
    words or more that the language's translation does not keep as they are."""
    catalogue = gettext.translation("messages", TRANSLATIONS, languages=[language])
    pieces = set()
    for message in renderer_msgids():
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        translation = (catalogue.gettext(ids[0]) if len(ids) == 1
                       else " ".join(catalogue.ngettext(ids[0], ids[1], n) for n in (1, 2)))
        for msgid in ids:
            for piece in re.split(r"%\(\w+\)[sd]|[\n.;:()\"]", msgid):
                piece = " ".join(piece.split()).strip(" ,")
                if len(re.findall(r"[A-Za-z]+", piece)) >= 3 and piece not in " ".join(translation.split()):
                    pieces.add(piece)
    return pieces


PIECES = {language: english_pieces(language) for language in LANGUAGES}


def positions():
    """(title, players, state, index, positions) over every test game, SAMPLES positions each."""
    for title, games in GAMES.items():
        for players, options, seed in games:
            found = play(title, players, options, seed)
            for k in range(SAMPLES):
                i = round(k * (len(found) - 1) / (SAMPLES - 1))
                yield title, players, found, i


def texts_of(title, players, found, i, texts):
    """The board in words for every seat and a spectator."""
    rules = engine.get(title)
    state = found[i][0]
    for seat in [None, *range(players)]:
        yield board_text(title, rules.view(state, seat), names=NAMES[:players], seat=seat,
                         legal_moves=legal_texts(rules, state, seat), recent=recent_for(rules, found, i, seat),
                         texts=texts)


def engine_reason(title, found, i) -> str:
    """A finished game's reason as the engine words it: the engine's own message, not the renderers'."""
    return (engine.get(title).view(found[i][0], None).get("result") or {}).get("reason") or ""


def test_every_message_the_renderers_ask_for_is_in_the_catalogue():
    recorder = Recorder()
    for title, players, found, i in positions():
        rules = engine.get(title)
        for lines in texts_of(title, players, found, i, recorder):
            assert lines[-1] == "The whole board is in the picture and on the game page."
        view = {**rules.view(found[i][0], 0), "player_names": NAMES[:players]}
        renderers.legend(title, view, texts=recorder)
    for title in GAMES:  # what only the drawing itself writes (values on islands, spawns, the hand's heading)
        players, options, seed = GAMES[title][-1]
        found = play(title, players, options, seed)
        renderers.render(title, engine.get(title).view(found[len(found) // 3][0], 0), texts=recorder)
        renderers.render_replay(title, [(engine.get(title).view(found[0][0], None), "")], texts=recorder)
    catalogue = {m.id if isinstance(m.id, str) else m.id[0] for m in renderer_msgids()}
    assert len(recorder.asked) > 250
    assert sorted(recorder.asked - catalogue) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_board_in_words_holds_no_english_sentence_and_keeps_to_its_size(language):
    texts = Catalogue(language)
    told = 0
    for title, players, found, i in positions():
        reason = engine_reason(title, found, i)
        for lines in texts_of(title, players, found, i, texts):
            text = "\n".join(lines)
            flat = " ".join(text.split()).replace(reason, "") if reason else " ".join(text.split())
            assert sorted(piece for piece in PIECES[language] if piece in flat) == [], text
            assert all(len(line) <= WIDTH for line in lines), text
            assert len(lines) <= MAX_LINES + 2, text
            told += 1
    assert told > 100


def test_the_english_pieces_are_found_in_english():
    """The check above can fail: the English texts are full of the pieces it looks for."""
    title, players, found, i = next(p for p in positions() if p[3] > 0)
    text = " ".join("\n".join(next(texts_of(title, players, found, i, ENGLISH))).split())
    assert len([piece for piece in PIECES["de"] if piece in text]) >= 3


@pytest.mark.parametrize("language, words", [
    ("de", ["Du bist am Zug", "Seit deinem letzten Zug:", "Das ganze Spielbrett ist im Bild"]),
    ("nl", ["Je bent aan de beurt", "Sinds je vorige beurt:", "Het hele bord staat op de afbeelding"]),
    ("fr", ["C'est votre tour", "Depuis votre dernier tour :", "Le plateau entier est sur l'image"]),
])
def test_a_reader_reads_the_position_in_their_language(language, words):
    title = "tongiaki"
    players, options, seed = GAMES[title][0]
    rules = engine.get(title)
    found = play(title, players, options, seed)
    i = len(found) // 2
    seat = rules.to_move(found[i][0])
    text = "\n".join(board_text(title, rules.view(found[i][0], seat), names=NAMES[:players], seat=seat,
                                legal_moves=legal_texts(rules, found[i][0], seat),
                                recent=recent_for(rules, found, i, seat), texts=Catalogue(language)))
    for expected in words:
        assert expected in text


def test_lists_are_joined_with_the_languages_own_and_and_or():
    assert join(ENGLISH, ["a", "b", "c"]) == "a, b and c"
    assert join(Catalogue("de"), ["a", "b", "c"]) == "a, b und c"
    assert join(Catalogue("nl"), ["a", "b", "c"]) == "a, b en c"
    assert join(Catalogue("fr"), ["a", "b", "c"]) == "a, b et c"
    assert join(Catalogue("de"), ["a", "b"], "or") == "a oder b"
    assert join(Catalogue("fr"), ["a"]) == "a"


@pytest.mark.parametrize("title", sorted(GAMES))
def test_a_picture_in_german_has_german_words_and_its_own_stable_bytes(title):
    players, options, seed = GAMES[title][0]
    rules = engine.get(title)
    found = play(title, players, options, seed)
    view = {**rules.view(found[len(found) // 2][0], 0), "player_names": NAMES[:players]}
    german = Catalogue("de")
    png = renderers.render(title, view, texts=german)
    assert png == renderers.render(title, view, texts=Catalogue("de"))  # the same view and language: the same bytes
    assert png != renderers.render(title, view)
    assert renderers.render(title, view) == renderers.render(title, view, texts=ENGLISH)
    legend = renderers.legend(title, view, texts=german)
    first = legend["lines"][0]
    assert first.split(": ", 1)[0].endswith("ist am Zug") or first == "Die Partie ist zu Ende."
    assert all(row["details"].startswith("Punkte ") for row in legend["players"])
    # The clickable regions are those of the German picture, which may be taller (its header wraps otherwise).
    width, height = renderers.size(title, view, texts=german)
    with Image.open(io.BytesIO(png)) as image:
        assert image.size == (width, height)
    assert all(0 <= c <= max(width, height) for r in renderers.regions(title, view, texts=german)
               for c in r["coords"][:2])


@pytest.mark.parametrize("letter", list("éèêüöäëïçßàâîôûœÉÜÖÄ"))
def test_the_pictures_draw_the_accents_of_the_languages(letter):
    """Every accented letter the four languages write is drawn as itself: it differs from the letter without
    its accent and from the box a font draws for a character it does not have."""
    def drawn(text: str, font) -> bytes:
        image = Image.new("L", (48, 48), 0)
        ImageDraw.Draw(image).text((8, 4), text, font=font, fill=255)
        return image.tobytes()

    font = common.font_for(f"Zug {letter}", 24)
    bare = {"ß": "B", "œ": "o"}.get(letter, unicodedata.normalize("NFD", letter)[0])
    assert drawn(letter, font) != drawn(bare, font)
    assert drawn(letter, font) != drawn("\u4e00", font)  # a CJK sign: in neither font, drawn as a box


def test_english_words_keep_the_built_in_font():
    assert common.font_for("Ann (blue, B) to move: expand, become king or settle", 16) is common.font(16)
    assert common.font_for("Ann (blue, B) ist am Zug: vermehren", 16) is common.font(16)
    assert common.font_for("Zoë (blue) führt", 16) is common.fallback_font(16)
