"""Web Push (pbem.notify.push): "your turn" reaches each browser of the player to move, encrypted and signed.

No real push service is reachable here, so a stub on the loopback interface stands in for
one: the test checks the HTTP request pywebpush makes (RFC 8030 headers, the VAPID
signature of RFC 8292 with the server's key) and decrypts its body (RFC 8291, aes128gcm)
with the browser's own keys, as the browser would.
"""

from __future__ import annotations

import base64
import json
import socket
import stat
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils

from pbem import games, jobs, talk
from pbem.models import PushSubscription
from pbem.notify import push
from tests.mail.conftest import verified_user
from tests.notify.stubs import Listener
from tests.support.net import ServedHTTP


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class PushService(ServedHTTP):
    """A push service on 127.0.0.1: keeps each request; answers 201, or what a path's last part asks
    (410, 500; a 3xx sends the browser's push elsewhere on the same service)."""

    def __init__(self):
        self.requests: list[dict] = []
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the http.server name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                service.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
                last = self.path.rsplit("/", 1)[-1]
                self.send_response(int(last) if last.isdigit() else 201)
                if last.startswith("3"):
                    self.send_header("Location", f"{service.base}/push/elsewhere")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_port}"


class Browser:
    """A browser's side of a subscription: its key pair and auth secret, as PushManager.subscribe makes them."""

    def __init__(self, endpoint: str):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = b"sixteen byte key"
        public = self.key.public_key().public_bytes(serialization.Encoding.X962,
                                                    serialization.PublicFormat.UncompressedPoint)
        self.subscription = {"endpoint": endpoint, "keys": {"p256dh": b64url(public), "auth": b64url(self.auth)}}

    def read(self, body: bytes) -> dict:
        return json.loads(http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"))


@pytest.fixture
def service(monkeypatch):
    monkeypatch.setenv("PBEM_PUSH_HOSTS", "127.0.0.1")
    monkeypatch.setenv("PBEM_OUTGOING_ALLOW", "127.0.0.1")  # the stub is inside the site, as a local relay would be
    with PushService() as running:
        yield running


@pytest.fixture
def posted(monkeypatch):
    """The jobs the listeners ask for after the commit (jobs.after_commit), as (name, args)."""
    found = []
    monkeypatch.setattr(jobs, "after_commit", lambda session, name, *args: found.append((name, args)))
    return found


def check_vapid(request: dict, data_dir, audience: str) -> None:
    """The request is signed by the server's VAPID key for this push service (RFC 8292)."""
    scheme, _, params = request["headers"]["authorization"].partition(" ")
    fields = dict(part.strip().split("=", 1) for part in params.split(","))
    assert scheme == "vapid" and fields["k"] == push.public_key(data_dir)
    head, claims, signature = fields["t"].split(".")
    claims_json = json.loads(unb64url(claims))
    assert claims_json["aud"] == audience and claims_json["sub"] == "mailto:pbem@example.org"
    raw = unb64url(signature)
    der = utils.encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(fields["k"]))
    public.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if forged


def test_the_player_to_move_gets_a_push_in_each_of_their_browsers(db, service, posted, tmp_path):
    ana = verified_user(db, "ana@example.org", "Ana")
    ben = verified_user(db, "ben@example.org", "Ben")
    phone, laptop = Browser(f"{service.base}/push/phone"), Browser(f"{service.base}/push/laptop")
    push.subscribe(db, ben, phone.subscription, "phone")
    push.subscribe(db, ben, laptop.subscription, "laptop")
    assert push.count(db, ben) == 2 and push.count(db, ana) == 0
    game_id = games.create_game(db, "counters", ana, 2)
    games.join_game(db, game_id, ben)  # full: it starts
    seat_of = {u: games.view(db, game_id, u)["my_seat"] for u in (ana, ben)}
    first = ana if seat_of[ana] == 0 else ben
    second = ben if first == ana else ana
    games.submit(db, game_id, "take 1", user_id=first)
    games.submit(db, game_id, "take 2", user_id=second)
    games.submit(db, game_id, "take 1", user_id=first)
    # One job per turn of Ben's (he has browsers), none for Ana's turns.
    ben_turns = [v for v in range(4) if (seat_of[ben] == v % 2)]
    assert [args for name, args in posted if name == push.SEND_PUSH] == [(ben, game_id, v) for v in ben_turns]
    version = games.view(db, game_id)["version"]
    if games.view(db, game_id)["to_move"] != seat_of[ben]:
        games.submit(db, game_id, "take 1", user_id=ana)
        version += 1
    assert push.send_turn(db, tmp_path, "pbem@example.org", ben, game_id, version) == 2
    assert sorted(r["path"] for r in service.requests) == ["/push/laptop", "/push/phone"]
    for request in service.requests:
        browser = phone if request["path"].endswith("phone") else laptop
        assert request["headers"]["content-encoding"] == "aes128gcm" and int(request["headers"]["ttl"]) > 0
        check_vapid(request, tmp_path, service.base)
        message = browser.read(request["body"])
        last = games.history(db, game_id)[-1]
        assert message["title"] == f"Your turn: Counters, game {game_id}"
        assert message["body"] == f"{last['player']} played {last['notation']}. Move {version + 1} is yours."
        assert message["url"] == f"/games/{game_id}"
    # The same job delivered twice pushes nothing more; a turn that is over pushes nothing.
    assert push.send_turn(db, tmp_path, "pbem@example.org", ben, game_id, version) == 0
    games.submit(db, game_id, "take 1", user_id=ben)
    assert push.send_turn(db, tmp_path, "pbem@example.org", ben, game_id, version + 1) == 0
    assert push.send_turn(db, tmp_path, "pbem@example.org", ana, game_id, version) == 0
    assert len(service.requests) == 2


def test_34_1_a_message_that_names_a_player_is_pushed_to_their_browsers_whoever_is_to_move(db, service, posted,
                                                                                           tmp_path):
    ana = verified_user(db, "ana@example.org", "Ana")
    ben = verified_user(db, "ben@example.org", "Ben")
    cy = verified_user(db, "cy@example.org", "Cy")
    phone = Browser(f"{service.base}/push/phone")
    push.subscribe(db, ben, phone.subscription, "phone")
    push.subscribe(db, cy, Browser(f"{service.base}/push/cy").subscription, "cy")
    game_id = games.create_game(db, "counters", ana, 3)
    games.join_game(db, game_id, ben)
    games.join_game(db, game_id, cy)
    posted.clear()
    text = "@Ben shall we trade? " + "x" * 200
    message_id = talk.post(db, game_id, ana, text)
    talk.post(db, game_id, ana, "nobody named here")
    jobs_posted = [args for name, args in posted if name == push.SEND_PUSH]
    # One job, for Ben, named; none for Cy (not named) and none for the message naming nobody.
    assert jobs_posted == [(ben, game_id, games.view(db, game_id)["version"], message_id)]
    assert push.send_mention(db, tmp_path, "pbem@example.org", ben, message_id) == 1
    [request] = service.requests
    check_vapid(request, tmp_path, service.base)
    message = phone.read(request["body"])
    assert message["title"] == f"Ana mentioned you: Counters, game {game_id}"
    assert message["body"] == text[:push.MENTION_CHARS - 1] + "\u2026"
    assert message["url"] == f"/games/{game_id}#talk"
    # Delivered twice, pushed once; to someone it is not for (Cy), nothing.
    assert push.send_mention(db, tmp_path, "pbem@example.org", ben, message_id) == 0
    assert push.send_mention(db, tmp_path, "pbem@example.org", cy, message_id) == 0
    assert len(service.requests) == 1


def test_34_1_a_private_message_is_pushed_to_no_one_outside_it(db, service, tmp_path):
    ana = verified_user(db, "ana@example.org", "Ana")
    ben = verified_user(db, "ben@example.org", "Ben")
    cy = verified_user(db, "cy@example.org", "Cy")
    push.subscribe(db, cy, Browser(f"{service.base}/push/cy").subscription, "cy")
    game_id = games.create_game(db, "counters", ana, 3)
    games.join_game(db, game_id, ben)
    games.join_game(db, game_id, cy)
    seats = {u: games.view(db, game_id, u)["my_seat"] for u in (ana, ben, cy)}
    message_id = talk.post(db, game_id, ana, "@Cy between us: Ben bluffs", to=(seats[ben],))
    # Cy is named but the message is to Ben only: a job for Cy, if one were posted, pushes nothing.
    assert push.send_mention(db, tmp_path, "pbem@example.org", cy, message_id) == 0
    assert service.requests == []


def test_a_browser_the_push_service_calls_gone_is_forgotten_and_one_that_keeps_failing_too(db, service, tmp_path):
    ana = verified_user(db, "ana@example.org", "Ana")
    ben = verified_user(db, "ben@example.org", "Ben")
    push.subscribe(db, ben, Browser(f"{service.base}/push/old/410").subscription)
    push.subscribe(db, ben, Browser(f"{service.base}/push/flaky/500").subscription)
    game_id = games.create_game(db, "counters", ben, 2)
    games.join_game(db, game_id, ana)
    if games.view(db, game_id, ben)["my_seat"] != games.view(db, game_id)["to_move"]:
        games.submit(db, game_id, "take 1", user_id=ana)
    version = games.view(db, game_id)["version"]
    assert push.send_turn(db, tmp_path, "pbem@example.org", ben, game_id, version) == 0
    with db.sessions() as s:
        left = list(s.scalars(db_subscriptions(ben)))
    assert [x.endpoint.rsplit("/", 2)[1] for x in left] == ["flaky"] and left[0].failures == 1
    for _ in range(push.MAX_FAILURES - 1):
        push.send_turn(db, tmp_path, "pbem@example.org", ben, game_id, version)
    assert push.count(db, ben) == 0


def db_subscriptions(user_id):
    from sqlalchemy import select

    return select(PushSubscription).where(PushSubscription.user_id == user_id).order_by(PushSubscription.id)


def test_only_endpoints_of_known_push_services_are_kept(db, monkeypatch):
    monkeypatch.delenv("PBEM_PUSH_HOSTS", raising=False)
    ana = verified_user(db, "ana@example.org", "Ana")
    good = Browser("https://fcm.googleapis.com/fcm/send/abc").subscription
    for endpoint, message in [("https://evil.example.org/collect", "not a push service"),
                              ("http://fcm.googleapis.com/fcm/send/abc", "https"),
                              ("http://127.0.0.1:8080/push", "not a push service"),
                              ("https://fcm.googleapis.com.evil.example.org/x", "not a push service")]:
        with pytest.raises(push.SubscriptionError, match=message):
            push.subscribe(db, ana, {**good, "endpoint": endpoint})
    for bad in ({}, {"endpoint": good["endpoint"]}, {**good, "keys": {"p256dh": "", "auth": "x"}}, "text"):
        with pytest.raises(push.SubscriptionError):
            push.subscribe(db, ana, bad)
    push.subscribe(db, ana, good)
    push.subscribe(db, ana, good)  # the same browser again: still one
    assert push.count(db, ana) == 1
    assert push.unsubscribe(db, ana, good["endpoint"]) == 1 and push.count(db, ana) == 0


def test_the_vapid_key_is_made_once_beside_the_secret(tmp_path):
    first = push.public_key(tmp_path)
    path = tmp_path / push.KEY_FILE
    assert path.exists() and stat.S_IMODE(path.stat().st_mode) == 0o600
    push.public_key.cache_clear()
    assert push.public_key(tmp_path) == first and len(unb64url(first)) == 65 and unb64url(first)[0] == 4


# --- issue 31 item 5: the push goes where the allow-list looked -----------------------------------------------


def ben_to_move(db) -> tuple[int, int, int]:
    """Ben (who will subscribe) and Ana at a game of counters where it is Ben's turn: (ben, game, version)."""
    ana = verified_user(db, "ana@example.org", "Ana")
    ben = verified_user(db, "ben@example.org", "Ben")
    game_id = games.create_game(db, "counters", ben, 2)
    games.join_game(db, game_id, ana)
    if games.view(db, game_id, ben)["my_seat"] != games.view(db, game_id)["to_move"]:
        games.submit(db, game_id, "take 1", user_id=ana)
    return ben, game_id, games.view(db, game_id)["version"]


def keep_as_before(db, user_id: int, endpoint: str) -> None:
    """A subscription row as an earlier version kept it: the endpoint's text as the browser (or anyone) sent it."""
    keys = Browser(endpoint).subscription["keys"]
    with db.transaction() as s:
        s.add(PushSubscription(user_id=user_id, endpoint=endpoint, p256dh=keys["p256dh"], auth=keys["auth"]))


@pytest.mark.parametrize(("endpoint", "kept"), [
    ("https://127.0.0.1\\@fcm.googleapis.com/fcm/send/abc", "not a push service"),  # the bypass
    ("https://fcm.googleapis.com\\@127.0.0.1/fcm/send/abc", "not a push service"),
    ("https://fcm.googleapis.com@127.0.0.1/fcm/send/abc", "not a push service"),
    ("https://fcm.googleapis.com:x@127.0.0.1/", "not a push service"),
    ("https://fcm.googleapis.com%2f@127.0.0.1/", "not a push service"),
    ("https://fcm.googleapis.com%2e/fcm/send/abc", "not a push service"),
    ("https://fcm.googleapis.com\t/fcm/send/abc", "not a push service"),
    ("https://2130706433/fcm/send/abc", "127.0.0.1 is not a push service"),
    ("https://0x7f.1/fcm/send/abc", "127.0.0.1 is not a push service"),
    ("https://[::ffff:127.0.0.1]/fcm/send/abc", "is not a push service"),
    ("https://[fe80::1%25eth0]/fcm/send/abc", "not a push service"),
    ("https://fcm.googleapis.com.evil.example/x", "fcm.googleapis.com.evil.example is not a push service"),
    ("https://bücher.example/x", "xn--bcher-kva.example is not a push service"),
    ("http://fcm.googleapis.com/fcm/send/abc", "https"),
    ("ftp://fcm.googleapis.com/fcm/send/abc", "not a push service"),
    ("https://FCM.GoogleAPIs.com./fcm/send/abc", "https://fcm.googleapis.com/fcm/send/abc"),
    ("https://fcm.googleapis.com:443/fcm/send/abc", "https://fcm.googleapis.com/fcm/send/abc"),
    ("https://updates.push.services.mozilla.com/wpush/v2/gAAA", "https://updates.push.services.mozilla.com/wpush/v2/gAAA"),
])
def test_31_5_an_endpoint_is_judged_by_the_host_the_push_goes_to_and_kept_as_it_is_sent(db, monkeypatch, endpoint,
                                                                                         kept):
    monkeypatch.delenv("PBEM_PUSH_HOSTS", raising=False)
    ana = verified_user(db, "ana@example.org", "Ana")
    if not kept.startswith("https://"):
        with pytest.raises(push.SubscriptionError, match=kept):
            push.subscribe(db, ana, Browser(endpoint).subscription)
        assert push.count(db, ana) == 0
        return
    push.subscribe(db, ana, Browser(endpoint).subscription)
    with db.sessions() as s:
        assert [x.endpoint for x in s.scalars(db_subscriptions(ana))] == [kept]
    push.subscribe(db, ana, Browser(kept).subscription)  # the same browser in either form: still one
    assert push.count(db, ana) == 1
    assert push.unsubscribe(db, ana, endpoint) == 1  # the browser leaves with the text it knows


def test_31_5_a_kept_endpoint_the_parsers_read_differently_is_dropped_without_a_connection(db, monkeypatch, tmp_path):
    """`https://127.0.0.1:PORT\\@fcm.googleapis.com/...`: urllib.parse read fcm.googleapis.com, urllib3
    connected to 127.0.0.1. A row kept before the fix is dropped when it is next pushed to, and nothing
    connects to the address."""
    monkeypatch.delenv("PBEM_PUSH_HOSTS", raising=False)
    ben, game_id, version = ben_to_move(db)
    with Listener() as inside:
        endpoint = f"https://127.0.0.1:{inside.port}\\@fcm.googleapis.com/fcm/send/abc"
        keep_as_before(db, ben, endpoint)
        assert push.send_turn(db, tmp_path, "pbem@example.org", ben, game_id, version) == 0
        with pytest.raises(push.SubscriptionError):
            push.subscribe(db, ben, Browser(endpoint).subscription)
    assert inside.connections == 0
    assert push.count(db, ben) == 0


def test_31_5_a_push_service_whose_name_resolves_inside_the_site_is_not_reached(db, monkeypatch, tmp_path):
    """The endpoint's host is a known push service, but the name resolves to a loopback address (a
    poisoned resolver, a hosts file, DNS rebinding): the worker does not connect, and counts a failure."""
    monkeypatch.delenv("PBEM_PUSH_HOSTS", raising=False)
    monkeypatch.delenv("PBEM_OUTGOING_ALLOW", raising=False)
    ben, game_id, version = ben_to_move(db)
    system = socket.getaddrinfo

    def poisoned(host, port, *args, **kwargs):
        return system("127.0.0.1" if host == "fcm.googleapis.com" else host, port, *args, **kwargs)

    with Listener() as inside:
        push.subscribe(db, ben, Browser(f"https://fcm.googleapis.com:{inside.port}/fcm/send/abc").subscription)
        monkeypatch.setattr(socket, "getaddrinfo", poisoned)
        assert push.send_turn(db, tmp_path, "pbem@example.org", ben, game_id, version) == 0
    assert inside.connections == 0
    with db.sessions() as s:
        assert [x.failures for x in s.scalars(db_subscriptions(ben))] == [1]  # counted, as an unreachable service


def test_31_5_a_push_service_that_redirects_is_not_followed(db, service, tmp_path):
    ben, game_id, version = ben_to_move(db)
    push.subscribe(db, ben, Browser(f"{service.base}/push/moved/307").subscription)
    assert push.send_turn(db, tmp_path, "pbem@example.org", ben, game_id, version) == 0
    assert [r["path"] for r in service.requests] == ["/push/moved/307"]  # /push/elsewhere never asked
    with db.sessions() as s:
        assert [x.failures for x in s.scalars(db_subscriptions(ben))] == [1]


# --- issue 32 item 2: the notify package decides who is told, each channel how ------------------------------------


def test_32_2_the_push_follows_the_turn_notice_whatever_the_mail_settings_say(db, service, posted):
    """One turn notice, two channels: Ben switched his mails off (/notify none), so the mail channel writes
    no turn mail, but his browser still gets the push; Ana has no browser and mails as usual."""
    from sqlalchemy import select

    from pbem.models import OutboundMail, User

    ana = verified_user(db, "ana@example.org", "Ana")
    ben = verified_user(db, "ben@example.org", "Ben")
    with db.transaction() as s:
        s.get(User, ben).notify = "none"
    push.subscribe(db, ben, Browser(f"{service.base}/push/phone").subscription, "phone")
    game_id = games.create_game(db, "counters", ana, 2)
    games.join_game(db, game_id, ben)
    seat_of = {u: games.view(db, game_id, u)["my_seat"] for u in (ana, ben)}
    if games.view(db, game_id)["to_move"] == seat_of[ben]:
        games.submit(db, game_id, "take 1", user_id=ben)
    games.submit(db, game_id, "take 1", user_id=ana)  # the turn passes to Ben
    version = games.view(db, game_id)["version"]
    assert (push.SEND_PUSH, (ben, game_id, version)) in posted
    assert all(args[0] != ana for name, args in posted if name == push.SEND_PUSH)
    with db.sessions() as s:
        turn_mails = list(s.scalars(select(OutboundMail.user_id).where(OutboundMail.kind == "turn")))
    assert ben not in turn_mails and ana in turn_mails
