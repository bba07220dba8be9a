"""Issue 41: a reply is read above or below the quote, in every language, whatever space its client wrote.

Item 1: the quote-header forms the issue found unrecognised (French Outlook blocks, Orange's
"Message du", forward blocks, Finnish, Hungarian, Ukrainian, "wrote" without a colon, headers
wrapped over three lines, Gmail's old "2016-10-24 15:36 GMT+02:00 Name <" form, Eudora's "At
... you wrote:", an "Original Message" line between asterisks) end what was written above them
and begin a reply written below them, and no line a player writes as prose is taken for one.
Item 2: under a quote header with nothing above it and no quoted line, what follows is read:
our own turn mail, unquoted, whose first line is prose, so nothing is played and nothing fails.
Item 3: replies in those forms (tests/data/mail/replies/, described in index.json), each
written above the quote and below it, go through `pbem mail ingest`: the move is played, and
the answer has no failure and echoes nothing of the quote. (tests/mail/test_corpus.py reads
the whole corpus again with U+202F and U+00A0 in its quote headers.)
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from pbem import games
from pbem.cli import main
from pbem.mail import mime, quotes
from tests.mail.conftest import compose, counters_game, deliver_all, mail_text, reply_to
from tests.mail.test_corpus import INDEX, REPLIES, fill, start_game

QUOTE = "> It is your turn in game 7 (Counters), move 1.\n>\n> Your legal moves (4):\n>   take 1\n> /resign\n"
ADDRESS = "pbem+7.0.0.00000000000000000000@pbem.test"

# Each form as its clients write it (one string; "\n" where the client wraps the header).
FORMS = {
    "French Gmail, U+202F before the colon": f"Le dim. 22 nov. 2026 à 10:12, pbem\n<{ADDRESS}> a écrit\u202f:",
    "French Thunderbird": "Le 22/11/2026 à 10:12, pbem a écrit :",
    "Russian Gmail, U+202F before г.": f"вс, 22 нояб. 2026\u202fг. в 10:12, pbem <{ADDRESS}>:",
    "French Outlook, Envoyé le": f"De\u00a0: pbem <{ADDRESS}>\nEnvoyé le\u00a0: dimanche 22 novembre 2026 10:12\n"
                                 "À\u00a0: Alice\nObjet\u00a0: your turn",
    "French Outlook, Envoyé": f"De : pbem <{ADDRESS}>\nEnvoyé : dimanche 22 novembre 2026 10:12\nÀ : Alice\n"
                              "Cc : Bob\nObjet : your turn",
    "Orange webmail": f'Message du 22/11/26 10:12\nDe : "pbem" <{ADDRESS}>\nA : alice@example.org\nCopie à : \n'
                      "Objet : your turn",
    "La Poste webmail": f"Message du : 22/11/2026 10:12\nDe : pbem <{ADDRESS}>\nA : alice@example.org",
    "Gmail forward": f"---------- Forwarded message ---------\nFrom: pbem <{ADDRESS}>\n"
                     "Date: Sun, Nov 22, 2026 at 10:12 AM\nSubject: your turn\nTo: <alice@example.org>",
    "Thunderbird forward, French": "-------- Message transféré --------\nSujet : your turn\n"
                                   f"Date : Sun, 22 Nov 2026 10:12:03 +0100\nDe : pbem <{ADDRESS}>\n"
                                   "Pour : alice@example.org",
    "Thunderbird forward, Italian": "-------- Messaggio Inoltrato --------\nOggetto: your turn\n"
                                    f"Data: Sun, 22 Nov 2026 10:12:03 +0100\nMittente: pbem <{ADDRESS}>\n"
                                    "A: alice@example.org",
    "Apple Mail forward, Russian": f"Начало переадресованного сообщения:\n\nОт кого: pbem <{ADDRESS}>\n"
                                   "Тема: your turn\nДата: 22 ноября 2026 г. в 10:12:03 GMT+1\nКому: alice",
    "Mutt forward": f"----- Forwarded message from pbem <{ADDRESS}> -----\n\nDate: Sun, 22 Nov 2026 10:12:03 +0100\n"
                    f"From: pbem <{ADDRESS}>\nSubject: your turn",
    "Finnish Gmail": f"su 22.11.2026 klo 10.12 pbem <{ADDRESS}>\nkirjoitti:",
    "Finnish Thunderbird": "22.11.2026 10.12, pbem kirjoitti:",
    "Finnish Outlook": f"Lähettäjä: pbem <{ADDRESS}>\nLähetetty: sunnuntai 22. marraskuuta 2026 10.12\n"
                       "Vastaanottaja: Alice\nAihe: your turn",
    "Hungarian Gmail": f"pbem <{ADDRESS}> ezt írta (időpont: 2026. nov. 22., V, 10:12):",
    "Hungarian Gmail, wrapped after időpont": f"pbem <{ADDRESS}> ezt írta (időpont:\n2026. nov. 22., V, 10:12):",
    "Hungarian Thunderbird": "2026. 11. 22. 10:12 keltezéssel, pbem írta:",
    "Hungarian Outlook": f"Feladó: pbem <{ADDRESS}>\nElküldve: 2026. november 22., vasárnap 10:12\nCímzett: Alice\n"
                         "Tárgy: your turn",
    "Ukrainian Gmail": f"нд, 22 лист. 2026\u202fр. о 10:12 pbem\n<{ADDRESS}> пише:",
    "Ukrainian Thunderbird": "22.11.2026 10:12, pbem пише:",
    "Ukrainian Outlook": f"Від: pbem <{ADDRESS}>\nНадіслано: 22 листопада 2026 р. 10:12\nКому: Alice\nТема: your turn",
    "wrote without a colon": f"On Sun, Nov 22, 2026 at 10:12 AM, pbem <{ADDRESS}> wrote",
    "wrote without a colon, over three lines": f"On Sun, Nov 22, 2026 at 10:12 AM, pbem <\n{ADDRESS}>\nwrote",
    "Yahoo, over three lines": f"Am Sonntag, 22. November 2026, 10:12:03 MEZ hat pbem \n<{ADDRESS}> Folgendes \n"
                               "geschrieben:",
    "Polish Gmail, wrapped before the address": f"niedz., 22 lis 2026 o 10:12 pbem\n<{ADDRESS}> napisał(a):",
    "Portuguese Gmail, wrapped after the sender": f"pbem <{ADDRESS}> escreveu no dia domingo,\n22/11/2026 à(s) 10:12:",
    "Gmail before 2017": f"2016-10-24 15:36 GMT+02:00 pbem <\n{ADDRESS}>:",
    "Eudora": "At 10:12 AM 11/22/2026, you wrote:",
    "Original Message between asterisks": f"*-------- Original Message --------*\n*From:* pbem <{ADDRESS}>\n"
                                          "*Sent:* Sunday, November 22, 2026 10:12 AM\n*To:* Alice",
    "Original Message between asterisks and spaces": "* -------- Original Message -------- *",
}


@pytest.mark.parametrize("space", [" ", "\u202f", "\u00a0", "\u2009"], ids=["space", "U+202F", "U+00A0", "U+2009"])
@pytest.mark.parametrize("form", sorted(FORMS))
def test_41_1_each_form_ends_what_was_written_above_it_and_begins_a_reply_below_it(form, space):
    header = FORMS[form].replace(" ", space)
    assert mime.strip_reply(f"take 2\nThanks!\n\n{header}\n\n{QUOTE}") == "take 2\nThanks!"
    assert mime.strip_reply(f"{header}\n{QUOTE}\ntake 2\nThanks!\n") == "take 2\nThanks!"
    assert mime.strip_reply(f"\n{header}\n\n{QUOTE}\n\ntake 2\n\n-- \nAlice") == "take 2"


@pytest.mark.parametrize("prose", [
    "Message du jour : on joue ce soir ?", "Message du 3e joueur", "On my turn I wrote", "On turn 3 I wrote",
    "At the end you wrote:", "Op mijn beurt schreef ik dit", "De: ik", "Le jour où tu as écrit",
])
def test_41_1_prose_like_a_header_stays_a_line_the_player_wrote(prose):
    assert mime.strip_reply(f"take 1\n{prose}\n") == f"take 1\n{prose}"
    assert mime.strip_reply(f"{prose}\ntake 1\n") == f"{prose}\ntake 1"


def test_41_1_every_language_has_its_quote_headers_fields_and_footers():
    def languages(forms):
        return {language for form in forms for language in form.language.split(", ")}

    assert {"fi", "hu", "uk"} <= set(quotes.LANGUAGES)
    assert set(quotes.LANGUAGES) <= languages(quotes.QUOTE_HEADERS)
    assert set(quotes.LANGUAGES) <= languages(quotes.FOOTERS)
    assert set(quotes.LANGUAGES) <= set(quotes.FIELDS)


# --------------------------------------------------------------------------------------
# Item 3: replies of real clients' formats through `pbem mail ingest`

# Each form of the issue, written above the quote and below it (tests/data/mail/replies/).
REPLIES_OF = {
    "French Gmail, 'a écrit :' with U+202F": ("fr_gmail_nnbsp.eml", "fr_gmail_nnbsp_bottom.eml"),
    "French Thunderbird, 'Le ... a écrit :'": ("fr_thunderbird.eml", "fr_thunderbird_bottom.eml"),
    "Russian Gmail with U+202F": ("ru_gmail_nnbsp.eml", "ru_gmail_nnbsp_bottom.eml"),
    "French Outlook, 'De : / Envoyé le :'": ("fr_outlook_envoye_le.eml", "fr_outlook_envoye_le_bottom.eml"),
    "Orange's 'Message du'": ("fr_orange.eml", "fr_orange_bottom.eml"),
    "forward blocks": ("en_gmail_forward.eml", "en_mutt_forward_bottom.eml"),
    "Finnish 'kirjoitti:'": ("fi_gmail.eml", "fi_thunderbird_bottom.eml"),
    "Hungarian 'írta:'": ("hu_gmail.eml", "hu_gmail_bottom.eml"),
    "Ukrainian 'пише:'": ("uk_gmail.eml", "uk_thunderbird_bottom.eml"),
    "'wrote' without a colon": ("en_wrote_no_colon.eml", "en_wrote_no_colon_bottom.eml"),
    "a header wrapped over three lines": ("en_wrote_no_colon.eml", "de_yahoo_wrapped_bottom.eml"),
    "Gmail's old 'GMT+02:00 Name <' form": ("de_gmail_iso_date.eml", "es_gmail_iso_date_bottom.eml"),
    "Eudora's 'At ... you wrote:'": ("en_eudora.eml", "en_eudora_bottom.eml"),
    "'Original Message' between asterisks": ("en_thunderbird_asterisks.eml", "en_thunderbird_asterisks_bottom.eml"),
}
# The other replies of the new languages (Outlook's fields, an iPhone footer).
MORE = ["fi_iphone.eml", "fi_outlook_windows.eml", "hu_outlook_windows.eml", "hu_thunderbird.eml",
        "uk_outlook_windows.eml"]
NAMES = sorted({name for pair in REPLIES_OF.values() for name in pair} | set(MORE))


def test_41_3_each_form_has_a_reply_above_and_below_the_quote():
    assert set(NAMES) <= set(INDEX)
    for form, (top, bottom) in REPLIES_OF.items():
        assert "below the quote" not in INDEX[top]["client"], form
        assert "below the quote" in INDEX[bottom]["client"], form
        assert INDEX[bottom]["cut"] and "/resign" in INDEX[bottom]["quoted"], form
    assert {INDEX[name]["language"] for name in NAMES} >= {"fi", "hu", "uk", "fr", "ru"}


def ingest(db, settings, raw: bytes):
    env = {"PBEM_DATABASE_URL": db.url, "PBEM_DATA_DIR": str(settings.data_dir), "PBEM_SECRET_KEY": settings.secret_key,
           "PBEM_MAIL_DOMAIN": settings.mail_domain, "PBEM_SMTP_URL": "outbox:"}
    return CliRunner().invoke(main, ["mail", "ingest"], input=raw, env=env)


@pytest.mark.parametrize("name", NAMES)
def test_41_3_a_reply_in_each_form_plays_its_move_through_ingest(pg_db, settings, name):
    """On PostgreSQL only, as the corpus's door tests: the reading is the same on both databases."""
    db, expect = pg_db, INDEX[name]
    game_id = start_game(db, expect["game"])
    turn = next(m for m in deliver_all(db, settings) if str(m["X-Pbem-Kind"]) == "turn")
    player, key = str(turn["To"]), str(turn["Reply-To"])

    result = ingest(db, settings, fill((REPLIES / name).read_bytes(), game_id, key, player))

    assert result.exit_code == 0, result.output
    friendly = expect.get("friendly", [])
    assert result.output.strip() == f"done: 1 done, 0 failed, {len(friendly)} not read"
    move = expect["lines"][0]
    assert [m["notation"] for m in games.history(db, game_id)] == [move]
    assert games.view(db, game_id)["status"] == "running"  # the quoted /resign did not run
    answers = [m for m in deliver_all(db, settings) if str(m["To"]) == player]
    assert len(answers) == 1
    answer = mail_text(answers[0])
    assert "Failed" not in answer
    # Nothing of the quote is echoed: no quoted line, no header, no friendly line, no quoted command.
    assert not [line for line in answer.splitlines() if line.startswith(">")]
    headers = [c.replace("REPLY-ADDRESS", key).replace("GAME-ID", str(game_id)).strip() for c in expect["cut"]]
    assert not [c for c in headers if c in answer]
    assert not [line for line in friendly if line in answer]
    assert "/resign  ->" not in answer and f"{move}  -> move 1: {move}" in answer


# --------------------------------------------------------------------------------------
# Item 2: an unquoted quote under a header with nothing above it plays nothing, and fails nothing

@pytest.mark.parametrize("header", [FORMS["French Outlook, Envoyé le"], FORMS["Gmail forward"],
                                    "-----Original Message-----\nFrom: pbem\nSent: Sunday, November 22, 2026 10:12 AM",
                                    FORMS["Hungarian Gmail"]], ids=["Outlook", "forward", "original", "hu"])
def test_41_2_our_own_turn_mail_unquoted_under_a_header_plays_nothing_and_fails_nothing(pg_db, settings, header):
    db = pg_db
    game_id, by_seat = counters_game(db)
    turn = deliver_all(db, settings)[0]
    quoted_turn = mail_text(turn)  # our own turn mail, with its legal moves, not quoted
    assert "\n  take 1\n" in quoted_turn
    before = games.view(db, game_id)
    body = f"{header.replace(ADDRESS, reply_to(turn))}\n\n{quoted_turn}"
    assert mime.strip_reply(body).startswith(quoted_turn.strip().split("\n")[0])  # read, from its first line

    result = ingest(db, settings, compose(by_seat[0], reply_to(turn), body))

    assert result.exit_code == 0 and result.output.startswith("empty"), result.output
    after = games.view(db, game_id)
    assert games.history(db, game_id) == [] and after["status"] == "running"
    assert (after["version"], after["to_move"]) == (before["version"], before["to_move"])
    answer = mail_text(next(m for m in deliver_all(db, settings) if str(m["To"]) == by_seat[0]))
    assert "Failed" not in answer and "no move or command that could be read" in answer
