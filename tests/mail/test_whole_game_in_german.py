"""A whole game by email in German (issue 24): no English sentence in any mail its players get.

Three German players play a game of Tongiaki to its end through the real mail path
(`bench/roundtrips.py`'s batching players, `pbem.mail.inbound.receive`), with a few lines that
are not moves on the way (an illegal move, a command written wrongly, a stale reply), so the
answers carry the engine's reasons and the service's errors too. Every mail the players get is
then sent to the outbox folder and read as a player reads it (subject and plain text). A word
list check: no piece of three words or more of any English message of the catalogues (the
mails', the board in words', the engines' and the service's) may stand in it, unless its German
translation keeps it as it is (a command, a name). Notation stays English by design: the moves
a player types are the same in every language.
"""

from __future__ import annotations

import re
from pathlib import Path

from babel.messages.pofile import read_po
from sqlalchemy import select

import engine
from bench import roundtrips
from pbem import i18n, mailkeys, reasons
from pbem.mail import inbound
from pbem.models import OutboundMail
from tests.mail.conftest import compose, deliver_all, mail_text

TRANSLATIONS = Path(__file__).resolve().parents[2] / "pbem" / "translations"
LANGUAGE = "de"


def english_pieces(language: str) -> set[str]:
    """Pieces (three words or more) of every English msgid of both catalogues that the message's
    translation into `language` does not keep as they are."""
    pieces = set()
    for template, catalogue in (("messages.pot", i18n.translator(language)),
                                ("engine.pot", reasons.translations(language))):
        with (TRANSLATIONS / template).open("rb") as f:
            messages = [m for m in read_po(f) if m.id]
        for message in messages:
            ids = [message.id] if isinstance(message.id, str) else list(message.id)
            translation = (catalogue.gettext(ids[0]) if len(ids) == 1
                           else " ".join(catalogue.ngettext(ids[0], ids[1], n) for n in (1, 2)))
            translation = " ".join(translation.split())
            for msgid in ids:
                for piece in re.split(r"%\(\w+\)[sd]|[\n.;:()\"]", msgid):
                    piece = " ".join(piece.split()).strip(" ,")
                    if len(re.findall(r"[A-Za-z]+", piece)) >= 3 and piece not in translation:
                        pieces.add(piece)
    return pieces


class GermanPlayers(roundtrips.MailDriver):
    """The batching players of bench/roundtrips.py, reading German, who get a few lines wrong once:
    an illegal move and a command written wrongly through the turn key, and a reply to a turn
    already played."""

    MISTAKES_AT = 12  # the mail before which they err

    def __init__(self, *args):
        super().__init__(*args, language=LANGUAGE)
        self.mails = 0

    def send(self, seat: int, lines: list[str]) -> None:
        self.mails += 1
        if self.mails == self.MISTAKES_AT:
            address, nonce = self.emails[seat]
            version = self.games.view(self.db, self.game_id)["version"]
            secret, domain = self.settings.secret_key, self.settings.mail_domain
            key = mailkeys.encode_reply(secret, domain, self.game_id, seat, version, nonce)
            stale = mailkeys.encode_reply(secret, domain, self.game_id, seat, version - 1, nonce)
            for to, text in ((key, "place Atlantis 9\n"), (key, "/frobnicate\n"), (stale, "/board\n")):
                inbound.receive(self.db, compose(address, to, text), self.settings)
        super().send(seat, lines)


def test_a_whole_game_by_email_in_german_has_no_english_sentence_in_any_mail(tmp_path):
    rules = engine.get("tongiaki")
    made = []

    def driver(rules_, players_, options_, seed):
        made.append(GermanPlayers(rules_, players_, options_, seed, tmp_path))
        return made[-1]

    roundtrips.play_game(rules, 3, rules.check_options({}), 7, roundtrips.Tally(), make_driver=driver)
    mail = made[0]
    try:
        assert mail.games.view(mail.db, mail.game_id)["status"] == "finished"
        with mail.db.sessions() as s:
            kinds = set(s.scalars(select(OutboundMail.kind)))
        assert {"turn", "reply", "result"} <= kinds
        mails = deliver_all(mail.db, mail.settings)
        english = english_pieces(LANGUAGE)
        assert "It is your turn in game" in english  # the check sees the mails' English
        found = {}
        for message in mails:
            text = " ".join(f"{message['Subject']}\n{mail_text(message)}".split())
            for piece in english:
                if piece in text:
                    found.setdefault(piece, str(message["Subject"]))
        assert found == {}
        # The wrong lines were answered (in German, as the check above says) and named.
        texts = [mail_text(m) for m in mails]
        assert any("Atlantis" in t for t in texts) and any("frobnicate" in t for t in texts)
    finally:
        mail.close()
