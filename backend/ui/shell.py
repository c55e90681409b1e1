"""The dashboard's HTML shell tells Streamlit's frontend where the server's root is.

Streamlit answers every page address (`/explorer`, `/chat?session=…`) with the same
index.html. Its frontend then has to guess the server's root from the address: it asks
`<address>/_stcore/health` and `<address>/_stcore/host-config` first and only after both
come back 404 the parent address (about 100 ms of back-off on every full load of a page
other than the first, and two 404s in every browser's network log). The frontend reads
the root from `window.__streamlit.BACKEND_BASE_URL` when the page sets it; this ASGI
middleware (declared in app.py's `st.App`) sets it in the shell: the address without its
last segment when that segment is one of the dashboard's page paths, else the address.
A second script preloads the Streamlit element chunks the page shows (backend/ui/preload.py)."""
from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

# Streamlit's own routes; everything else is a page address answered with the shell
NOT_SHELL = ("/_stcore/", "/static/", "/component/", "/media/", "/app/static/",
             "/favicon.png", "/robots.txt")
# request headers that would make the answer compressed or a body-less 304
DROPPED = {b"accept-encoding", b"if-none-match", b"if-modified-since"}


def base_url_script(page_paths: Iterable[str]) -> bytes:
    """The inline script that sets the server's root before Streamlit's bundle runs."""
    pages = json.dumps(sorted(set(page_paths)))
    return (
        "<script>(function(){var p=location.pathname.replace(/\\/+$/,'').split('/');"
        f"if({pages}.indexOf(p[p.length-1])>=0)p.pop();"
        "window.__streamlit=Object.assign({},window.__streamlit,"
        "{BACKEND_BASE_URL:location.origin+p.join('/')+'/'});})();</script>").encode()


def inject(html: bytes, script: bytes) -> bytes:
    """`script` as the first element of <head> (unchanged if there is no <head>)."""
    at = html.find(b"<head>")
    return html if at < 0 else html[:at + 6] + script + html[at + 6:]


def is_shell_request(scope: Scope, base: str = "") -> bool:
    """A GET of a page address (below the server's `server.baseUrlPath`, if set)."""
    if scope["type"] != "http" or scope.get("method") != "GET":
        return False
    path = scope.get("path") or "/"
    if base and path.startswith(base):
        path = path[len(base):] or "/"
    return not path.startswith(NOT_SHELL)


class BaseUrlHint:
    """ASGI middleware: the page shell (index.html) gets `base_url_script` and the chunk
    preload in its <head>; every other request and response passes untouched."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], *,
                 page_paths: Iterable[str]):
        from streamlit import config

        from backend.ui.preload import preload_script

        self.app = app
        paths = list(page_paths)
        self.script = base_url_script(paths) + preload_script(paths)
        base = (config.get_option("server.baseUrlPath") or "").strip("/")
        self.base = f"/{base}" if base else ""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not is_shell_request(scope, self.base):
            await self.app(scope, receive, send)
            return
        scope = dict(scope, headers=[(k, v) for k, v in scope.get("headers", [])
                                     if k.lower() not in DROPPED])
        await self.app(scope, receive, _ShellResponse(send, self.script).send)


class _ShellResponse:
    """Holds an HTML answer until its body is complete, then sends it with the script."""

    def __init__(self, send: Send, script: bytes):
        self._send, self._script = send, script
        self._start: dict[str, Any] | None = None
        self._body: list[bytes] = []

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            headers = dict((k.lower(), v) for k, v in message.get("headers", []))
            html = headers.get(b"content-type", b"").startswith(b"text/html")
            if message.get("status") == 200 and html and b"content-encoding" not in headers:
                self._start = message
                return
        elif message["type"] == "http.response.body" and self._start is not None:
            self._body.append(message.get("body", b""))
            if message.get("more_body"):
                return
            await self._flush()
            return
        await self._send(message)

    async def _flush(self) -> None:
        body = inject(b"".join(self._body), self._script)
        headers = [(k, v) for k, v in self._start.get("headers", [])
                   if k.lower() not in (b"content-length", b"etag", b"last-modified")]
        headers.append((b"content-length", str(len(body)).encode()))
        await self._send(dict(self._start, headers=headers))
        await self._send({"type": "http.response.body", "body": body})
