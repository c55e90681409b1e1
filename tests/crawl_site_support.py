"""The web site the crawl and chatbot tests crawl (tests/test_crawl_*.py, tests/test_chatbot*.py):
a tiny server on 127.0.0.1 whose routes a test sets (and may change between crawls), replies
and pages to put on it, and a `CrawlService` with short timeouts for it."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

from backend.crawl.guard import UrlGuard
from backend.crawl.service import CrawlService

FAST = dict(timeout_s=0.5, retries=1, backoff_s=0.01)


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    ctype: str = "text/html; charset=utf-8"
    headers: dict | None = None
    delay: float = 0.0


Route = Callable[[BaseHTTPRequestHandler], Reply]


class Site:
    """A tiny web server on 127.0.0.1; `routes` may change between crawls."""

    def __init__(self):
        self.routes: dict[str, Reply | Route] = {}
        self.hosts: dict[str, Route] = {}  # Host header (without port) -> handler
        self.log: list[tuple[str, str]] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
                site.log.append((host, self.path))
                route = site.hosts.get(host) or site.routes.get(self.path)
                reply = route(self) if callable(route) else route
                reply = reply or Reply(404, b"not found", "text/plain")
                if reply.delay:
                    time.sleep(reply.delay)
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.ctype)
                    self.send_header("Content-Length", str(len(reply.body)))
                    for k, v in (reply.headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "Site":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def page(title: str, text: str, *links: str) -> bytes:
    anchors = " ".join(f'<a href="{href}">{href}</a>' for href in links)
    return (f"<html><head><title>{title}</title></head><body><h1>{title}</h1>"
            f"<p>{text}</p><nav>{anchors}</nav><p>{anchors}</p></body></html>").encode()


def redirect(to: str, status: int = 301) -> Reply:
    return Reply(status, b"", "text/plain", {"Location": to})


def service(rs, guard: UrlGuard) -> CrawlService:
    return CrawlService(rs, guard=guard, **FAST)


def by_url(svc: CrawlService, run_id: int, base: str) -> dict[str, tuple[str, str]]:
    return {e.url.replace(base, ""): (e.outcome, e.reason) for e in svc.events(run_id)}
