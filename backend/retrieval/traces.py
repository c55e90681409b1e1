"""Persisted retrieval traces for the query-debug page: save, list, load."""
from __future__ import annotations

from dataclasses import asdict

from sqlalchemy import select

from backend.store import Store
from backend.store.models import RetrievalTrace


def save_trace(store: Store, result) -> str:
    data = result.to_dict()
    hits = [{k: h[k] for k in ("chunk_id", "rank", "score", "vector_score", "vector_rank",
                                "keyword_score", "keyword_rank", "fused_score", "fused_rank",
                                "rerank_score", "boost", "document_id", "document_title",
                                "breadcrumb", "page")} for h in data["hits"]]
    with store.session() as s:
        s.add(RetrievalTrace(
            id=result.trace.id, query=result.query[:10000], policy=result.params.policy,
            params=result.params.model_dump(),
            trace={"trace": asdict(result.trace), "hits": hits, "warnings": result.warnings,
                   "mode": result.mode, "documents": data["documents"]},
            hit_count=len(result.hits), total_ms=result.trace.total_ms))
    return result.trace.id


def list_traces(store: Store, limit: int = 50) -> list[RetrievalTrace]:
    with store.session() as s:
        return list(s.scalars(select(RetrievalTrace).order_by(
            RetrievalTrace.created_at.desc()).limit(limit)))


def get_trace(store: Store, trace_id: str) -> RetrievalTrace | None:
    with store.session() as s:
        return s.get(RetrievalTrace, trace_id)
