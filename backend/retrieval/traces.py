"""Persisted retrieval traces for the query-debug page: save, list, load. A stored trace is
the result's `to_dict()` form (hit texts trimmed), so live and stored results render alike."""
from __future__ import annotations

from sqlalchemy import select

from backend.store import Store
from backend.store.models import RetrievalTrace

TEXT_LIMIT = 600


def save_trace(store: Store, result) -> str:
    data = result.to_dict()
    for h in data["hits"]:
        h["text"] = h["text"][:TEXT_LIMIT]
        h["expanded_text"] = None
    with store.session() as s:
        s.add(RetrievalTrace(
            id=result.trace.id, query=result.query[:10000], policy=result.params.policy,
            params=result.params.model_dump(), trace=data, hit_count=len(result.hits),
            total_ms=result.trace.total_ms))
    return result.trace.id


def list_traces(store: Store, limit: int = 50) -> list[RetrievalTrace]:
    with store.session() as s:
        return list(s.scalars(select(RetrievalTrace).order_by(
            RetrievalTrace.created_at.desc()).limit(limit)))


def get_trace(store: Store, trace_id: str) -> RetrievalTrace | None:
    with store.session() as s:
        return s.get(RetrievalTrace, trace_id)


def load_result_dict(store: Store, trace_id: str) -> dict | None:
    """The stored result in `RetrievalResult.to_dict()` shape, or None."""
    t = get_trace(store, trace_id)
    return None if t is None else t.trace
