"""Persisted retrieval traces for the query-debug page: save (with who asked and which
documents the trace shows), list and load (each user their own, admins all), and scrub a
deleted document out of them. A stored trace is the result's `to_dict()` form (hit texts
trimmed), so live and stored results render alike.

Visibility: a trace is visible to the user who owns it (`owner_kind == "user"` and
`owner == viewer`) and to admins. System traces (CLI, evaluation) and traces stored before
migration 0007 (no owner) are visible to admins only. A trace the viewer may not see is
treated exactly like one that does not exist.

Deleting a document scrubs it out of the traces that show it (found through the indexed
`trace_documents` table) instead of deleting those traces: a trace records one question and
the hits of every document; the other documents' hits, the stage scores and timings stay
explainable, and chat answers and evaluation results that link to the trace keep working.
The deleted document's hits keep their rank, scores and ids but lose text, title, file
name, path, section and snippets, and say "deleted document"."""
from __future__ import annotations

from sqlalchemy import delete, false, select
from sqlalchemy.orm import Session

from backend.retrieval.types import TraceOwner
from backend.store import Store
from backend.store.models import RetrievalTrace, TraceDocument
from backend.store.redact import existing_document_ids, scrub_result, trace_document_ids

TEXT_LIMIT = 600


def save_trace(store: Store, result, owner: TraceOwner | None = None) -> str:
    data = result.to_dict()
    for h in data["hits"]:
        h["text"] = h["text"][:TEXT_LIMIT]
        h["expanded_text"] = None
    docs = trace_document_ids(data)
    with store.session() as s:
        row = RetrievalTrace(
            id=result.trace.id, query=result.query[:10000], policy=result.params.policy,
            params=result.params.model_dump(), trace=data, hit_count=len(result.hits),
            total_ms=result.trace.total_ms, owner_kind=owner.kind if owner else None,
            owner=owner.name if owner else None)
        s.add(row)
        s.add_all(TraceDocument(trace_id=row.id, document_id=d) for d in docs)
        s.flush()
        # A document deleted while this retrieval ran: its delete did not see this trace
        # yet, so it is scrubbed here (the order of flush and check closes the gap).
        gone = docs - existing_document_ids(s, docs)
        if gone:
            row.trace = scrub_result(data, gone)
            s.execute(delete(TraceDocument).where(TraceDocument.trace_id == row.id,
                                                  TraceDocument.document_id.in_(gone)))
    return result.trace.id


def _visible(q, viewer: str | None, is_admin: bool, viewer_kind: str = "user"):
    if is_admin:
        return q
    if not viewer or viewer_kind not in ("user", "principal"):
        return q.where(false())
    return q.where(RetrievalTrace.owner_kind == viewer_kind, RetrievalTrace.owner == viewer)


def list_traces(store: Store, *, viewer: str | None, is_admin: bool, viewer_kind: str = "user",
                limit: int = 50) -> list[RetrievalTrace]:
    """The newest traces `viewer` (a user, or a principal with `viewer_kind="principal"`)
    may see (all of them for an admin). The stored results are not filtered by scope here:
    backend/services/debug.py does that when one is loaded."""
    with store.session() as s:
        return list(s.scalars(_visible(select(RetrievalTrace), viewer, is_admin, viewer_kind)
                              .order_by(RetrievalTrace.created_at.desc()).limit(limit)))


def get_trace(store: Store, trace_id: str, *, viewer: str | None, is_admin: bool,
              viewer_kind: str = "user") -> RetrievalTrace | None:
    """The trace, or None when it does not exist or `viewer` may not see it."""
    with store.session() as s:
        return s.scalar(_visible(select(RetrievalTrace).where(
            RetrievalTrace.id == str(trace_id)), viewer, is_admin, viewer_kind))


def load_result_dict(store: Store, trace_id: str, *, viewer: str | None, is_admin: bool,
                     viewer_kind: str = "user") -> dict | None:
    """The stored result in `RetrievalResult.to_dict()` shape, or None (see get_trace)."""
    t = get_trace(store, trace_id, viewer=viewer, is_admin=is_admin, viewer_kind=viewer_kind)
    return None if t is None else t.trace


def scrub_document(s: Session, document_id: int) -> int:
    """Blank a deleted document out of every stored trace that shows it (in the caller's
    transaction); returns how many traces were changed."""
    ids = list(s.scalars(select(TraceDocument.trace_id).where(
        TraceDocument.document_id == document_id)))
    for i in range(0, len(ids), 500):
        for row in s.scalars(select(RetrievalTrace).where(RetrievalTrace.id.in_(ids[i:i + 500]))):
            scrubbed = scrub_result(row.trace, {document_id})
            if scrubbed is not None:
                row.trace = scrubbed
    s.execute(delete(TraceDocument).where(TraceDocument.document_id == document_id))
    return len(ids)


def put_stage(store: Store, trace_id: str | None, stage: dict, *, first: bool = False) -> None:
    """Put a chat stage (`route`, `rewrite`, `question URL`) into a stored trace, replacing a
    stage of the same name: first when `first`, else right after the `route` stage (or first
    when there is none). The chat adds these after retrieval has stored the trace."""
    if not trace_id:
        return
    with store.session() as s:
        row = s.get(RetrievalTrace, trace_id)
        if row is None or not isinstance(row.trace, dict):
            return
        data = dict(row.trace)
        tr = dict(data.get("trace") or {})
        stages = [x for x in tr.get("stages", []) if x.get("name") != stage.get("name")]
        at = 0 if first or not (stages and stages[0].get("name") == "route") else 1
        tr["stages"] = stages[:at] + [stage] + stages[at:]
        data["trace"] = tr
        row.trace = data
