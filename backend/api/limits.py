"""Request size limits, before a route reads the body: a pure ASGI middleware that refuses a
declared Content-Length over the limit at once and counts the bytes of a chunked body as
they arrive (413 with the API's error body either way). Uploads get the ingestion limit per
file times the files allowed per upload; every other request the JSON limit."""
from __future__ import annotations

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
        import json

        body = json.dumps({"error": {"code": "too_large", "message": _message(limit),
                                     "field": None}}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})
