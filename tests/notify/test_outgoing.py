"""Requests to user-given URLs (pbem.notify.outgoing, issue 31 item 5): read once, sent as read,
and never connected to an address inside the site.

The address policy is what the tests vary: a stub server on 127.0.0.1 is itself inside the site,
so the tests that need one allow exactly 127.0.0.1 and show the refusal with every other address;
names are resolved by a stand-in resolver where a test needs a name to mean an address.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlparse, urlsplit

import pytest
import requests
from hypothesis import given, settings
from hypothesis import strategies as st
from urllib3.util import parse_url

from pbem.notify import outgoing
from pbem.notify.outgoing import AddressPolicy, AddressRefusedError, URLRefusedError
from tests.notify.stubs import Listener, StubServer, certificates

ONLY_LOOPBACK_ONE = AddressPolicy((ipaddress.ip_network("127.0.0.1/32"),))  # the stub servers' address, no other

# (what a user gave, what is sent: None when it is refused)
URLS = [
    # the bypass, and backslashes wherever they are
    ("https://127.0.0.1\\@fcm.googleapis.com/fcm/send/x", None),
    ("https://fcm.googleapis.com\\@127.0.0.1/", None),
    ("https://fcm.googleapis.com/fcm\\send", None),
    # user names and passwords, and '@' that only one parser takes for one
    ("https://fcm.googleapis.com@127.0.0.1/", None),
    ("https://user:pass@fcm.googleapis.com/x", None),
    ("https://@fcm.googleapis.com/x", None),
    ("https://fcm.googleapis.com/@127.0.0.1", "https://fcm.googleapis.com/@127.0.0.1"),
    ("https://127.0.0.1#@fcm.googleapis.com/", "https://127.0.0.1/"),
    ("https://127.0.0.1?@fcm.googleapis.com/", "https://127.0.0.1/?@fcm.googleapis.com/"),
    # percent-encoding in the host
    ("https://fcm%2egoogleapis.com/x", None),
    ("https://127.0.0.1%2f.fcm.googleapis.com/", None),
    ("https://fcm.googleapis.com%40127.0.0.1/", None),
    # IPv4 however it is written
    ("https://2130706433/", "https://127.0.0.1/"),
    ("https://0177.0.0.1/", "https://127.0.0.1/"),
    ("https://0x7f.1/", "https://127.0.0.1/"),
    ("https://0X7F.0.0.1/", "https://127.0.0.1/"),
    ("https://127.1/", "https://127.0.0.1/"),
    ("https://127.0.1/", "https://127.0.0.1/"),
    ("https://0x7f000001/", "https://127.0.0.1/"),
    ("https://017700000001/", "https://127.0.0.1/"),
    ("https://0/", "https://0.0.0.0/"),
    ("https://169.254.169.254./latest", "https://169.254.169.254/latest"),
    ("https://1.2.3.256/", None),
    ("https://08.0.0.1/", None),
    ("https://1.2.3.4.5/", None),
    ("https://fcm.googleapis.1/", None),
    ("https://4294967296/", None),
    # IPv6 literals
    ("https://[::1]/", "https://[::1]/"),
    ("https://[0:0:0:0:0:0:0:1]:8443/x", "https://[::1]:8443/x"),
    ("https://[::ffff:127.0.0.1]/", f"https://[{ipaddress.ip_address('::ffff:127.0.0.1')}]/"),
    ("https://[::FFFF:7F00:1]/", f"https://[{ipaddress.ip_address('::ffff:127.0.0.1')}]/"),
    ("https://[fe80::1%25eth0]/", None),
    ("https://[fe80::1%eth0]/", None),
    ("https://[::1/", None),
    ("https://[1:2]/", None),
    # trailing dots, case, ports
    ("https://FCM.GoogleAPIs.COM./fcm/send/AbC", "https://fcm.googleapis.com/fcm/send/AbC"),
    ("https://fcm.googleapis.com../", None),
    ("https://fcm..googleapis.com/", None),
    ("HTTPS://fcm.googleapis.com:443/x", "https://fcm.googleapis.com/x"),
    ("https://fcm.googleapis.com:8443/x", "https://fcm.googleapis.com:8443/x"),
    ("https://fcm.googleapis.com:0/", None),
    ("https://fcm.googleapis.com:65536/", None),
    ("https://fcm.googleapis.com:+443/", None),
    ("https://fcm.googleapis.com:0x1bb/", None),
    # internationalised names: sent as IDNA A-labels; what IDNA refuses is refused
    ("https://bücher.example/", "https://xn--bcher-kva.example/"),
    ("https://xn--bcher-kva.example/", "https://xn--bcher-kva.example/"),
    ("https://ｆｃｍ.googleapis.com/", None),
    ("https://fcm.googleapis.com。evil.example/", None),
    ("https://a_b.example/", None),
    # other schemes, and no scheme
    ("http://fcm.googleapis.com/x", None),
    ("ftp://fcm.googleapis.com/", None),
    ("file:///etc/passwd", None),
    ("javascript:alert(1)", None),
    ("//fcm.googleapis.com/x", None),
    ("https:fcm.googleapis.com/x", None),
    ("https:///fcm.googleapis.com/", None),
    # white space, control and invisible characters anywhere
    (" https://fcm.googleapis.com/", None),
    ("https://fcm.googleapis.com/ ", None),
    ("https://fcm.googleapis.com\t.evil.example/", None),
    ("https://fcm.googleapis.com/\r\nX-Injected: 1", None),
    ("https://127.0.0.1\x00.fcm.googleapis.com/", None),
    ("https://fcm.googleapis.com\u200b/", None),
    ("https://fcm.googleapis.com\u202e/", None),
    ("https://fcm.googleapis.com\u00a0/", None),
    # what is kept of a path: the fragment is never sent
    ("https://fcm.googleapis.com/fcm/send/a?b=c#d", "https://fcm.googleapis.com/fcm/send/a?b=c"),
    ("https://fcm.googleapis.com", "https://fcm.googleapis.com/"),
]


@pytest.mark.parametrize(("given", "sent"), URLS)
def test_31_5_a_user_given_url_is_read_once_and_sent_as_read(given, sent):
    if sent is None:
        with pytest.raises(URLRefusedError):
            outgoing.normalise(given)
        return
    destination = outgoing.normalise(given)
    assert destination.url == sent
    readers_agree(destination)


def readers_agree(destination: outgoing.Destination) -> None:
    """Every parser on the way reads the host and port of the URL that is sent as the allow-list did:
    urllib.parse (pywebpush's VAPID audience, requests' connection pool), urllib3 (requests' request)."""
    url = destination.url
    host_in_url = f"[{destination.host}]" if ":" in destination.host else destination.host
    assert urlsplit(url).hostname == urlparse(url).hostname == destination.host
    assert (urlsplit(url).port or 443) == destination.port
    assert parse_url(url).host == host_in_url and (parse_url(url).port or 443) == destination.port
    prepared = requests.Request("POST", url).prepare()
    assert prepared.url == url and parse_url(prepared.url).host == host_in_url


def test_31_5_the_allow_list_takes_a_host_and_the_names_below_it_only():
    hosts = ("fcm.googleapis.com", "127.0.0.1")
    on = {url: outgoing.normalise(url).on(hosts) for url in [
        "https://fcm.googleapis.com/x", "https://eu.fcm.googleapis.com/x", "https://FCM.googleapis.com./x",
        "https://fcm.googleapis.com.evil.example/x", "https://evilfcm.googleapis.com/x",
        "https://googleapis.com/x", "https://127.0.0.1/", "https://0x7f.1/", "https://2130706433/",
        "https://127.0.0.2/"]}
    assert on == {
        "https://fcm.googleapis.com/x": True, "https://eu.fcm.googleapis.com/x": True,
        "https://FCM.googleapis.com./x": True, "https://fcm.googleapis.com.evil.example/x": False,
        "https://evilfcm.googleapis.com/x": False, "https://googleapis.com/x": False,
        "https://127.0.0.1/": True, "https://0x7f.1/": True, "https://2130706433/": True,
        "https://127.0.0.2/": False}
    for url in ("https://127.0.0.1/x", "https://127.0.0.1\\@fcm.googleapis.com/x"):
        with pytest.raises(URLRefusedError):  # before any connection is tried
            outgoing.request("POST", url, hosts=("fcm.googleapis.com",))


# Pieces that have fooled URL parsers; any string of them is a URL someone could send.
PIECES = ["https://", "http://", "fcm.googleapis.com", "127.0.0.1", "0x7f.1", "[::1]", "@", "\\", "/", "?", "#",
          ":", ":443", ".", "%2e", "%40", "%5c", "evil.example", " ", "\t", "user:pw", "[", "]", "。", "ｆ", "0"]


@settings(max_examples=400, deadline=None, database=None, derandomize=True)
@given(st.builds(lambda scheme, before, host, after: scheme + "".join(before) + host + "".join(after),
                 st.sampled_from(["https://", "http://"]), st.lists(st.sampled_from(PIECES), max_size=3),
                 st.sampled_from(["fcm.googleapis.com", "127.0.0.1", "[::1]"]), st.lists(st.sampled_from(PIECES), max_size=5)))
def test_31_5_whatever_a_url_is_made_of_an_allowed_host_is_the_host_the_request_goes_to(url):
    try:
        destination = outgoing.normalise(url, schemes=("https", "http"))
    except URLRefusedError:
        return
    readers_agree_any_scheme(destination)
    if destination.on(("fcm.googleapis.com",)):
        host = parse_url(requests.Request("POST", destination.url).prepare().url).host
        assert host == "fcm.googleapis.com" or host.endswith(".fcm.googleapis.com")


def readers_agree_any_scheme(destination: outgoing.Destination) -> None:
    url = destination.url
    default = outgoing.DEFAULT_PORTS[destination.scheme]
    host_in_url = f"[{destination.host}]" if ":" in destination.host else destination.host
    assert urlsplit(url).hostname == destination.host and (urlsplit(url).port or default) == destination.port
    assert parse_url(url).host == host_in_url and (parse_url(url).port or default) == destination.port


# --- the addresses a request may reach ----------------------------------------------------------------------

INSIDE = ["127.0.0.1", "127.255.255.254", "10.0.0.1", "172.16.0.1", "192.168.1.1", "100.64.0.1",
          "169.254.169.254", "0.0.0.0", "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255",
          "192.0.2.1", "198.18.0.1", "192.0.0.1", "192.88.99.1",
          "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "fec0::1", "ff02::1", "ff0e::1",
          "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::127.0.0.1",
          "64:ff9b::7f00:1", "64:ff9b::a00:1", "64:ff9b:1::1", "2002:7f00:1::1", "2002:a00:1::1",
          "2001::1", "2001:db8::1", "3fff::1", "100::1", "5f00::1"]
OUTSIDE = ["8.8.8.8", "142.250.74.42", "2607:f8b0:4004:800::200e", "2a00:1450:4001:82a::200a",
           "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"]


@pytest.mark.parametrize("address", INSIDE)
def test_31_5_no_address_inside_the_site_is_public(address):
    assert not outgoing.is_public(ipaddress.ip_address(address))
    assert not AddressPolicy().allows(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", OUTSIDE)
def test_31_5_public_addresses_are_public(address):
    assert outgoing.is_public(ipaddress.ip_address(address))


def test_31_5_the_operator_may_allow_networks_inside_the_site(monkeypatch):
    monkeypatch.setenv("PBEM_OUTGOING_ALLOW", " 127.0.0.1, 10.1.0.0/16 ")
    policy = AddressPolicy.from_environment()
    allowed = {a: policy.allows(ipaddress.ip_address(a))
               for a in ["127.0.0.1", "::ffff:127.0.0.1", "10.1.2.3", "127.0.0.2", "10.2.0.1", "::1", "8.8.8.8"]}
    assert allowed == {"127.0.0.1": True, "::ffff:127.0.0.1": True, "10.1.2.3": True, "127.0.0.2": False,
                       "10.2.0.1": False, "::1": False, "8.8.8.8": True}
    monkeypatch.setenv("PBEM_OUTGOING_ALLOW", "127.0.0.1, intranet")
    with pytest.raises(ValueError, match="PBEM_OUTGOING_ALLOW"):
        AddressPolicy.from_environment()
    monkeypatch.delenv("PBEM_OUTGOING_ALLOW")
    assert AddressPolicy.from_environment() == AddressPolicy()


# --- the connection -----------------------------------------------------------------------------------------


def resolver(table: dict[str, list[str]]):
    """A stand-in for DNS: each name to its addresses; nothing else resolves."""

    def resolve(host, port):
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [ipaddress.ip_address(a) for a in table[host]]

    return resolve


@pytest.mark.parametrize("host", ["127.0.0.1", "2130706433", "0177.0.0.1", "0x7f.1", "127.1", "127.0.0.01",
                                  "localhost", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]"])
def test_31_5_the_connection_refuses_loopback_however_the_url_names_it(host):
    """Checked where the connection is made, after the system resolves the host, even for a URL
    that never went through `normalise` (a session used directly)."""
    with Listener() as listener, outgoing.session(AddressPolicy()) as http:
        with pytest.raises(AddressRefusedError, match="outgoing requests may not reach"):
            http.post(f"http://{host}:{listener.port}/push", data=b"x", timeout=5)
    assert listener.connections == 0


@pytest.mark.parametrize("addresses", [["10.0.0.7"], ["127.0.0.1"], ["169.254.169.254"], ["fd00::7"],
                                       ["::ffff:192.168.0.1"], ["93.184.215.14", "127.0.0.1"]])
def test_31_5_a_name_that_resolves_inside_the_site_is_not_connected_to(addresses):
    with Listener() as listener:
        http = outgoing.session(AddressPolicy(), resolver({"push.example.org": addresses}))
        with pytest.raises(AddressRefusedError, match="push.example.org resolves to"):
            outgoing.request("POST", f"http://push.example.org:{listener.port}/x", schemes=("http",), http=http)
    assert listener.connections == 0


def test_31_5_the_request_goes_to_the_checked_address_under_its_name(monkeypatch):
    """The name is resolved once, by the check; urllib3 connects to that address and never asks
    the system again (so an answer that changes in between, DNS rebinding, is never used), and the
    server sees the name in the Host header."""
    asked = []
    names = resolver({"relay.example.org": ["127.0.0.1"]})

    def resolve_once(host, port):
        asked.append(host)
        return names(host, port)

    system = socket.getaddrinfo

    def rebinding(host, *args, **kwargs):  # what the system would answer now: refused
        assert host != "relay.example.org", "the name was resolved again"
        return system(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    with StubServer() as server, outgoing.session(ONLY_LOOPBACK_ONE, resolve_once) as http:
        answer = outgoing.request("POST", f"http://relay.example.org:{server.port}/push/a", schemes=("http",),
                                  http=http, data=b"hello")
        assert answer.status_code == 201
        answer = outgoing.request("POST", f"http://relay.example.org:{server.port}/push/b", schemes=("http",),
                                  http=http, data=b"again")
    assert asked == ["relay.example.org", "relay.example.org"]  # once per request, by the check
    assert [(r["path"], r["headers"]["host"], r["body"]) for r in server.requests] == [
        ("/push/a", f"relay.example.org:{server.port}", b"hello"), ("/push/b", f"relay.example.org:{server.port}", b"again")]


def test_31_5_tls_is_checked_against_the_name_not_the_address(tmp_path):
    ca, cert, key = certificates(tmp_path, "push.example.org")
    names = resolver({"push.example.org": ["127.0.0.1"], "other.example.org": ["127.0.0.1"]})
    with StubServer(tls=(cert, key)) as server, outgoing.session(ONLY_LOOPBACK_ONE, names) as http:
        answer = http.post(f"https://push.example.org:{server.port}/push/a", data=b"x", verify=str(ca), timeout=5)
        assert answer.status_code == 201
        assert server.requests[0]["headers"]["host"] == f"push.example.org:{server.port}"
        with pytest.raises(requests.exceptions.SSLError):  # the certificate is for push.example.org only
            http.post(f"https://other.example.org:{server.port}/push/b", data=b"x", verify=str(ca), timeout=5)
    assert server.server_names[:2] == ["push.example.org", "other.example.org"]  # SNI: the name, not 127.0.0.1
    assert len(server.requests) == 1


def test_31_5_a_redirect_is_never_followed():
    """A 3xx comes back as the answer; its Location, an address the policy refuses, is not reached,
    and would be refused at the connection if a caller sent a request there."""
    with Listener("127.0.0.2") as inside:
        target = f"http://127.0.0.2:{inside.port}/admin"
        with StubServer(redirect_to=target) as server, outgoing.session(ONLY_LOOPBACK_ONE) as http:
            for status in (301, 302, 303, 307, 308):
                answer = outgoing.request("POST", f"http://127.0.0.1:{server.port}/push/{status}", schemes=("http",),
                                          http=http, data=b"x")
                assert answer.status_code == status and answer.headers["Location"] == target
            with pytest.raises(AddressRefusedError):
                http.post(target, data=b"x", timeout=5)
    assert inside.connections == 0 and len(server.requests) == 5


def test_31_5_a_proxy_or_netrc_from_the_environment_is_not_used(monkeypatch, tmp_path):
    (tmp_path / ".netrc").write_text("machine 127.0.0.1 login operator password secret\n")
    monkeypatch.setenv("NETRC", str(tmp_path / ".netrc"))
    with Listener() as proxy, StubServer() as server, outgoing.session(ONLY_LOOPBACK_ONE) as http:
        for variable in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "all_proxy"):
            monkeypatch.setenv(variable, f"http://127.0.0.1:{proxy.port}")
        assert outgoing.request("POST", f"http://127.0.0.1:{server.port}/x", schemes=("http",), http=http).ok
    assert proxy.connections == 0 and "authorization" not in server.requests[0]["headers"]
