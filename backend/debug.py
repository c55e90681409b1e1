"""Service functions behind the query-debug page: run a retrieval with a trace persisted,
list and load past traces, and the choices the parameter form offers."""
from __future__ import annotations

from typing import Any

from backend.retrieval import RetrievalParams, Retriever
from backend.retrieval.traces import list_traces, load_result_dict
from backend.store import repo


def run_query(rs, query: str, params: dict[str, Any]) -> dict[str, Any]:
    """Retrieve with the given parameters (validated by RetrievalParams) and persist the
    trace; returns the result in `to_dict()` form."""
    p = RetrievalParams(**{**params, "persist_trace": True})
    return Retriever(rs).retrieve(query, p).to_dict()


def past_traces(rs, limit: int = 50) -> list[dict[str, Any]]:
    return [{"id": t.id, "query": t.query, "policy": t.policy, "hits": t.hit_count,
             "ms": round(t.total_ms, 1), "at": t.created_at} for t in list_traces(rs.store, limit)]


def load_trace(rs, trace_id: str) -> dict[str, Any] | None:
    return load_result_dict(rs.store, trace_id)


def filter_choices(rs) -> dict[str, list]:
    from sqlalchemy import select

    from backend.store.models import Document

    with rs.store.session() as s:
        return {
            "collections": [c.name for c, _ in repo.list_collections(s)],
            "doc_types": sorted(s.scalars(select(Document.doc_type).distinct())),
            "file_types": sorted(s.scalars(select(Document.file_type).distinct())),
        }
