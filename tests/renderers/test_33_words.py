"""The words are right (issue 33, item 8): what the pictures and the board in words say a player can
do is what the engine lets them do, every Tongiaki beach carries its number where it is clear which
beach it marks, and the German, Dutch and French words are words of those languages (colours, the
Tapaono modes, "worth 2").

The German turn mail itself is checked in tests/mail/test_33_words_mail.py.
"""

from __future__ import annotations

import math
import re
from io import BytesIO
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from PIL import Image

import engine
import renderers
from pbem import i18n
from renderers import tongiaki
from renderers.i18n import ENGLISH, colour_word
from renderers.text import board_text
from renderers.text.tapaono import conquest_choices, movers
from tests.renderers.games import GAMES, play

TRANSLATIONS = Path(__file__).resolve().parents[2] / "pbem" / "translations"
# Normal games (commands and mode proposals on, as a new game has them) and one without proposals.
TAPAONO = [({}, 11), ({}, 12), ({"mode_change": False}, 13)]
COLOURS = ("blue", "green", "orange", "purple", "red", "yellow")


def tapaono_positions(limit: int = 700):
    rules = engine.get("tapaono")
    for options, seed in TAPAONO:
        for state, _ in play("tapaono", 2, options, seed, limit):
            if rules.to_move(state) is not None:
                yield rules, state


def picture_header(title: str, view: dict, texts=ENGLISH) -> str:
    """The picture's first line: who is to move, and what to do."""
    return renderers.legend(title, view, texts=texts)["lines"][0]


# --- a) Tapaono's phase 1 names the pieces that can move, and one to enter in the first rounds ----------


def test_33_8_round_one_says_one_piece_enters_not_that_all_three_move():
    rules = engine.get("tapaono")
    state = rules.setup(2, {}, 1)
    view = rules.view(state, 0)
    legal = [rules.notation(state, m) for m in rules.legal_moves(state)]
    text = " ".join(board_text("tapaono", view, names=["Ann", "Bea"], seat=0, legal_moves=legal))
    assert "move pieces 1, 2 and 3 one field each" not in text
    assert "bring one of pieces 1, 2 or 3 onto the board from the spawn" in text
    header = picture_header("tapaono", view)
    assert "move every piece" not in header
    assert "bring one of pieces 1, 2 or 3 onto the board from the spawn: move PIECE q,r" in header


def test_33_8_the_pieces_named_in_phase_one_are_those_with_a_legal_move():
    """Over seeded games: the pieces the words name are exactly those the legal moves move, and where
    the words say one piece enters, after one entered no other piece of the spawn may."""
    checked = entries = 0
    for rules, state in tapaono_positions():
        view = rules.view(state, rules.to_move(state))
        if (view["pending"] or {}).get("decision") != "move":
            continue
        legal = [rules.notation(state, m) for m in rules.legal_moves(state)]
        moving = {int(m.split()[1]) for m in legal if m.startswith("move ")}
        on_board, in_spawn, one = movers(view)
        assert set(on_board) | set(in_spawn) == moving, (legal, view["pending"])
        checked += 1
        if one and len(in_spawn) > 1:
            entry = next(m for m in rules.legal_moves(state)
                         if rules.notation(state, m).startswith(f"move {in_spawn[0]} "))
            after = rules.apply(state, entry)
            if rules.to_move(after) == rules.to_move(state):
                later = {rules.notation(after, m).split()[1] for m in rules.legal_moves(after)
                         if rules.notation(after, m).startswith("move ")}
                assert not later & {str(p) for p in in_spawn[1:]}
                entries += 1
    assert checked > 50 and entries >= 3


# --- b) the conquest phase offers only what the player holds -----------------------------------------


def test_33_8_the_conquest_phase_offers_only_cards_the_player_can_play():
    seen = {"no card": 0, "a card": 0, "no proposal": 0}
    for rules, state in tapaono_positions():
        view = rules.view(state, rules.to_move(state))
        if (view["pending"] or {}).get("decision") != "conquest":
            continue
        legal = [rules.notation(state, m) for m in rules.legal_moves(state)]
        playable = sorted({m.split()[1] for m in legal if m.startswith("play conquer")})
        cards, propose = conquest_choices(view)
        assert sorted(cards) == playable and propose == any(m.startswith("propose") for m in legal), legal
        header = picture_header("tapaono", view)
        seat = rules.to_move(state)
        words = " ".join(board_text("tapaono", view, names=["Ann", "Bea"], seat=1 - seat))  # the other player's text
        for card, name in (("conquer-six", "Conquer six"), ("conquer-three", "Conquer three")):
            assert (card in header) == (card in playable), header
            assert (f"play {name}" in words or f"{name} or" in words) == (card in playable), words
        assert ("propose" in header) == propose
        seen["a card" if playable else "no card"] += 1
        seen["no proposal"] += not propose
    assert min(seen.values()) >= 1, seen


# --- c) every Tongiaki beach has its number, at its middle ----------------------------------------------


def tongiaki_views():
    rules = engine.get("tongiaki")
    for players, options, seed in GAMES["tongiaki"]:
        positions = play("tongiaki", players, options, seed)
        for state, _ in positions[:: max(1, len(positions) // 12)]:
            yield rules.view(state, rules.to_move(state))


def test_33_8_every_tongiaki_beach_has_its_number_at_the_middle_of_its_beach():
    rules = engine.get("tongiaki")
    views = [rules.view(rules.setup(3, {}, 1), 0), *tongiaki_views()]
    islands = 0
    for view in views:
        lay = tongiaki._Layout(view)
        for tile in view["tiles"]:
            if tile["kind"] != "island":
                continue
            islands += 1
            labels = lay.beach_labels(tile)
            assert sorted(n for n, *_ in labels) == sorted(b["beach"] for b in tile["beaches"]), tile["tile"]
            slots = {beach["beach"]: points for beach, _, points, _ in lay.beach_slots(tile)}
            cx, cy = lay.center(tile["q"], tile["r"])
            for number, x, y, tab in labels:
                own = slots[number]
                middle = (sum(p[0] for p in own) / len(own), sum(p[1] for p in own) / len(own))
                # On the line from the island's centre through the middle of its beach, inside the beach...
                assert abs(math.atan2(y - cy, x - cx) - math.atan2(middle[1] - cy, middle[0] - cx)) % (2 * math.pi) \
                    < 0.02 or abs(abs(math.atan2(y - cy, x - cx) - math.atan2(middle[1] - cy, middle[0] - cx))
                                  - 2 * math.pi) < 0.02
                assert math.dist((x, y), (cx, cy)) < math.dist(middle, (cx, cy))
                # ... nearer to a place of its own beach than to any place of another beach.
                nearest_own = min(math.dist((x, y), p) for p in own)
                others = [math.dist((x, y), p) for n, points in slots.items() if n != number for p in points]
                assert all(nearest_own < d for d in others), (tile["tile"], number)
            for (n1, x1, y1, r1), (n2, x2, y2, r2) in zip(labels, labels[1:]):
                assert math.dist((x1, y1), (x2, y2)) > r1 + r2, (tile["tile"], n1, n2)  # no number covers another
    assert islands > 30


def test_33_8_tonga_draws_its_beach_one():
    """Tonga's beach 1 had no number: the pixels where its number goes hold the number's ink."""
    rules = engine.get("tongiaki")
    view = rules.view(rules.setup(3, {}, 1), 0)
    lay = tongiaki._Layout(view)
    tonga = next(t for t in view["tiles"] if t["tile"] == "Tonga")
    number, x, y, tab = next(label for label in lay.beach_labels(tonga) if label[0] == 1)
    image = Image.open(BytesIO(renderers.render("tongiaki", view))).convert("RGB")
    box = image.crop((round(x - tab / 2), round(y - tab / 2), round(x + tab / 2), round(y + tab / 2)))
    darkest = min(sum(box.getpixel((i, j))) for i in range(box.width) for j in range(box.height))
    assert darkest < 200  # the dark ink of the digit on its sand tab


# --- d) colours are words of the reader's language in sentences ------------------------------------------


@pytest.mark.parametrize("language", ["de", "nl", "fr"])
def test_33_8_every_colour_has_a_word_in_every_language(language):
    texts = i18n.texts(language)
    for colour in COLOURS:
        if (language, colour) != ("fr", "orange"):  # the one colour French writes as English does
            assert colour_word(texts, colour) != colour, (language, colour)
    assert colour_word(ENGLISH, "green") == "green"


@pytest.mark.parametrize("title", ["tongiaki", "discovery", "tapaono"])
def test_33_8_german_boards_and_pictures_name_no_english_colour(title):
    rules = engine.get(title)
    players, options, seed = GAMES[title][0]
    texts = i18n.texts("de")
    english = re.compile(r"\b(" + "|".join(COLOURS) + r")\b")
    for state, _ in play(title, players, options, seed)[:60:6]:
        seat = rules.to_move(state)
        if seat is None:
            continue
        view = rules.view(state, seat)
        legal = [rules.notation(state, m) for m in rules.legal_moves(state)]
        words = board_text(title, view, names=["Ann", "Bea", "Cid", "Dan", "Eve"][:players], seat=seat,
                           legal_moves=legal, texts=texts)
        # A move quoted (`land green Tonga 2`) is notation, not a sentence: every other colour is German.
        text = " ".join(" ".join(words).split())
        for move in legal:
            text = text.replace(move, " ")
        text = re.sub(r"\bland (" + "|".join(COLOURS) + r") ", " ", text)
        assert not english.search(text), text
        legend = renderers.legend(title, view, texts=texts)
        said = " ".join(legend["lines"][:1] + [row["label"] for row in legend["players"]])
        assert not english.search(said), said


# --- e) "2 wert" -----------------------------------------------------------------------------------------


def test_33_8_the_german_catalogue_says_wert_2_not_2_wert():
    with (TRANSLATIONS / "de" / "LC_MESSAGES" / "messages.po").open("rb") as f:
        catalogue = read_po(f)
    for message in catalogue:
        for text in ([message.string] if isinstance(message.string, str) else list(message.string)):
            assert not re.search(r"%\(\w+\)[sd] wert\b", text), (message.id, text)
    worth = "%(role)s at %(square)s %(segment)s (%(facts)s): worth %(value)s"
    said = i18n.texts("de").gettext(worth, role="Räuber", square="0,1", segment="N", facts="2 Karten", value=2)
    assert said.endswith(": Wert 2")


# --- f) the Tapaono mode in the reader's words ------------------------------------------------------------


@pytest.mark.parametrize("language,normal,fast", [("nl", "Normaal", "Snel"), ("de", "Normal", "Schnell"),
                                                  ("fr", "Normal", "Rapide")])
def test_33_8_the_tapaono_picture_names_the_mode_in_the_readers_words(language, normal, fast):
    rules = engine.get("tapaono")
    texts = i18n.texts(language)
    view = rules.view(rules.setup(2, {}, 1), 0)
    notes = " ".join(renderers.legend("tapaono", view, texts=texts)["notes"])
    assert f"{normal} (" in notes and " normal " not in notes, notes
    fast_view = rules.view(rules.setup(2, {"mode": "fast"}, 1), 0)
    notes = " ".join(renderers.legend("tapaono", fast_view, texts=texts)["notes"])
    assert f"{fast} (" in notes and "fast" not in notes, notes
