"""pbem.mail.mime: what is read of a reply (quote headers, forward headers and footers of fifteen languages)."""

from __future__ import annotations

import random

import pytest

import engine
from pbem.mail import mime, quotes

QUOTE = "> It is your turn in game 7 (Counters), move 1.\n>\n> Your legal moves (4):\n>   take 1\n>   draw\n> /resign\n"
UNQUOTED = "It is your turn in game 7 (Counters), move 1.\n\nYour legal moves (4):\n  take 1\n  draw\n/resign\n"

# Quote headers as the common clients write them, by language: Gmail, Apple Mail, Thunderbird,
# Yahoo, Proton Mail, K-9; Eudora's, Orange's and old Gmail's (issue 41).
HEADERS = {
    "en": ["On Sun, Nov 22, 2026 at 10:12 AM pbem <pbem@pbem.test> wrote:", "On 22/11/2026 10:12, pbem wrote:",
           "On Sunday, November 22, 2026, 10:12:03 AM GMT+1, pbem <pbem@pbem.test> wrote:",
           "On Sun, Nov 22, 2026 at 10:12 AM, pbem <pbem@pbem.test> wrote", "At 10:12 AM 11/22/2026, you wrote:",
           "2016-10-24 15:36 GMT+02:00 pbem <pbem@pbem.test>:", "*-------- Original Message --------*",
           "* -------- Original Message -------- *"],
    "nl": ["Op 18 juli 2013 om 10:23 schreef Ann het volgende:", "Op zo 22 nov 2026 om 10:12 schreef pbem <p@pbem.test>:",
           "Op 22 nov. 2026 om 10:12 heeft pbem <p@pbem.test> het volgende geschreven:",
           "Op 22-11-2026 om 10:12 schreef pbem:"],
    "de": ["Am So., 22. Nov. 2026 um 10:12 Uhr schrieb pbem <p@pbem.test>:", "Am 22.11.26 um 10:12 schrieb pbem:",
           "Am Sonntag, 22. November 2026, 10:12:03 MEZ hat pbem <p@pbem.test> Folgendes geschrieben:",
           "Am Sonntag, 22. November 2026 um 10:12, pbem <p@pbem.test> schrieb:"],
    "fr": ["Le lun. 15 nov. 2021 à 10:00, Bob <bob@example.org> a écrit :", "Le 22/11/2026 à 10:12, pbem a écrit :",
           "Le dim. 22 nov. 2026 à 10:12, pbem <p@pbem.test> a écrit\u202f:", "Message du 22/11/26 10:12",
           "Message du : 22/11/2026 10:12"],
    "it": ["In data 22 novembre 2026 10:12:03 CET, pbem <p@pbem.test> ha scritto:",
           "Il giorno dom 22 nov 2026 alle ore 10:12 pbem <p@pbem.test> ha scritto:", "Il 22/11/26 10:12, pbem ha scritto:"],
    "es": ["El dom, 22 nov 2026 a las 10:12, pbem (<p@pbem.test>) escribió:", "El 22/11/26 a las 10:12, pbem escribió:"],
    "pt": ["Em dom., 22 de nov. de 2026 às 10:12, pbem <p@pbem.test> escreveu:", "Em 22/11/2026 10:12, pbem escreveu:",
           "pbem <p@pbem.test> escreveu no dia domingo, 22/11/2026 à(s) 10:12:"],
    "pl": ["niedz., 22 lis 2026 o 10:12 pbem <p@pbem.test> napisał(a):", "W dniu 22.11.2026 o 10:12, pbem pisze:",
           "Wiadomość napisana przez pbem <p@pbem.test> w dniu 22.11.2026, o godz. 10:12:",
           "Dnia 22 listopada 2026 10:12:03 CET, pbem <p@pbem.test> napisał(a):"],
    "sv": ["Den sön 22 nov. 2026 kl 10:12 skrev pbem <p@pbem.test>:", "22 nov. 2026 kl. 10:12 skrev pbem <p@pbem.test>:",
           "Den 2026-11-22 kl. 10:12, skrev pbem:", "Den söndag 22 november 2026 10:12:03 CET, pbem <p@pbem.test> skrev:"],
    "no": ["tir. 16. nov. 2021 kl. 10:00 skrev Bob <bob@example.org>:", "22. nov. 2026 kl. 10:12 skrev pbem <p@pbem.test>:"],
    "da": ["søn. 22. nov. 2026 kl. 10.12 skrev pbem <p@pbem.test>:", "Den 22.11.2026 kl. 10.12 skrev pbem:"],
    "fi": ["su 22.11.2026 klo 10.12 pbem <p@pbem.test> kirjoitti:", "22.11.2026 10.12, pbem kirjoitti:",
           "pbem <p@pbem.test> kirjoitti 22.11.2026 kello 10.12:"],
    "hu": ["pbem <p@pbem.test> ezt írta (időpont: 2026. nov. 22., V, 10:12):",
           "2026. 11. 22. 10:12 keltezéssel, pbem írta:",
           "2026. nov. 22. dátummal, 10:12 időpontban pbem <p@pbem.test> írta:"],
    "ru": ["ср, 30 апр. 2025 г. в 15:19, Bob <bob@example.org>:", "22.11.2026 10:12, pbem пишет:",
           "22 нояб. 2026 г., в 10:12, pbem <p@pbem.test> написал(а):",
           "вс, 22 нояб. 2026\u202fг. в 10:12, pbem <p@pbem.test>:"],
    "uk": ["нд, 22 лист. 2026 р. о 10:12 pbem <p@pbem.test> пише:", "22.11.2026 10:12, pbem пише:",
           "22 лист. 2026 р. о 10:12 pbem <p@pbem.test> написав(-ла):"],
}
# Outlook's blocks of fields, by language.
OUTLOOK = {
    "en": "From: pbem <p@pbem.test>\nSent: Sunday, November 22, 2026 10:12 AM\nTo: Alice\nSubject: your turn",
    "nl": "Van: pbem <p@pbem.test>\nVerzonden: zondag 22 november 2026 10:12\nAan: Alice\nOnderwerp: your turn",
    "de": "Von: pbem <p@pbem.test>\nGesendet: Sonntag, 22. November 2026 10:12\nAn: Alice\nBetreff: your turn",
    "fr": "De : pbem <p@pbem.test>\nEnvoyé : dimanche 22 novembre 2026 10:12\nÀ : Alice\nObjet : your turn",
    "it": "Da: pbem <p@pbem.test>\nInviato: domenica 22 novembre 2026 10:12\nA: Alice\nOggetto: your turn",
    "es": "De: pbem <p@pbem.test>\nEnviado: domingo, 22 de noviembre de 2026 10:12\nPara: Alice\nAsunto: your turn",
    "pt": "De: pbem <p@pbem.test>\nEnviado: domingo, 22 de novembro de 2026 10:12\nPara: Alice\nAssunto: your turn",
    "pl": "Od: pbem <p@pbem.test>\nWysłano: niedziela, 22 listopada 2026 10:12\nDo: Alice\nTemat: your turn",
    "sv": "Från: pbem <p@pbem.test>\nSkickat: den 22 november 2026 10:12\nTill: Alice\nÄmne: your turn",
    "no": "Fra: pbem <p@pbem.test>\nSendt: søndag 22. november 2026 10:12\nTil: Alice\nEmne: your turn",
    "da": "Fra: pbem <p@pbem.test>\nSendt: 22. november 2026 10:12\nTil: Alice\nEmne: your turn",
    "fi": "Lähettäjä: pbem <p@pbem.test>\nLähetetty: sunnuntai 22. marraskuuta 2026 10.12\nVastaanottaja: Alice\n"
          "Aihe: your turn",
    "hu": "Feladó: pbem <p@pbem.test>\nElküldve: 2026. november 22., vasárnap 10:12\nCímzett: Alice\nTárgy: your turn",
    "ru": "От: pbem <p@pbem.test>\nОтправлено: 22 ноября 2026 г. 10:12\nКому: Alice\nТема: your turn",
    "uk": "Від: pbem <p@pbem.test>\nНадіслано: 22 листопада 2026 р. 10:12\nКому: Alice\nТема: your turn",
}
FORWARDS = ["-----Original Message-----", "-----Ursprüngliche Nachricht-----", "-------- Message d'origine --------",
            "---------- Forwarded message ---------", "-------- Oorspronkelijk bericht --------",
            "-----Messaggio originale-----", "-----Mensaje original-----", "-----Mensagem original-----",
            "-----Wiadomość oryginalna-----", "-----Ursprungligt meddelande-----", "-----Opprinnelig melding-----",
            "-----Oprindelig meddelelse-----", "-------- Исходное сообщение --------", "Begin forwarded message:",
            "---------- Välitetty viesti ---------", "---------- Továbbított levél ---------",
            "---------- Пересланий лист ---------",
            "Anfang der weitergeleiteten Nachricht:", "Début du message réexpédié :", "________________________________"]
FOOTERS = ["Sent from my iPhone", "Sent from TypeApp", "Outlook für iOS<https://aka.ms/o0ukef> beziehen",
           "Get Outlook for Android<https://aka.ms/ghei36>", "Von meinem iPhone gesendet", "Envoyé de mon iPhone",
           "Verstuurd vanaf mijn iPhone", "Inviato da iPhone", "Enviado desde mi iPhone", "Enviado do meu iPhone",
           "Wysłane z iPhone'a", "Skickat från min iPhone", "Sendt fra min iPhone", "Отправлено с iPhone",
           "Sent from Yahoo Mail on Android", "Sent with Proton Mail secure email.", "Von meinem Galaxy gesendet",
           "Sent from my Android device with K-9 Mail. Please excuse my brevity.", "Obtenir Outlook pour iOS",
           "Lähetetty iPhonesta", "Az iPhone-omról küldve", "Надіслано з iPhone"]


def test_every_language_is_covered():
    assert set(HEADERS) == set(OUTLOOK) == set(quotes.LANGUAGES)


@pytest.mark.parametrize("header", [h for forms in HEADERS.values() for h in forms])
def test_a_quote_header_ends_what_was_written(header):
    assert mime.strip_reply(f"take 1\nThanks!\n\n{header}\n{QUOTE}") == "take 1\nThanks!"
    # Under the header, the quote may be unquoted (no ">"): it is cut all the same.
    assert mime.strip_reply(f"take 1\n\n{header}\n\n{UNQUOTED}") == "take 1"


@pytest.mark.parametrize("language", sorted(OUTLOOK))
def test_an_outlook_block_of_fields_ends_what_was_written(language):
    block = OUTLOOK[language]
    assert mime.strip_reply(f"draw\nBest wishes\n\n{block}\n\n{UNQUOTED}") == "draw\nBest wishes"
    assert mime.strip_reply(f"draw\n\n{'_' * 32}\n{block}\n\n{UNQUOTED}") == "draw"


@pytest.mark.parametrize("language", sorted(OUTLOOK))
def test_41_2_under_a_header_with_nothing_above_and_no_quoted_line_what_follows_is_read(language):
    """Outlook's unquoted quote comes out whole: its first line is prose, at which the reading of
    the commands stops (tests/mail/test_quote_forms.py: nothing is played, nothing fails)."""
    read = mime.strip_reply(UNQUOTED)
    assert read.startswith("It is your turn in game 7")
    assert mime.strip_reply(f"{OUTLOOK[language]}\n\n{UNQUOTED}") == read
    assert mime.strip_reply(f"\n\n{HEADERS[language][0]}\n\n{UNQUOTED}") == read
    # A header whose quote a client dropped: the move under it is read.
    assert mime.strip_reply(f"{HEADERS[language][0]}\n\ntake 2\nThanks!") == "take 2\nThanks!"
    assert mime.strip_reply(f"{'-' * 8} Original Message {'-' * 8}\n{OUTLOOK[language]}\n\n{QUOTE}\ndraw") == "draw"


@pytest.mark.parametrize("header", ["On 22/11/2026 10:12, pbem wrote:", "Op 22-11-2026 om 10:12 schreef pbem het volgende:",
                                    "22.11.2026 10:12, pbem пишет:", "Em 22/11/2026 10:12, pbem escreveu:"])
def test_a_reply_written_below_the_quote_is_read(header):
    assert mime.strip_reply(f"{header}\n{QUOTE}\ntake 2\nThanks!\n") == "take 2\nThanks!"


@pytest.mark.parametrize("first, second", [
    ("Le lun. 15 nov. 2021 à 10:00, Bob <bob@example.org>", "a écrit :"),
    ("Le dim. 22 nov. 2026 à 10:12, pbem", "<pbem+7.0.0.00000000000000000000@pbem.test> a écrit :"),
    ("Le dim. 22 nov. 2026 à 10:12, pbem <pbem+7.0.0.00000000000000000000@pbem.test> a", "écrit :"),
    ("Em dom., 22 de nov. de 2026 às 10:12, pbem", "<pbem+7.0.0.00000000000000000000@pbem.test> escreveu:"),
    ("вс, 22 нояб. 2026 г. в 10:12, pbem", "<pbem+7.0.0.00000000000000000000@pbem.test>:"),
    ("niedz., 22 lis 2026 o 10:12 pbem <pbem+7.0.0.00000000000000000000@pbem.test>", "napisał(a):"),
    ("Op zo 22 nov 2026 om 10:12 schreef pbem", "<pbem+7.0.0.00000000000000000000@pbem.test>:"),
    # Issue 41: a second line that would be a header alone, and the forms that begin with the sender.
    ("нд, 22 лист. 2026 р. о 10:12 pbem", "<pbem+7.0.0.00000000000000000000@pbem.test> пише:"),
    ("22 нояб. 2026 г., в 10:12, pbem", "<pbem+7.0.0.00000000000000000000@pbem.test> написал(а):"),
    ("niedz., 22 lis 2026 o 10:12 pbem <", "pbem+7.0.0.00000000000000000000@pbem.test> napisał(a):"),
    ("pbem <pbem+7.0.0.00000000000000000000@pbem.test> ezt írta (időpont:", "2026. nov. 22., V, 10:12):"),
    ("pbem <pbem+7.0.0.00000000000000000000@pbem.test> escreveu no dia domingo,", "22/11/2026 à(s) 10:12:"),
    ("su 22.11.2026 klo 10.12 pbem <pbem+7.0.0.00000000000000000000@pbem.test>", "kirjoitti:"),
    ("2016-10-24 15:36 GMT+02:00 pbem <", "pbem+7.0.0.00000000000000000000@pbem.test>:"),
])
def test_a_quote_header_wrapped_over_two_lines_is_cut_whole(first, second):
    assert mime.strip_reply(f"take 3\nMerci !\n\n{first}\n{second}\n\n{QUOTE}") == "take 3\nMerci !"
    assert mime.strip_reply(f"{first}\n{second}\n\n{QUOTE}\ntake 3\nMerci !") == "take 3\nMerci !"  # issue 41


@pytest.mark.parametrize("lines", [
    ("Le dim. 22 nov. 2026 à 10:12, pbem", "<pbem+7.0.0.00000000000000000000@pbem.test>", "a écrit :"),
    ("On Sun, Nov 22, 2026 at 10:12 AM, pbem <", "pbem+7.0.0.00000000000000000000@pbem.test>", "wrote"),
    ("Am Sonntag, 22. November 2026, 10:12:03 MEZ hat pbem", "<pbem+7.0.0.00000000000000000000@pbem.test> Folgendes",
     "geschrieben:"),
    ("W dniu 22.11.2026 o 10:12, pbem", "<pbem+7.0.0.00000000000000000000@pbem.test>", "pisze:"),
])
def test_41_1_a_quote_header_wrapped_over_three_lines_is_cut_whole(lines):
    header = "\n".join(lines)
    assert mime.strip_reply(f"take 3\nMerci !\n\n{header}\n\n{QUOTE}") == "take 3\nMerci !"
    assert mime.strip_reply(f"{header}\n{QUOTE}\ntake 3\nMerci !") == "take 3\nMerci !"


def test_a_line_above_a_header_is_never_joined_to_it():
    header = "tir. 16. nov. 2021 kl. 10:00 skrev Bob <bob@example.org>:"
    assert mime.strip_reply(f"take 1\nSee you at 10:00 2021\n{header}\n{QUOTE}") == "take 1\nSee you at 10:00 2021"


def test_a_russian_from_line_alone_is_a_line_the_player_wrote():
    assert mime.strip_reply("take 1\nОт: Ann\n") == "take 1\nОт: Ann"


@pytest.mark.parametrize("forward", FORWARDS)
def test_a_forward_or_original_message_header_ends_what_was_written(forward):
    assert mime.strip_reply(f"take 2\nGroetjes, Ann\n\n{forward}\n{OUTLOOK['en']}\n\n{UNQUOTED}") == \
        "take 2\nGroetjes, Ann"


@pytest.mark.parametrize("footer", FOOTERS)
def test_a_phone_footer_ends_what_was_written(footer):
    assert mime.strip_reply(f"take 1\nDanke!\n\n{footer}\n\n{HEADERS['de'][0]}\n{QUOTE}") == "take 1\nDanke!"


def test_a_signature_after_dashes_is_cut_and_a_friendly_line_is_kept():
    assert mime.strip_reply("take 1\nThanks, Ann\nBest regards,\n-- \nAnn Example\n+31 6 1234\n") == \
        "take 1\nThanks, Ann\nBest regards,"


def test_each_form_of_the_tables_matches_its_own_example():
    for form in quotes.QUOTE_HEADERS:
        block = "\nОтправлено: 22 ноября 2026 г. 10:12" if form.example.startswith("От:") else ""
        assert mime.strip_reply(f"take 1\n{form.example}{block}\n{UNQUOTED}") == "take 1", form
    for form in quotes.FOOTERS:
        assert mime.strip_reply(f"take 1\n{form.example}\n/resign") == "take 1", form


def real_moves(title: str) -> list[str]:
    """Moves in notation met in two random games of `title` (every legal move of each position)."""
    rules, seen, rng = engine.get(title), set(), random.Random(20261122)
    for seed in (1, 2):
        state = rules.setup(max(2, rules.min_players), {}, seed)
        for _ in range(120):
            if rules.to_move(state) is None:
                break
            legal = rules.legal_moves(state)
            seen.update(rules.notation(state, move) for move in legal)
            state = rules.apply(state, rng.choice(legal))
    return sorted(seen)


COMMANDS = ["place Tonga 3", "land red 2 3", "land red Samoa 3", "take -1,2 0,2", "/resign", "/move 12 take -1,2 0,2",
            "/board", "/moves", "tak", "kh", "Take 1,-4 2,-5 3,-4", "Pass", "End", "Deploy N+E", "Skip", "Keep"]


@pytest.mark.parametrize("title", ["tongiaki", "discovery", "tapaono"])
def test_moves_are_never_taken_for_a_header_signature_or_disclaimer(title):
    """Every move stands on its own line: first, among others, last above every header form, and
    below it (issue 41)."""
    moves = real_moves(title) + COMMANDS
    assert len(moves) > 200 and len({m.split()[0] for m in moves}) >= 4
    headers = [header for forms in HEADERS.values() for header in forms]
    most = quotes.MAX_READ_LINES - 1  # in mails of at most MAX_READ_LINES lines (the header is one), read whole
    for header in headers:
        for start in range(0, len(moves), most):
            some = moves[start:start + most]
            reply = "\n".join(some) + f"\n\n{header}\n{QUOTE}"
            assert mime.strip_reply(reply).split("\n") == some, header
            below = f"{header}\n{QUOTE}\n" + "\n".join(some)  # and below the quote (issue 41)
            assert mime.strip_reply(below).split("\n") == some, header
    rng = random.Random(7)
    for move in moves:  # each also directly under another move and directly above a header
        other = rng.choice(moves)
        for header in (HEADERS["da"][1], rng.choice(headers)):
            assert mime.strip_reply(f"{other}\n{move}\n{header}\n{QUOTE}") == f"{other}\n{move}", header
