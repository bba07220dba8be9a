"""Issue 34 (table talk) on the web: the panel, its forms, refusals beside the form, and nothing private leaks.

Every reader's panel is asked for through the test client as that reader's browser would; a private
message and a note are searched for in everything a third player and a spectator can load.
"""

from __future__ import annotations

import json
import re

from sqlalchemy import update

from pbem import talk
from pbem.models import Game
from tests.web.conftest import csrf_of, running_game, seated

CSRF_IN_PANEL = re.compile(r'name="talk-csrf_token" value="([^"]+)"')


def panel(client, game_id: int) -> str:
    response = client.get(f"/games/{game_id}/talk?part=1")
    assert response.status_code == 200
    return response.get_data(as_text=True)


def send(client, game_id: int, text: str, to=(), json: bool = True):
    token = CSRF_IN_PANEL.search(client.get(f"/games/{game_id}/talk").get_data(as_text=True)).group(1)
    data = {"talk-csrf_token": token, "talk-text": text}
    if to:
        data["talk-to"] = [str(n) for n in to]
    headers = {"Accept": "application/json"} if json else {}
    return client.post(f"/games/{game_id}/talk", data=data, headers=headers)


def test_34_1_the_table_talks_on_the_page(db, players):
    game_id, (first, second, third) = running_game(db, players, n=3)
    page = first.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'data-talk-url="/games/{game_id}/talk?part=1"' in page and "talk.js" in page
    answer = send(first.client, game_id, "Hello <b>all</b>, rules at https://example.org/rules?a=1&b=2.")
    assert answer.get_json() == {"ok": True, "message": "Your message was sent."}
    for reader in (first, second, third):
        html = panel(reader.client, game_id)
        assert "Hello &lt;b&gt;all&lt;/b&gt;" in html  # escaped: no markup of a player reaches a page
        assert '<a href="https://example.org/rules?a=1&amp;b=2" rel="nofollow ugc noopener noreferrer">' in html


def test_34_1_a_private_message_and_a_note_reach_nobody_else_on_the_web(db, players, client):
    game_id, (first, second, third) = running_game(db, players, n=3)
    with db.transaction() as s:
        s.execute(update(Game).where(Game.id == game_id).values(press_spectators=True))
    assert send(first.client, game_id, "XYZZY plan", to=(1,)).get_json()["ok"]
    token = re.search(r'name="note-csrf_token" value="([^"]+)"',
                      second.client.get(f"/games/{game_id}/talk").get_data(as_text=True)).group(1)
    assert second.client.post(f"/games/{game_id}/notes", data={"note-csrf_token": token, "note-text": "PLUGH"},
                              headers={"Accept": "application/json"}).get_json()["ok"]
    assert "XYZZY plan" in panel(second.client, game_id) and "PLUGH" in panel(second.client, game_id)
    assert "XYZZY plan" in panel(first.client, game_id) and "PLUGH" not in panel(first.client, game_id)
    for reader in (third.client, client):  # a third player, and a visitor not logged in
        for path in (f"/games/{game_id}/talk?part=1", f"/games/{game_id}/talk", f"/games/{game_id}",
                     f"/games/{game_id}/replay", f"/api/games/{game_id}"):
            body = reader.get(path).get_data(as_text=True)
            assert "XYZZY" not in body and "PLUGH" not in body, path


def test_34_refusal_stands_beside_the_form_with_the_text_kept(db, players):
    game_id, (first, second, _third) = running_game(db, players, n=3)
    with db.transaction() as s:
        s.execute(update(Game).where(Game.id == game_id).values(press="public"))
    answer = send(first.client, game_id, "just for you", to=(1,), json=False)
    assert answer.status_code == 400
    html = answer.get_data(as_text=True)
    box = html[html.index('id="talk-error-box"'):]
    assert "private messages are not allowed" in box[:400] and 'role="alert"' in box[:400]
    assert ">just for you</textarea>" in html
    json = send(first.client, game_id, "again", to=(1,)).get_json()
    assert json["ok"] is False and json["field"] == "talk_error"
    assert talk.conversation(db, game_id, second.id) == []


def test_34_panel_answers_304_while_nothing_changed(db, players):
    game_id, (first, second, _third) = running_game(db, players, n=3)
    response = second.client.get(f"/games/{game_id}/talk?part=1")
    etag = response.headers["ETag"]
    assert second.client.get(f"/games/{game_id}/talk?part=1", headers={"If-None-Match": etag}).status_code == 304
    send(first.client, game_id, "news")
    assert second.client.get(f"/games/{game_id}/talk?part=1", headers={"If-None-Match": etag}).status_code == 200


def test_34_5_mute_and_report_on_the_page(db, players):
    game_id, (first, second, third) = running_game(db, players, n=3)
    send(first.client, game_id, "noise")
    html = panel(second.client, game_id)
    message_id = re.search(r'id="message-(\d+)"', html).group(1)
    token = csrf_of(second.client, f"/games/{game_id}/talk")
    assert second.client.post(f"/games/{game_id}/talk/{message_id}/report",
                              data={"report-csrf_token": token, "report-reason": "spam"},
                              headers={"Accept": "application/json"}).get_json()["ok"]
    assert [(r.user_id, m.id) for r, m in talk.reports(db)] == [(second.id, int(message_id))]
    assert second.client.post(f"/games/{game_id}/talk/mute/0", data={"csrf_token": token},
                              headers={"Accept": "application/json"}).get_json()["ok"]
    assert "noise" not in panel(second.client, game_id) and "noise" in panel(third.client, game_id)
    assert second.client.post(f"/games/{game_id}/talk/mute/0", data={"csrf_token": token}).status_code == 303


def test_34_talk_forms_need_their_csrf_token(db, players):
    game_id, (first, _second, _third) = running_game(db, players, n=3)
    response = first.client.post(f"/games/{game_id}/talk", data={"talk-text": "forged"},
                                 headers={"Accept": "application/json"})
    assert response.status_code == 400 and talk.conversation(db, game_id, first.id) == []


def test_34_1_messages_and_notes_through_the_api(db, players, client):
    from pbem import accounts
    game_id, (first, second, third) = running_game(db, players, n=3)
    auth = {p.id: {"Authorization": f"Bearer {accounts.create_api_token(db, p.id, 'bot')}"} for p in players}
    url = f"/api/v1/games/{game_id}/messages"
    assert client.post(url, json={"text": "hi"}, headers=auth[first.id]).status_code == 201
    assert client.post(url, json={"text": "XYZZY", "to": [1]}, headers=auth[first.id]).status_code == 201
    assert client.post(f"/api/v1/games/{game_id}/notes", json={"text": "PLUGH"},
                       headers=auth[second.id]).status_code == 201
    got = client.get(url, headers=auth[second.id]).get_json()
    assert [(m["body"], m["to"]) for m in got] == [("hi", None), ("XYZZY", [1])]
    assert [m["body"] for m in client.get(url, headers=auth[third.id]).get_json()] == ["hi"]
    assert client.get(url).get_json() == []  # spectators read nothing unless the table allows it
    assert [n["body"] for n in client.get(f"/api/v1/games/{game_id}/notes", headers=auth[second.id]).get_json()] \
        == ["PLUGH"]
    assert client.get(f"/api/v1/games/{game_id}/notes", headers=auth[third.id]).get_json() == []
    refused = client.post(url, json={"text": "x", "to": [7]}, headers=auth[third.id])
    assert refused.status_code == 400 and refused.get_json()["errors"]["reason"] == "talk"
    assert client.post(url, json={"text": "anon"}).status_code == 401


def test_34_2_archives_carry_what_each_reader_may_read(db, players, client):
    """The public archive carries public messages only if the table let spectators read them; a player's own
    download adds their private messages and notes; import and `verify` read none of it."""
    import json

    from pbem.games import archive
    from tests.web.conftest import finished_tapaono
    game_id = finished_tapaono(db, players)
    ana, ben, cy = players
    ben_seat = seated(db, game_id).index(ben.id)
    talk.post(db, game_id, ana.id, "well played")
    talk.post(db, game_id, ana.id, "XYZZY", to=(ben_seat,))
    talk.write_note(db, game_id, ben.id, "PLUGH")
    url = f"/games/{game_id}/archive.json"
    public = json.loads(client.get(url).get_data())
    assert "messages" not in public and "notes" not in public  # the table kept its talk to its players
    for reader in (cy.client, client):
        body = reader.get(url).get_data(as_text=True)
        assert "XYZZY" not in body and "PLUGH" not in body
    mine = json.loads(ben.client.get(url).get_data())
    assert [m["text"] for m in mine["messages"]] == ["well played", "XYZZY"]
    assert [n["text"] for n in mine["notes"]] == ["PLUGH"]
    with db.transaction() as s:
        s.execute(update(Game).where(Game.id == game_id).values(press_spectators=True))
    assert [m["text"] for m in json.loads(client.get(url).get_data())["messages"]] == ["well played"]
    assert archive.verify_game(db, game_id) == []
    assert archive.import_game(db, ben.client.get(url).get_data()).game_id != game_id  # a player's file imports


def test_34_2_the_replay_shows_the_talk_at_its_moment_to_those_who_may_read_it(db, players, client):
    from pbem import games
    game_id, (first, second, third) = running_game(db, players, n=3)
    talk.post(db, game_id, first.id, "before any move")
    games.submit(db, game_id, games.view(db, game_id, first.id)["legal_moves"][0], user_id=first.id)
    talk.post(db, game_id, first.id, "XYZZY after one", to=(1,))
    steps = second.client.get(f"/games/{game_id}/replay?seq=0").get_data(as_text=True)
    assert "before any move" in steps[steps.index('id="step-talk"'):steps.index('id="step-talk"') + 400]
    data = json.loads(re.search(r'id="steps-data">(.*?)</script>', steps, re.S).group(1))
    assert [m["text"] for m in data[1]["talk"]] == ["XYZZY after one"] and data[1]["talk"][0]["to"]
    for reader in (third.client, client):
        assert "XYZZY" not in reader.get(f"/games/{game_id}/replay?seq=1").get_data(as_text=True)
