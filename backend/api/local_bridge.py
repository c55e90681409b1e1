"""The serving half of the CLI bridge (backend/bridge/__init__.py): announce this process
as the CLI's backend in the data dir, withdraw the announcement, and accept only the local
operator's requests. The routes are backend/api/routes_local.py."""
from __future__ import annotations

import hmac
import json
import os
import secrets
from pathlib import Path

from backend.bridge.protocol import RUN_FILE


def publish(data_dir: Path, url: str) -> str:
    """Announce this process as the CLI's backend; returns the secret it must accept."""
    from backend.security.private_files import make_private_dir, write_private

    secret = secrets.token_urlsafe(32)
    path = Path(data_dir) / RUN_FILE
    make_private_dir(path.parent)
    write_private(path, json.dumps({"pid": os.getpid(), "url": url.rstrip("/"),
                                    "secret": secret}).encode())
    return secret


def withdraw(data_dir: Path) -> None:
    """Remove the announcement if it is still this process's."""
    path = Path(data_dir) / RUN_FILE
    try:
        if json.loads(path.read_text()).get("pid") == os.getpid():
            path.unlink()
    except (OSError, ValueError):
        pass


def accepts(expected: str | None, given: str | None, client_host: str | None) -> bool:
    """Is this request the local operator's? Loopback only, secret compared in constant time."""
    if not expected or not given or client_host not in {"127.0.0.1", "::1", "localhost"}:
        return False
    return hmac.compare_digest(expected.encode(), given.encode())
