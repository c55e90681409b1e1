"""How `python -m backend api` runs uvicorn: slow clients are cut off, secrets never reach a
log line, SIGTERM ends the process like Ctrl-C (its `run/api.json` is removed).

- **Header deadline.** uvicorn waits for a request head as long as a client keeps the socket
  open (150 half-sent requests held 150 connections open). The protocols of
  `backend/api/head_deadline.py` (httptools when installed, else h11) close a connection
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

import copy
import logging
import re
import signal
import sys
from typing import Any

from uvicorn.config import LOGGING_CONFIG

from backend.api.head_deadline import guarded_protocol

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
