"""Requests to user-given URLs: one reading of the URL, and no connection to an address inside the site.

A URL that a user gives us (a browser's push endpoint now, a webhook later) is read once,
here, and what is sent is the normalised form (`normalise` -> `Destination.url`): the host as
one canonical text (lower case, IDNA A-labels, no trailing dot, an IPv4 address in dotted
decimal whatever way it was written, an IPv6 address compressed), no user name or password, no
backslash, white space or control character anywhere. A URL that could be read two ways is
refused rather than guessed at, so the allow-list (`Destination.on`) and the connection see the
same host: the issue 31 item 5 bypass was `https://127.0.0.1\\@fcm.googleapis.com/`, whose host
`urllib.parse` read as fcm.googleapis.com and urllib3 as 127.0.0.1.

The URL is parsed with urllib3's `parse_url`, the parser requests sends with; its host is then
made canonical by the rules of the WHATWG URL standard that browsers follow (an all-numeric last
label makes an IPv4 address: `2130706433`, `0177.0.0.1`, `0x7f.1` and `127.1` are all 127.0.0.1).

Whatever the URL says, the connection is checked again where it is made (`session`): the host
name is resolved by us, every address it resolves to must be allowed by the address policy
(`AddressPolicy`: public unicast addresses only, unless the operator allows networks with
PBEM_OUTGOING_ALLOW), and the connection goes to that checked address, with the name kept for
TLS (SNI and the certificate) and the Host header. So a name that resolves to a private address
is refused too, and a second answer of the DNS (rebinding) is never asked for. Redirects are never
followed (the 3xx answer is returned as it is); environment proxies and .netrc are not used.

This module knows nothing of push or of the database; it does not retry (callers count failures).
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.util import parse_url

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], list[IPAddress]]

MAX_URL_CHARS = 2048
DEFAULT_PORTS = {"http": 80, "https": 443}
TIMEOUT_S = 10.0
ALLOW_ENV = "PBEM_OUTGOING_ALLOW"  # networks the operator lets requests reach although they are not public
# Ranges that are not public but that ipaddress (before Python 3.12.4 / 3.11.10) still calls global.
NOT_GLOBAL = tuple(ipaddress.ip_network(n) for n in (
    "192.88.99.0/24",  # the 6to4 relay anycast (deprecated)
    "64:ff9b:1::/48",  # NAT64 for local use (RFC 8215)
    "2001:20::/28",  # ORCHIDv2
    "3fff::/20",  # documentation (RFC 9637)
    "5f00::/16",  # SRv6 segment identifiers
))
NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052: the IPv4 address is the last 32 bits
_AUTHORITY = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*://([^/?#]*)")  # RFC 3986, appendix B (no backslash gets here)
_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
_NUMERIC = re.compile(r"[0-9]+|0x[0-9a-f]*")  # a last label like this makes the host an IPv4 address
_NUMBER = {16: re.compile(r"[0-9a-f]*"), 8: re.compile(r"[0-7]*"), 10: re.compile(r"[0-9]+")}


class URLRefusedError(ValueError):
    """A URL that is malformed, could be read two ways, or is not one the caller allows."""


class AddressRefusedError(requests.exceptions.ConnectionError):
    """The host resolves to an address the address policy does not let a request reach."""


# --- reading the URL once ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Destination:
    """A user-given URL as it is sent: scheme, canonical host (an IPv6 address without brackets),
    port, and the path with its query."""

    scheme: str
    host: str
    port: int
    target: str  # the path and query, as urllib3 encodes them

    @property
    def origin(self) -> str:
        """`scheme://host[:port]`, the port left out when it is the scheme's own."""
        netloc = f"[{self.host}]" if ":" in self.host else self.host
        if self.port != DEFAULT_PORTS[self.scheme]:
            netloc += f":{self.port}"
        return f"{self.scheme}://{netloc}"

    @property
    def url(self) -> str:
        return self.origin + self.target

    def on(self, hosts: Iterable[str]) -> bool:
        """Whether the host is one of `hosts` (canonical hosts, see `canonical_host`) or, for a
        name, below one of them: `fcm.googleapis.com` covers `eu.fcm.googleapis.com`. An address
        matches only itself."""
        for allowed in hosts:
            if self.host == allowed:
                return True
            if not is_address(allowed) and not is_address(self.host) and self.host.endswith("." + allowed):
                return True
        return False


def normalise(url: str, schemes: Iterable[str] = ("https",)) -> Destination:
    """Read a user-given URL once, as it will be sent; URLRefusedError if it is malformed or ambiguous
    or its scheme is not one of `schemes`."""
    if not isinstance(url, str) or not url:
        raise URLRefusedError("no URL")
    if len(url) > MAX_URL_CHARS:
        raise URLRefusedError(f"a URL of more than {MAX_URL_CHARS} characters")
    for char in url:
        # Parsers disagree on these: urllib3 ends the host at a backslash, urllib.parse does not;
        # urllib.parse drops tabs and line breaks; white space and invisible characters hide a host.
        if char == "\\" or unicodedata.category(char)[0] in "CZ":
            raise URLRefusedError(f"the URL holds {char!r}")
    authority = _AUTHORITY.match(url)
    if authority and "@" in authority[1]:  # even an empty one: a host that is not the first thing read
        raise URLRefusedError("a URL with a user name or password")
    if authority and "%" in authority[1]:  # urllib3 decodes some escapes in a host and keeps others
        raise URLRefusedError("percent-encoding in the host")
    try:
        parts = parse_url(url)
    except ValueError as error:  # urllib3's LocationParseError, a bad IDNA label or port among them
        raise URLRefusedError(f"not a URL: {error}") from None
    scheme = (parts.scheme or "").lower()
    if scheme not in schemes or scheme not in DEFAULT_PORTS:
        raise URLRefusedError(f"the scheme {scheme or 'none'} is not allowed")
    if not parts.host:
        raise URLRefusedError("a URL without a host")
    if parts.port == 0:
        raise URLRefusedError("port 0")
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Destination(scheme, canonical_host(parts.host), parts.port or DEFAULT_PORTS[scheme], target)


def canonical_host(text: str) -> str:
    """A host as one text: lower case ASCII, no trailing dot, an address in its canonical form
    (IPv6 without brackets); URLRefusedError for anything that is no host name or address."""
    if text.startswith("[") or ":" in text:
        try:
            address = ipaddress.IPv6Address(text.removeprefix("[").removesuffix("]"))
        except ValueError:
            raise URLRefusedError(f"{text!r} is not an IPv6 address") from None
        if address.scope_id:  # a zone names an interface of this machine, never a remote service
            raise URLRefusedError("an IPv6 address with a zone")
        return str(address)
    if "%" in text:  # urllib3 leaves percent-escapes in a host; a resolver or a browser may read them
        raise URLRefusedError("percent-encoding in the host")
    if not text.isascii():  # parse_url gives a URL's host in IDNA A-labels (xn--); a listed host is written so
        raise URLRefusedError(f"{text!r} is not written in ASCII")
    host = text.lower().removesuffix(".")
    labels = host.split(".")
    if not host or "" in labels or len(host) > 253:
        raise URLRefusedError(f"{text!r} is not a valid host name")
    if _is_number(labels[-1]):  # WHATWG: a host whose last label is a number is an IPv4 address
        return str(_ipv4(labels, text))
    if not all(_LABEL.fullmatch(label) for label in labels):
        raise URLRefusedError(f"{text!r} is not a valid host name")
    return host


def is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _is_number(label: str) -> bool:
    return bool(_NUMERIC.fullmatch(label))


def _ipv4(labels: list[str], text: str) -> ipaddress.IPv4Address:
    """The WHATWG URL standard's IPv4 parser: up to four numbers, each decimal, octal (a leading 0)
    or hexadecimal (0x); the last fills the bytes the others leave."""
    if len(labels) > 4:
        raise URLRefusedError(f"{text!r} is not an IPv4 address")
    numbers = []
    for label in labels:
        base, digits = (16, label[2:]) if label[:2] == "0x" else (8, label[1:]) if label[:1] == "0" else (10, label)
        if not _NUMBER[base].fullmatch(digits):  # int() alone would take "1_0" and " 1"
            raise URLRefusedError(f"{text!r} is not an IPv4 address")
        numbers.append(int(digits, base) if digits else 0)
    *first, last = numbers
    if any(n > 255 for n in first) or last >= 256 ** (5 - len(numbers)):
        raise URLRefusedError(f"{text!r} is not an IPv4 address")
    return ipaddress.IPv4Address(last + sum(n << (8 * (3 - i)) for i, n in enumerate(first)))


# --- which addresses a request may reach -------------------------------------------------------------------


def is_public(address: IPAddress) -> bool:
    """Whether an address is public unicast: not loopback, private, shared (CGNAT), link-local,
    site-local, multicast, reserved, unspecified or documentation. An IPv6 address that carries an
    IPv4 address (mapped, NAT64, 6to4) is judged by that IPv4 address."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = address.ipv4_mapped or address.sixtofour
        if inner is None and address in NAT64:
            inner = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if inner is not None:
            return is_public(inner)
        if address.is_site_local:
            return False
    return address.is_global and not (
        address.is_multicast or address.is_reserved or address.is_link_local or address.is_loopback
        or address.is_private or address.is_unspecified or any(address in n for n in NOT_GLOBAL))


@dataclass(frozen=True)
class AddressPolicy:
    """Which addresses a request to a user-given URL may reach: public ones, and those in `allowed`."""

    allowed: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()

    def allows(self, address: IPAddress) -> bool:
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
            address = address.ipv4_mapped  # the same host, however it is written
        return any(address in network for network in self.allowed) or is_public(address)

    @classmethod
    def from_environment(cls) -> AddressPolicy:
        """Public addresses, and the networks in PBEM_OUTGOING_ALLOW (comma-separated: `127.0.0.1`,
        `10.1.0.0/16`), for a push relay or a test service the operator runs inside the site."""
        text = os.environ.get(ALLOW_ENV, "")
        try:
            return cls(tuple(ipaddress.ip_network(n.strip(), strict=False) for n in text.split(",") if n.strip()))
        except ValueError as error:
            raise ValueError(f"{ALLOW_ENV}: {error}") from None


def resolve(host: str, port: int) -> list[IPAddress]:
    """The addresses a host resolves to, in the order the system would try them (an address resolves to itself)."""
    found: list[IPAddress] = []
    for family, _type, _proto, _name, sockaddr in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
        if family in (socket.AF_INET, socket.AF_INET6):
            address = ipaddress.ip_address(sockaddr[0])
            if address not in found:
                found.append(address)
    return found


# --- the connection ------------------------------------------------------------------------------------------


class CheckedAdapter(HTTPAdapter):
    """A requests adapter that connects only to addresses the policy allows, after resolving the host itself.

    requests asks the adapter which connection pool a request goes to
    (`build_connection_pool_key_attributes`, its documented hook); the pool is made for the
    checked address, with the host name as `server_hostname` so that TLS sends it (SNI) and checks
    the certificate against it, and `add_headers` sets the Host header to the name. urllib3 then
    connects to that address and never resolves the name again.
    """

    def __init__(self, policy: AddressPolicy, resolver: Resolver | None = None):
        super().__init__()
        self.policy = policy
        self.resolver = resolver or resolve

    def build_connection_pool_key_attributes(self, request, verify, cert=None):
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(request, verify, cert)
        name, scheme = host_params["host"], host_params["scheme"]
        if not name or scheme not in DEFAULT_PORTS:
            raise requests.exceptions.InvalidURL(f"cannot send to {request.url!r}", request=request)
        host_params["host"] = str(self.checked_address(name, host_params["port"] or DEFAULT_PORTS[scheme], request))
        if scheme == "https":
            pool_kwargs["server_hostname"] = name
        return host_params, pool_kwargs

    def checked_address(self, name: str, port: int, request) -> IPAddress:
        """The address to connect to: the first the name resolves to, if the policy allows every one."""
        try:
            addresses = self.resolver(name, port)
        except (OSError, UnicodeError) as error:  # socket.gaierror is an OSError
            raise requests.exceptions.ConnectionError(f"cannot resolve {name}: {error}", request=request) from None
        if not addresses:
            raise requests.exceptions.ConnectionError(f"{name} resolves to no address", request=request)
        # One refused address refuses the name: a public service has no private address.
        refused = [a for a in addresses if not self.policy.allows(a)]
        if refused:
            what = name if name == str(refused[0]) else f"{name} resolves to {refused[0]}, which"
            raise AddressRefusedError(f"{what} is an address outgoing requests may not reach", request=request)
        return addresses[0]

    def add_headers(self, request, **kwargs):
        parts = urlsplit(request.url)
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        request.headers["Host"] = host if parts.port in (None, DEFAULT_PORTS[parts.scheme]) else f"{host}:{parts.port}"


class CheckedSession(requests.Session):
    """A requests session for user-given URLs: every connection through `CheckedAdapter`, no redirect
    followed, nothing taken from the environment (a proxy would connect where we cannot check, and
    .netrc would lend its passwords to any host)."""

    def __init__(self, policy: AddressPolicy | None = None, resolver: Resolver | None = None):
        super().__init__()
        self.trust_env = False
        adapter = CheckedAdapter(policy if policy is not None else AddressPolicy.from_environment(), resolver)
        self.mount("https://", adapter)
        self.mount("http://", adapter)

    def send(self, request, **kwargs):
        kwargs["allow_redirects"] = False  # the 3xx answer is the answer: its Location is a URL nobody checked
        return super().send(request, **kwargs)


def session(policy: AddressPolicy | None = None, resolver: Resolver | None = None) -> CheckedSession:
    """A session for requests to user-given URLs (the site's policy unless one is given); close it after use."""
    return CheckedSession(policy, resolver)


def request(method: str, url: str, *, hosts: Iterable[str] | None = None, schemes: Iterable[str] = ("https",),
            http: requests.Session | None = None, **kwargs) -> requests.Response:
    """Send one request to a user-given URL: read it once (`normalise`), check its host against
    `hosts` when given (URLRefusedError), and send to the normalised URL through a checked
    session (`http`, or one made for this request). Connection errors, AddressRefusedError among
    them, are requests' exceptions; a redirect comes back as the 3xx response."""
    destination = normalise(url, schemes)
    if hosts is not None and not destination.on(hosts):
        raise URLRefusedError(f"{destination.host} is not an allowed host")
    kwargs.setdefault("timeout", TIMEOUT_S)
    if http is not None:
        return http.request(method, destination.url, **kwargs)
    with session() as fresh:
        return fresh.request(method, destination.url, **kwargs)
