"""Rooms by resource (issue 32, item 3, the web's part): the play blueprint split into one module per
resource keeps every endpoint the templates name, and a refusal carries its HTTP status once (on its
error class), so the game page's form and the JSON API answer it alike."""

from __future__ import annotations

import re
from pathlib import Path

from pbem import accounts, games
from pbem.games import archive
from tests.web.conftest import csrf_of, running_game

TEMPLATES = Path(__file__).resolve().parents[2] / "pbem" / "web" / "templates"
URL_FOR = re.compile(r"""url_for\(\s*['"]([\w.]+)['"]""")


def test_32_3_every_endpoint_the_templates_name_is_served(app):
    named = {name for path in TEMPLATES.glob("*.html") for name in URL_FOR.findall(path.read_text(encoding="utf-8"))}
    assert {"play.game_page", "play.board_png", "play.replay", "play.rules_page", "play.upload_archive"} <= named
    assert sorted(named - set(app.view_functions)) == []
    # Each resource has its own module; the endpoints keep the blueprint's name.
    modules = {name: app.view_functions[name].__module__ for name in named if name.startswith("play.")}
    assert modules["play.game_page"] == "pbem.web.play.game" and modules["play.board_png"] == "pbem.web.play.pictures"
    assert modules["play.replay"] == modules["play.animation"] == "pbem.web.play.replay"
    assert modules["play.rules_page"] == modules["play.title_png"] == "pbem.web.play.rules"
    assert modules["play.download_archive"] == modules["play.upload_archive"] == "pbem.web.play.archives"


def test_32_3_a_refusal_has_one_status_on_the_game_page_and_in_the_api(client, db, players):
    game_id, (first, second) = running_game(db, players)
    tokens = {p.id: {"Authorization": f"Bearer {accounts.create_api_token(db, p.id, 'bot')}"} for p in players}

    def by_page(player, move: str, version: int) -> int:
        page = player.client.get(f"/games/{game_id}").get_data(as_text=True)
        found = re.search(r'name="key" type="hidden" value="([^"]+)"', page)
        return player.client.post(f"/games/{game_id}/move", headers={"Accept": "application/json"}, data={
            "csrf_token": csrf_of(player.client, f"/games/{game_id}"), "expected_version": str(version),
            "key": found.group(1) if found else "k" * 16, "move": move, "text": ""}).status_code

    def by_api(player, move: str, version: int) -> tuple[int, str]:
        answer = client.post(f"/api/v1/games/{game_id}/moves", json={"move": move, "expected_version": version},
                             headers=tokens[player.id])
        return answer.status_code, answer.json["errors"]["reason"]

    refusals = [  # (who, move, the version they saw, the error the service raises)
        (second, "take 1", 0, games.NotYourTurnError),
        (first, "take 9", 0, games.IllegalMoveError),
        (first, "take 1", 3, games.StalePositionError),
        (players[2], "take 1", 0, games.NotAllowedError),
    ]
    for player, move, version, error in refusals:
        assert by_page(player, move, version) == error.http_status, error.__name__
        assert by_api(player, move, version) == (error.http_status, error.code), error.__name__
    assert [e.http_status for e in (games.NotFoundError, games.GameStateError, archive.ArchiveError)] == [404, 409, 409]
    assert client.get(f"/api/v1/games/{game_id}/archive").status_code == 409  # not finished: the seed is secret
    assert client.get(f"/games/{game_id}/archive.json").status_code == 409
    assert games.history(db, game_id) == []  # nothing of it changed the game
