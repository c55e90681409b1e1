"""Rate limits of the HTTP API and the MCP endpoints: one token bucket per API token and one
per client address (a pure ASGI middleware, before any route or tool runs). A bucket holds
`limit` requests and refills at `limit` per minute, so a burst up to the limit passes and a
steady client gets `limit` a minute; over it the answer is 429 with `Retry-After` (whole
seconds until the next request would pass) and the API's error body. Tokens are keyed by
their SHA-256, never stored. 0 turns a limit off. In memory, per process: with several API
workers each counts its own share."""
from __future__ import annotations

import hashlib
import json
import math
import time
from typing import Any, Callable

LIMITED_PREFIXES = ("/api/", "/mcp")  # the HTTP API, streamable HTTP MCP and /mcp-sse
MAX_KEYS = 100_000  # buckets kept per kind; beyond it the longest-known key is dropped


class TokenBucket:
    """Buckets of `limit` requests refilled at `limit` per `window_s`, one per key."""

    def __init__(self, limit: int, window_s: float = 60.0, clock: Callable[[], float] =
                 time.monotonic):
        self.limit = limit
        self.rate = limit / window_s
        self.clock = clock
        self.buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, at)

    def take(self, key: str) -> float:
        """0 when the request may pass (one token taken), else the seconds to wait."""
        now = self.clock()
        tokens, at = self.buckets.get(key, (float(self.limit), now))
        tokens = min(float(self.limit), tokens + (now - at) * self.rate)
        if tokens >= 1:
            self._store(key, tokens - 1, now)
            return 0.0
        self._store(key, tokens, now)
        return (1 - tokens) / self.rate

    def _store(self, key: str, tokens: float, now: float) -> None:
        if key not in self.buckets and len(self.buckets) >= MAX_KEYS:
            self.buckets.pop(next(iter(self.buckets)))  # the oldest key
        self.buckets[key] = (tokens, now)


def _token_key(headers: dict[bytes, bytes]) -> str | None:
    auth = headers.get(b"authorization", b"")
    if not auth.lower().startswith(b"bearer ") or not auth[7:].strip():
        return None
    return hashlib.sha256(auth[7:].strip()).hexdigest()


class RateLimit:
    def __init__(self, app, *, per_token: int, per_address: int, window_s: float = 60.0,
                 clock: Callable[[], float] = time.monotonic):
        self.app = app
        self.tokens = TokenBucket(per_token, window_s, clock) if per_token else None
        self.addresses = TokenBucket(per_address, window_s, clock) if per_address else None

    async def __call__(self, scope: dict[str, Any], receive, send) -> None:
        if scope["type"] == "http" and (scope.get("path") or "").startswith(LIMITED_PREFIXES):
            wait, what = self._wait(scope)
            if wait:
                await _refuse(send, wait, what)
                return
        await self.app(scope, receive, send)

    def _wait(self, scope: dict[str, Any]) -> tuple[float, str]:
        """The longer wait of the two buckets (both are charged) and which limit it is."""
        waits = []
        if self.addresses is not None:
            client = scope.get("client") or ("unknown", 0)
            waits.append((self.addresses.take(str(client[0])),
                          "RAGSCOPE_API_RATE_PER_ADDRESS"))
        key = _token_key(dict(scope.get("headers") or []))
        if self.tokens is not None and key is not None:
            waits.append((self.tokens.take(key), "RAGSCOPE_API_RATE_PER_TOKEN"))
        return max(waits, default=(0.0, ""))


async def _refuse(send, wait: float, what: str) -> None:
    retry = max(1, math.ceil(wait))
    body = json.dumps({"error": {"code": "rate_limited", "message": (
        f"too many requests: over the limit of {what}; retry in {retry} s"),
        "field": None}}).encode()
    await send({"type": "http.response.start", "status": 429,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"retry-after", str(retry).encode())]})
    await send({"type": "http.response.body", "body": body})
