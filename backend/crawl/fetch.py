"""HTTP fetching for the crawler: redirects followed by hand so every hop passes the guard
and the crawl scope, connections opened only to addresses the guard accepted (re-checked at
connect time), bodies streamed with a size limit, one overall deadline per attempt, and
bounded retries with exponential backoff on 5xx answers, timeouts and connection errors.
No proxies from the environment, no JavaScript.

The deadline: httpx's timeouts are per operation (a read timeout starts again with every
byte received), so a server trickling its headers a byte at a time is never cut by them.
`Fetcher` therefore sets a wall-clock deadline (`crawl_timeout_s` from the start of the
attempt) in a context variable, and every socket operation of the guarded network backend
(connect, TLS handshake, read, write) waits at most until that deadline (`DeadlineStream`).
httpx runs a synchronous request in the calling thread, so the variable set by the fetching
thread is the one its socket operations see, also on pooled connections."""
from __future__ import annotations

import re
import time
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Callable, Iterable
from pathlib import PurePosixPath
from urllib.parse import urljoin, urlsplit

import httpcore
import httpx
from httpx._config import create_ssl_context

from backend.config import Settings
from backend.crawl.guard import UrlGuard
from backend.errors import UrlRefused

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_DEADLINE: ContextVar[float | None] = ContextVar("crawl_fetch_deadline", default=None)
ACCEPT = ("text/html,application/xhtml+xml,application/pdf,"
          "application/vnd.openxmlformats-officedocument.wordprocessingml.document,"
          "text/plain;q=0.8,*/*;q=0.5")


def _until_deadline(timeout: float | None, timeout_error: type[Exception]) -> float | None:
    """The timeout of one socket operation: at most the time left until the deadline of the
    fetch running in this thread; raises `timeout_error` once the deadline has passed."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise timeout_error("the overall deadline of the request has passed")
    return left if timeout is None else min(timeout, left)


class DeadlineStream(httpcore.NetworkStream):
    """A network stream whose every operation ends at the fetch's overall deadline."""

    def __init__(self, inner: httpcore.NetworkStream):
        self.inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self.inner.read(max_bytes, _until_deadline(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.inner.write(buffer, _until_deadline(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self.inner.close()

    def start_tls(self, ssl_context, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        timeout = _until_deadline(timeout, httpcore.ConnectTimeout)
        return DeadlineStream(self.inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str):
        return self.inner.get_extra_info(info)


class GuardedBackend(httpcore.NetworkBackend):
    """Resolves and checks the host at connect time and connects to a checked address, so
    the address used is the address checked (no DNS-rebinding window). Streams end at the
    fetch's overall deadline (`DeadlineStream`)."""

    def __init__(self, guard: UrlGuard, inner: httpcore.NetworkBackend | None = None):
        self.guard = guard
        self.inner = inner or httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None,
                    socket_options: Iterable | None = None) -> httpcore.NetworkStream:
        addresses = self.guard.resolve(host, port)  # raises UrlRefused
        last: Exception | None = None
        for address in addresses:
            try:
                stream = self.inner.connect_tcp(
                    address, port, timeout=_until_deadline(timeout, httpcore.ConnectTimeout),
                    local_address=local_address, socket_options=socket_options)
                return DeadlineStream(stream)
            except httpcore.ConnectError as e:
                last = e
        raise last or httpcore.ConnectError(f"cannot connect to {host}:{port}")

    def connect_unix_socket(self, *args, **kwargs):  # pragma: no cover - never used
        raise httpcore.ConnectError("unix sockets are not crawled")

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


class GuardedTransport(httpx.HTTPTransport):
    def __init__(self, guard: UrlGuard, max_connections: int = 4,
                 inner: httpcore.NetworkBackend | None = None):
        super().__init__(trust_env=False)
        self._pool = httpcore.ConnectionPool(
            ssl_context=create_ssl_context(trust_env=False), max_connections=max_connections,
            max_keepalive_connections=max_connections, keepalive_expiry=5.0,
            network_backend=GuardedBackend(guard, inner))


@dataclass
class FetchResult:
    url: str
    final_url: str
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    content: bytes = b""
    redirects: list[str] = field(default_factory=list)
    error: str | None = None
    refused: bool = False
    retryable: bool = False
    attempts: int = 1
    elapsed_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None and self.status is not None and 200 <= self.status < 300

    @property
    def not_modified(self) -> bool:
        return self.error is None and self.status == 304

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()


class Fetcher:
    """`timeout_s` bounds each attempt as a whole (connect, headers, body, every redirect
    hop); retries are new attempts. `scope`, when given, must accept every URL requested,
    the first and every redirect hop (the crawl scope; robots.txt and sitemaps included)."""

    def __init__(self, guard: UrlGuard, *, user_agent: str, timeout_s: float, max_bytes: int,
                 max_redirects: int = 5, retries: int = 2, backoff_s: float = 1.0,
                 max_connections: int = 4, sleep: Callable[[float], None] = time.sleep,
                 transport: httpx.BaseTransport | None = None,
                 scope: Callable[[str], bool] | None = None):
        self.guard = guard
        self.scope = scope
        self.timeout_s = timeout_s
        self.max_bytes = max_bytes
        self.max_redirects = max_redirects
        self.retries = retries
        self.backoff_s = backoff_s
        self.sleep = sleep
        self.client = httpx.Client(
            transport=transport or GuardedTransport(guard, max_connections),
            timeout=httpx.Timeout(timeout_s), follow_redirects=False, trust_env=False,
            headers={"User-Agent": user_agent, "Accept": ACCEPT})

    @classmethod
    def from_settings(cls, settings: Settings, guard: UrlGuard | None = None,
                      concurrency: int = 1, **overrides) -> "Fetcher":
        kw = dict(user_agent=settings.crawl_user_agent, timeout_s=settings.crawl_timeout_s,
                  max_bytes=int(settings.crawl_max_response_mb * 1024 * 1024),
                  max_redirects=settings.crawl_max_redirects, retries=settings.crawl_retries,
                  backoff_s=settings.crawl_retry_backoff_s, max_connections=concurrency + 1)
        kw.update(overrides)
        return cls(guard or UrlGuard(settings.crawl_allowed_hosts), **kw)

    def close(self) -> None:
        self.client.close()

    def fetch(self, url: str, headers: dict[str, str] | None = None) -> FetchResult:
        """GET with retries (5xx, timeouts, connection errors) and backoff base*2^n; every
        attempt has its own overall deadline of `timeout_s`."""
        started = time.monotonic()
        attempt = 0
        while True:
            result = self._follow(url, headers or {})
            result.attempts = attempt + 1
            if not result.retryable or attempt >= self.retries:
                result.elapsed_s = time.monotonic() - started
                return result
            self.sleep(self.backoff_s * (2 ** attempt))
            attempt += 1

    def _follow(self, url: str, headers: dict[str, str]) -> FetchResult:
        """One attempt under one deadline: follow redirects by hand, each hop checked against
        the crawl scope and by the guard."""
        started = time.monotonic()
        token = _DEADLINE.set(started + self.timeout_s)
        try:
            return self._hops(url, headers, started)
        finally:
            _DEADLINE.reset(token)

    def _hops(self, url: str, headers: dict[str, str], started: float) -> FetchResult:
        result = FetchResult(url=url, final_url=url)
        current, seen = url, {url}
        for hop in range(self.max_redirects + 1):
            if self.scope is not None and not self.scope(current):
                result.error = (f"redirect to {current} leaves the crawl scope" if hop
                                else f"{current} is outside the crawl scope")
                result.refused = True
                return result
            try:
                self.guard.check(current)
                status, hdrs, body = self._get(current, headers)
            except UrlRefused as e:
                result.error, result.refused = e.reason, True
                return result
            except _TooLarge as e:
                result.error = str(e)
                return result
            except httpx.TimeoutException:
                result.error = (f"timed out after {time.monotonic() - started:.1f} s "
                                f"(limit {self.timeout_s:g} s)")
                result.retryable = True
                return result
            except (httpx.TransportError, httpx.InvalidURL) as e:
                result.error = f"connection failed ({type(e).__name__}: {e})"
                result.retryable = isinstance(e, httpx.TransportError)
                return result
            result.final_url, result.status, result.headers = current, status, hdrs
            location = hdrs.get("location")
            if status not in REDIRECT_STATUSES or not location:
                result.content = body
                result.retryable = status >= 500 or status == 429
                if status >= 400:
                    result.error = f"HTTP {status}"
                return result
            nxt = urljoin(current, location.strip()).split("#")[0]
            if nxt in seen:
                result.error = "redirect loop: " + " -> ".join([*result.redirects, current, nxt])
                return result
            result.redirects.append(current)
            seen.add(nxt)
            current = nxt
        result.error = f"too many redirects (more than {self.max_redirects})"
        return result

    def _get(self, url: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        # the pool wait is no socket operation: bound it (and all else) by the time left
        left = _until_deadline(None, httpx.PoolTimeout)
        with self.client.stream("GET", url, headers=headers, timeout=left) as r:
            hdrs = {k.lower(): v for k, v in r.headers.items()}
            if r.status_code in REDIRECT_STATUSES or r.status_code == 304:
                return r.status_code, hdrs, b""
            declared = hdrs.get("content-length", "")
            if declared.isdigit() and int(declared) > self.max_bytes:
                raise _TooLarge(self._too_large(int(declared)))
            buf = bytearray()
            for chunk in r.iter_bytes():
                buf += chunk
                if len(buf) > self.max_bytes:
                    raise _TooLarge(self._too_large(None))
                _until_deadline(None, httpx.ReadTimeout)  # also for a custom transport
            return r.status_code, hdrs, bytes(buf)

    def _too_large(self, size: int | None) -> str:
        got = _human(size) if size is not None else "larger"
        return (f"response is {got}, over the limit of {self.max_bytes / 1048576:.3g} MiB "
                "(RAGSCOPE_CRAWL_MAX_RESPONSE_MB)")


def _human(n: int) -> str:
    return f"{n / 1048576:.1f} MiB" if n >= 1048576 else f"{n / 1024:.1f} KiB"


class _TooLarge(Exception):
    pass


# ---- content types -> file names the ingest extractors understand ---------------------------

CONTENT_TYPES = {
    "text/html": ".html", "application/xhtml+xml": ".html", "application/pdf": ".pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/vnd.oasis.opendocument.text": ".odt", "text/plain": ".txt",
    "text/markdown": ".md", "text/x-markdown": ".md",
}
_GENERIC_TYPES = {"", "application/octet-stream", "binary/octet-stream", "application/x-download"}
_SNIFF = ((b"%pdf-", ".pdf"), (b"<!doctype html", ".html"), (b"<html", ".html"))


def extension_for(url: str, content_type: str, content: bytes) -> str | None:
    """The extension to ingest a response as, chosen by Content-Type; for a generic type by
    the URL's extension or the first bytes. None: not a document type we read."""
    ext = CONTENT_TYPES.get(content_type)
    if ext or content_type not in _GENERIC_TYPES:
        return ext
    path_ext = PurePosixPath(urlsplit(url).path).suffix.lower()
    if path_ext in set(CONTENT_TYPES.values()) | {".htm", ".markdown"}:
        return path_ext
    head = content[:512].lstrip().lower()
    return next((e for magic, e in _SNIFF if head.startswith(magic)), None)


def filename_for(url: str, ext: str) -> str:
    """`https://x.org/docs/intro` + .html -> `intro.html`; `/` -> `x.org.html`."""
    parts = urlsplit(url)
    name = PurePosixPath(parts.path).name or parts.hostname or "page"
    stem = PurePosixPath(name).stem if PurePosixPath(name).suffix.lower() == ext else name
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-.")[:120] or "page"
    return f"{stem}{ext}"
