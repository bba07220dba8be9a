"""Issue 33 item 9: names and language at first contact, through `pbem mail ingest`, the SMTP listener
and `pbem.mail.inbound.receive`.

The From display name of a first mail is proposed as the player's name (made valid and unique,
with a number when another player has it or one like it), and the welcome says which name the
player got and how `/name` changes it. The first answer (the confirmation code) and the welcome
say in each of the four languages how to choose one; a mail without a Content-Language header is
answered in the language of its words.
"""

from __future__ import annotations

from email.utils import make_msgid

from sqlalchemy import select

from pbem import games, i18n
from pbem.mail import account, stopwords
from pbem.models import Seat, User
from tests.mail.conftest import command_address, compose, deliver_all, mail_text, receive, verified_user
from tests.mail.smtp_world import text_of
from tests.mail.test_answers import Ingest, door, world  # noqa: F401  (fixtures)

PLAIN = "pbem@pbem.test"
GERMAN = ("Hallo zusammen,\n\nich möchte gerne bei euch Tongiaki mitspielen. Wie geht das, und "
          "kann ich auch ein neues Spiel anfangen?\n\nViele Grüße\nAnna")
ENGLISH = "Hello, I would like to play a game of Tongiaki with you. How do I join?"


def answers_to_address(mails: list, address: str) -> list:
    return [m for m in mails if address.lower() in str(m["To"]).lower()]


def flat(text: str) -> str:
    """The text with its line breaks and runs of spaces as single spaces (answers may wrap)."""
    return " ".join(text.split())


def code_in(text: str) -> str:
    return next(line.split()[1] for line in text.splitlines() if line.strip().startswith("/confirm"))


def user_of(db, email: str) -> User | None:
    with db.sessions() as s:
        return s.scalars(select(User).where(User.email == email)).first()


def first_contact(db, settings, sender: str, body: str = ENGLISH, content_language: str | None = None,
                  confirm_from: str | None = None, confirm_extra: str = "") -> tuple[str, str]:
    """A first mail from `sender` (a From header), then the reply that confirms it; the texts of the
    code's mail and of the welcome."""
    address = sender.rsplit("<", 1)[-1].rstrip(">")
    raw = compose(sender, PLAIN, body, subject="Tongiaki?")
    if content_language:  # as mail clients write it (compose's body would drop the header)
        raw = f"Content-Language: {content_language}\r\n".encode() + raw
    assert receive(db, settings, raw).outcome == "unverified"
    code_mail = mail_text(answers_to_address(deliver_all(db, settings), address)[-1])
    reply = f"/confirm {code_in(code_mail)}\n{confirm_extra}".strip()
    assert receive(db, settings, compose(confirm_from or sender, PLAIN, reply, subject="Re: [pbem] code")
                   ).outcome == "confirmed"
    welcome = mail_text(answers_to_address(deliver_all(db, settings), address)[-1])
    return code_mail, welcome


# --------------------------------------------------------------------------------------
# The name


def test_33_9_the_from_display_name_of_the_first_mail_is_the_name_through_each_door(world, door, db):  # noqa: F811
    sender = '"Anna Schmidt" <anna@example.org>'
    door.send("anna@example.org", PLAIN, compose(sender, PLAIN, ENGLISH, subject="Tongiaki?",
                                                 message_id=make_msgid(domain="example.org")))
    code_mail = text_of(world.flush()["anna@example.org"][-1])
    assert user_of(db, "anna@example.org") is None  # no account before the address is confirmed
    assert ('Once you have confirmed it, the other players see you as "Anna Schmidt" (the name your mail came with, '
            "or your address's); /name NEW NAME changes it.") in flat(code_mail)
    door.send("anna@example.org", PLAIN, compose(sender, PLAIN, f"/confirm {code_in(code_mail)}",
                                                 subject="Re: code", message_id=make_msgid(domain="example.org")))
    welcome = flat(text_of(world.flush()["anna@example.org"][-1]))
    assert user_of(db, "anna@example.org").display_name == "Anna Schmidt"
    assert 'The other players see you as "Anna Schmidt", the name your mail came with.' in welcome
    assert "To change it, send /name NEW NAME to your command address (2 to 32 letters" in welcome


def test_33_9_a_name_in_encoded_words_and_with_a_comma_is_read_and_made_valid(db, settings):
    first_contact(db, settings, "=?utf-8?q?J=C3=BCrgen_M=C3=BCller?= <jm@example.org>")
    assert user_of(db, "jm@example.org").display_name == "Jürgen Müller"
    first_contact(db, settings, '"Schmidt, Anna (Work)" <as@example.org>')
    assert user_of(db, "as@example.org").display_name == "Schmidt Anna Work"


def test_33_9_a_second_first_mail_with_the_same_name_gets_a_numbered_one_and_is_told(db, settings):
    first_contact(db, settings, '"Anna Schmidt" <anna@example.org>')
    code, welcome = first_contact(db, settings, '"Anna Schmidt" <anna.s@example.net>')
    assert user_of(db, "anna.s@example.net").display_name == "Anna Schmidt 2"
    assert 'Once you have confirmed it, the other players see you as "Anna Schmidt 2"' in flat(code)
    assert ('The name your mail came with, "Anna Schmidt", is another player\'s or looks like one, so the other '
            'players see you as "Anna Schmidt 2".') in flat(welcome)
    assert "/name NEW NAME" in welcome
    first_contact(db, settings, '"anna  schmidt" <schmidt@example.com>')  # the same name in other letters
    assert user_of(db, "schmidt@example.com").display_name == "anna schmidt 3"


def test_33_9_without_a_display_name_the_local_part_is_the_name_and_a_look_alike_gets_a_number(db, settings):
    verified_user(db, "paul@example.org", "Paul")
    _code, welcome = first_contact(db, settings, "pauI@example.com")  # the address is lower-cased: "paui"
    assert user_of(db, "paui@example.com").display_name == "paui"
    first_contact(db, settings, '"PauI" <p@example.net>')  # a capital i: it looks like Paul
    assert user_of(db, "p@example.net").display_name == "PauI 2"
    first_contact(db, settings, '"x" <x.y+tag@example.org>')  # too short: the local part, made valid
    assert user_of(db, "x.y+tag@example.org").display_name == "x.y tag"
    assert 'The other players see you as "paui".' in flat(welcome)


def test_33_9_name_changes_the_name_and_refuses_a_look_alike_with_the_reason(db, settings):
    verified_user(db, "paul@example.org", "Paul")
    anna = verified_user(db, "anna@example.org", "Anna")
    ben = verified_user(db, "ben@example.org", "Ben")
    game_id = games.create_game(db, "counters", anna, 2, {})
    games.join_game(db, game_id, ben, seed=3)
    key = command_address(db, settings, "anna@example.org")
    deliver_all(db, settings)
    done = receive(db, settings, compose("anna@example.org", key, "/name  Anna   Maria "))
    assert done.outcome == "done"
    answer = flat(mail_text(answers_to_address(deliver_all(db, settings), "anna@example.org")[-1]))
    assert 'The other players see you as "Anna Maria" now.' in answer
    assert user_of(db, "anna@example.org").display_name == "Anna Maria"
    with db.sessions() as s:  # her running game shows it too
        assert s.scalars(select(Seat.display_name).where(Seat.user_id == anna)).one() == "Anna Maria"

    refused = receive(db, settings, compose("anna@example.org", key, "/name P\u0430ul"))  # a Cyrillic a
    assert refused.outcome == "failed"
    answer = flat(mail_text(answers_to_address(deliver_all(db, settings), "anna@example.org")[-1]))
    assert ("Your name was not changed: The name P\u0430ul looks like Paul, the name of another player; choose one "
            "that cannot be taken for it.") in answer
    assert user_of(db, "anna@example.org").display_name == "Anna Maria"

    receive(db, settings, compose("anna@example.org", key, "/name a"))
    answer = flat(mail_text(answers_to_address(deliver_all(db, settings), "anna@example.org")[-1]))
    assert "A name has 2 to 32 characters; this one has 1." in answer
    assert receive(db, settings, compose("anna@example.org", key, "/name")).outcome == "failed"
    assert "Write /name and the name after it" in mail_text(
        answers_to_address(deliver_all(db, settings), "anna@example.org")[-1])


def test_33_9_name_without_a_key_only_asks_to_confirm(db, settings):
    verified_user(db, "anna@example.org", "Anna")
    result = receive(db, settings, compose("anna@example.org", PLAIN, "/name Eve"))
    assert result.outcome == "to_confirm"
    assert user_of(db, "anna@example.org").display_name == "Anna"


# --------------------------------------------------------------------------------------
# The language


def test_33_9_the_first_answer_and_the_welcome_say_how_to_choose_a_language_in_each_language(db, settings):
    code_mail, welcome = first_contact(db, settings, '"Anna" <anna@example.org>')
    for text in (code_mail, welcome):
        lines = [line.strip() for line in text.splitlines()]
        for code in i18n.LANGUAGES:
            assert account.LANGUAGE_LINES[code] in lines
            assert f"/language {code}" in account.LANGUAGE_LINES[code]
    assert "Deutsch: schreib /language de in eine Zeile deiner Antwort" in code_mail


def test_33_9_a_german_first_mail_without_content_language_gets_a_german_answer(db, settings):
    german = i18n.texts("de").gettext
    code_mail, welcome = first_contact(db, settings, '"Anna Schmidt" <anna@example.org>', body=GERMAN)
    opening = german("To play by mail from %(address)s, confirm this address first: reply with the line",
                     address="anna@example.org")
    assert opening != "To play by mail from anna@example.org, confirm this address first: reply with the line"
    assert flat(opening) in flat(code_mail)
    # The reply that confirms has no words of its own: the account gets the language of the first mail.
    assert user_of(db, "anna@example.org").language == "de"
    assert german("Your address %(address)s is confirmed.", address="anna@example.org") in welcome


def test_33_9_the_header_wins_over_the_words_and_a_language_line_beside_confirm_wins_over_both(db, settings):
    first_contact(db, settings, "fr@example.org", body=GERMAN, content_language="fr-CH")
    assert user_of(db, "fr@example.org").language == "fr"
    first_contact(db, settings, "nl@example.org", body=GERMAN, confirm_extra="/language nl")
    assert user_of(db, "nl@example.org").language == "nl"
    _code, welcome = first_contact(db, settings, "xx@example.org", confirm_extra="/language xx")
    assert user_of(db, "xx@example.org").language == "en"
    assert "'xx' is not a language of pbem" in welcome


def test_33_9_a_confirmed_user_keeps_their_language_whatever_their_mail_is_written_in(db, settings):
    verified_user(db, "anna@example.org", "Anna", language="nl")
    receive(db, settings, compose("anna@example.org", PLAIN, "/games\n" + GERMAN))
    with db.sessions() as s:
        assert s.scalars(select(User.language).where(User.email == "anna@example.org")).one() == "nl"


def test_33_9_the_guess_counts_stopwords_and_says_nothing_when_the_words_do_not_say():
    assert stopwords.guess(GERMAN.splitlines()) == "de"
    assert stopwords.guess([ENGLISH]) == "en"
    assert stopwords.guess(["Bonjour, je voudrais jouer une partie avec vous. Merci !"]) == "fr"
    assert stopwords.guess(["Hoi, ik wil graag een spel met jullie spelen. Hoe werkt dat?"]) == "nl"
    assert stopwords.guess(["/new tongiaki players=3"]) is None  # commands are not words of a language
    assert stopwords.guess(["Tongiaki"]) is None
    assert stopwords.guess(["the and to", "der und ich"]) is None  # no clear winner
    # Bounded: only the first MAX_WORDS words are read.
    assert stopwords.guess(["Tongiaki " * stopwords.MAX_WORDS + "der und ich nicht bitte"]) is None


def test_33_9_a_forged_first_mail_cannot_put_a_link_in_the_name_the_code_mail_quotes(db, settings):
    receive(db, settings, compose('"URGENT log in at evil.example" <victim@example.org>', PLAIN, ENGLISH))
    code_mail = mail_text(answers_to_address(deliver_all(db, settings), "victim@example.org")[-1])
    assert "evil.example" not in code_mail and '"URGENT log in at evil. example"' in flat(code_mail)
    # The mail that confirms (from the owner, who got the code) names the account.
    receive(db, settings, compose('"Vic Tim" <victim@example.org>', PLAIN, f"/confirm {code_in(code_mail)}"))
    assert user_of(db, "victim@example.org").display_name == "Vic Tim"
