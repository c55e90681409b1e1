"""One overall deadline per fetch (`crawl_timeout_s`): connect, headers, body and every
redirect hop together. httpx's own timeouts are per operation (a read timeout starts again
with every byte), so a server that trickles its headers a byte at a time, or redirects slowly
hop after hop, must still be cut at the limit. Servers run on 127.0.0.1 (allow-listed)."""
from __future__ import annotations

import re
import select
import socket
import threading

import pytest

from backend.crawl.fetch import Fetcher
from backend.crawl.guard import UrlGuard
from tests.crawl_site_support import Reply, Site, redirect, service

BODY = b"<html><body><h1>Late</h1><p>Headers that arrive far too slowly.</p></body></html>"
RESPONSE = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Padding: "
            + b"." * 40 + b"\r\nContent-Length: " + str(len(BODY)).encode() + b"\r\n\r\n" + BODY)


class SlowHeaders:
    """Accepts a connection, reads the request, then sends the response one byte every
    `interval` seconds (`stall`: waits `interval` before the first byte and then sends it
    all). Records whether the client closed the connection before the response was sent."""

    def __init__(self, interval: float, stall: bool = False):
        self.interval, self.stall = interval, stall
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.requests = 0
        self.sent = 0  # bytes of RESPONSE sent before the client went away
        self.closed_early = threading.Event()
        self.finished = threading.Event()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> "SlowHeaders":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.sock.close()
        self.thread.join(5)

    def _serve(self) -> None:
        self.sock.settimeout(0.2)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
                break
            except TimeoutError:
                continue
            except OSError:
                return
        else:
            return
        conn.settimeout(None)
        with conn:
            self.requests += 1
            request = b""
            while b"\r\n\r\n" not in request:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                request += chunk
            pieces = [RESPONSE] if self.stall else [bytes([c]) for c in RESPONSE]
            for piece in pieces:
                if self.stop.is_set():
                    return
                if _client_gone(conn, self.interval, self.stop):
                    self.closed_early.set()
                    return
                try:
                    conn.sendall(piece)
                except OSError:
                    self.closed_early.set()
                    return
                self.sent += len(piece)
            self.finished.set()
            _client_gone(conn, 5.0, self.stop)


def _client_gone(conn: socket.socket, wait: float, stop: threading.Event) -> bool:
    """Wait up to `wait` s for the client; True when it closed the connection."""
    # poll, not select: select() refuses descriptors >= 1024, which a long test session
    # reaches (the process keeps many index and database files open)
    poller = select.poll()
    poller.register(conn, select.POLLIN)
    readable = poller.poll(wait * 1000)
    if stop.is_set() or not readable:
        return False
    try:
        return conn.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


LIMIT = 1.0


@pytest.mark.parametrize("stall", [False, True], ids=["trickle", "stall"])
def test_slow_headers_are_cut_at_the_deadline(make_rs, stall):
    """Trickle: 1 byte per 0.25 s, over 40 s for the whole response; each byte restarts an
    httpx read timeout, so only an overall deadline ends it (before the fix the headers were
    read to the end and the failure reported as "timed out after 1 s"). Stall: nothing for
    30 s; the message must give the elapsed time and the limit."""
    with SlowHeaders(interval=30.0 if stall else 0.25, stall=stall) as server:
        rs = make_rs(crawl_allowed_hosts=f"127.0.0.1:{server.port}")
        svc = service(rs, UrlGuard(rs.settings.crawl_allowed_hosts))
        svc.fetch_overrides.update(timeout_s=LIMIT, retries=0)
        p = svc.crawl_url(server.base + "/", "slow", delay_s=0, respect_robots=False,
                          use_sitemap=False)
        (event,) = svc.events(p.run_id)
        assert event.outcome == "failed", event.reason
        m = re.fullmatch(r"timed out after (\d+\.\d) s \(limit 1 s\)", event.reason)
        assert m, event.reason
        # the connection was closed by the crawler long before the response was complete
        assert server.closed_early.wait(10), "the crawler kept the connection open"
        assert not server.finished.is_set()
        assert server.sent < RESPONSE.index(b"\r\n\r\n")  # cut while headers trickled
        assert LIMIT <= float(m.group(1)) < 0.25 * len(RESPONSE)
        assert server.requests == 1 and p.documents_created == 0


def test_deadline_covers_every_redirect_hop():
    """Three hops of 0.8 s each: every single one is well inside a 2 s limit, all of them
    together are not."""
    with Site() as site:
        site.routes.update({"/hop1": Reply(delay=0.8, **_moved("/hop2")),
                            "/hop2": Reply(delay=0.8, **_moved("/hop3")),
                            "/hop3": Reply(200, b"<html><body>arrived</body></html>",
                                           delay=0.8)})
        fetcher = Fetcher(UrlGuard(f"127.0.0.1:{site.port}"), user_agent="ragscope-test",
                          timeout_s=2.0, max_bytes=1 << 20, retries=0)
        try:
            res = fetcher.fetch(site.base + "/hop1")
        finally:
            fetcher.close()
    assert not res.ok and res.content == b""
    assert re.fullmatch(r"timed out after \d+\.\d s \(limit 2 s\)", res.error), res.error
    assert site.base + "/hop1" in res.redirects  # cut on a later hop: the deadline spans hops


def _moved(to: str) -> dict:
    r = redirect(to, 302)
    return dict(status=r.status, body=r.body, ctype=r.ctype, headers=r.headers)
