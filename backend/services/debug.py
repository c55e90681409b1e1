"""Service functions behind the query-debug page: run a retrieval within the actor's scope
with a trace persisted (owned by the actor), list and load past traces (an actor's own; an
admin's: all), and the choices the parameter form offers (within the scope).

A stored trace is filtered by the reader's scope when it is loaded: hits and document
entries of documents the reader may not read (any more) are left out, and so are the stage
candidate lists (chunk ids and scores of every candidate) of such a trace, so a trace made
while the actor had wider access shows nothing outside the current scope."""
from __future__ import annotations

from typing import Any

from backend.security import access
from backend.security.access import Actor, Scope
from backend.security.display import safe_text
from backend.errors import NotFound
from backend.retrieval import RetrievalParams, Retriever, lookup
from backend.retrieval.traces import list_traces, load_result_dict
from backend.store.redact import trace_document_ids

HIDDEN_NOTE = ("candidates hidden: this trace showed documents outside your current access")


def run_query(rs, query: str, params: dict[str, Any], *, actor: Actor) -> dict[str, Any]:
    """Retrieve with the given parameters (validated by RetrievalParams) within the actor's
    scope and persist the trace for the actor; returns the result in `to_dict()` form."""
    p = RetrievalParams(**{**params, "persist_trace": True})
    return Retriever(rs).retrieve(query, p, scope=access.scope_of(rs, actor),
                                  owner=actor.trace_owner()).to_dict()


def _viewer(actor: Actor | None) -> tuple[str | None, str, bool]:
    if actor is None:
        return None, "user", False
    return actor.username, actor.kind, actor.kind == "system" or actor.role == "admin"


def past_traces(rs, *, actor: Actor | None, limit: int = 50) -> list[dict[str, Any]]:
    """The newest traces the actor may see: their own; an admin's: everyone's."""
    viewer, kind, is_admin = _viewer(actor)
    return [{"id": t.id, "query": t.query, "policy": t.policy, "hits": t.hit_count,
             "ms": round(t.total_ms, 1), "at": t.created_at,
             "owner": t.owner if t.owner_kind == "user" else
             f"{t.owner_kind}:{t.owner}" if t.owner_kind else "(before owners)"}
            for t in list_traces(rs.store, viewer=viewer, viewer_kind=kind, is_admin=is_admin,
                                 limit=limit)]


def load_trace(rs, trace_id: str, *, actor: Actor | None) -> dict[str, Any]:
    """A stored result, filtered by the actor's scope; NotFound when there is none with
    that id or the actor may not see it (the same error, so an id of someone else's trace
    tells nothing)."""
    viewer, kind, is_admin = _viewer(actor)
    data = load_result_dict(rs.store, trace_id, viewer=viewer, viewer_kind=kind,
                            is_admin=is_admin)
    if data is None:
        raise NotFound(f"No stored trace with id {trace_id}.")
    return scope_result(rs, data, access.scope_of(rs, actor))


def scope_result(rs, data: dict[str, Any], scope: Scope) -> dict[str, Any]:
    """A stored result without anything of documents outside `scope` (see module doc)."""
    if scope.unrestricted:
        return data
    shown = trace_document_ids(data)
    with rs.store.session() as s:  # a deleted document's entries are scrubbed already
        exist = access.visible_document_ids(s, access.Scope.everything(), shown)
        hidden = exist - access.visible_document_ids(s, scope, exist)
    if not hidden:
        return data
    out = dict(data)
    out["hits"] = [h for h in data.get("hits", []) if h.get("document_id") not in hidden]
    out["documents"] = [d for d in data.get("documents", [])
                        if d.get("document_id") not in hidden]
    trace = dict(out.get("trace") or {})
    trace["stages"] = [{**st, "candidates": [], "note": HIDDEN_NOTE}
                       if st.get("candidates") else st for st in trace.get("stages", [])]
    out["trace"] = trace
    return out


def filter_choices(rs, *, scope: Scope) -> dict[str, list]:
    """Collections, document types and file types among what the scope may read."""
    from backend.services.documents import filter_options

    opts = filter_options(rs, scope=scope)
    return {"collections": opts.collections, "doc_types": opts.doc_types,
            "file_types": opts.file_types}


def chunk_labels(rs, result: dict[str, Any], *, scope: Scope) -> dict[str, str]:
    """Every hit and candidate chunk of a result named for people: "title · section path ·
    p. N" (the page showed 12-hex-digit chunk ids). Chunks of documents outside `scope`, and
    deleted ones, get no label (the page shows the short id)."""
    ids = {h["chunk_id"] for h in result.get("hits", []) if h.get("chunk_id")}
    for stage in (result.get("trace") or {}).get("stages", []):
        ids |= {c["id"] for c in stage.get("candidates") or [] if c.get("id")}
    if not ids:
        return {}
    with rs.store.session() as s:
        infos = lookup.chunk_infos(s, sorted(ids))
        readable = access.visible_document_ids(s, scope, {i.document_id for i in infos.values()})
        infos = {c: i for c, i in infos.items() if i.document_id in readable}
        paths = lookup.section_paths(s, {i.version_id for i in infos.values()},
                                     {i.section_id for i in infos.values() if i.section_id})
    out = {}
    for cid, i in infos.items():
        parts = [safe_text(i.title or i.filename)]
        crumbs = paths.get(i.section_id, ([], "", 0, 0))[0] if i.section_id else []
        if crumbs:
            parts.append(" › ".join(crumbs))
        if i.page is not None:
            parts.append(f"p. {i.page}")
        out[cid] = " · ".join(parts)
    return out
