"""Issue 34, "Must show": docs/mail.md shows a conversation by mail as the service writes it, and this
keeps it true.

Ann, Bea and Cid play Tongiaki on a scratch database (the service of tests/mail/test_33_docs_transcripts:
fixed secret key and nonces, so the keys in the addresses are the same at every run). Ann sends
`/say GAME @Bea ...` to her command address; the transcripts are that mail, Ann's answer, the message
mail Bea gets (from "Ann (pbem)", its Reply-To the talk key of that message, in the game's thread),
Bea's reply to it as a mail client writes it, Bea's answer, and the message mail Ann then gets.

In docs/mail.md each stands between `<!-- transcript: talk/NAME -->` and `<!-- /transcript -->` (the
"talk/" names are this file's: the marker of test_33 takes names without "/", so each test reads only
its own). `python -m tests.mail.test_34_docs_conversation --write` writes them again.
"""

from __future__ import annotations

import re
import sys
import tempfile
from email import policy
from email.parser import BytesParser
from pathlib import Path

import pytest
from sqlalchemy import select

from pbem.mail import inbound
from pbem.models import OutboundMail
from tests.mail.conftest import command_address
from tests.mail.test_33_docs_transcripts import DOC, DocTable, Scene, Service, address, block, paste_example, \
    shown
from tests.support.mail import client_mail

MARKED = re.compile(r"<!-- transcript: (?P<name>talk/[\w-]+) -->\n(?P<body>.*?)<!-- /transcript -->", re.DOTALL)
SCENE = Scene("talk", "tongiaki", 3, 2, 2, paste_example)  # three players, two turns played
NAMES = ("say", "say-answer", "message-mail", "reply", "reply-answer", "answer-mail")
SAID = "Truce in the east until move 10? I leave Tahiti to you."
ANSWERED = "Agreed, Ann. Tahiti is mine, the east is quiet until move 10."


def newest(service: Service, kind: str, recipient: str) -> int:
    """The newest outbox row of a kind written to `recipient` (answers to the command address included)."""
    with service.db.sessions() as s:
        return s.scalars(select(OutboundMail.id).where(OutboundMail.kind == kind, OutboundMail.recipient == recipient)
                         .order_by(OutboundMail.id.desc())).first()


def converse(service: Service) -> tuple[dict[str, str], dict[str, object]]:
    """The conversation played through the mail doors: the transcripts by name, and the parsed mails."""
    table = DocTable(service, SCENE)
    ann, bea = address("Ann"), address("Bea")
    turn = service.send(service.newest(table.game_id, "turn", table.by_seat[table.seat()]))
    _, say = client_mail(ann, command_address(service.db, service.settings, ann), f"Game {table.game_id}",
                         f"/say {table.game_id} @Bea {SAID}\n\n-- \nAnn", "example.org")
    assert inbound.receive(service.db, say, service.settings).outcome == "done"
    say_answer = service.send(newest(service, "reply", ann))
    message = service.send(newest(service, "message", bea))
    _, reply = client_mail(bea, str(message["Reply-To"]), f"Re: {message['Subject']}",
                           f"{ANSWERED}\n\n-- \nBea", "example.org", reply_to=message)
    assert inbound.receive(service.db, reply, service.settings).outcome == "done"
    reply_answer = service.send(newest(service, "reply", bea))
    answer = service.send(newest(service, "message", ann))
    assert newest(service, "message", address("Cid")) is None  # not named: Cid is mailed neither message
    mails = {"turn": turn, "say": parsed(say), "say-answer": say_answer, "message-mail": message,
             "reply": parsed(reply), "reply-answer": reply_answer, "answer-mail": answer}
    return {f"talk/{name}": shown(mails[name]) for name in NAMES}, mails


def parsed(raw: bytes):
    return BytesParser(policy=policy.default).parsebytes(raw)


def transcripts(folder: Path) -> tuple[dict[str, str], dict[str, object]]:
    service = Service(folder)
    try:
        return converse(service)
    finally:
        service.close()


def marked(doc: str) -> dict[str, str]:
    return {found["name"]: found["body"] for found in MARKED.finditer(doc)}


def rewritten(doc: str, made: dict[str, str]) -> str:
    return MARKED.sub(lambda found: f"<!-- transcript: {found['name']} -->\n{block(made[found['name']])}"
                      f"<!-- /transcript -->" if found["name"] in made else found[0], doc)


@pytest.fixture(scope="module")
def conversation(tmp_path_factory):
    return transcripts(tmp_path_factory.mktemp("docs_conversation"))


def test_34_must_show_docs_mail_marks_the_conversation(conversation):
    made, _mails = conversation
    assert set(marked(DOC.read_text())) == set(made)


@pytest.mark.parametrize("name", [f"talk/{name}" for name in NAMES])
def test_34_must_show_the_conversation_in_docs_mail_is_what_the_service_writes(conversation, name):
    made, _mails = conversation
    assert marked(DOC.read_text()).get(name) == block(made[name]), (
        f"docs/mail.md, transcript {name}, differs from what the service writes: run "
        f"`python -m tests.mail.test_34_docs_conversation --write` and read the change")


def test_34_1_the_message_mail_comes_from_the_author_in_the_games_thread_with_a_talk_key(conversation):
    """What the doc says of the message mails holds for the ones shown: from the author's name, a talk key
    as Reply-To (not the turn's key), in the thread of the game's mails; Cid, not named, gets nothing."""
    made, mails = conversation
    turn, message, answer = mails["turn"], mails["message-mail"], mails["answer-mail"]
    assert message["From"].addresses[0].display_name == "Ann (pbem)"
    assert answer["From"].addresses[0].display_name == "Bea (pbem)"
    game_thread = re.compile(r"<pbem\.game\.(\d+)\.\w+@pbem\.example>")
    for mail in (message, answer):
        assert re.fullmatch(r"pbem\+m\d+\.[\w.-]+@pbem\.example", mail["Reply-To"].addresses[0].addr_spec)
        assert str(mail["Reply-To"]) != str(turn["Reply-To"])
        root = game_thread.search(str(mail["References"] or mail["Message-ID"]))  # the reader's thread of the game
        assert root and root.group(1) == game_thread.search(str(turn["Message-ID"])).group(1)
    assert str(turn["Message-ID"]) in str(answer["References"])  # Ann's: under her turn mail
    assert SAID in made["talk/message-mail"] and ANSWERED in made["talk/answer-mail"]
    assert str(message["Reply-To"]) != str(answer["Reply-To"])  # each reader's own key


def main(argv: list[str]) -> int:
    if argv != ["--write"]:
        print("usage: python -m tests.mail.test_34_docs_conversation --write", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as folder:
        made, _mails = transcripts(Path(folder))
    DOC.write_text(rewritten(DOC.read_text(), made))
    for name, text in made.items():
        print(f"{name}: {len(text.splitlines())} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
