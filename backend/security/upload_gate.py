"""Nothing reaches Streamlit's upload endpoint before sign-in.

Streamlit's `PUT /_stcore/upload_file/{session_id}/{file_id}` accepts a file of up to
`server.maxUploadSize` MB from ANY connected session (the sign-in page's too) under ANY
file id, and keeps it in memory until the session ends; it checks neither that the page
rendered an uploader nor who is signed in. `UploadGate` is an ASGI middleware in front of
it (app.py declares the `st.App` that `streamlit run app.py` serves, with this middleware):
an upload or delete is let through only for a browser session that the dashboard
registered as signed in (`admit`, called on every run by pages/_common.current_user) and
whose user, read from the users file now, is enabled, has not ended that session and may
upload (editor). Everything else gets 403 before a byte of the body is read.

The registry is per process (Streamlit keeps sessions and uploaded files per process too).
`upload_limit_mb` turns the ingestion limit into Streamlit's `server.maxUploadSize`."""
from __future__ import annotations

import logging
import math
import re
import threading
from pathlib import Path
from typing import Any, Awaitable, Callable

from backend.security import auth
from backend.config import Settings
from backend.security.sessions import Session, validate

log = logging.getLogger(__name__)

UPLOAD_PATH = re.compile(r"/_stcore/upload_file/([^/]+)/[^/]+/?$")
_PRUNE_AT = 512

_lock = threading.Lock()
_sessions: dict[str, Session] = {}
_installed = threading.Event()


def upload_limit_mb(settings: Settings) -> int:
    """Streamlit's server.maxUploadSize (whole MB of 1024 * 1024 bytes, at least 1) for the
    ingestion limit `max_upload_mb` (MiB, may be fractional: rounded up, and ingestion
    refuses what lies between with its own message)."""
    return max(1, math.ceil(settings.max_upload_mb))


# ---- registry -----------------------------------------------------------------------------


def admit(session_id: str, session: Session) -> None:
    """This browser session is signed in as `session` (called on every dashboard run)."""
    with _lock:
        _sessions[session_id] = session
        if len(_sessions) > _PRUNE_AT:
            _prune()


def revoke(session_id: str) -> None:
    with _lock:
        _sessions.pop(session_id, None)


def _prune() -> None:
    """Forget sessions Streamlit no longer has (only possible inside a running server)."""
    try:
        from streamlit import runtime

        if not runtime.exists():
            return
        rt = runtime.get_instance()
        for sid in [s for s in _sessions if not rt.is_active_session(s)]:
            del _sessions[sid]
    except Exception:  # pruning is housekeeping; the gate still decides per request
        log.exception("pruning the upload gate's sessions failed")


def may_upload(session_id: str, users: auth.UserStore) -> bool:
    """True while the browser session is signed in as a current user who may upload."""
    with _lock:
        session = _sessions.get(session_id)
    user = validate(users, session)
    return user is not None and auth.can(user.role, "upload")


def admitted() -> list[Session]:
    """The sessions this process currently lets upload (for status pages and tests)."""
    with _lock:
        return list(_sessions.values())


def installed() -> bool:
    """Whether this process serves the dashboard behind the gate (app.py's `st.App`)."""
    return _installed.is_set()


# ---- middleware ---------------------------------------------------------------------------

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class UploadGate:
    """ASGI middleware: uploads (PUT) and deletes on Streamlit's upload endpoint only for
    admitted sessions; every other request passes untouched."""

    REFUSAL = b"Uploads need a signed-in user with the editor role.\n"

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], *,
                 data_dir: Path | None = None):
        self.app = app
        self.data_dir = data_dir
        _installed.set()

    def _users(self) -> auth.UserStore:
        return auth.UserStore(auth.AuthPaths.under(self.data_dir or Settings().data_dir))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") != "OPTIONS":
            match = UPLOAD_PATH.search(scope.get("path") or "")
            if match is not None:
                from starlette.concurrency import run_in_threadpool

                if not await run_in_threadpool(may_upload, match.group(1), self._users()):
                    await self._refuse(send)
                    return
        await self.app(scope, receive, send)

    async def _refuse(self, send: Send) -> None:
        await send({"type": "http.response.start", "status": 403,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(self.REFUSAL)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": self.REFUSAL})
