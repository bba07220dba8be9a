"""A game keeps the rules version it began with: played, verified, exported and imported by it (issue 40).

Tongiaki's rules version went from tongiaki-2 to tongiaki-3 (a chain never repeats a position, where
tongiaki-2's engine played a loop out by itself). A table opened under tongiaki-2 is set up, played,
verified and archived with `Rules.for_version("tongiaki-2")`; its archive names that version and
imports and verifies on a server of tongiaki-3.
"""

from __future__ import annotations

import json
import random

import pytest
from sqlalchemy import select, update

import engine
from engine.core import derive_seed
from engine.tongiaki.rules import TongiakiRules
from pbem import games
from pbem.games import archive
from pbem.models import Game, Seat
from tests.service.test_games import users

# The seeded random game of tests/engine/tongiaki/test_chain_repeats.py (V2_GAME): under tongiaki-2 its
# chain comes back to a position and the engine plays the way out; 185 moves.
INDEX = 97
SEED = derive_seed(INDEX, "issue-40")


def play_tongiaki_2_game(db) -> int:
    """A two-player table opened before the bump (its row says tongiaki-2), started with SEED and played
    to the end by submitting the moves of the seeded random game; returns its id."""
    old = engine.get("tongiaki").for_version("tongiaki-2")
    a, b = users(db, 2)
    game_id = games.create_game(db, "tongiaki", a, 3)  # one seat spare: started by hand, with a known seed
    games.join_game(db, game_id, b)
    with db.transaction() as s:
        s.execute(update(Game).where(Game.id == game_id).values(engine_version="tongiaki-2"))
    games.start_game(db, game_id, a, seed=SEED)
    with db.sessions() as s:
        by_seat = list(s.scalars(select(Seat.user_id).where(Seat.game_id == game_id).order_by(Seat.number)))
    chooser, state = random.Random(INDEX), old.setup(2, {}, SEED)
    while old.to_move(state) is not None:
        move = chooser.choice(old.legal_moves(state))
        games.submit(db, game_id, old.notation(state, move), user_id=by_seat[old.to_move(state)])
        state = old.apply(state, move)
    summary = games.view(db, game_id)
    assert summary["status"] == "finished" and summary["version"] == 185
    return game_id


def test_40_a_tongiaki_2_game_is_played_verified_exported_and_imported_under_its_own_version(db, monkeypatch):
    game_id = play_tongiaki_2_game(db)
    assert archive.verify_game(db, game_id) == []
    raw = archive.export_bytes(db, game_id)
    data = json.loads(raw)
    assert data["game"]["engine_version"] == "tongiaki-2" and engine.get("tongiaki").version == "tongiaki-3"
    new_id = archive.import_archive(db, raw)
    assert new_id != game_id and archive.verify_game(db, new_id) == []
    with db.sessions() as s:
        assert s.get(Game, new_id).engine_version == "tongiaki-2"
        assert "version" not in json.loads(s.get(Game, new_id).state)  # the state as tongiaki-2 wrote it
    # Replayed with the rules of now, neither the archive nor the stored game checks out.
    monkeypatch.setattr(TongiakiRules, "for_version", lambda self, version: self)
    data["seats"][0]["name"] += " again"  # another archive, so that the import replays it
    with pytest.raises(archive.ArchiveError, match="made with rules tongiaki-2, this server runs tongiaki-3"):
        archive.import_archive(db, json.dumps(data).encode())
    assert archive.verify_game(db, game_id) != []
