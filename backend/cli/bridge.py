"""The CLI's half of the bridge to a running ragscope process (backend/bridge/__init__.py):
find the process the data dir's run file announces, hand it `search` or `ask`, read its reply.
Without one (or with `--local`) the command runs in this process (backend/bridge/calls.py)."""
from __future__ import annotations

import argparse
import json
import os
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backend.bridge.protocol import ASK_ARGS, RUN_FILE, SEARCH_ARGS, SECRET_HEADER
from backend.errors import RagscopeError

CONNECT_TIMEOUT_S = 0.5  # an unanswered probe falls back to working in-process


@dataclass(frozen=True)
class Link:
    url: str
    secret: str
    pid: int

    def _request(self, path: str, body: dict, timeout: float) -> Any:
        req = urllib.request.Request(
            self.url + path, data=json.dumps(body).encode(), method="POST",
            headers={"Content-Type": "application/json", SECRET_HEADER: self.secret})
        try:
            return urllib.request.urlopen(req, timeout=timeout)
        except urllib.error.HTTPError as e:  # the server's error body names the problem
            try:
                err = json.loads(e.read() or b"{}").get("error") or {}
            except ValueError:
                err = {}
            raise RagscopeError(err.get("message") or f"running process: HTTP {e.code}") from None

    def search(self, a: argparse.Namespace) -> dict[str, Any]:
        with self._request("/api/_local/search", _args(a, SEARCH_ARGS), timeout=120) as r:
            return json.loads(r.read())

    def ask(self, a: argparse.Namespace) -> Iterator[dict[str, Any]]:
        with self._request("/api/_local/ask", _args(a, ASK_ARGS), timeout=600) as r:
            for line in r:
                if line.strip():
                    ev = json.loads(line)
                    if ev.get("type") == "error":
                        raise RagscopeError(ev.get("message") or "the answer could not be completed")
                    yield ev


def _args(a: argparse.Namespace, names: tuple[str, ...]) -> dict:
    return {k: getattr(a, k, None) for k in names}


def find(data_dir: Path) -> Link | None:
    """The running process announced in the data dir, if it is alive and answers."""
    path = Path(data_dir) / RUN_FILE
    try:
        info = json.loads(path.read_text())
        link = Link(str(info["url"]), str(info["secret"]), int(info["pid"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(link.pid, 0)
    except ProcessLookupError:  # left by a process that died: not tried, and removed
        _remove_stale(path, link.pid)
        return None
    except OSError:  # alive, another user's: not ours
        return None
    try:
        with urllib.request.urlopen(link.url + "/api/health", timeout=CONNECT_TIMEOUT_S):
            return link
    except (OSError, ValueError):
        return None


def _remove_stale(path: Path, pid: int) -> None:
    try:
        if json.loads(path.read_text()).get("pid") == pid:
            path.unlink()
    except (OSError, ValueError):
        pass


def link_for(a: argparse.Namespace) -> Link | None:
    """Where this invocation's search/ask should run: None = in this process."""
    if getattr(a, "local", False):
        return None
    from backend.config import Settings

    return find(Settings().data_dir)
