"""The settings page's Web Push opt-in: the server's key, a browser's subscription kept and dropped, refusals."""

from __future__ import annotations

import base64

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from pbem.notify import push
from tests.web.conftest import csrf_of


def subscription(endpoint="https://fcm.googleapis.com/fcm/send/abc123"):
    public = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return {"endpoint": endpoint, "expirationTime": None,
            "keys": {"p256dh": base64.urlsafe_b64encode(public).rstrip(b"=").decode(), "auth": "c2l4dGVlbiBieXRlcw"}}


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("PBEM_PUSH_HOSTS", raising=False)
    return tmp_path


def test_a_browser_subscribes_and_leaves_from_the_settings_page(client, db, players, data_dir):
    ana = players[0]
    page = ana.client.get("/settings").get_data(as_text=True)
    assert 'id="push-settings"' in page and "push.js" in page
    key = client.get("/push/key").get_json()["key"]
    assert key == push.public_key(data_dir)
    token = csrf_of(ana.client, "/settings")
    sent = subscription()
    answer = ana.client.post("/push/subscribe", json=sent, headers={"X-CSRFToken": token})
    assert answer.status_code == 200 and answer.get_json() == {"ok": True, "count": 1}
    assert push.count(db, ana.id) == 1 and push.count(db, players[1].id) == 0
    answer = ana.client.post("/push/unsubscribe", json={"endpoint": sent["endpoint"]}, headers={"X-CSRFToken": token})
    assert answer.get_json() == {"ok": True, "count": 0}


def test_subscriptions_are_refused_without_a_login_a_token_or_a_push_service(client, db, players, data_dir):
    ana = players[0]
    assert client.post("/push/subscribe", json=subscription()).status_code in (302, 400)
    assert ana.client.post("/push/subscribe", json=subscription()).status_code == 400  # no CSRF token
    token = csrf_of(ana.client, "/settings")
    answer = ana.client.post("/push/subscribe", json=subscription("https://intranet.example.org/admin"),
                             headers={"X-CSRFToken": token})
    assert answer.status_code == 400 and "not a push service" in answer.get_json()["message"]
    assert push.count(db, ana.id) == 0
