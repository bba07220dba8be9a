"""A chain never repeats a position, and the player makes every choice in it (issue 40, rules version tongiaki-3).

Recorded decision 3 (docs/games/tongiaki.md): in a chain, a move that can only bring the board back
to a position the chain already had (the same ships on the same beaches, no tile drawn since) is not
offered, and refused with the reason when typed; the player chooses among the rest (T11, T13, T14).
With no other move left, the chain cannot end (T16). Games begun under tongiaki-2, whose engine
played a line out of a loop by itself, go on and replay as they were played.
"""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from engine.core import IllegalMove, canonical_json, derive_seed
from engine.tongiaki import state as st

from tests.engine.tongiaki.util import R, events, options, pending, play

V2 = R.for_version("tongiaki-2")
TONGA = ("Tonga", 0, 0, 0)
REPEAT = "That emigration can only bring the chain back to a position it already had (the same ships on the same " \
         "beaches), and a chain never repeats a position: %(moves)s."
REPEAT_LANDING = "That landing can only bring the chain back to a position it already had (the same ships on the " \
                 "same beaches), and a chain never repeats a position: %(moves)s."


def refusal(state, text):
    with pytest.raises(IllegalMove) as error:
        R.parse(state, text)
    return error.value


def rarotonga(rules=R, king_north_and_southeast=False):
    """Blue's turn. Rarotonga lies north of Tonga (red dot S): beach 1 (3 places) has jetties SW and NW,
    beach 2 (4 places) N, NE and SE. The king islands Fiji (SW) and Samoa (NE) turn fleets back; the
    other hexes are empty, unless Hawaii (N) and Oahu (SE) are king islands too.
    `expand Rarotonga 1 2` fills beach 1 with three blue ships; beach 2 holds three of four."""
    tiles = [TONGA, ("Rarotonga", 0, -1, 3), ("Fiji", -1, 0, 1), ("Samoa", 1, -2, 4)]
    kings = {"Fiji": "green", "Samoa": "green"}
    if king_north_and_southeast:
        tiles += [("Hawaii", 0, -2, 3), ("Oahu", 1, -1, 5)]
        kings.update({"Hawaii": "orange", "Oahu": "orange"})
    return rules.build(3 if king_north_and_southeast else 2, tiles=tiles, kings=kings,
                       ships={("Rarotonga", 1): "blue blue", ("Rarotonga", 2): "blue blue", ("Tonga", 1): "blue green"},
                       pile=["Oahu" if not king_north_and_southeast else "Tuvalu", "A", "Tahiti", "B"])


def turned_back_and_landed(rules=R, **kwargs):
    """Beach 1 sails south-west into Fiji, is turned back and lands on Rarotonga: one ship on each
    beach with a free place (beach 2 is full now), the third on beach 1 (T13, T15)."""
    s = play(rarotonga(rules, **kwargs), "expand Rarotonga 1 2", "emigrate Rarotonga 1 SW")
    assert events(s, "turned_back") == [{"event": "turned_back", "king_island": "Fiji", "to": "Rarotonga"}]
    assert options(s) == ["land blue Rarotonga 1", "land blue Rarotonga 2"]
    return play(s, "land blue Rarotonga 2")


def test_t15_t11_40_after_the_turned_back_fleet_lands_the_move_back_to_the_position_before_is_not_offered():
    s = turned_back_and_landed()
    assert [e["move"] for e in events(s, "auto")] == ["land blue Rarotonga 1", "land blue Rarotonga 1"]
    # Beach 2 is full. Sailing it north-east into Samoa would bring it back to land exactly as the
    # chain began (three ships on each beach): not offered. The player chooses between the others.
    view = R.view(s, None)
    assert view["pending"]["decision"] == "emigrate" and view["pending"]["colour"] == "blue"
    assert view["pending"]["full_beaches"] == [
        {"island": "Rarotonga", "beach": 2, "jetties": ["N", "NE", "SE"], "ships": ["blue"] * 4}]
    assert options(s) == ["emigrate Rarotonga 2 N", "emigrate Rarotonga 2 SE"]
    assert view["pending"]["engine_ends_chain"] is False
    error = refusal(s, "emigrate Rarotonga 2 NE")
    assert error.message_id == REPEAT
    assert str(error) == REPEAT % {"moves": "emigrate Rarotonga 2 N, emigrate Rarotonga 2 SE"}
    # The player's choice is played, nothing else: the fleet sails where they said and a tile is drawn there.
    s = play(s, "emigrate Rarotonga 2 SE")
    assert [e["event"] for e in events(s)] == ["draw", "arrive"]
    assert (events(s, "draw")[0]["q"], events(s, "draw")[0]["r"]) == (1, -1) and pending(s)["island"] == "Oahu"


def test_t15_40_under_tongiaki_2_the_engine_played_the_loop_out_by_itself():
    """The same position in a game of tongiaki-2: the repeat is allowed, and then the engine sails the
    other full beach by a jetty of its own choosing and draws a tile (what issue 40 found)."""
    s = turned_back_and_landed(V2)
    assert options(s) == ["emigrate Rarotonga 2 N", "emigrate Rarotonga 2 NE", "emigrate Rarotonga 2 SE"]
    s = play(s, "emigrate Rarotonga 2 NE", "land blue Rarotonga 1")
    assert [e["move"] for e in events(s, "auto")] == ["land blue Rarotonga 2"] * 3 + ["emigrate Rarotonga 1 NW"]
    assert events(s, "draw")[0]["tile"] == "Oahu" and pending(s)["island"] == "Oahu"


def tubuai(rules=R):
    """Tubuai north of Tonga: beach 1 (jetties SW, NW) and beach 2 (NE, SE), three places each. The king
    island Fiji lies south-west. `expand Tubuai 1 2` fills both beaches."""
    return rules.build(2, tiles=[TONGA, ("Tubuai", 0, -1, 3), ("Fiji", -1, 0, 1)], kings={"Fiji": "green"},
                       ships={("Tubuai", 1): "blue green", ("Tubuai", 2): "blue green", ("Tonga", 1): "green"},
                       pile=["Oahu", "A", "Hawaii", "B"])


def test_t11_t15_40_a_fleet_that_would_land_again_on_the_beach_it_left_does_not_sail_there():
    s = play(tubuai(), "expand Tubuai 1 2")
    # Beach 1 south-west: Fiji turns it back, and the only beach with a free place is the one it left.
    assert options(s) == ["emigrate Tubuai 1 NW", "emigrate Tubuai 2 NE", "emigrate Tubuai 2 SE"]
    assert refusal(s, "emigrate Tubuai 1 SW").message_id == REPEAT
    # Under tongiaki-2 the fleet landed where it was and the engine chose the way on.
    s = play(tubuai(V2), "expand Tubuai 1 2", "emigrate Tubuai 1 SW", "land blue Tubuai 1", "land blue Tubuai 1")
    assert [e["move"] for e in events(s, "auto")] == ["land green Tubuai 1", "emigrate Tubuai 1 NW"]


def two_colour_loop():
    """Tubuai north of Tonga between the king islands Fiji (SW) and Samoa (NE). Blue expands: beach 1
    (blue blue green) is full, beach 2 holds blue blue. Beach 1 sails into Fiji and is turned back;
    green lands on beach 2, filling it; then blue, blue on beach 1."""
    s = R.build(2, tiles=[TONGA, ("Tubuai", 0, -1, 3), ("Fiji", -1, 0, 1), ("Samoa", 1, -2, 4)],
                kings={"Fiji": "green", "Samoa": "green"},
                ships={("Tubuai", 1): "blue green", ("Tubuai", 2): "blue", ("Tonga", 1): "green"},
                pile=["Oahu", "A", "Hawaii", "B"])
    s = play(s, "expand Tubuai 1 2", "emigrate Tubuai 1 SW", "land green Tubuai 2")
    assert options(s) == ["emigrate Tubuai 2 NE", "emigrate Tubuai 2 SE"]
    return s


def test_t13_40_a_landing_that_can_only_repeat_a_position_is_not_offered_the_others_are():
    # Beach 2 (blue blue green) sails into Samoa and comes back. Green on beach 1 would leave blue blue
    # for beach 2: the position the chain began with. Every other landing leads somewhere new.
    s = play(two_colour_loop(), "emigrate Tubuai 2 NE")
    assert pending(s)["fleet"] == ["blue", "blue", "green"] and pending(s)["beaches"] == [1, 2]
    assert options(s) == ["land blue Tubuai 1", "land blue Tubuai 2", "land green Tubuai 2"]
    error = refusal(s, "land green Tubuai 1")
    assert error.message_id == REPEAT_LANDING
    # After blue on beach 2 the next ship must go to beach 1 (T13): green there would repeat, so blue is
    # the one legal choice, and the engine makes it.
    s = play(s, "land blue Tubuai 2")
    assert [e["move"] for e in events(s, "auto")][:2] == ["land blue Tubuai 1", "land green Tubuai 2"]
    # Beach 1 (blue blue blue) is full; turned back by Fiji it could only land as the chain stood before.
    assert [e["move"] for e in events(s, "auto")][2:] == ["emigrate Tubuai 1 NW"]
    assert events(s, "draw")[0]["tile"] == "Oahu"


def test_t16_40_a_chain_whose_every_move_would_repeat_a_position_is_infinite():
    """Rarotonga ringed by king islands but for beach 1's north-west jetty. Beach 1 turned back, beach 2
    is full and can only sail into a king island and back to where the chain began: no move avoids a
    repeat, so the chain cannot end (T16): Rarotonga's ships go home and the island leaves the game."""
    s = turned_back_and_landed(king_north_and_southeast=True)
    assert events(s, "infinite_chain") == [{"event": "infinite_chain", "tile": "Rarotonga", "ships": ["blue"] * 6}]
    view = R.view(s, None)
    assert view["removed"] == ["Rarotonga"] and pending(s)["decision"] == "action" and pending(s)["colour"] == "green"
    # Under tongiaki-2 the chain went round once and the engine sailed beach 1 out north-west.
    s = turned_back_and_landed(V2, king_north_and_southeast=True)
    s = play(s, "emigrate Rarotonga 2 N", "land blue Rarotonga 2")
    assert [e["move"] for e in events(s, "auto")][-1] == "emigrate Rarotonga 1 NW"
    assert events(s, "draw")[0]["tile"] == "Tuvalu" and not events(s, "infinite_chain")


def test_40_no_chain_of_random_play_repeats_a_position():
    """Seeded random games, V2_GAME's among them (its chain comes round under tongiaki-2): no chain has a
    position twice, at any decision, those the engine makes by itself included."""
    for players, index in [V2_GAME[:2]] + [(2 + i % 5, i) for i in range(40)]:
        chooser, s = random.Random(index), R.setup(players, {}, derive_seed(index, "issue-40"))
        while R.to_move(s) is not None:
            s, decisions = R.apply_traced(s, chooser.choice(R.legal_moves(s)))
            for position in [s] + [point for point, _ in decisions]:
                assert len(set(position.visited)) == len(position.visited), f"seed {index}: a position came twice"


# --- Rules versions: games of tongiaki-2 play and replay as they were played -------------------------------

# A seeded random game of 2 players (seed derive_seed(97, "issue-40"), moves chosen by random.Random(97))
# played under tongiaki-2 before issue 40: its chain came back to a position once and the engine played
# the way out. 185 moves; SHA-256 of the state hashes after setup and after each move, joined.
V2_GAME = (2, 97, 185, "9f95ed67085a5f0ea07f76f26a5cb0617359de63bc1e8e5a2a15f1641401e5dc")


def hashes_of_random_game(rules, players, index):
    chooser, s = random.Random(index), rules.setup(players, {}, derive_seed(index, "issue-40"))
    hashes, counts = [rules.state_hash(s)], []
    while rules.to_move(s) is not None:
        legal = rules.legal_moves(s)
        counts.append(len(legal))
        s = rules.apply(s, chooser.choice(legal))
        hashes.append(rules.state_hash(s))
    return hashes, counts


def test_40_a_game_of_tongiaki_2_replays_state_for_state_as_it_was_played():
    players, index, moves, digest = V2_GAME
    assert V2.version == "tongiaki-2" and R.version == "tongiaki-3" and R.for_version("tongiaki-3") is R
    hashes, counts = hashes_of_random_game(V2, players, index)
    assert len(hashes) == moves + 1
    assert hashlib.sha256("".join(hashes).encode()).hexdigest() == digest
    # Under tongiaki-3 the same seed and chooser meet other choices where the chain came round.
    assert hashes_of_random_game(R, players, index)[1] != counts


def test_40_a_state_names_its_rules_version_and_keeps_it_through_json():
    old, new = V2.setup(2, {}, 5), R.setup(2, {}, 5)
    assert "version" not in R.state_to_json(old), "states of tongiaki-2 are written as they were"
    assert R.state_to_json(new)["version"] == "tongiaki-3"
    # Whichever rules object reads a state, it plays on under the state's own version.
    assert R.state_from_json(json.loads(canonical_json(R.state_to_json(old)))).version == "tongiaki-2"
    assert V2.state_from_json(R.state_to_json(new)).version == "tongiaki-3"
    s = turned_back_and_landed(V2)
    again = R.state_from_json(json.loads(canonical_json(R.state_to_json(s))))
    assert options(again) == options(s) == ["emigrate Rarotonga 2 N", "emigrate Rarotonga 2 NE",
                                            "emigrate Rarotonga 2 SE"]
    with pytest.raises(IllegalMove, match="not a Tongiaki state"):
        R.state_from_json({**R.state_to_json(new), "version": "tongiaki-9"})
    # An unknown version is played by the rules of now (the service then reports the difference).
    assert R.for_version("tongiaki-1") is R and st.VERSIONS == ("tongiaki-2", "tongiaki-3")
