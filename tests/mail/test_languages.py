"""Mails in their reader's language (issue 24, the mail step).

Every mail is written in its recipient's language (`User.language`): the turn, move and result
mails and their subjects, the board in words and the picture they carry, the answers to mailed
commands, the help, the sign-up and reset mails, invitations and the browser pushes; a mail to
the whole table in each player's own. Commands and moves stay English notation whatever the
language (a German player writes /help and take 1).

A mail in Dutch, German or French must hold no English sentence of the mails' catalogue: every
msgid marked in the mail side's code is cut at its placeholders, line breaks and sentence
punctuation, and no piece of three words or more may appear in the mail (a piece the translation
keeps as it is, such as the languages' names, does not count). What is English on purpose (the
engines' reasons, the notation, names and addresses) is no msgid, so it does not count either;
the English mails show that the check sees the msgids. The board in words is checked the same
way against the msgids of `renderers`.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from argon2 import PasswordHasher, profiles
from babel.messages.pofile import read_po
from sqlalchemy import select

from pbem import accounts, boards, games, i18n, notify
from pbem.mail import commands
from pbem.models import Game, OutboundMail, PendingSignup, User
from pbem.notify import push, wording
from pbem.schedule import deadlines
from pbem.web.lobby import invite_by_email
from tests.mail.conftest import (command_address, compose, counters_game, deliver_all, mail_text, receive,
                                 reply_to, verified_user)

TEMPLATE = Path(__file__).resolve().parents[2] / "pbem" / "translations" / "messages.pot"
# The code that writes mails, and the service whose refusals the answers give: the msgids marked
# there are the mails' catalogue.
MAIL_SOURCES = ("pbem/notify/", "pbem/mail/", "pbem/accounts", "pbem/web/lobby.py", "pbem/games/")
# The code that writes the board in words (and the pictures' words).
BOARD_SOURCES = ("renderers/",)
ANN, BEA = "ann@example.org", "bea@example.org"
LANGUAGES = ["nl", "de", "fr"]


@pytest.fixture(autouse=True)
def cheap_argon2():
    previous = accounts.use_hasher(PasswordHasher.from_parameters(profiles.CHEAPEST))
    yield
    accounts.use_hasher(previous)


def mail_pieces(sources: tuple[str, ...] = MAIL_SOURCES) -> dict[str, set[str]]:
    """The English of the msgids marked in `sources`, per language: each msgid cut at placeholders, line
    breaks and sentence punctuation, the pieces of three words or more that its translation does not
    keep as they are (language names, commands)."""
    with TEMPLATE.open("rb") as f:
        template = read_po(f)
    translated = {language: i18n.translator(language) for language in i18n.LANGUAGES}
    pieces: dict[str, set[str]] = {language: set() for language in i18n.LANGUAGES}
    for message in template:
        if not message.id or not any(path.startswith(sources) for path, _ in message.locations):
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        for msgid in ids:
            for piece in re.split(r"%\(\w+\)[sd]|[\n.;:()\"]", msgid):
                piece = " ".join(piece.split()).strip(" ,")
                if len(re.findall(r"[A-Za-z]+", piece)) < 3:
                    continue
                for language, catalogue in translated.items():
                    translation = (catalogue.gettext(ids[0]) if len(ids) == 1
                                   else " ".join(catalogue.ngettext(ids[0], ids[1], n) for n in (1, 2)))
                    if language == i18n.DEFAULT or piece not in " ".join(translation.split()):
                        pieces[language].add(piece)
    return pieces


ENGLISH = mail_pieces()
BOARD_ENGLISH = mail_pieces(BOARD_SOURCES)


def english_in(text: str, language: str = i18n.DEFAULT, pieces: dict[str, set[str]] = ENGLISH) -> list[str]:
    """The pieces of the mails' English msgids (or other `pieces`) in a text written in `language`."""
    flat = " ".join(text.split())
    return sorted(piece for piece in pieces[language] if piece in flat)


def mails_to(mails: list, address: str) -> list:
    return [m for m in mails if str(m["To"]) == address]


def whole(message) -> str:
    """What a reader reads of a mail: its subject and its text."""
    return f"{message['Subject']}\n{mail_text(message)}"


def game_for(db, language: str, options: dict | None = None):
    """A counters game of Ann (English) and Bea (`language`); returns (game id, {seat: email}, {email: seat})."""
    verified_user(db, ANN)
    verified_user(db, BEA, language=language)
    game_id, by_seat = counters_game(db, (ANN, BEA), options=options)
    return game_id, by_seat, {email: seat for seat, email in by_seat.items()}


def bea_to_move(db, settings, game_id: int, seat_of: dict, opening: str):
    """Bea's turn mail of her first turn: Ann's `opening` move is made first when Ann sits first."""
    mails = deliver_all(db, settings)
    if seat_of[BEA] != 0:
        games.submit(db, game_id, opening, seat=0)
        mails = deliver_all(db, settings)
    return mails_to(mails, BEA)[-1]


def test_the_mails_catalogue_has_the_mail_texts():
    for language in i18n.LANGUAGES:
        assert "It is your turn in game" in ENGLISH[language] and "The results of your mail" in ENGLISH[language]
        assert "Your command address, for /games, /new, /join, /notify and /help" in ENGLISH[language]
    assert "Deutsch, Français" in ENGLISH["en"] and "Deutsch, Français" not in ENGLISH["de"]


# --- game mails ------------------------------------------------------------------------------


TURN = {
    "en": ("game {game}", "It is your turn in game {game} (Counters), move 1.", "Your command address"),
    "nl": ("partij {game}", "Je bent aan de beurt in partij {game} (Counters), zet 1.", "Je commando-adres"),
    "de": ("Partie {game}", "Du bist am Zug in Partie {game} (Counters), Zug 1.", "Deine Befehlsadresse"),
    "fr": ("partie {game}", "C'est votre tour dans la partie {game} (Counters), coup 1.",
           "Votre adresse de commande"),
}


@pytest.mark.parametrize("language", ["en"] + LANGUAGES)
def test_a_turn_mail_and_its_subject_are_in_the_players_language(db, settings, language):
    verified_user(db, ANN, language=language)
    verified_user(db, BEA, language=language)
    game_id, by_seat = counters_game(db, (ANN, BEA))
    turn = mails_to(deliver_all(db, settings), by_seat[0])[-1]
    subject, first_line, footer = TURN[language]
    assert str(turn["Subject"]) == f"[pbem #{game_id} Counters] {subject.format(game=game_id)}"  # issue 33, item 10
    text = mail_text(turn)
    assert text.startswith(first_line.format(game=game_id) + "\n")
    assert "\n  take 1\n  take 2\n  take 3\n  draw\n" in text  # the moves stay notation
    assert f"\n-- \n{footer}" in text  # the footer is added when the mail is sent, in the text's language
    if language == "en":
        assert len(english_in(whole(turn))) > 5  # the check sees the English mails
    else:
        assert english_in(whole(turn), language) == []


def test_a_turn_mail_with_standing_orders_and_a_board_in_words_in_german(db, settings):
    verified_user(db, ANN, language="de")
    verified_user(db, BEA, language="de")
    ids = [verified_user(db, e) for e in (ANN, BEA)]
    game_id = games.create_game(db, "tapaono", ids[0], 2, {})
    games.join_game(db, game_id, ids[1])  # the table is full: the game starts
    to_move = games.view(db, game_id)["to_move"]
    first = [ANN, BEA][[games.view(db, game_id, uid)["my_seat"] for uid in ids].index(to_move)]
    text = mail_text(mails_to(deliver_all(db, settings), first)[-1])
    assert "Du musst nicht abwarten, was der Zufall bringt" in text  # the standing orders, in German
    assert "Zum Beispiel dieser ganze Zug in einer Mail:" in text
    assert "Letzte Züge:" in text and "Seite der Partie: https://pbem.example/games/" in text
    assert english_in(text, "de") == []


def picture_of(message) -> bytes:
    """The board picture a mail carries inline."""
    return next(part.get_content() for part in message.walk() if part.get_content_type() == "image/png")


def play_to_a_turn_of(db, game_id: int, seat_user: dict[int, int], user_id: int, moves: int = 10) -> None:
    """Play the first legal move of whoever is to move, at least `moves` of them, until a turn of `user_id`
    begins (a board with things on it, and a turn mail to that player)."""
    played, last = 0, None
    for _ in range(400):
        to_move = games.view(db, game_id)["to_move"]
        mover = seat_user[to_move]
        if played >= moves and mover == user_id and last not in (None, user_id):
            return
        games.submit(db, game_id, games.view(db, game_id, mover)["legal_moves"][0], seat=to_move)
        played, last = played + 1, mover
    raise AssertionError("no turn of that player began")


@pytest.mark.parametrize("title", ["tongiaki", "discovery", "tapaono"])
def test_a_german_turn_mail_tells_the_board_in_german_and_carries_a_german_picture(db, settings, title):
    ann, bea = verified_user(db, ANN), verified_user(db, BEA, language="de")
    game_id = games.create_game(db, title, ann, 2, {})
    games.join_game(db, game_id, bea)  # the table is full: the game starts
    seat_user = {games.view(db, game_id, uid)["my_seat"]: uid for uid in (ann, bea)}
    play_to_a_turn_of(db, game_id, seat_user, bea)
    turn = [m for m in mails_to(deliver_all(db, settings), BEA) if str(m["X-Pbem-Kind"]) == "turn"][-1]
    text = mail_text(turn)
    assert "Das ganze Spielbrett ist im Bild und auf der Partieseite." in text  # the board in words, in German
    assert english_in(text, "de", BOARD_ENGLISH) == [], text
    assert english_in(text, "de") == []
    # The picture's words are German too: another picture than the English one, drawn once and kept.
    seq = games.view(db, game_id)["version"]
    seat = games.view(db, game_id, bea)["my_seat"]
    german = boards.png_for(db, game_id, seq, seat, "de")
    assert picture_of(turn) == german
    assert german != boards.png_for(db, game_id, seq, seat, "en")
    assert boards.png_for(db, game_id, seq, seat, "de") == german


def test_the_english_board_in_words_is_checked_too(db, settings):
    """The check sees the renderers' msgids: an English turn mail of a real title is full of them."""
    ids = [verified_user(db, ANN), verified_user(db, BEA)]
    game_id = games.create_game(db, "tongiaki", ids[0], 2, {})
    games.join_game(db, game_id, ids[1])
    text = mail_text(deliver_all(db, settings)[-1])
    assert "The whole board is in the picture and on the game page" in english_in(text, "en", BOARD_ENGLISH)
    assert len(english_in(text, "en", BOARD_ENGLISH)) > 3


def test_a_result_mail_reaches_each_player_in_their_own_language(db, settings):
    game_id, by_seat, seat_of = game_for(db, "de", {"pile": 5})
    deliver_all(db, settings)
    games.submit(db, game_id, "take 3", seat=0)
    games.submit(db, game_id, "take 2", seat=1)
    with db.sessions() as s:
        results = {row.recipient: row for row in s.scalars(select(OutboundMail).where(OutboundMail.kind == "result"))}
        texts = {recipient: notify.view_text(s, row) for recipient, row in results.items()}
    assert set(results) == {ANN, BEA}
    assert results[ANN].subject == f"[pbem #{game_id} Counters] game {game_id}"
    assert results[BEA].subject == f"[pbem #{game_id} Counters] Partie {game_id}"
    assert f"Game {game_id} (Counters) is over after move 2." in texts[ANN] and "Final scores:" in texts[ANN]
    german = texts[BEA]
    assert german.startswith(f"Partie {game_id} (Counters) ist nach Zug 2 zu Ende.") and "Endstand:" in german
    assert "Der Seed war" in german and "Punkte" in german
    assert english_in(results[BEA].subject + "\n" + german, "de") == []
    assert "The seed was" in english_in(texts[ANN])


def test_the_reminder_and_the_lateness_mails_speak_each_players_language(db, settings):
    monday = datetime(2026, 11, 16, 9, 0)
    ids = [verified_user(db, ANN), verified_user(db, BEA)]
    game_id = games.create_game(db, "counters", ids[0], 2, {}, turn_hours=24, timeout_policy="wait")
    with deadlines.frozen(monday):
        games.join_game(db, game_id, ids[1])  # full: it starts, with a deadline 24 hours on
    late_one, other = sorted(ids, key=lambda uid: not games.view(db, game_id, uid)["legal_moves"])
    accounts.update_language(db, late_one, "de")  # read when the mails are written
    assert deadlines.process(db, game_id, monday + timedelta(hours=19)) == "reminded"
    assert deadlines.process(db, game_id, monday + timedelta(hours=25)) == "late"
    with db.sessions() as s:
        rows = list(s.scalars(select(OutboundMail).where(OutboundMail.kind.in_(("reminder", "late")))
                              .order_by(OutboundMail.id)))
        name = s.get(User, late_one).display_name
    (reminder,) = [row for row in rows if row.kind == "reminder"]
    late = {row.user_id: row for row in rows if row.kind == "late"}
    assert reminder.subject == f"[pbem #{game_id} Counters] Partie {game_id}"
    assert reminder.body_text.startswith(f"Du bist in Partie {game_id} noch am Zug (Zug 1). Die Frist endet am "
                                         "Di., 17. Nov. 2026, 09:00 UTC;")
    assert english_in(reminder.subject + "\n" + reminder.body_text, "de") == []
    # The table is told, each player in their own language.
    assert late[other].subject == f"[pbem #{game_id} Counters] game {game_id}"
    assert late[other].body_text == (f"{name} missed the deadline in game {game_id} (move 1). The game waits for "
                                     "them (policy: wait). The new deadline is 2026-11-18T10:00:00Z.")
    assert late[late_one].subject == f"[pbem #{game_id} Counters] Partie {game_id}"
    assert late[late_one].body_text == (f"{name} hat die Frist in Partie {game_id} verpasst (Zug 1). Die Partie "
                                        "wartet auf diesen Spieler (Regel: wait). Die neue Frist endet am Mi., "
                                        "18. Nov. 2026, 10:00 UTC.")


def test_times_in_mails_are_written_in_the_readers_locale_in_utc():
    at = datetime(2026, 11, 17, 9, 0)
    assert wording.when(at, "en") == "2026-11-17T09:00:00Z"  # the English mails' form, as before
    assert wording.when(at, "de") == "Di., 17. Nov. 2026, 09:00 UTC"
    assert wording.when(at, "nl") == "di 17 nov 2026, 09:00 UTC"
    assert wording.when(at, "fr") == "mar. 17 nov. 2026, 09:00 UTC"
    assert wording.when("2026-11-17T09:00:00.000000Z", "fr") == "mar. 17 nov. 2026, 09:00 UTC"


def test_a_reply_to_a_translated_subject_still_finds_the_move_after_it(db, settings):
    game_id, by_seat, seat_of = game_for(db, "de")
    turn = bea_to_move(db, settings, game_id, seat_of, "take 1")
    subject = f"AW: {turn['Subject']} take 2"
    assert commands.subject_move(subject) == "take 2"
    assert commands.subject_move(f"Re: [pbem #{game_id} Counters] herinnering: je zet vóór "
                                 "di 17 nov 2026, 09:00 UTC draw") == "draw"
    assert receive(db, settings, compose(BEA, reply_to(turn), "", subject=subject)).outcome == "done"
    assert games.history(db, game_id)[-1]["notation"] == "take 2"


# --- answers to mailed moves and commands ----------------------------------------------------------


ANSWERS = {
    "en": ("The results of your mail:\n\nDone:\n  take 1  -> move {seq}: take 1",
           "Failed (reading stopped here):\n  take 9\n    ", "Re: [pbem #{game} Counters] game {game}"),
    "nl": ("De resultaten van je mail:\n\nGedaan:\n  take 1  -> zet {seq}: take 1",
           "Mislukt (hier stopte het lezen):\n  take 9\n    ", "Re: [pbem #{game} Counters] partij {game}"),
    "de": ("Die Ergebnisse deiner Mail:\n\nErledigt:\n  take 1  -> Zug {seq}: take 1",
           "Fehlgeschlagen (hier endete das Lesen):\n  take 9\n    ", "Re: [pbem #{game} Counters] Partie {game}"),
    "fr": ("Les résultats de votre e-mail :\n\nFait :\n  take 1  -> coup {seq} : take 1",
           "Échec (la lecture s'est arrêtée ici) :\n  take 9\n    ", "Re: [pbem #{game} Counters] partie {game}"),
}


def answer_of(db, settings, address: str):
    answers_ = [m for m in mails_to(deliver_all(db, settings), address) if str(m["Subject"]).startswith("Re:")]
    assert len(answers_) == 1, [str(m["Subject"]) for m in answers_]
    return answers_[0]


@pytest.mark.parametrize("language", ["en"] + LANGUAGES)
def test_the_answer_to_a_mailed_move_and_to_an_illegal_one_is_in_the_players_language(db, settings, language):
    game_id, by_seat, seat_of = game_for(db, language)
    key = reply_to(bea_to_move(db, settings, game_id, seat_of, "take 2"))
    done, failed, subject = ANSWERS[language]
    seq = games.view(db, game_id)["version"] + 1

    assert receive(db, settings, compose(BEA, key, "take 1\nDanke!")).outcome == "done"
    answer = answer_of(db, settings, BEA)
    assert done.format(seq=seq) in mail_text(answer)
    assert str(answer["Subject"]) == subject.format(game=game_id)
    if language != "en":
        assert english_in(whole(answer), language) == []

    games.submit(db, game_id, "take 1", seat=seat_of[ANN])
    key = reply_to(mails_to(deliver_all(db, settings), BEA)[-1])
    assert receive(db, settings, compose(BEA, key, "take 9")).outcome == "failed"
    text = mail_text(answer_of(db, settings, BEA))
    # The frame is the player's; the test game Counters has no catalogue, so its engine's reason stays English
    # (a real game's reason is translated: the test after the next).
    assert failed + "You can take 1 to 3 counters" in text
    if language != "en":
        assert english_in(text, language) == []


def test_english_commands_from_a_german_player_are_read_and_answered_in_german(db, settings):
    game_id, by_seat, seat_of = game_for(db, "de")
    first_mails = deliver_all(db, settings)
    assert receive(db, settings, compose(BEA, command_address(db, settings, BEA), "/help\n/games")).outcome == "done"
    text = mail_text(answer_of(db, settings, BEA))
    assert text.startswith("Die Ergebnisse deiner Mail:\n\nErledigt:\n  /help\n  /games\n")
    assert "Befehle (einer pro Zeile, im Text oder im Betreff, jeder mit seinem „/“):" in text
    assert "  /join PARTIE-NR [FARBE]                  einen Platz nehmen" in text  # the columns kept
    assert f"Deine Partien:\n  #{game_id} counters: läuft, 0 Züge" in text
    assert english_in(text, "de") == []

    if seat_of[BEA] == 0:
        turn = mails_to(first_mails, BEA)[-1]
    else:
        games.submit(db, game_id, "take 2", seat=0)
        turn = mails_to(deliver_all(db, settings), BEA)[-1]
    assert receive(db, settings, compose(BEA, reply_to(turn), "/board\ntake 3")).outcome == "done"  # English notation
    text = mail_text(answer_of(db, settings, BEA))
    assert "Erledigt:\n  /board\n  take 3  -> Zug" in text
    assert english_in(text, "de") == []

    # An English command the service refuses: the reason in German.
    assert receive(db, settings, compose(BEA, command_address(db, settings, BEA), "/join 424242")).outcome == "failed"
    text = mail_text(answer_of(db, settings, BEA))
    assert "Fehlgeschlagen (hier endete das Lesen):\n  /join 424242\n    Es gibt keine Partie 424242.\n" in text
    assert english_in(text, "de") == []


ILLEGAL_REASONS = {  # "place Tonga 9" at the setup of a Tongiaki game: the engine's reason, translated
    "en": "Tonga has beaches 1 to 6; '9' is not one of them.",
    "nl": "Tonga heeft de stranden 1 tot en met 6; '9' is er geen van.",
    "de": "Tonga hat die Strände 1 bis 6; '9' ist keiner davon.",
    "fr": "Tonga a les plages 1 à 6 ; '9' n'en fait pas partie.",
}


@pytest.mark.parametrize("language", ["en"] + LANGUAGES)
def test_an_illegal_move_by_mail_is_answered_with_the_engines_reason_in_the_players_language(db, settings, language):
    ids = [verified_user(db, ANN, language=language), verified_user(db, BEA, language=language)]
    game_id = games.create_game(db, "tongiaki", ids[0], 2, {})
    games.join_game(db, game_id, ids[1])  # the table is full: the game starts
    mover = ANN if games.view(db, game_id, ids[0])["legal_moves"] else BEA
    turn = mails_to(deliver_all(db, settings), mover)[-1]
    assert receive(db, settings, compose(mover, reply_to(turn), "place Tonga 9")).outcome == "failed"
    text = mail_text(answer_of(db, settings, mover))
    failed = ANSWERS[language][1].split("\n")[0]  # "Failed (reading stopped here):" in the language
    assert f"{failed}\n  place Tonga 9\n    {ILLEGAL_REASONS[language]}\n" in text
    if language != "en":
        assert english_in(text, language) == []
    assert games.view(db, game_id)["version"] == 0


def test_a_move_out_of_turn_and_a_stale_reply_are_answered_in_german(db, settings):
    game_id, by_seat, seat_of = game_for(db, "de")
    turn = bea_to_move(db, settings, game_id, seat_of, "take 2")
    move = games.view(db, game_id)["version"] + 1
    # The second line comes when it is Ann's turn: not needed (issue 33), said in German.
    assert receive(db, settings, compose(BEA, reply_to(turn), "take 1\ntake 2")).outcome == "done"
    text = mail_text(answer_of(db, settings, BEA))
    assert (f"Erledigt:\n  take 1  -> Zug {move}: take 1\n\nNicht nötig (das Lesen ging weiter):\n"
            f"  take 2  - nicht nötig: dein Zug war vor dieser Zeile zu Ende (die Partie steht bei Zug "
            f"{move + 1}).\n") in text
    assert english_in(text, "de") == []
    # The same turn mail answered again, after the game moved on: stale, nothing read.
    assert receive(db, settings, compose(BEA, reply_to(turn), "take 3")).outcome == "stale"
    text = mail_text(answer_of(db, settings, BEA))
    assert text.startswith(f"Dieser Zug wurde schon gespielt: Die Antwortadresse galt für Zug {move}, und Partie "
                           f"{game_id} steht jetzt bei Zug {move + 1}. Nichts in deiner Mail wurde gelesen")
    assert english_in(text, "de") == []
    assert games.view(db, game_id)["version"] == move


def test_a_command_written_wrongly_is_explained_in_the_players_language(db, settings):
    verified_user(db, BEA, language="fr")
    address = command_address(db, settings, BEA)
    assert receive(db, settings, compose(BEA, address, "/notify sometimes")).outcome == "failed"
    text = mail_text(answer_of(db, settings, BEA))
    assert ("Échec (la lecture s'est arrêtée ici) :\n  /notify sometimes\n    Écrivez /notify every, /notify turn, "
            "/notify digest, /notify none ou /notify resume.") in text
    assert english_in(text, "fr") == []
    assert commands.CommandError(i18n.N_("Write /%(name)s GAME-ID."), name="board").text("de") == \
        "Schreib /board PARTIE-NR."


def test_language_by_mail_is_answered_in_the_new_language_and_the_next_mails_follow(db, settings):
    game_id, by_seat, seat_of = game_for(db, "en")
    deliver_all(db, settings)
    assert receive(db, settings, compose(BEA, command_address(db, settings, BEA), "/language nl")).outcome == "done"
    answer = answer_of(db, settings, BEA)
    assert "Je taal is nu Nederlands (nl): de webpagina's en de mails zijn in die taal." in mail_text(answer)
    assert str(answer["Subject"]) == "Re: [pbem] je mail"
    games.submit(db, game_id, "take 1", seat=games.view(db, game_id)["to_move"])
    if games.view(db, game_id)["to_move"] != seat_of[BEA]:
        games.submit(db, game_id, "take 1", seat=seat_of[ANN])
    turn = mails_to(deliver_all(db, settings), BEA)[-1]
    assert str(turn["Subject"]) == f"[pbem #{game_id} Counters] partij {game_id}" and english_in(whole(turn), "nl") == []
    assert receive(db, settings, compose(BEA, command_address(db, settings, BEA), "/language xx")).outcome == "failed"
    refusal = mail_text(answer_of(db, settings, BEA))
    assert "'xx' is geen taal van pbem; er zijn en (English), nl (Nederlands)" in refusal


# --- account mails -------------------------------------------------------------------------------------


def declaring(language: str, raw: bytes) -> bytes:
    """A mail with a Content-Language header (as mail clients write it; compose's body would drop it)."""
    return f"Content-Language: {language}\r\n".encode() + raw


def test_a_sender_without_an_account_gets_the_code_in_the_language_the_mail_declares(db, settings):
    sender = "neu@example.org"
    raw = declaring("de-DE, en", compose(sender, "pbem@pbem.test", "/games", subject="Hallo"))
    assert receive(db, settings, raw).outcome == "unverified"
    code_mail = mails_to(deliver_all(db, settings), sender)[-1]
    assert str(code_mail["Subject"]) == "Re: [pbem] bestätige deine Adresse"
    text = mail_text(code_mail)
    assert text.startswith(f"Um von {sender} aus per Mail zu spielen, bestätige zuerst diese Adresse")
    assert english_in(text, "de") == []
    code = re.search(r"/confirm (\S+)", text)[1]
    raw = declaring("de", compose(sender, "pbem@pbem.test", f"/confirm {code}"))
    assert receive(db, settings, raw).outcome == "confirmed"
    assert "Deine Adresse neu@example.org ist bestätigt." in mail_text(mails_to(deliver_all(db, settings), sender)[-1])
    with db.sessions() as s:
        assert s.scalars(select(User.language).where(User.email == sender)).one() == "de"  # the account keeps it


def test_the_sign_up_mail_is_in_the_browsers_language_and_the_reset_mail_in_the_users(db, settings):
    links = accounts.Links("https://pbem.example")
    accounts.sign_up(db, "claire@example.org", "a long password", "Claire", settings.secret_key, links, language="fr")
    (signup,) = mails_to(deliver_all(db, settings), "claire@example.org")
    assert str(signup["Subject"]) == "[pbem] confirmez votre inscription"
    text = mail_text(signup)
    assert text.startswith("Bonjour,\n\nquelqu'un (peut-être vous) s'est inscrit à pbem avec cette adresse, sous le "
                           "nom « Claire ». Pour terminer l'inscription, ouvrez :")
    assert "https://pbem.example/verify/" in text and english_in(whole(signup), "fr") == []
    with db.sessions() as s:
        assert s.scalars(select(PendingSignup.language)).one() == "fr"

    verified_user(db, BEA, language="de")
    accounts.request_reset(db, BEA, settings.secret_key, links)
    (reset,) = mails_to(deliver_all(db, settings), BEA)
    assert str(reset["Subject"]) == "[pbem] lege dein Passwort fest"
    text = mail_text(reset)
    assert "Du hast darum gebeten, ein neues Passwort festzulegen." in text and "https://pbem.example/reset/" in text
    assert english_in(whole(reset), "de") == []

    # (a name nobody has: the account's is "bea", and a name is refused when taken, whoever asks: issue 35)
    accounts.sign_up(db, BEA, "a long password", "Bea Again", settings.secret_key, links, language="fr")
    (again,) = mails_to(deliver_all(db, settings), BEA)  # an account already: a reset link, in the user's language
    assert "Jemand (vielleicht du) hat versucht, sich mit dieser Adresse zu registrieren" in mail_text(again)


def test_an_invitation_speaks_the_invitees_language_or_the_inviters(db, settings):
    inviter = verified_user(db, ANN, language="nl")
    verified_user(db, BEA, language="fr")
    game_id = games.create_game(db, "counters", inviter, 3, {})
    invite_by_email(db, game_id, inviter, BEA, "https://pbem.example")
    invite_by_email(db, game_id, inviter, "nieuw@example.org", "https://pbem.example")
    mails = deliver_all(db, settings)
    (known,) = mails_to(mails, BEA)
    (unknown,) = mails_to(mails, "nieuw@example.org")
    assert str(known["Subject"]) == f"[pbem #{game_id} Counters] une invitation à jouer"
    assert mail_text(known).startswith(f"Un joueur qui se fait appeler « ann » vous invite à une partie de Counters "
                                       f"(partie {game_id}).")
    assert str(unknown["Subject"]) == f"[pbem #{game_id} Counters] een uitnodiging om te spelen"
    assert english_in(whole(known), "fr") == [] and english_in(whole(unknown), "nl") == []


def test_the_push_speaks_the_players_language(db, settings):
    game_id, by_seat, seat_of = game_for(db, "fr")
    if games.view(db, game_id)["to_move"] == seat_of[BEA]:
        games.submit(db, game_id, "take 1", seat=seat_of[BEA])
    games.submit(db, game_id, "take 2", seat=seat_of[ANN])
    version = games.view(db, game_id)["version"]
    with db.sessions() as s:
        bea = s.scalars(select(User.id).where(User.email == BEA)).one()
        message = push.turn_message(s, s.get(Game, game_id), bea)
    assert message["title"] == f"À vous de jouer : Counters, partie {game_id}"
    assert message["body"] == f"ann a joué take 2. Le coup {version + 1} est à vous."
