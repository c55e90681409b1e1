"""Taking a deleted document's content out of the records derived from it: stored
retrieval results (traces) and chat answers' sources. Pure functions on their JSON (also
used by migration 0007), the label shown instead, and which documents still exist. Used by
backend/retrieval/traces.py and backend/chat/sources.py; backend/services/deletion.py says what a
delete does."""
from __future__ import annotations

from typing import Any, Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.store.models import Document

DELETED_LABEL = "deleted document"
OUTSIDE_LABEL = "document outside your access"
# What a deleted document's entries keep: numbers and ids, nothing taken from the document.
HIT_KEEP = {"chunk_id", "document_id", "version_id", "rank", "score", "vector_score",
            "vector_rank", "keyword_score", "keyword_rank", "fused_score", "fused_rank",
            "boost", "rerank_score", "version_number", "section_id", "page", "page_end",
            "start", "end", "ordinal", "expanded_start", "expanded_end"}
DOCUMENT_KEEP = {"document_id", "score", "rank", "chunks", "best_chunk_id"}
SOURCE_KEEP = {"n", "chunk_id", "document_id", "score", "cited"}


def _empty(value: Any) -> Any:
    if isinstance(value, str):
        return ""
    if isinstance(value, list):
        return []
    if isinstance(value, dict):
        return {}
    return None


def blank_entry(entry: dict[str, Any], keep: set[str], title_key: str,
                label: str = DELETED_LABEL) -> dict[str, Any]:
    """A copy of `entry` with every field not in `keep` (numbers and ids: ranks, scores,
    chunk and document ids) emptied, the title set to `label` and `deleted: True` (for
    DELETED_LABEL) or `hidden: True` (anything else: outside the reader's access, where
    the ids go too). A whitelist, so a field added to hits or sources later is emptied."""
    if label != DELETED_LABEL:
        keep = keep - {"chunk_id", "document_id", "version_id", "section_id"}
    out = {k: (v if k in keep else _empty(v)) for k, v in entry.items()}
    out[title_key] = label
    out["deleted" if label == DELETED_LABEL else "hidden"] = True
    return out


def trace_document_ids(data: dict[str, Any] | None) -> set[int]:
    """The documents a stored retrieval result shows: its hits' and its document list's."""
    return {int(x["document_id"]) for key in ("hits", "documents")
            for x in (data or {}).get(key) or [] if x.get("document_id") is not None}


def scrub_result(data: dict[str, Any], document_ids: set[int]) -> dict[str, Any] | None:
    """A copy of a stored retrieval result whose hits and document entries of
    `document_ids` are blanked; None when it shows none of them. Stage candidate lists
    hold only chunk ids and scores and stay as they are."""
    if not trace_document_ids(data) & document_ids:
        return None
    out = dict(data)
    out["hits"] = [blank_entry(h, HIT_KEEP, "document_title")
                   if h.get("document_id") in document_ids else h for h in data.get("hits", [])]
    out["documents"] = [blank_entry(d, DOCUMENT_KEEP, "title")
                        if d.get("document_id") in document_ids else d
                        for d in data.get("documents", [])]
    return out


def source_document_ids(sources: list[dict[str, Any]] | None) -> set[int]:
    """The documents a chat answer's sources come from."""
    return {int(x["document_id"]) for x in sources or [] if x.get("document_id") is not None}


def scrub_sources(sources: list[dict[str, Any]], document_ids: set[int], *,
                  label: str = DELETED_LABEL) -> list[dict[str, Any]] | None:
    """A copy of an answer's sources with those of `document_ids` blanked (each keeps its
    number `n`, so the answer's citations stay aligned); None when none points to them."""
    if not source_document_ids(sources) & document_ids:
        return None
    return [blank_entry(x, SOURCE_KEEP, "title", label) if x.get("document_id") in document_ids
            else x for x in sources]


def existing_document_ids(s: Session, ids: Iterable[int]) -> set[int]:
    """Which of `ids` are documents that exist. The rows are read with a shared lock
    (PostgreSQL: FOR SHARE; SQLite has no row locks, its single writer serialises instead),
    so a delete running at the same time either finished before (the id is missing here)
    or waits until the caller's transaction is committed (and then finds its rows)."""
    ids = sorted({int(i) for i in ids})
    found: set[int] = set()
    for i in range(0, len(ids), 500):
        found.update(s.scalars(select(Document.id).where(Document.id.in_(ids[i:i + 500]))
                               .with_for_update(read=True)))
    return found
