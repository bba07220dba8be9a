"""The game page, moves through the form, refusals, the replay viewer and archives."""

from __future__ import annotations

import html
import json
import random
import re

import pytest
from sqlalchemy import func, select

import engine
import renderers

from pbem import boards, games
from pbem.games import archive
from pbem.models import Game, MoveRecord
from tests.web.conftest import CSRF_RE, csrf_of, post, running_game


def page_items(client, game_id, path=None):
    """The position a page shows in words for a title without a picture: {name: text} of its list."""
    text = client.get(path or f"/games/{game_id}").get_data(as_text=True)
    found = re.search(r'<dl class="view" id="board-items">(.*?)</dl>', text, re.S)
    assert found, "no position on the page"
    return {html.unescape(k): html.unescape(v) for k, v in re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", found.group(1))}


def move_count(db, game_id):
    with db.sessions() as s:
        return s.scalar(select(func.count()).select_from(MoveRecord).where(MoveRecord.game_id == game_id))


def move_form(client, game_id):
    text = client.get(f"/games/{game_id}").get_data(as_text=True)
    fields = dict(re.findall(r'<input id="(csrf_token|expected_version|key)" name="\w+" type="hidden" value="([^"]*)"',
                             text))
    return text, fields


def play(client, game_id, move, **override):
    text, fields = move_form(client, game_id)
    data = {"csrf_token": fields.get("csrf_token") or CSRF_RE.search(text).group(1), "expected_version": fields.get("expected_version", "0"),
            "key": fields.get("key", "k" * 16), "move": move, "text": ""}
    data.update(override)
    return client.post(f"/games/{game_id}/move", data=data)


def test_the_page_shows_each_user_only_their_own_view(client, db, players):
    game_id, (first, second) = running_game(db, players)
    games.submit(db, game_id, "draw", user_id=first.id)
    games.submit(db, game_id, "draw", user_id=second.id)
    hand = lambda user_id: ", ".join(map(str, games.view(db, game_id, user_id)["board"]["my_hand"]))  # noqa: E731
    assert page_items(first.client, game_id)["my hand"] == hand(first.id)
    assert page_items(second.client, game_id)["my hand"] == hand(second.id)
    assert hand(first.id) != hand(second.id)
    assert "my hand" not in page_items(client, game_id)  # a spectator
    assert "my hand" not in page_items(players[2].client, game_id)  # not seated: a spectator
    assert page_items(client, game_id)["pile"] == str(games.view(db, game_id)["board"]["pile"])
    # No raw view: no key/value dump of the whole view, no JSON.
    text = first.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'id="board-json"' not in text and "viewer" not in page_items(first.client, game_id)


def test_the_page_shows_whose_turn_the_commitment_and_never_a_running_seed(client, db, players):
    game_id, (first, second) = running_game(db, players)
    with db.sessions() as s:
        game = s.get(Game, game_id)
        seed, commitment = game.seed, game.commitment
    name = first.email.split('@')[0].title()
    for c in (client, second.client):
        text = c.get(f"/games/{game_id}").get_data(as_text=True)
        assert commitment in text and seed not in text
        assert f"{name} (" in text and "is to move." in text
    mine = first.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert commitment in mine and seed not in mine and f"Your turn, {name}." in mine
    assert "<title>(your turn) " in mine and "(your turn)" not in second.client.get(f"/games/{game_id}").get_data(
        as_text=True)
    # Legal moves as buttons grouped by their first word; only the player to move gets them and the form.
    assert '<span class="word">take</span>' in mine and 'value="take 1"' in mine and 'value="draw"' in mine
    assert 'id="move-form"' in mine and '<select' not in mine.split('id="move"', 1)[1]
    assert 'id="move-form"' not in second.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'id="move-form"' not in client.get(f"/games/{game_id}").get_data(as_text=True)


def test_a_move_through_the_form_and_a_double_click_applies_once(db, players):
    game_id, (first, second) = running_game(db, players)
    _, fields = move_form(first.client, game_id)
    data = {**fields, "move": "take 2", "text": ""}
    response = first.client.post(f"/games/{game_id}/move", data=data)
    assert response.status_code == 303
    again = first.client.post(f"/games/{game_id}/move", data=data, follow_redirects=True)
    assert b"applied once" in again.data
    assert move_count(db, game_id) == 1 and games.history(db, game_id)[0]["notation"] == "take 2"
    assert games.history(db, game_id)[0]["source"] == "web"
    # Typed notation wins over the choice list.
    response = play(second.client, game_id, "take 1", text="TAKE 3")
    assert response.status_code == 303 and games.history(db, game_id)[1]["notation"] == "take 3"


def test_refusals_show_the_reason_and_the_current_board_and_change_nothing(client, db, players):
    game_id, (first, second) = running_game(db, players)
    # Not your turn.
    response = play(second.client, game_id, "take 1", expected_version="0")
    assert response.status_code == 409 and b"It is not your turn" in response.data and b'id="board-items"' in response.data
    # Illegal move: the engine's reason.
    response = play(first.client, game_id, "take 7")
    assert response.status_code == 422 and b"take 1 to 3 counters" in response.data
    response = play(first.client, game_id, "jump")
    assert response.status_code == 422 and b"Write &#39;take 1&#39;" in response.data
    # A stale page: the form was for move 1 but the game moved on.
    _, stale = move_form(first.client, game_id)
    games.submit(db, game_id, "take 1", user_id=first.id)
    games.submit(db, game_id, "take 1", user_id=second.id)
    response = first.client.post(f"/games/{game_id}/move", data={**stale, "move": "take 1", "text": ""})
    assert response.status_code == 409 and b"Stale position" in response.data
    # Not seated, not logged in, no CSRF token.
    response = play(players[2].client, game_id, "take 1", expected_version="2")
    assert response.status_code == 403 and b"You have no seat" in response.data
    response = client.post(f"/games/{game_id}/move", data={"move": "take 1", "csrf_token": csrf_of(client, "/login")})
    assert response.status_code == 302 and "/login" in response.headers["Location"]
    _, fields = move_form(first.client, game_id)
    response = first.client.post(f"/games/{game_id}/move", data={**fields, "csrf_token": "", "move": "take 1"})
    assert response.status_code == 400 and b"CSRF" in response.data
    response = first.client.post(f"/games/{game_id}/move", data={**fields, "key": "", "move": "take 1"})
    assert response.status_code == 400
    assert move_count(db, game_id) == 2
    assert first.client.get("/games/999999").status_code == 404


def finish(db, game_id, by_seat):
    """Play a counters game (pile 5) to its end: take 2, take 2, take 1."""
    for n, move in enumerate(["take 2", "take 2", "take 1"]):
        games.submit(db, game_id, move, user_id=by_seat[n % 2].id)


def test_replay_viewer_steps_through_every_move(client, db, players):
    game_id, by_seat = running_game(db, players, options={"pile": 5})
    games.submit(db, game_id, "take 2", user_id=by_seat[0].id)
    # While running: only the spectator's view of the past, for anyone.
    path = f"/games/{game_id}/replay?seq=1"
    assert "take 2" in by_seat[0].client.get(path).get_data(as_text=True)
    assert "my hand" not in page_items(by_seat[0].client, game_id, path)
    games.submit(db, game_id, "take 2", user_id=by_seat[1].id)
    games.submit(db, game_id, "take 1", user_id=by_seat[0].id)
    names = [p.email.split("@")[0].title() for p in by_seat]
    for seq, (notation, mover) in enumerate([("take 2", 0), ("take 2", 1), ("take 1", 0)], start=1):
        text = html.unescape(client.get(f"/games/{game_id}/replay?seq={seq}").get_data(as_text=True))
        assert f'id="notation">{notation}</span>' in text and f'id="mover">{names[mover]}</span>' in text
        assert page_items(client, game_id, f"/games/{game_id}/replay?seq={seq}")["pile"] == str(5 - [2, 4, 5][seq - 1])
    start = html.unescape(client.get(f"/games/{game_id}/replay?seq=0").get_data(as_text=True))
    assert "the start" in start and 'id="slider"' in start
    assert page_items(client, game_id, f"/games/{game_id}/replay?seq=0")["pile"] == "5"
    # Every move's notation and mover are on the page for its script (it steps without reloading).
    steps = json.loads(re.search(r'<script type="application/json" id="steps-data">(.*?)</script>', start).group(1))
    assert [(x["notation"], x["player"]) for x in steps[1:]] == [("take 2", names[0]), ("take 2", names[1]),
                                                                ("take 1", names[0])]
    assert 'id="seq">3<' in client.get(f"/games/{game_id}/replay?seq=99").get_data(as_text=True)
    assert 'id="seq">3<' in client.get(f"/games/{game_id}/replay").get_data(as_text=True)
    open_id = games.create_game(db, "counters", by_seat[0].id, 3)
    assert client.get(f"/games/{open_id}/replay").status_code == 409
    assert client.get("/games/999999/replay").status_code == 404


def test_finished_game_shows_its_seed_and_archive(client, db, players):
    game_id, by_seat = running_game(db, players, options={"pile": 5})
    assert client.get(f"/games/{game_id}/archive.json").status_code == 409  # the seed is still secret
    finish(db, game_id, by_seat)
    with db.sessions() as s:
        seed = s.get(Game, game_id).seed
    text = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'<code id="seed">{seed}</code>' in text and "The pile is empty." in text
    response = client.get(f"/games/{game_id}/archive.json")
    assert response.status_code == 200 and "attachment" in response.headers["Content-Disposition"]
    assert response.data == archive.export_bytes(db, game_id)
    assert client.get("/games/999999/archive.json").status_code == 404


def upload(client, raw, name="game.json"):
    import io

    token = csrf_of(client, "/archives/upload")
    return client.post("/archives/upload", data={"csrf_token": token, "archive": (io.BytesIO(raw), name)},
                       content_type="multipart/form-data")


def test_upload_an_archive_to_replay_it(db, players):
    game_id, by_seat = running_game(db, players, options={"pile": 5})
    finish(db, game_id, by_seat)
    raw = archive.export_bytes(db, game_id)
    response = upload(players[2].client, raw)
    assert response.status_code == 303
    new_id = int(re.search(r"/games/(\d+)/replay", response.headers["Location"]).group(1))
    assert new_id != game_id and games.history(db, new_id) and len(games.history(db, new_id)) == 3
    text = players[2].client.get(f"/games/{new_id}/replay?seq=3").get_data(as_text=True)
    assert "take 1" in text


def test_a_broken_or_tampered_archive_is_refused_and_stores_nothing(app, db, players):
    game_id, by_seat = running_game(db, players, options={"pile": 5})
    finish(db, game_id, by_seat)
    raw = archive.export_bytes(db, game_id)
    data = json.loads(raw)
    data["moves"][1]["notation"] = "take 3"
    tampered = json.dumps(data).encode()
    client = players[2].client
    before = len(games.list_games(db))
    changed = b"Move 2 (seat 1, &#39;take 3&#39;): the notation does not match"
    for bad, message in [(raw[: len(raw) // 2], b"not valid JSON"), (tampered, changed),
                         (b"\x89PNG\r\n\x1a\n\xff", b"not UTF-8"), (b'{"a": 1}', b"not a pbem game archive")]:
        response = upload(client, bad)
        assert response.status_code == 400 and message in response.data, re.findall(rb"role=\"alert\">[^<]*", response.data)
    app.config["MAX_CONTENT_LENGTH"] = 2000
    response = upload(client, raw + b" " * 4000)
    assert response.status_code == 413 and b"too large" in response.data
    assert len(games.list_games(db)) == before
    token = csrf_of(client, "/archives/upload")
    assert client.post("/archives/upload", data={"csrf_token": token}).status_code == 400  # no file


def test_board_picture_only_with_a_renderer_and_never_another_seats(client, db, players, monkeypatch):
    game_id, (first, second) = running_game(db, players)
    games.submit(db, game_id, "draw", user_id=first.id)
    calls = []

    def stored(db_, game_id_, seq, viewer, language="en"):  # stands in for pbem.boards' drawn and stored picture
        calls.append((game_id_, seq, viewer))
        return boards.Picture(b"\x89PNG fake", "f" * 64, drawn=False)

    # The counters game's registry entry names no module that draws it: no picture, none on the page.
    assert client.get(f"/games/{game_id}/board/1.png").status_code == 404
    assert 'id="board-img"' not in first.client.get(f"/games/{game_id}").get_data(as_text=True)
    monkeypatch.setattr(boards, "picture", stored)
    assert first.client.get(f"/games/{game_id}/board/1.png").data == b"\x89PNG fake"
    second.client.get(f"/games/{game_id}/board/1.png")
    client.get(f"/games/{game_id}/board/1.png")
    first.client.get(f"/games/{game_id}/board/0.png")  # the past of a running game: spectator only
    assert calls == [(game_id, 1, 0), (game_id, 1, 1), (game_id, 1, -1), (game_id, 0, -1)]
    assert client.get(f"/games/{game_id}/board/5.png").status_code == 404


@pytest.mark.parametrize("title", [t for t in ("tongiaki", "discovery", "tapaono") if t in engine.names()])
def test_real_titles_get_a_picture_with_clickable_places_of_their_legal_moves(db, players, title):
    from pbem.web.play.helpers import pictures_for

    assert pictures_for(title), f"no renderer for {title}"
    ana, ben, _ = players
    game_id = games.create_game(db, title, ana.id, 2)
    games.join_game(db, game_id, ben.id)
    data = games.view(db, game_id)
    mover = ana if games.view(db, game_id, ana.id)["my_seat"] == data["to_move"] else ben
    legal = games.view(db, game_id, mover.id)["legal_moves"]
    view = games.view(db, game_id, mover.id)["board"]
    text = mover.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'src="/games/{game_id}/board/0.png"' in text and 'id="board-map"' in text
    moves = json.loads(re.search(r'<script type="application/json" id="moves-data">(.*?)</script>', text).group(1))
    assert moves == legal
    regions = re.findall(r'<g class="region" tabindex="0" role="button" aria-label="([^"]*)" data-target="([^"]*)" '
                         r'data-moves="([\d ]+)"><(circle|rect|polygon) ([^>]*)/>', text)
    assert regions
    clickable = set()
    for label, target, indices, shape, attributes in regions:
        assert label == target and re.fullmatch(r'(\w+="[-\d,. ]+" ?)+', attributes)
        named = [moves[int(i)] for i in indices.split()]
        assert all(html.unescape(target) in renderers.targets(title, view, m) for m in named)
        clickable |= set(named)
    assert clickable  # some legal moves are chosen on the picture
    picture = mover.client.get(f"/games/{game_id}/board/0.png")
    assert picture.status_code == 200 and picture.data.startswith(b"\x89PNG")
    # A spectator gets the picture but no places to click (no moves to choose).
    other = players[2].client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'id="board-img"' in other and 'class="region"' not in other and 'id="moves-data"' not in other


def test_a_finished_game_downloads_as_an_animated_replay(client, db, players):
    from pbem.web.play.replay import can_animate

    assert can_animate({"status": "finished", "title": "tapaono"}), "no animated replays for tapaono"
    ana, ben, _ = players
    # Free mode with 3 markers and one star to win: a game of a few dozen decisions.
    game_id = games.create_game(db, "tapaono", ana.id, 2, {"mode": "free", "markers": 3, "stars_to_win": 1})
    games.join_game(db, game_id, ben.id)
    assert client.get(f"/games/{game_id}/replay/animation").status_code == 404  # running: no animation yet
    chooser = random.Random(5)
    while (data := games.view(db, game_id))["status"] == "running":
        mover = ana if games.view(db, game_id, ana.id)["my_seat"] == data["to_move"] else ben
        games.submit(db, game_id, chooser.choice(games.view(db, game_id, mover.id)["legal_moves"]), user_id=mover.id)
    page = client.get(f"/games/{game_id}/replay").get_data(as_text=True)
    assert 'id="animation-link"' in page
    assert client.get(f"/games/{game_id}/replay/animation").status_code == 202  # being prepared by the worker
    boards.draw_animation(db, game_id, "en")  # the worker's job
    response = client.get(f"/games/{game_id}/replay/animation")
    assert response.status_code == 200 and response.mimetype == "image/gif" and response.data.startswith(b"GIF8")
    assert "attachment" in response.headers["Content-Disposition"]


def test_31_4_the_preview_picture_shows_no_tile_that_is_not_drawn_yet(db, players):
    """Issue 31, item 4: a Discovery placement that leaves only a pass ends the turn and draws the next
    tile; the preview of it drew that tile ("Tile to place: #50") before the player played the move."""
    ana, ben, _ = players
    rules = engine.get("discovery")
    game_id = games.create_game(db, "discovery", ana.id, 2)
    games.join_game(db, game_id, ben.id, seed=629)  # a seed whose second turn has such a placement
    by_seat = {games.view(db, game_id, p.id)["my_seat"]: p for p in (ana, ben)}
    chooser = random.Random(4)
    for _ in range(12):  # play on until the player to move has such a placement
        with db.sessions() as s:
            state = rules.state_from_json(json.loads(s.get(Game, game_id).state))
        seat = rules.to_move(state)
        ends_turn = [m for m in rules.legal_moves(state) if m.kind == "place"
                     and rules.view(rules.apply(state, m), None)["events"][:1] == [
                         {"event": "auto", "seat": seat, "move": "pass"}] and state.deck]
        if ends_turn:
            break
        games.submit(db, game_id, chooser.choice(rules.legal_moves(state)), user_id=by_seat[seat].id)
    assert ends_turn, "no placement that leaves only a pass came up"
    mover, place = by_seat[seat], ends_turn[0]
    names = [{ana.id: "Ana", ben.id: "Ben"}[by_seat[n].id] for n in range(2)]

    def picture(after):
        return renderers.render("discovery", {**rules.view(after, seat), "player_names": names})

    answer = mover.client.get(f"/games/{game_id}/preview.png?move={rules.notation(state, place)}")
    assert answer.status_code == 200 and answer.headers["X-Pbem-Drawn"] == "1"
    assert answer.data != picture(rules.apply(state, place)), "the preview shows the tile the move draws"
    assert answer.data == picture(rules.preview(state, place).state)
    assert games.view(db, game_id)["to_move"] == seat  # a preview plays nothing
    # The page says it in words too, beside the preview its script shows (static/game.js).
    page = mover.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert re.search(r'<p id="chooser-preview-note"[^>]*hidden>The board shows your move up to the next draw or '
                     r'roll: what is drawn or rolled comes only when you play the move\.</p>', page)


def test_31_4_every_legal_move_of_every_title_with_pictures_can_be_previewed(db, players):
    """Previews stop before chance in every title now: the page may show any legal move, a move too long
    is refused before anything is read, and a title without pictures has none."""
    ana, ben, cy = players
    rules = engine.get("tapaono")
    game_id = games.create_game(db, "tapaono", ana.id, 2)
    games.join_game(db, game_id, ben.id, seed=5)
    by_seat = {games.view(db, game_id, p.id)["my_seat"]: p for p in (ana, ben)}
    chooser = random.Random(2)
    for _ in range(60):  # on to a position where the player to move may roll the die
        with db.sessions() as s:
            state = rules.state_from_json(json.loads(s.get(Game, game_id).state))
        legal = [rules.notation(state, m) for m in rules.legal_moves(state)]
        if any(m.startswith("roll ") for m in legal):
            break
        games.submit(db, game_id, chooser.choice(legal), user_id=by_seat[rules.to_move(state)].id)
    mover = by_seat[rules.to_move(state)]
    roll = next(m for m in legal if m.startswith("roll "))
    answer = mover.client.get(f"/games/{game_id}/preview.png?move={roll}")
    assert answer.status_code == 200 and answer.data.startswith(b"\x89PNG")
    stopped = rules.preview(state, rules.parse(state, roll))
    assert stopped.chance == "roll"
    names = [{ana.id: "Ana", ben.id: "Ben"}[by_seat[n].id] for n in range(2)]
    assert answer.data == renderers.render("tapaono", {**rules.view(stopped.state, rules.to_move(state)),
                                                       "player_names": names})
    assert mover.client.get(f"/games/{game_id}/preview.png?move={'x' * 401}").status_code == 422
    assert cy.client.get(f"/games/{game_id}/preview.png?move={roll}").status_code == 403
    counters, seats = running_game(db, players)
    assert seats[0].client.get(f"/games/{counters}/preview.png?move=take 1").status_code == 404
