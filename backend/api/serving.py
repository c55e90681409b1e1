"""How `python -m backend api` runs uvicorn: slow clients are cut off, secrets never reach a
log line, SIGTERM ends the process like Ctrl-C (its `run/api.json` is removed).

- **Header deadline.** uvicorn waits for a request head as long as a client keeps the socket
  open (150 half-sent requests held 150 connections open). `GuardedH11` closes a connection
  whose head is not complete `RAGSCOPE_API_HEADER_TIMEOUT_S` after it opened (or after its
  previous response). Body reads have their deadline in `backend/api/limits.py` (BodyDeadline).
- **Redaction.** `RedactSecrets` rewrites every record of the uvicorn loggers and the root
  logger's handlers: the values of query parameters such as `token`, `access_token`,
  `api_key`, `password`, `secret`; `Authorization`/`X-Ragscope-Local` header values; anything
  shaped like an API token (`rgs_…`) or `Bearer …`.
- **SIGTERM.** uvicorn re-raises the signal it caught after its graceful shutdown; with the
  default SIGTERM disposition the process then died before its `finally` ran. `serve` sets a
  handler that exits with 143 through Python, so clean-up runs as for SIGINT."""
from __future__ import annotations

import asyncio
import copy
import logging
import re
import signal
import sys
from typing import Any

import h11
from uvicorn.config import LOGGING_CONFIG
from uvicorn.protocols.http.h11_impl import H11Protocol

SECRET_PARAMS = ("token", "access_token", "api_key", "apikey", "key", "password", "passwd",
                 "secret", "auth", "authorization", "session", "code")
_PARAM = re.compile(r"(?i)([?&;](?:%s)=)[^&;#\s\"']*" % "|".join(SECRET_PARAMS))
_TOKEN = re.compile(r"rgs_[A-Za-z0-9_\-]{6,}")
_BEARER = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]+")
_HEADER = re.compile(r"(?i)\b(authorization|x-ragscope-local|cookie)(['\"]?\s*[:=,]\s*['\"]?)"
                     r"[^'\"\r\n,)]+")
REDACTED = "[redacted]"


def redact(text: str) -> str:
    """`text` with every secret it may carry replaced by `[redacted]`."""
    text = _PARAM.sub(lambda m: m.group(1) + REDACTED, text)
    text = _HEADER.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)
    text = _BEARER.sub(lambda m: m.group(1) + " " + REDACTED, text)
    return _TOKEN.sub(REDACTED, text)


class RedactSecrets(logging.Filter):
    """Redacts a record's arguments (uvicorn's access formatter needs them as its tuple:
    client, method, path, HTTP version, status) and its message."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: redact(v) if isinstance(v, str) else v
                           for k, v in record.args.items()}
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        elif record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


def log_config() -> dict[str, Any]:
    """uvicorn's logging configuration with `RedactSecrets` on every handler."""
    cfg = copy.deepcopy(LOGGING_CONFIG)
    cfg["filters"] = {"redact": {"()": RedactSecrets}}
    for handler in cfg["handlers"].values():
        handler.setdefault("filters", []).append("redact")
    return cfg


def guard_root_logger() -> None:
    """The same filter on the root logger's handlers (backend's own loggers propagate there)."""
    for h in logging.getLogger().handlers:
        if not any(isinstance(f, RedactSecrets) for f in h.filters):
            h.addFilter(RedactSecrets())


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request head (see the module doc)."""

    header_timeout: float = 10.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_task: asyncio.TimerHandle | None = None
        self._arm_head()

    def _arm_head(self) -> None:
        if getattr(self, "_head_task", None) is None:
            self._head_task = self.loop.call_later(self.header_timeout, self._head_overdue)

    def _disarm_head(self) -> None:
        if getattr(self, "_head_task", None) is not None:
            self._head_task.cancel()
            self._head_task = None

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is not h11.IDLE:  # a head arrived (or the client is gone)
            self._disarm_head()

    def on_response_complete(self) -> None:
        self._disarm_head()
        self._arm_head()  # for the next request on this connection; handle_events below
        super().on_response_complete()  # disarms it again if a pipelined head is waiting

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head()
        super().connection_lost(exc)

    def _head_overdue(self) -> None:
        self._head_task = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.logger.info("%s: closed, no complete request head within %g s",
                             "%s:%d" % self.client if self.client else "client",
                             self.header_timeout)
            self.transport.close()


def guarded_protocol(header_timeout_s: float) -> type[GuardedH11]:
    return type("GuardedH11", (GuardedH11,), {"header_timeout": float(header_timeout_s)})


def exit_on_sigterm() -> None:
    """SIGTERM raises SystemExit(143) in the main thread (clean-up in `finally` runs)."""
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signal.SIGTERM))


def config(app, *, host: str, port: int, log_level: str, settings):
    """The uvicorn configuration of `python -m backend api` (and of tests serving the app)."""
    import uvicorn

    return uvicorn.Config(app, host=host, port=port, log_level=log_level, access_log=True,
                          proxy_headers=False, server_header=False, log_config=log_config(),
                          http=guarded_protocol(settings.api_header_timeout_s),
                          timeout_keep_alive=5)
