"""`search` and `ask` through a running ragscope process (issue 15, "instant CLI").

A `python -m backend api` process (also the one `up` starts beside the dashboard) has the
embedding model, the indexes and the store open. When it runs, the CLI's `search` and `ask`
hand their arguments to it instead of loading the model themselves, and print what it sends
back exactly as they print a local result.

- Discovery: the serving process writes `run/api.json` into the data dir (0600, in the 0700
  data dir: readable by exactly those who can read the database anyway) with its pid, URL and
  a random secret, and removes it when it stops. The CLI uses it when the pid is alive and
  the server answers; otherwise (or with `--local`) it works in-process as before.
- Authority: the secret stands for the operator who runs both processes. The server accepts
  it only from loopback clients and compares it in constant time; `--as USER` is resolved
  by the server exactly as the CLI resolves it (the user's role and access groups). The
  routes (backend/api/routes_local.py) are not in the OpenAPI spec and answer 404 without a
  secret configured.
- One code path: `search_result` and `ask_events` are what both sides run — the CLI
  in-process, or the server on the CLI's behalf — so the output cannot drift apart.
"""
from __future__ import annotations

import argparse
import hmac
import json
import os
import secrets
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backend.errors import RagscopeError

RUN_FILE = Path("run") / "api.json"
SECRET_HEADER = "X-Ragscope-Local"
SEARCH_ARGS = ("query", "policy", "k", "collection", "fusion", "expand", "save_trace", "as_user")
ASK_ARGS = ("question", "session", "provider", "model", "collection", "user", "as_user")
CONNECT_TIMEOUT_S = 0.5  # an unanswered probe falls back to working in-process


# ---- what both sides run --------------------------------------------------------------------

def search_result(rs, a: argparse.Namespace) -> dict[str, Any]:
    """The CLI's search (`a`: its arguments) as the retrieval result's dict."""
    from backend.cli.main import actor_of, scope_of
    from backend.retrieval import RetrievalParams, Retriever

    params = RetrievalParams(policy=a.policy, k=a.k,
                             collections=[a.collection] if a.collection else None,
                             fusion=a.fusion or RetrievalParams().fusion,
                             expand=a.expand, persist_trace=a.save_trace)
    actor = actor_of(a, rs)
    res = Retriever(rs).retrieve(a.query, params, scope=scope_of(a, rs),
                                 owner=actor.trace_owner())
    return json.loads(json.dumps(res.to_dict(), ensure_ascii=False, default=str))


def ask_events(svc, a: argparse.Namespace) -> Iterator[dict[str, Any]]:
    """The CLI's question (`a`: its arguments) as plain events: `retrieved`, `delta`,
    `fallback`, and last `answered` with the session and the stored message."""
    from backend.security.access import scope_of
    from backend.chat.service import Answered, Delta, Fallback, Retrieved
    from backend.cli.main import actor_of

    actor = actor_of(a, svc.rs)
    owner = actor.username if actor.kind != "system" else None
    scope = scope_of(svc.rs, actor)
    changes = {k: v for k, v in (("provider", a.provider), ("model", a.model),
                                 ("collections", a.collection)) if v is not None}
    if a.collection:
        scope.collections(a.collection)  # outside the scope: "unknown collection"
    if a.session:
        sess = svc.get_session(a.session, user=owner)
        if changes:
            sess = svc.update_settings(sess.uuid, user=owner, **changes)
    else:
        sess = svc.create_session(owner or a.user, **changes)
    for ev in svc.ask_stream(sess.uuid, a.question, scope=scope, user=owner):
        if isinstance(ev, Retrieved):
            yield {"type": "retrieved", "sources": len(ev.sources),
                   "retrieval_ms": ev.retrieval_ms}
        elif isinstance(ev, Delta):
            yield {"type": "delta", "text": ev.text}
        elif isinstance(ev, Fallback):
            yield {"type": "fallback", "notice": ev.notice}
        elif isinstance(ev, Answered):
            msg = json.loads(json.dumps(ev.message.to_dict(), ensure_ascii=False, default=str))
            yield {"type": "answered", "session": ev.session.uuid, "title": ev.session.title,
                   "message": msg}


def namespace(body: dict, allowed: tuple[str, ...]) -> argparse.Namespace:
    """The arguments a client sent, limited to those of the command."""
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise RagscopeError(f"unknown argument {unknown[0]!r}")
    return argparse.Namespace(**{k: body.get(k) for k in allowed})


# ---- the serving side -----------------------------------------------------------------------

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


# ---- the CLI side ---------------------------------------------------------------------------

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
