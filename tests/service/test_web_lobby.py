"""The read-only pages the first README command serves."""

from __future__ import annotations

from pbem import games
from pbem.web import create_app
from tests.service.test_games import play_known_seed


def test_lobby_and_game_page_show_a_running_game_without_its_seed(db):
    game_id, by_seat = play_known_seed(db, 2)
    games.submit(db, game_id, "take 2", user_id=by_seat[0])
    app = create_app({"DATABASE_URL": db.url, "TESTING": True})
    client = app.test_client()
    assert client.get("/healthz").json == {"status": "ok"}
    lobby = client.get("/").get_data(as_text=True)
    assert f'href="/games/{game_id}"' in lobby and "counters" in lobby
    page = client.get(f"/games/{game_id}").get_data(as_text=True)
    data = games.view(db, game_id)
    assert data["commitment"] in page and "take 2" in page
    with db.sessions() as s:
        from pbem.models import Game

        assert s.get(Game, game_id).seed not in page
    assert client.get("/games/999").status_code == 404
    app.extensions["pbem_db"].dispose()
