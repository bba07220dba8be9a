"""The IMAP door against a real IMAP server (Dovecot, started for the test on a free loopback port)."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from imapclient import IMAPClient

from pbem import games
from pbem.mail import imap
from tests.conftest import service_missing
from tests.mail.conftest import compose, counters_game, deliver_all, reply_to

CONFIG = """protocols = imap
listen = 127.0.0.1
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain
passdb {{
  driver = static
  args = password=secret
}}
userdb {{
  driver = static
  args = uid=dovecot gid=dovecot home={root}/home/%u
}}
mail_location = maildir:{root}/home/%u/Maildir
first_valid_uid = 1
default_internal_user = dovecot
default_login_user = dovenull
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  chroot =
}}
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def imap_server():
    binary = shutil.which("dovecot") or ("/usr/sbin/dovecot" if os.path.exists("/usr/sbin/dovecot") else None)
    if binary is None:
        service_missing("Dovecot (the IMAP server of the IMAP tests)", FileNotFoundError("dovecot not installed"))
    if os.geteuid() != 0:
        pytest.skip("Dovecot switches to its mail user, which needs root")
    try:
        mail_user = pwd.getpwnam("dovecot")
    except KeyError as error:
        service_missing("Dovecot's user", error)
    root = Path(tempfile.mkdtemp(prefix="pbem-imap-"))
    for sub in ("run", "state", "home"):
        (root / sub).mkdir()
    os.chmod(root, 0o755)
    os.chown(root / "home", mail_user.pw_uid, mail_user.pw_gid)
    port = _free_port()
    (root / "dovecot.conf").write_text(CONFIG.format(root=root, port=port))
    process = subprocess.Popen([binary, "-F", "-c", str(root / "dovecot.conf")], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                process.wait()
                service_missing("Dovecot", RuntimeError((root / "dovecot.log").read_text()[-300:]
                                                        if (root / "dovecot.log").exists() else "did not start"))
            time.sleep(0.1)
    yield f"imap://player:secret@127.0.0.1:{port}/INBOX", port
    process.terminate()
    process.wait(timeout=30)
    shutil.rmtree(root, ignore_errors=True)


def test_the_poller_takes_new_mail_once_and_marks_it(db, settings, imap_server):
    url, port = imap_server
    game_id, by_seat = counters_game(db)
    turn = deliver_all(db, settings)[0]
    with IMAPClient("127.0.0.1", port=port, ssl=False) as client:
        client.login("player", "secret")
        client.append("INBOX", compose(by_seat[0], reply_to(turn), "take 2"))
        client.append("INBOX", compose("news@shop.example", "player@example.org", "Big sale!",
                                       headers={"List-Id": "<offers.shop.example>"}))
    first = imap.poll(db, settings, url)
    assert sorted(r.outcome for r in first) == ["done", "list"]
    assert [m["notation"] for m in games.history(db, game_id)] == ["take 2"]
    assert imap.poll(db, settings, url) == []  # taken messages are marked, not read again
    with IMAPClient("127.0.0.1", port=port, ssl=False) as client:
        client.login("player", "secret")
        client.select_folder("INBOX")
        flags = client.get_flags(client.search(["ALL"]))
        assert all(imap.TAKEN in f for f in flags.values()) and len(flags) == 2


def test_19_10_the_same_mail_by_imap_twice_and_by_smtp_is_applied_and_answered_once(db, settings, imap_server):
    """Issue 19, item 10, at the IMAP door: two pollers and the SMTP listener take one mail at once."""
    import threading

    from sqlalchemy import select

    from pbem.models import OutboundMail
    from tests.mail.smtp_world import MailWorld

    url, port = imap_server
    world = MailWorld(db, settings)
    try:
        game_id, by_seat = counters_game(db)
        turn = world.flush()[by_seat[0]][-1]
        raw = compose(by_seat[0], reply_to(turn), "take 2", message_id="<three-ways@example.org>")
        with IMAPClient("127.0.0.1", port=port, ssl=False) as client:
            client.login("player", "secret")
            client.append("INBOX", raw)
        doors = [threading.Thread(target=imap.poll, args=(db, world.settings, url)) for _ in range(2)]
        doors.append(threading.Thread(target=world.send, args=(by_seat[0], reply_to(turn), raw)))
        for door in doors:
            door.start()
        for door in doors:
            door.join()
        assert [m["notation"] for m in games.history(db, game_id)] == ["take 2"]
        with db.sessions() as s:
            answers = [h for h in s.scalars(select(OutboundMail.headers).where(OutboundMail.kind == "reply"))
                       if h.get("in_reply_to") == "<three-ways@example.org>"]
        assert len(answers) == 1
    finally:
        world.close()
