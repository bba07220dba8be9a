"""The view (the schema documented in docs/games/tongiaki.md), hidden information and state JSON."""

from __future__ import annotations

import json
import random

from engine.core import canonical_json

from tests.engine.tongiaki.util import R, build, play

TOP = {"game", "viewer", "players", "colours", "phase", "to_move", "turn", "tiles", "seats", "pile", "drawn",
       "on_table", "removed", "pending", "at_sea", "last_move", "events", "scores", "result"}


def test_view_schema_of_a_position():
    s = build(3, tiles=[("Tonga", 0, 0, 0), ("Fiji", 0, -1, 3), ("C", 1, 0, 5)],
              ships={("Tonga", 2): "blue green", ("Tonga", 5): "orange"}, kings={"Fiji": "green"})
    view = R.view(s, 1)
    assert set(view) == TOP
    assert view["viewer"] == 1 and view["to_move"] == 0 and view["phase"] == "action"
    tonga, fiji, water = view["tiles"]
    assert tonga == {"tile": "Tonga", "kind": "island", "q": 0, "r": 0, "rotation": 0, "red_dot": None, "value": 0,
                     "king": None, "beaches": tonga["beaches"]}
    assert tonga["beaches"][1] == {"beach": 2, "places": 3, "jetties": ["NE"], "ships": ["blue", "green"],
                                   "full": False}
    assert fiji["king"] == "green" and fiji["value"] == 5 and fiji["red_dot"] == "S"
    assert water["kind"] == "water" and water["tracks"][0] == {"sides": ["NW", "SE"], "risk": 4}
    assert view["seats"][1] == {"seat": 1, "colour": "green", "supply": 13, "ships_on_board": 2,
                                "king_islands": ["Fiji"], "islands": 2, "score": 5}
    assert view["pile"] == {"size": 29, "islands": 14, "water": 15}
    assert view["drawn"] == {"islands": 1, "water": 1} and view["on_table"] == {"islands": 2, "water": 1}
    assert view["result"] is None and view["scores"] == [0, 5, 0]
    json.dumps(view)


def test_every_seat_and_spectators_see_the_same_and_never_the_pile_order():
    s = R.setup(4, {}, 123456789)
    chooser = random.Random(3)
    for _ in range(60):
        if R.to_move(s) is None:
            break
        base = R.view(s, None)
        base.pop("viewer")
        for seat in range(4):
            mine = R.view(s, seat)
            mine.pop("viewer")
            assert mine == base
        other = R.resample_hidden(s, 2, 99)
        assert R.view(other, 2) == R.view(s, 2) and sorted(other.pile) == sorted(s.pile)
        s = R.apply(s, chooser.choice(R.legal_moves(s)))


def test_state_json_round_trip_in_the_middle_of_a_chain():
    # Tubuai between the king islands Fiji (SW) and Samoa (NE): beach 2's fleet is turned back, and
    # which landings are left depends on the positions the chain had (issue 40): they go through JSON.
    s = build(2, tiles=[("Tonga", 0, 0, 0), ("Tubuai", 0, -1, 3), ("Fiji", -1, 0, 1), ("Samoa", 1, -2, 4)],
              kings={"Fiji": "green", "Samoa": "green"},
              ships={("Tubuai", 1): "blue green", ("Tubuai", 2): "blue", ("Tonga", 1): "green"})
    s = play(s, "expand Tubuai 1 2", "emigrate Tubuai 1 SW", "land green Tubuai 2", "emigrate Tubuai 2 NE")
    data = json.loads(canonical_json(R.state_to_json(s)))
    copy = R.state_from_json(data)
    assert R.state_hash(copy) == R.state_hash(s) and R.legal_moves(copy) == R.legal_moves(s)
    assert R.view(copy, 0) == R.view(s, 0)
    assert R.view(s, None)["pending"]["fleet"] == ["blue", "blue", "green"]
    assert [R.notation(copy, m) for m in R.legal_moves(copy)] == [
        "land blue Tubuai 1", "land blue Tubuai 2", "land green Tubuai 2"]


def test_view_at_the_end_has_the_result():
    s = build(3, ships={("Tonga", 1): "blue", ("Tonga", 2): "green"}, pile=["A", "Samoa"], seat=2)
    s = play(s, "settle", "tile Tonga S")
    view = R.view(s, None)
    assert view["phase"] == "over" and view["to_move"] is None and view["pending"] is None
    assert view["result"]["reason"] == "The last water tile has been laid."
    assert view["result"]["ranks"] == [1, 1, 3] and view["events"][-1] == {
        "event": "end", "reason": "The last water tile has been laid."}
    assert view["last_move"] == {"colour": "orange", "seat": 2, "move": "tile Tonga S"}
