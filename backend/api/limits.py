"""Request size limits, before a route reads the body: a pure ASGI middleware that refuses a
declared Content-Length over the limit at once and counts the bytes of a chunked body as
they arrive (413 with the API's error body either way). Uploads get the ingestion limit per
file times the files allowed per upload; every other request the JSON limit. `BodyDeadline`:
a body whose next part is overdue is a 408 (slow clients)."""
from __future__ import annotations

import asyncio
import json
from typing import Any, Awaitable, Callable

from starlette.exceptions import HTTPException

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

UPLOAD_PATHS = ("/api/ingest",)
MULTIPART_OVERHEAD = 1024 * 1024  # part headers and form fields around the files


def _message(limit: int) -> str:
    return f"the request body is over the limit of {limit / 1048576:.3g} MiB for this endpoint"


class BodyTooLarge(HTTPException):
    """Raised from `receive` when a chunked body passes the limit; an HTTPException, so the
    route's body parsing passes it on and the API answers 413 with its error body."""

    def __init__(self, limit: int):
        super().__init__(413, _message(limit))


class BodyLimit:
    def __init__(self, app, *, json_limit: int, upload_limit: int):
        self.app = app
        self.json_limit = json_limit
        self.upload_limit = upload_limit

    def limit_for(self, path: str) -> int:
        return self.upload_limit if path.rstrip("/") in UPLOAD_PATHS else self.json_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope.get("path") or "")
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None:
            try:
                too_large = int(declared) > limit
            except ValueError:
                too_large = False  # the server refuses a bad Content-Length itself
            if too_large:
                await self._refuse(send, limit)
                return
        seen = 0
        started = False

        async def counted() -> dict[str, Any]:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(limit)
            return message

        async def tracked(message: dict[str, Any]) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, tracked)
        except BodyTooLarge:  # raised outside the API's handlers (e.g. in the MCP app)
            if not started:
                await self._refuse(send, limit)

    async def _refuse(self, send: Send, limit: int) -> None:
        await _send_error(send, 413, "too_large", _message(limit))


async def _send_error(send: Send, status: int, code: str, message: str) -> None:
    """The API's error body, and the connection closed after it."""
    body = json.dumps({"error": {"code": code, "message": message, "field": None}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class BodyTimeout(HTTPException):
    """Raised from `receive` when the next part of a request body is overdue (408)."""

    def __init__(self, seconds: float):
        super().__init__(408, f"the request body was not sent within {seconds:g} s "
                              "(RAGSCOPE_API_BODY_TIMEOUT_S)", headers={"Connection": "close"})


class BodyDeadline:
    """Slow-client protection for bodies: each read of the request body must arrive within
    `seconds` (a client that declares a body and stops sending gets 408 and is closed). Only
    while the body is incomplete: a streaming response's wait for the disconnect is not
    timed."""

    def __init__(self, app, *, seconds: float):
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        done = False
        started = False

        async def timed() -> dict[str, Any]:
            nonlocal done
            if done:
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), self.seconds)
            except asyncio.TimeoutError:
                raise BodyTimeout(self.seconds) from None
            if message["type"] != "http.request" or not message.get("more_body", False):
                done = True
            return message

        async def tracked(message: dict[str, Any]) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, timed, tracked)
        except BodyTimeout as e:  # raised outside the API's handlers (e.g. in the MCP app)
            if not started:
                await _send_error(send, 408, "request_timeout", e.detail)


class JsonBodies:
    """A body sent to a JSON endpoint (every POST/PUT/PATCH under /api/ but the upload) must
    say `Content-Type: application/json` (or `…+json`): JSON sent as text/plain, a form or
    no type at all is a 415 naming what was sent, instead of a validation error about a
    "dictionary". Requests without a body pass (`POST …/publish`)."""

    METHODS = (b"POST", b"PUT", b"PATCH")

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        problem = self._problem(scope) if scope["type"] == "http" else None
        if problem:
            await _send_error(send, 415, "unsupported_media_type", problem)
            return
        await self.app(scope, receive, send)

    def _problem(self, scope: Scope) -> str | None:
        path = (scope.get("path") or "").rstrip("/")
        if scope.get("method", "").encode() not in self.METHODS or not path.startswith("/api/") \
                or path in UPLOAD_PATHS:
            return None
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length", b"").strip()
        if length in (b"", b"0") and b"transfer-encoding" not in headers:
            return None  # no body
        ctype = headers.get(b"content-type", b"").decode("latin-1")
        media = ctype.split(";", 1)[0].strip().lower()
        if media == "application/json" or (media.startswith("application/")
                                           and media.endswith("+json")):
            return None
        sent = f"it was sent as {media}" if media else "it was sent without a Content-Type"
        return f"the request body must be JSON sent as Content-Type: application/json ({sent})"
