"""Servers on the loopback interface for the tests of requests to user-given URLs (issue 31 item 5).

`Listener` accepts TCP connections and closes them, counting them: a request that must not be
made shows as a count above zero, whatever protocol the client tried. `StubServer` answers HTTP
(or HTTPS, given a certificate) and keeps what it was asked; a path ending in a status code gets
that status, a 3xx with a Location of the server's `redirect_to`.
"""

from __future__ import annotations

import datetime
import socket
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.support.net import ServedHTTP


class Listener:
    """A TCP port on `address` that counts the connections made to it (and closes each at once)."""

    def __init__(self, address: str = "127.0.0.1"):
        self.sock = socket.socket(socket.AF_INET6 if ":" in address else socket.AF_INET)
        self.sock.bind((address, 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:  # closed: the test is over
                return
            self.connections += 1
            conn.close()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.sock.shutdown(socket.SHUT_RDWR)  # wakes the accept() (a close alone does not)
        self.sock.close()
        self.thread.join(timeout=5)


class StubServer(ServedHTTP):
    """An HTTP server on `address` that keeps each request (path, headers, body) and answers 201,
    or the status a path's last part names; with `tls` (cert, key paths) it speaks HTTPS and keeps
    the names clients sent by SNI."""

    def __init__(self, address: str = "127.0.0.1", tls: tuple[Path, Path] | None = None, redirect_to: str = ""):
        self.requests: list[dict] = []
        self.server_names: list[str | None] = []
        self.redirect_to = redirect_to
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                stub.requests.append({"method": self.command, "path": self.path, "body": self.rfile.read(length),
                                      "headers": {k.lower(): v for k, v in self.headers.items()}})
                last = self.path.rsplit("/", 1)[-1]
                status = int(last) if last.isdigit() else 201
                self.send_response(status)
                if 300 <= status < 400:
                    self.send_header("Location", stub.redirect_to)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST = answer  # noqa: N815 - the http.server names

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer((address, 0), Handler)
        self.port = self.server.server_port
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            context.sni_callback = lambda sock, name, ctx: self.server_names.append(name)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)


def certificates(folder: Path, name: str) -> tuple[Path, Path, Path]:
    """A test CA and a server certificate for `name` signed by it: (ca.pem, cert.pem, key.pem) in `folder`."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pbem test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    cert = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = folder / "ca.pem", folder / "cert.pem", folder / "key.pem"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return paths
