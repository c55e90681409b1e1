"""What a CLI invocation runs, the same in the CLI's own process and in a serving process on
its behalf (backend/bridge/__init__.py): who acts (`--as USER`), `search` and `ask`.

Who acts: the operator of the CLI (`Actor.system("cli")`: admin rights, every collection),
or with `--as NAME` the dashboard user NAME with the role and access groups the users file
and the store give it now (backend/cli/main.py)."""
from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from typing import Any

from backend.config import Settings
from backend.errors import RagscopeError


def actor_of(a, rs=None):
    """The actor of this invocation: the system operator, or the user named by `--as`."""
    from backend.security import access, auth

    name = getattr(a, "as_user", None)
    if not name:
        return access.Actor.system("cli")
    settings = rs.settings if rs is not None else Settings()
    user = auth.UserStore(auth.AuthPaths.under(settings.data_dir)).get(name)
    if user is None or user.disabled:
        raise RagscopeError(f"--as {name}: no such enabled dashboard user")
    return access.Actor(user.username, user.role)


def scope_of(a, rs):
    from backend.security import access

    return access.scope_of(rs, actor_of(a, rs))


def search_result(rs, a: argparse.Namespace) -> dict[str, Any]:
    """The CLI's search (`a`: its arguments) as the retrieval result's dict."""
    from backend.retrieval import RetrievalParams, Retriever

    params = RetrievalParams(policy=a.policy, k=a.k,
                             collections=[a.collection] if a.collection else None,
                             fusion=a.fusion or RetrievalParams().fusion,
                             expand=a.expand, persist_trace=a.save_trace,
                             tags=getattr(a, "tag", None) or None,
                             categories=getattr(a, "category", None) or None)
    actor = actor_of(a, rs)
    res = Retriever(rs).retrieve(a.query, params, scope=scope_of(a, rs),
                                 owner=actor.trace_owner())
    return json.loads(json.dumps(res.to_dict(), ensure_ascii=False, default=str))


def _author_profile(rs, ref: str | None) -> dict:
    """`--author-profile ID|NAME|none` as a session change (issue 26)."""
    if ref is None:
        return {}
    if str(ref).strip().lower() == "none":
        return {"profile_id": None}
    from backend.chat.profiles import ProfileService

    return {"profile_id": ProfileService(rs).show(ref).id}


def ask_events(svc, a: argparse.Namespace) -> Iterator[dict[str, Any]]:
    """The CLI's question (`a`: its arguments) as plain events: `retrieved`, `delta`,
    `fallback`, and last `answered` with the session and the stored message."""
    from backend.security.access import scope_of
    from backend.chat.service import Answered, Delta, Fallback, Retrieved

    actor = actor_of(a, svc.rs)
    owner = actor.username if actor.kind != "system" else None
    scope = scope_of(svc.rs, actor)
    changes = {k: v for k, v in (("provider", a.provider), ("model", a.model),
                                 ("collections", a.collection),
                                 ("context_mode", getattr(a, "context", None)))
               if v is not None}
    changes.update(_author_profile(svc.rs, getattr(a, "author_profile", None)))
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
