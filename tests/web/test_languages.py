"""The pages' language: the user's, else the browser's Accept-Language, else English (issue 24, the web's step).

A French page of each kind (home, log-in, lobby, game page, open table, replay, settings)
must hold no English sentence of the catalogue: every msgid is cut at its placeholders and
markup, and no piece of three words or more may appear in the page's text (its text nodes and
the attributes people read: alt, title, aria-label, placeholder, a button's value).
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from sqlalchemy import select

from pbem import accounts, games, i18n
from pbem.models import PendingSignup, User
from tests.web.conftest import (PASSWORD, csrf_of, finished_tapaono, login, make_user, post, running_game, seated,
                                signup_token)

CATALOG = Path(__file__).resolve().parents[2] / "pbem" / "translations" / "fr" / "LC_MESSAGES" / "messages.po"
SHOWN_ATTRIBUTES = {"alt", "title", "aria-label", "placeholder"}
SKIPPED = ("script", "style", "code", "pre")


class PageText(HTMLParser):
    """What a person reads on a page: text outside script and style, and the attributes read aloud or shown.

    Code (`code`, `pre`) is left out too: it is notation, which is typed in English in every language
    (docs/i18n.md), as the rules pages show it."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.attributes: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in SKIPPED:
            self.skip += 1
        attrs = dict(attrs)
        self.attributes += [value for name, value in attrs.items() if name in SHOWN_ATTRIBUTES and value]
        if tag == "input" and attrs.get("type") in ("submit", "button") and attrs.get("value"):
            self.attributes.append(attrs["value"])

    def handle_endtag(self, tag):
        if tag in SKIPPED:
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def page_text(body: str) -> str:
    parser = PageText()
    parser.feed(body)
    return "\n".join([" ".join("".join(parser.parts).split())] + [" ".join(a.split()) for a in parser.attributes])


def english_pieces() -> set[str]:
    """The catalogue's English: each msgid cut at placeholders and tags, the pieces of at least three words."""
    with CATALOG.open("rb") as f:
        catalog = read_po(f)
    pieces = set()
    for message in catalog:
        if not message.id:
            continue
        for msgid in [message.id] if isinstance(message.id, str) else message.id:
            text = html.unescape(re.sub(r"<[^>]+>", "\x00", msgid))
            for piece in re.split(r"%\(\w+\)[sd]|\x00", text):
                piece = " ".join(piece.split()).strip(" ,.:;()")
                if len(re.findall(r"[A-Za-z]+", piece)) >= 3:
                    pieces.add(piece)
    return pieces


ENGLISH = english_pieces()


def english_in(body: str) -> list[str]:
    text = page_text(body)
    return sorted(piece for piece in ENGLISH if piece in text)


def set_language(db, user_id: int, code: str) -> None:
    accounts.update_language(db, user_id, code)


def language_of(db, user_id: int) -> str:
    with db.sessions() as s:
        return s.get(User, user_id).language


# --- choosing the language -----------------------------------------------------------------------


@pytest.mark.parametrize("header, expected", [
    ("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5", "fr"),
    ("es, de;q=0.5, en;q=0.4", "de"),
    ("nl-BE", "nl"),
    ("en-GB,en;q=0.9", "en"),
    ("es, it", "en"),
    ("de;q=0, fr;q=0.1", "fr"),
    ("de;q=0.5, nl;q=0.5", "de"),
    ("fr;q=0.2, nl", "nl"),
    ("es, *;q=0.1", "en"),
    ("en;q=0, *", "nl"),
    ("", "en"),
    (None, "en"),
    ("fr;q=abc, de", "de"),
    (",,;;q=,", "en"),
])
def test_the_best_match_of_an_accept_language_header(header, expected):
    assert i18n.best_match(header) == expected


def test_best_match_gives_the_default_asked_for_when_nothing_fits():
    assert i18n.best_match("es, it", default=None) is None
    assert i18n.normalize("DE_at") == "de" and i18n.normalize("pt") is None and i18n.normalize(None) is None


def test_set_language_takes_only_the_languages_there_are(db):
    user_id = make_user(db, "ana@example.org")
    assert language_of(db, user_id) == "en"
    with db.transaction() as s:
        user = s.get(User, user_id)
        assert accounts.set_language(s, user, " DE ") == "de"
    assert language_of(db, user_id) == "de"
    for bad in ("es", "", "xx-de", "german", "d" * 40):
        with pytest.raises(accounts.AccountError, match="not a language of pbem"):
            accounts.update_language(db, user_id, bad)
    assert language_of(db, user_id) == "de"
    assert accounts.update_language(db, user_id, "fr-CA") == "fr"
    with pytest.raises(accounts.AccountError):
        accounts.update_language(db, 10**6, "fr")


def test_the_sign_up_takes_the_browsers_language(client, db):
    french = {"Accept-Language": "fr-CH, fr;q=0.9, en;q=0.8"}
    page = client.get("/signup", headers=french)
    assert '<html lang="fr">' in page.get_data(as_text=True) and "S'inscrire" in page.get_data(as_text=True)
    response = client.post("/signup", headers=french, data={
        "email": "zoe@example.org", "display_name": "Zoé", "password": PASSWORD, "confirm": PASSWORD,
        "csrf_token": csrf_of(client, "/signup")})
    assert response.status_code == 200 and "Consultez vos e-mails" in response.get_data(as_text=True)
    with db.sessions() as s:
        assert s.scalars(select(PendingSignup.language).where(PendingSignup.email == "zoe@example.org")).one() == "fr"
    path = f"/verify/{signup_token(db, 'zoe@example.org')}"
    other = client.application.test_client()  # the link opened in another browser: the sign-up's language stays
    assert post(other, path, {"password": PASSWORD}, page=path).status_code == 302
    with db.sessions() as s:
        user = s.scalars(select(User).where(User.email == "zoe@example.org")).one()
    assert user.language == "fr"
    lobby = other.get("/").get_data(as_text=True)
    assert '<html lang="fr">' in lobby and "Mes parties" in lobby and "Votre compte est prêt" in lobby


def test_a_browser_pbem_does_not_speak_signs_up_in_english(client, db):
    spanish = {"Accept-Language": "es-ES, es;q=0.9"}
    assert '<html lang="en">' in client.get("/signup", headers=spanish).get_data(as_text=True)
    client.post("/signup", headers=spanish, data={
        "email": "eva@example.org", "display_name": "Eva", "password": PASSWORD, "confirm": PASSWORD,
        "csrf_token": csrf_of(client, "/signup")})
    user_id = accounts.complete_sign_up(db, signup_token(db, "eva@example.org"), PASSWORD, "test-secret-key")
    assert language_of(db, user_id) == "en"


def test_the_users_language_wins_over_the_browsers(db, players):
    ana = players[0]
    set_language(db, ana.id, "nl")
    page = ana.client.get("/", headers={"Accept-Language": "de, fr;q=0.5"}).get_data(as_text=True)
    assert '<html lang="nl">' in page and "Mijn partijen" in page and "Meine Partien" not in page


def test_changing_the_language_in_the_settings(db, players):
    ana = players[0]
    page = ana.client.get("/settings").get_data(as_text=True)
    assert '<html lang="en">' in page and 'name="language"' in page
    assert '<option selected value="en">English</option>' in page and '<option value="fr">Français</option>' in page
    response = post(ana.client, "/settings/language", {"language": "de"}, page="/settings")
    assert response.status_code == 302 and response.headers["Location"] == "/settings"
    assert language_of(db, ana.id) == "de"
    page = ana.client.get("/settings").get_data(as_text=True)
    assert '<html lang="de">' in page and "Sprache gespeichert." in page and "Einstellungen" in page
    assert '<option selected value="de">Deutsch</option>' in page
    # Refused: a language pbem does not speak, and a post without its CSRF token.
    response = post(ana.client, "/settings/language", {"language": "es"}, page="/settings")
    assert response.status_code == 400 and language_of(db, ana.id) == "de"
    response = ana.client.post("/settings/language", data={"language": "fr"})
    assert response.status_code == 400 and "CSRF" in response.get_data(as_text=True)
    assert language_of(db, ana.id) == "de"
    # Someone else's browser cannot change it, and logged out there is nothing to change.
    assert players[1].client.get("/settings").get_data(as_text=True).count("Sprache") == 0
    anonymous = ana.client.application.test_client()
    assert anonymous.post("/settings/language", data={"language": "fr"}).status_code in (302, 400)
    assert language_of(db, ana.id) == "de"


def test_a_form_error_and_a_flash_speak_the_language(db, players):
    ana = players[0]
    set_language(db, ana.id, "fr")
    response = post(ana.client, "/settings/password", {"current": PASSWORD, "password": "new password 123",
                                                       "confirm": "something else"}, page="/settings")
    assert response.status_code == 400 and "Les mots de passe sont différents." in response.get_data(as_text=True)
    # WTForms' own messages come in the page's language too (its catalogues, through Flask-WTF).
    response = post(ana.client, "/settings", {"display_name": "", "notify": "turn", "timezone": "UTC"}, page="/settings")
    assert response.status_code == 400 and "Ce champ est requis." in page_text(response.get_data(as_text=True))
    anonymous = ana.client.application.test_client()
    response = anonymous.get("/settings", headers={"Accept-Language": "de"}, follow_redirects=True)
    assert "Bitte melde dich zuerst an." in response.get_data(as_text=True)
    missing = ana.client.get("/no/such/page")
    assert missing.status_code == 404 and "Cette page n'existe pas." in page_text(missing.get_data(as_text=True))


# --- a French page of each kind holds no English sentence of the catalogue -----------------------------


def test_the_word_list_has_the_catalogues_sentences():
    assert len(ENGLISH) > 100
    assert "No game waits for you" in ENGLISH and "Name shown to other players" in ENGLISH
    assert english_in("<p>Hello. No game waits for you.</p>") == ["No game waits for you"]
    assert english_in('<img alt="Places on the board you can play">') == ["Places on the board you can play"]
    assert english_in("<script>No game waits for you.</script><p>Aucune partie ne vous attend.</p>") == []


def french_pages(app, db, players) -> dict[str, str]:
    """A page of each kind as French users see them (the home and log-in pages: a French browser)."""
    ana, ben, cy = players
    for p in players:
        set_language(db, p.id, "fr")
    game_id, (first, second) = running_game(db, players)
    games.submit(db, game_id, "draw", user_id=first.id)
    open_id = games.create_game(db, "counters", cy.id, 3, {}, turn_hours=48)
    browser = app.test_client()
    french = {"Accept-Language": "fr-FR,fr;q=0.9,en;q=0.5"}
    return {
        "home": browser.get("/", headers=french).get_data(as_text=True),
        "login": browser.get("/login", headers=french).get_data(as_text=True),
        "signup": browser.get("/signup", headers=french).get_data(as_text=True),
        "lobby": ana.client.get("/").get_data(as_text=True),
        "new game": ana.client.get("/games/new").get_data(as_text=True),
        "create": ana.client.get("/games/new/tapaono").get_data(as_text=True),
        "game, to move": second.client.get(f"/games/{game_id}").get_data(as_text=True),
        "game, waiting": first.client.get(f"/games/{game_id}").get_data(as_text=True),
        "game, spectator": cy.client.get(f"/games/{game_id}").get_data(as_text=True),
        "open table": cy.client.get(f"/games/{open_id}").get_data(as_text=True),
        "open table, joining": ana.client.get(f"/games/{open_id}").get_data(as_text=True),
        "replay": ana.client.get(f"/games/{game_id}/replay").get_data(as_text=True),
        "settings": ana.client.get("/settings").get_data(as_text=True),
        "upload": ana.client.get("/archives/upload").get_data(as_text=True),
        "rules": browser.get("/rules/tongiaki", headers=french).get_data(as_text=True),
    }


def test_french_pages_hold_no_english_sentence(app, db, players):
    pages = french_pages(app, db, players)
    for kind, body in pages.items():
        assert '<html lang="fr">' in body, kind
        assert english_in(body) == [], kind
    assert "Mes parties" in pages["lobby"] and "Aucune partie ne vous attend." in pages["lobby"]
    assert "Nom affiché aux autres joueurs" in pages["settings"] and "Langue" in pages["settings"]
    assert "Joueurs" in pages["game, to move"] and "Votre coup" in pages["game, to move"]
    assert "Table ouverte" in pages["open table"] and "Rejoindre cette table" in pages["open table, joining"]
    assert "Des jeux de plateau à votre rythme" in pages["home"] and "Se connecter" in pages["login"]


def test_english_users_still_see_english(app, db, players):
    ana, ben, _ = players
    game_id, (first, second) = running_game(db, players)
    set_language(db, first.id, "fr")  # the same position's page, kept in French for this one, not for the other
    assert "Joueurs" in first.client.get(f"/games/{game_id}").get_data(as_text=True)
    english = second.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert '<html lang="en">' in english and "Players" in english and "Joueurs" not in english
    browser = app.test_client()
    for path in ("/", "/login", "/signup"):
        body = browser.get(path, headers={"Accept-Language": "en-US,en;q=0.9"}).get_data(as_text=True)
        assert '<html lang="en">' in body and english_in(body), path
    lobby = players[2].client.get("/").get_data(as_text=True)
    assert "My games" in lobby and "No game waits for you." in lobby
    assert "Name shown to other players" in players[2].client.get("/settings").get_data(as_text=True)


def test_the_kept_part_of_a_game_page_is_kept_per_language(app, db, players):
    game_id, _ = running_game(db, players)
    spectators = app.test_client()
    french = spectators.get(f"/games/{game_id}", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    english = spectators.get(f"/games/{game_id}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    german = spectators.get(f"/games/{game_id}", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "Derniers coups" in french and "Joueurs" in french
    assert "Players" in english and "Joueurs" not in english
    assert "Spieler" in german and "Joueurs" not in german


def test_times_are_in_the_users_zone_and_language(db, players):
    ana = players[0]
    accounts.update_settings(db, ana.id, display_name="Ana", notify="turn", timezone="Europe/Paris", from_check=True)
    game_id = games.create_game(db, "counters", ana.id, 2, {}, turn_hours=48)
    games.join_game(db, game_id, players[1].id)
    english = ana.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert re.search(r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d\d \w{3} \d{4}, \d\d:\d\d \(Europe/Paris\)", english)
    set_language(db, ana.id, "de")
    german = ana.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert re.search(r"(Mo|Di|Mi|Do|Fr|Sa|So)\., \d{1,2}\. \w+\.? \d{4}, \d\d:\d\d \(Europe/Paris\)", german), \
        re.findall(r'class="countdown"[^>]*>([^<]*)<', german)


def test_a_login_keeps_the_language_of_the_account(app, db):
    user_id = make_user(db, "ben@example.org", "Ben")
    set_language(db, user_id, "nl")
    browser = app.test_client()
    assert login(browser, "ben@example.org").status_code == 302
    page = browser.get("/", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert '<html lang="nl">' in page and "Mijn partijen" in page


# --- refusals in the page's language (the service's and the engines' reasons) ----------------------------


ILLEGAL = "place Tonga 9"  # Tonga has six beaches: refused by the engine in any position of the setup
REASONS = {
    "en": "Tonga has beaches 1 to 6; '9' is not one of them.",
    "nl": "Tonga heeft de stranden 1 tot en met 6; '9' is er geen van.",
    "de": "Tonga hat die Strände 1 bis 6; '9' ist keiner davon.",
    "fr": "Tonga a les plages 1 à 6 ; '9' n'en fait pas partie.",
}


def tongiaki_game(db, players) -> tuple[int, object, object]:
    """A running two-player Tongiaki game of the first two players; returns (game id, player to move, other)."""
    ana, ben = players[0], players[1]
    game_id = games.create_game(db, "tongiaki", ana.id, 2, {})
    games.join_game(db, game_id, ben.id)  # the table is full: the game starts
    mover = ana if games.view(db, game_id, ana.id)["legal_moves"] else ben
    return game_id, mover, ben if mover is ana else ana


def move_fields(client, game_id: int) -> dict:
    body = client.get(f"/games/{game_id}").get_data(as_text=True)
    return dict(re.findall(r'<input id="(csrf_token|expected_version|key)" name="\w+" type="hidden" value="([^"]*)"',
                           body))


@pytest.mark.parametrize("language", ["en", "nl", "de", "fr"])
def test_an_illegal_move_through_the_form_is_refused_in_the_players_language(db, players, language):
    game_id, mover, _ = tongiaki_game(db, players)
    set_language(db, mover.id, language)
    data = {**move_fields(mover.client, game_id), "move": "", "text": ILLEGAL}
    response = mover.client.post(f"/games/{game_id}/move", data=data)
    text = page_text(response.get_data(as_text=True))
    assert response.status_code == 422 and REASONS[language] in text
    # The page's script asks for JSON: the same reason, in the same language.
    data = {**move_fields(mover.client, game_id), "move": "", "text": ILLEGAL}
    answer = mover.client.post(f"/games/{game_id}/move", data=data, headers={"Accept": "application/json"})
    assert answer.status_code == 422 and answer.json == {"ok": False, "message": REASONS[language]}
    # The refusal as the page shows it holds no English (the board in words is another matter: renderers.text).
    shown = re.search(r'<p class="error" role="alert" id="move-error">(.*?)</p>', response.get_data(as_text=True), re.S)
    assert REASONS[language] in html.unescape(shown[1])
    if language != "en":
        assert english_in(shown[0]) == []
    assert games.view(db, game_id)["version"] == 0


def test_not_your_turn_and_a_stale_form_are_refused_in_german(db, players):
    game_id, (first, second) = running_game(db, players)
    for p in (first, second):
        set_language(db, p.id, "de")
    name = first.email.split("@")[0].title()
    data = {"csrf_token": csrf_of(second.client, f"/games/{game_id}"), "expected_version": "0", "key": "k" * 16,
            "move": "take 1", "text": ""}
    response = second.client.post(f"/games/{game_id}/move", data=data)
    body = response.get_data(as_text=True)
    assert response.status_code == 409
    assert f"Du bist in Partie {game_id} nicht am Zug: {name} ist am Zug." in page_text(body)
    assert "Nichts wurde geändert; dies ist das aktuelle Spielbrett." in page_text(body) and english_in(body) == []

    stale = {**move_fields(first.client, game_id), "move": "take 1", "text": ""}
    games.submit(db, game_id, "take 1", user_id=first.id)
    games.submit(db, game_id, "take 1", user_id=second.id)
    response = first.client.post(f"/games/{game_id}/move", data=stale)
    body = response.get_data(as_text=True)
    assert response.status_code == 409
    assert (f"Veraltete Stellung: Das wurde für Zug 1 geschickt, aber Partie {game_id} ist jetzt bei Zug 3."
            in page_text(body))
    assert english_in(body) == [] and games.view(db, game_id)["version"] == 2


def test_a_french_page_shows_the_services_refusal_without_english(app, db, players):
    ana, ben, cy = players
    set_language(db, cy.id, "fr")
    game_id = games.create_game(db, "counters", ana.id, 2, {})
    games.join_game(db, game_id, ben.id)  # full: it has started, and nobody joins any more
    response = post(cy.client, f"/games/{game_id}/join", page=f"/games/{game_id}", follow_redirects=True)
    body = response.get_data(as_text=True)
    assert (f"La partie {game_id} est en cours ; seules les parties ouvertes peuvent être rejointes."
            in page_text(body))
    assert '<html lang="fr">' in body and english_in(body) == []
    assert cy.id not in seated(db, game_id)
    # An account's refusal on a page for a visitor: a French browser's failed log-in.
    browser = app.test_client()
    french = {"Accept-Language": "fr-FR,fr;q=0.9"}
    response = browser.post("/login", headers=french, data={"email": ana.email, "password": "not the password",
                                                             "csrf_token": csrf_of(browser, "/login")})
    body = response.get_data(as_text=True)
    assert "Adresse e-mail ou mot de passe incorrect." in page_text(body) and english_in(body) == []


def test_the_animated_replay_is_drawn_in_the_viewers_language(app, db, players, monkeypatch):
    """The animated replay's words (its captions, the "move N:" of a shortened game, the start) are in the
    language of its address, one GIF per language, each drawn once; the replay page links to its own."""
    from pbem import boards
    from pbem.models import Animation

    game_id = finished_tapaono(db, players)
    assert games.view(db, game_id)["version"] + 1 > 6, "the game must be longer than the frames kept"
    monkeypatch.setattr(boards, "ANIMATION_MAX_FRAMES", 6)  # frames are left out: each says its move
    import renderers
    real, drawn = renderers.render_replay, []

    def recorded(title, frames, texts):
        drawn.append((texts.language, [caption for _, caption in frames]))
        return real(title, frames, texts=texts)

    monkeypatch.setattr(renderers, "render_replay", recorded)
    set_language(db, players[0].id, "de")
    replay = players[0].client.get(f"/games/{game_id}/replay").get_data(as_text=True)
    link = re.search(r'href="([^"]+)" id="animation-link"', replay).group(1)
    assert html.unescape(link) == f"/games/{game_id}/replay/animation?lang=de"
    # Each language's is asked for by its first request and drawn by the worker (issue 31, item 6).
    assert players[0].client.get(html.unescape(link)).status_code == 202
    assert app.test_client().get(f"/games/{game_id}/replay/animation").status_code == 202
    for language in ("de", "en"):
        boards.draw_animation(db, game_id, language)
    german = players[0].client.get(html.unescape(link))
    english = app.test_client().get(f"/games/{game_id}/replay/animation")
    again = app.test_client().get(f"/games/{game_id}/replay/animation?lang=de")
    assert german.status_code == english.status_code == again.status_code == 200
    assert german.data.startswith(b"GIF8") and german.data != english.data and again.data == german.data
    assert [language for language, _ in drawn] == ["de", "en"], "each language is drawn once"
    (_, de_captions), (_, en_captions) = drawn
    assert de_captions[0] == en_captions[0] == ""  # the renderer writes the start in the reader's words
    assert all(caption.startswith("Zug ") for caption in de_captions[1:]), de_captions
    assert all(caption.startswith("move ") for caption in en_captions[1:]), en_captions
    assert [c.split(": ", 1)[1] for c in de_captions[1:]] == [c.split(": ", 1)[1] for c in en_captions[1:]]
    with db.sessions() as s:
        stored = {row.language: row.sha256 for row in s.scalars(select(Animation)
                                                                 .where(Animation.game_id == game_id))}
    assert stored.keys() == {"de", "en"} and stored["de"] == german.headers["ETag"].strip('"')
    assert "Accept-Language" in english.headers["Vary"] and "Accept-Language" not in german.headers.get("Vary", "")


def test_the_templates_words_put_names_in_escaped_and_keep_their_own_markup(app, db, players):
    """The templates' gettext (pbem.web.template_translations): a player's name in a translated
    sentence is text, never markup, in every language; the catalogue's own markup stays markup."""
    ana, ben, _ = players
    with db.transaction() as s:
        s.get(User, ana.id).display_name = '<b onmouseover="alert(1)">Ana</b>'
    set_language(db, ben.id, "de")
    game_id, by_seat = running_game(db, players)
    escaped = "&lt;b onmouseover=&#34;alert(1)&#34;&gt;Ana&lt;/b&gt;"
    for player in by_seat:
        body = player.client.get(f"/games/{game_id}").get_data(as_text=True)
        assert escaped in body and "<b onmouseover" not in body
    german = ben.client.get(f"/games/{game_id}").get_data(as_text=True)
    english = ana.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "ist am Zug" in german or "Du bist am Zug" in german
    assert "is to move" in english or "Your turn" in english
    open_table = games.create_game(db, "counters", ana.id, 3)
    for page in (ana.client.get(f"/games/{open_table}"), ben.client.get(f"/games/{open_table}")):
        assert re.search(r'<p class="whose"><strong>[^<]+</strong>', page.get_data(as_text=True))
