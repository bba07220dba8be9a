"""Issue 33 item 6, defects a reader of the real mails found in "Since your last turn" (docs/mail.md):

a. Tapaono: a rolled 6 was told as "The die showed 6 for piece 2." only, while it took every field
   around the piece and the one under it and sent the piece back to the spawn: every consequence the
   reader can see is told.
b. Tongiaki: a landing was told as notation ("Bea (green) played land blue Fiji 3"): it is a sentence,
   in every language.
c. The turn mail listed in "Last moves" the moves "Since your last turn" had just told: with the
   section there, the moves are not listed again.

The moves are told as the mail tells them (`renderers.text.events`), from the engine's views of the
reader before and after each step, built here as `pbem.games.events_since` builds them.
"""

from __future__ import annotations

import random

import pytest

import engine
from pbem import i18n
from pbem.notify import wording
from renderers.i18n import colour_word
from renderers.text import events

NAMES = ["Ana", "Bea", "Cid"]


def told_move(rules, state, move, seq: int, reader: int | None) -> dict:
    """One move as events_since gives it: notation, the engine's own moves after it, the reader's views."""
    after, trace = rules.apply_traced(state, move)
    return {"seq": seq, "seat": rules.to_move(state), "notation": rules.notation(state, move), "resigned": False,
            "autos": [{"seat": rules.to_move(p), "notation": rules.notation(p, m)} for p, m in trace],
            "views": [rules.view(p, reader) for p in [state, *(p for p, _ in trace), after]]}


def walk_to(rules, players: int, seed: int, wanted, limit: int = 3000):
    """Random legal moves (no mode proposals) until `wanted(state, move, after)`: (state, move, after, seq)."""
    state = rules.setup(players, rules.check_options({}), seed)
    rnd = random.Random(seed)
    for seq in range(1, limit):
        legal = rules.legal_moves(state)
        move = rnd.choice([m for m in legal if m.kind != "propose"] or legal)
        after = rules.apply(state, move)
        if wanted(state, move, after):
            return state, move, after, seq
        state = after
        if rules.to_move(state) is None:
            state, rnd = rules.setup(players, rules.check_options({}), seed + seq), random.Random(seed + seq)
    raise AssertionError("no such move in the games walked")


# --- a. Tapaono: a 6 tells the fields it took and the piece sent home ---------------------------------------


def test_33_6_a_tapaono_six_tells_the_fields_taken_and_the_piece_sent_back():
    rules = engine.get("tapaono")

    def six_home(state, move, after) -> bool:  # a 6 carried out at once: the piece is back in the spawn
        return (move.kind == "roll" and after.last_roll is not None and after.last_roll[2] == 6
                and rules.view(after, None)["pieces"][after.last_roll[0]][after.last_roll[1] - 1]["field"] is None)

    state, move, after, seq = walk_to(rules, 2, 11, six_home)
    mover, piece = after.last_roll[0], after.last_roll[1]
    reader = 1 - mover
    before_view, after_view = rules.view(state, reader), rules.view(after, reader)
    was = {(q, r): o for q, r, o in before_view["fields"]}
    taken = [f"{q},{r}" for q, r, o in after_view["fields"] if o == mover and was[(q, r)] != mover]
    freed = [f"{q},{r}" for q, r, o in after_view["fields"] if o is None and was[(q, r)] == reader]
    assert taken, "the 6 took no field: the test needs one that did"
    story = events.story([told_move(rules, state, move, seq, reader)], names=NAMES[:2], seat=reader)[0]
    name = NAMES[mover]
    assert story.text == f"{name} ({after_view['colours'][mover]}) rolled for piece {piece}."
    assert story.details[0] == f"The die showed 6 for piece {piece}."
    assert any(d.startswith(f"Fields that became {name}'s: ") and all(f in d for f in taken) for d in story.details)
    assert (not freed) or any(d.startswith("Fields that became free: ") for d in story.details)
    assert f"{name}'s piece {piece} went back to the spawn." in story.details
    # Told to the mover: "yours", "Your piece".
    mine = events.story([told_move(rules, state, move, seq, mover)], names=NAMES[:2], seat=mover)[0]
    assert mine.text == f"You rolled for piece {piece}."
    assert f"Your piece {piece} went back to the spawn." in mine.details
    assert any(d.startswith("Fields that became yours: ") for d in mine.details)


def test_33_6_a_tapaono_plain_step_tells_nothing_more():
    """A step of a piece that changes nothing else is its own sentence alone (no invented consequence)."""
    rules = engine.get("tapaono")
    state, move, after, seq = walk_to(rules, 2, 5, lambda s, m, a: m.kind == "move" and not a.events
                                      and len(a.deck) == len(s.deck))
    story = events.story([told_move(rules, state, move, seq, 0)], names=NAMES[:2], seat=0)[0]
    assert story.details == []


# --- b. Tongiaki: a landing in words, in every language -----------------------------------------------------


@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_33_6_b_tongiaki_landing_is_a_sentence_in_every_language(language):
    rules = engine.get("tongiaki")
    state, move, after, seq = walk_to(rules, 3, 2, lambda s, m, a: m.kind == "land")
    notation = rules.notation(state, move)
    _, colour, *place = notation.split(" ")
    island, beach = " ".join(place[:-1]), place[-1]
    texts = i18n.texts(language)
    story = events.story([told_move(rules, state, move, seq, 0)], names=NAMES, seat=0, texts=texts)[0]
    assert notation not in story.text and f"land {colour}" not in story.text, story.text
    assert colour_word(texts, colour) in story.text and island in story.text and beach in story.text
    if language == "en":
        who = "You" if rules.to_move(state) == 0 else f"{NAMES[rules.to_move(state)]} ("
        assert story.text.startswith(who)
        assert story.text.endswith(f" landed one {colour} ship on {island}, beach {beach}.")
    lines, _ = events.since_text([told_move(rules, state, move, seq, 0)], names=NAMES, seat=0, texts=texts)
    assert not any("played land" in line or f"land {colour} " in line for line in lines), lines


def test_33_6_b_tongiaki_engine_landings_read_as_the_players():
    """The engine's landing of one ship reads as a player's does; of several, with their colours."""
    from renderers.text.tongiaki import tell

    t = i18n.texts("en")
    assert tell(t, ["land blue Fiji 3"]) == "landed one blue ship on Fiji, beach 3"
    assert tell(t, ["land blue Fiji 3", "land green Fiji 1"]) == \
        "landed ships of the fleet on Fiji, beaches 1 and 3: 1 blue, 1 green"


# --- c. the turn mail does not list again what "Since your last turn" told -------------------------------


def _mail_data(with_since: bool) -> dict:
    rules = engine.get("tongiaki")
    state, move, after, seq = walk_to(rules, 3, 2, lambda s, m, a: m.kind == "land")
    moves = [told_move(rules, state, move, seq, 0)]
    data = {"id": 4, "title": "tongiaki", "my_seat": 0, "board": rules.view(after, 0), "legal_moves": [],
            "recent": [], "seats": [{"seat": n, "name": NAMES[n], "colour": c, "resigned": False}
                                    for n, c in enumerate(rules.view(after, 0)["colours"])],
            "last_moves": [{"seq": seq, "seat": moves[0]["seat"], "player": NAMES[moves[0]["seat"]],
                            "notation": moves[0]["notation"]}]}
    if with_since:
        data["since"] = {"moves": moves, "left_out": 0}
    return data


def test_33_6_c_turn_mail_lists_the_moves_once():
    data = _mail_data(with_since=True)
    text = wording.render("parts/position.txt", "en", data=data)
    assert "Since your last turn:" in text
    assert "Last moves:" not in text
    assert data["last_moves"][0]["notation"] not in text  # told in words, not again in notation


def test_33_6_c_without_the_section_the_last_moves_stay():
    """A mail without the section's moves (an answer to /board) keeps its last moves in notation."""
    data = _mail_data(with_since=False)
    text = wording.render("parts/position.txt", "en", data=data)
    assert "Last moves:" in text and f"{data['last_moves'][0]['seq']}. " in text
