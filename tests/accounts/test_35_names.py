"""Issue 35 item 1: display names, one set of rules (pbem.accounts.names) for the web and for mail.

Length, characters and normalisation (RFC 8266 nickname profile), uniqueness ignoring case, no
look-alike of another player's name (UTS #39 skeletons from Unicode's confusables), the refusal
beside the name field of the sign-up and settings pages, a rename followed by the seats of open and
running tables only, and migration 0017, which fills the skeletons of the users there are.
"""

from __future__ import annotations

import html
import re

import pytest
import sqlalchemy as sa
from sqlalchemy import select

from pbem import accounts, games, migrate
from pbem.accounts import names
from pbem.models import GameStatus, Game, OutboundMail, PendingSignup, Seat, User
from tests.web.conftest import (  # noqa: F401  (fixtures)
    PASSWORD, SECRET, app, cheap_argon2, client, login, make_user, post, signup_token,
)

LINKS = accounts.Links("http://pbem.test")
CYRILLIC_A = "\u0410"  # looks like the Latin A


def sign_up(db, email: str, name: str) -> None:
    accounts.sign_up(db, email, PASSWORD, name, SECRET, LINKS)


def field_errors(page: str, field: str) -> list[str]:
    """The errors shown inside the field's own box on a page (the form macro's `field-<id>` div)."""
    box = re.search(r'<div class="field[^"]*" id="field-%s".*?</div>' % field, page, re.S)
    assert box, f"no field {field} on the page"
    return [html.unescape(re.sub(r"\s+", " ", error).strip())
            for error in re.findall(r'<p class="error" role="alert">(.*?)</p>', box.group(0), re.S)]


# --------------------------------------------------------------------------------------
# The rules


@pytest.mark.parametrize("typed,kept", [
    ("  Anna   Maria ", "Anna Maria"),  # spaces trimmed and single
    ("\uff21\uff4e\uff4e\uff41", "Anna"),  # full-width letters
    ("Zoe\u0308", "Zo\u00eb"),  # a combining mark, composed
    ("O\u2019Brien", "O'Brien"),
    ("Anna-Lena_2.0", "Anna-Lena_2.0"),
    ("Jo", "Jo"),
    ("x" * names.MAX_NAME, "x" * names.MAX_NAME),
    ("Θεοδώρα", "Θεοδώρα"),  # any script's letters
])
def test_35_1_a_name_is_normalised(typed, kept):
    assert names.normalize(typed) == kept


@pytest.mark.parametrize("typed,reason", [
    ("A", "A name has 2 to 32 characters; this one has 1."),
    ("x" * (names.MAX_NAME + 1), "A name has 2 to 32 characters; this one has 33."),
    ("   ", "A name has 2 to 32 characters."),
    ("Anna!", "U+0021 EXCLAMATION MARK cannot be in a name; a name has letters, digits, spaces and - _ . '."),
    ("ann@example.org", "U+0040 COMMERCIAL AT cannot be in a name"),
    ("Anna\u200bMaria", "U+200B ZERO WIDTH SPACE cannot be in a name"),
    ("Anna\u202eairaM", "U+202E RIGHT-TO-LEFT OVERRIDE cannot be in a name"),
    ("Ann\u0007a", "U+0007 cannot be in a name"),
    ("Anna\nBcc: x", "U+000A cannot be in a name"),
    ("12345", "A name needs at least one letter."),
    ("-- __", "A name needs at least one letter."),
])
def test_35_1_a_name_that_breaks_a_rule_is_refused_with_the_rule(typed, reason):
    with pytest.raises(names.DisplayNameError) as refused:
        names.normalize(typed)
    assert str(refused.value).startswith(reason)


def test_35_1_names_that_differ_in_case_or_look_alike_share_a_key():
    # `key`: any case, and look-alikes in lower case.
    assert names.key("Anna") == names.key("ANNA") == names.key("\u0430nna") == names.key(CYRILLIC_A + "NNA")
    assert names.key("KIM") == names.key("Kim") == names.key("kirn")
    assert names.key("Bob") == names.key("B0B")
    assert names.key("Straße") == names.key("STRASSE")
    # `skeleton`: look-alikes as written (UTS #39), where a capital I reads as l.
    assert names.skeleton("Paul") == names.skeleton("PauI") and names.key("Paul") != names.key("PauI")
    assert names.skeleton("Anna") == names.skeleton(CYRILLIC_A + "nna")
    assert names.skeleton("Ian") == names.skeleton("lan") != names.skeleton("Lan")
    # Different names stay different.
    for one, other in [("Anna", "Anne"), ("Zoë", "Zoe"), ("Ian", "Lan"), ("Anna", "Annabel")]:
        assert names.key(one) != names.key(other) and names.skeleton(one) != names.skeleton(other)


def test_35_1_the_key_is_the_same_for_every_case_of_a_letter():
    import unicodedata
    for code in range(0x3000):
        char = chr(code)
        if unicodedata.category(char)[0] == "L" and char.upper().casefold() == char.casefold():
            assert names.key(char.upper() + "x") == names.key(char.lower() + "x") == names.key(char + "X"), char


def test_35_1_a_name_is_unique_ignoring_case_and_look_alikes_on_sign_up(db):
    make_user(db, "anna@example.org", "Anna")
    for typed, reason in [("ANNA", "The name ANNA is taken; choose another."),
                          (" anna ", "The name anna is taken; choose another."),
                          (CYRILLIC_A + "nna", f"The name {CYRILLIC_A}nna looks like Anna, the name of another "
                                               "player; choose one that cannot be taken for it.")]:
        with pytest.raises(names.DisplayNameError) as refused:
            sign_up(db, "other@example.org", typed)
        assert str(refused.value) == reason
    with db.sessions() as s:  # nothing was stored, no mail went out
        assert s.scalars(select(PendingSignup)).all() == []
        assert s.scalars(select(OutboundMail).where(OutboundMail.recipient == "other@example.org")).all() == []
    sign_up(db, "other@example.org", "Annabel")  # a name that only begins the same is another name


def test_35_1_a_name_taken_between_sign_up_and_its_link_gets_a_number(db):
    sign_up(db, "first@example.org", "Kim")
    sign_up(db, "second@example.org", "kim")  # free at sign-up: pending sign-ups hold no name
    accounts.complete_sign_up(db, signup_token(db, "second@example.org"), PASSWORD, SECRET)
    first = accounts.complete_sign_up(db, signup_token(db, "first@example.org"), PASSWORD, SECRET)
    assert accounts.get_user(db, first).display_name == "Kim 2"


def test_35_1_proposed_names_are_made_valid_and_numbered(db):
    with db.transaction() as s:
        # An address as the display name is no name; a one-letter local part is none either.
        assert accounts.get_or_create_user(s, "a@example.org", "Anna <anna@example.org>").display_name == "Player"
        assert accounts.get_or_create_user(s, "bo@example.org", "A").display_name == "bo"
        assert accounts.get_or_create_user(s, "ben@example.org", "B!e?n").display_name == "B e n"
        assert accounts.get_or_create_user(s, "x@example.org", "x" * 40).display_name == "x" * names.MAX_NAME
        assert accounts.get_or_create_user(s, "y@example.org", "x" * 40).display_name == (
            "x" * (names.MAX_NAME - 2) + " 2")
        assert accounts.get_or_create_user(s, "c@example.org", "").display_name == "Player 2"
        rows = s.execute(select(User.name_key, User.name_skeleton)).all()
    for keys in zip(*rows):
        assert len(keys) == len(set(keys)) == 6 and None not in keys
    with db.transaction() as s:
        accounts.get_or_create_user(s, "lo@example.org", "KIM lO")  # letters l and O: it looks like "Kim 10"
        kims = [accounts.get_or_create_user(s, f"kim{n}@example.org", "Kim").display_name for n in range(11)]
    assert kims == ["Kim"] + [f"Kim {n}" for n in range(2, 10)] + ["Kim 11", "Kim 12"]


def test_35_1_the_key_columns_are_unique(db):
    with db.transaction() as s:
        accounts.get_or_create_user(s, "anna@example.org", "Anna")
    for name in (CYRILLIC_A + "nna", "ANNA"):  # the one's skeleton, the other's key, is Anna's
        with pytest.raises(sa.exc.IntegrityError):
            with db.transaction() as s:  # two requests that raced past the check: an index refuses the second
                s.add(User(email="eve@example.org", **names.columns(name)))


# --------------------------------------------------------------------------------------
# The web pages


def test_35_1_web_sign_up_shows_the_refusal_beside_the_name_field(client, db):
    make_user(db, "anna@example.org", "Anna")
    page = html.unescape(client.get("/signup").get_data(as_text=True))
    assert "2 to 32 letters, digits, spaces and - _ . ' (not a name another player has" in page
    data = {"email": "eve@example.org", "display_name": CYRILLIC_A + "nna", "password": PASSWORD,
            "confirm": PASSWORD}
    response = post(client, "/signup", data, page="/signup")
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert field_errors(page, "display_name") == [
        f"The name {CYRILLIC_A}nna looks like Anna, the name of another player; choose one that cannot be taken "
        "for it."]
    assert field_errors(page, "email") == []
    response = post(client, "/signup", {**data, "display_name": "Anna\u200b"}, page="/signup")
    assert field_errors(response.get_data(as_text=True), "display_name") == [
        "U+200B ZERO WIDTH SPACE cannot be in a name; a name has letters, digits, spaces and - _ . '."]
    with db.sessions() as s:
        assert s.scalars(select(PendingSignup)).all() == []
    assert post(client, "/signup", {**data, "display_name": "Eve"}, page="/signup").status_code == 200


def test_35_1_settings_refuse_a_look_alike_beside_the_field_and_a_rename_follows_live_tables_only(client, db):
    ana = make_user(db, "ana@example.org", "Ana")
    ben = make_user(db, "ben@example.org", "Ben")
    make_user(db, "paul@example.org", "Paul")
    finished = games.create_game(db, "counters", ana, 2, {})
    games.join_game(db, finished, ben, seed=1)
    with db.transaction() as s:  # a game that ended before the rename
        s.get(Game, finished).status = GameStatus.FINISHED.value
    running = games.create_game(db, "counters", ana, 2, {})
    games.join_game(db, running, ben, seed=2)
    open_table = games.create_game(db, "counters", ana, 3, {})
    login(client, "ana@example.org")
    data = {"display_name": "PauI", "notify": "turn", "timezone": "UTC", "from_check": "y"}
    response = post(client, "/settings", data, page="/settings")
    assert response.status_code == 400
    assert field_errors(response.get_data(as_text=True), "display_name") == [
        "The name PauI looks like Paul, the name of another player; choose one that cannot be taken for it."]
    assert accounts.get_user(db, ana).display_name == "Ana"
    assert post(client, "/settings", {**data, "display_name": "ANA"}, page="/settings").status_code == 302  # her own
    assert post(client, "/settings", {**data, "display_name": "Ana Lima"}, page="/settings").status_code == 302
    with db.sessions() as s:
        seat_names = dict(s.execute(select(Seat.game_id, Seat.display_name).where(Seat.user_id == ana)).all())
    assert seat_names == {finished: "Ana", running: "Ana Lima", open_table: "Ana Lima"}
    assert accounts.get_user(db, ana).display_name == "Ana Lima"


# --------------------------------------------------------------------------------------
# The migration


def test_35_1_the_migration_fills_the_keys_and_numbers_the_names_that_collide(tmp_path):
    url = f"sqlite:///{tmp_path / 'before.sqlite3'}"
    migrate.upgrade(url, "0016")
    engine = sa.create_engine(url)
    tables = sa.MetaData()
    tables.reflect(engine, only=["users", "games", "seats"])
    users, game_rows, seats = tables.tables["users"], tables.tables["games"], tables.tables["seats"]
    now = sa.func.current_timestamp()
    legacy = "A name from before the rules, longer than thirty-two characters"
    before = ["Anna", "anna", CYRILLIC_A + "nna", "Ben", legacy, legacy, "Paul", "PauI", "Kim", "KIM 2"]
    with engine.begin() as c:
        for user_id, name in enumerate(before, start=1):
            c.execute(users.insert().values(id=user_id, email=f"u{user_id}@example.org", display_name=name,
                                            email_verified=True, notify="turn", from_check=True, timezone="UTC",
                                            vacation_days=0, created_at=now))
        for game_id, status in [(1, "running"), (2, "finished")]:
            c.execute(game_rows.insert().values(id=game_id, title="counters", engine_version="1", options={},
                                                players=2, status=status, version=0, timeout_policy="wait",
                                                created_at=now, imported=False))
            for number, user_id in enumerate([2, 4]):
                c.execute(seats.insert().values(game_id=game_id, number=number, user_id=user_id,
                                                display_name=["anna", "Ben"][number], token_nonce="n",
                                                resigned=False, joined_at=now))
    migrate.upgrade(url, "0017")
    with engine.connect() as c:
        rows = c.execute(sa.text("SELECT display_name, name_key, name_skeleton FROM users ORDER BY id")).all()
        seat_names = c.execute(sa.text("SELECT game_id, display_name FROM seats WHERE user_id = 2")).all()
        indexes = {i["name"]: i["unique"] for i in sa.inspect(c).get_indexes("users")}
    engine.dispose()
    assert [name for name, _key, _skeleton in rows] == [
        "Anna", "anna 2", CYRILLIC_A + "nna 3", "Ben", legacy, legacy + " 2", "Paul", "PauI 2", "Kim", "KIM 2"]
    assert [(key, skeleton) for _name, key, skeleton in rows] == [
        (names.key(name), names.skeleton(name)) for name, _key, _skeleton in rows]
    assert len({key for _name, key, _skeleton in rows}) == len({skeleton for *_, skeleton in rows}) == len(before)
    assert sorted(seat_names) == [(1, "anna 2"), (2, "anna")]  # the finished game keeps the name it was played under
    assert indexes["ix_users_name_key"] and indexes["ix_users_name_skeleton"]
