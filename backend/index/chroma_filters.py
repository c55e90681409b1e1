"""How ChromaVectorIndex (backend/index/chroma_index.py) stores and filters chunk metadata:
the metadata written per chunk, the in-process matcher of a filtered search (post-filter), the
same filter as Chroma's `where`, and hits from (id, distance) pairs."""
from __future__ import annotations

from typing import Any, Mapping

from backend.index.base import IndexedChunk, IndexFilter, IndexHit

_NOTHING: dict[str, Any] = {"__nothing__": True}
MEMBERSHIPS = "memberships"  # metadata key: list of "<kind>:<id>" tokens (absent when none)


def _hits(pairs: list[tuple[str, float]]) -> list[IndexHit]:
    return [IndexHit(chunk_id=cid, score=1.0 - float(d), rank=rank)
            for rank, (cid, d) in enumerate(pairs, start=1)]


class _Matcher:
    """An IndexFilter evaluated on one chunk's stored metadata (what `_where` asks Chroma)."""

    def __init__(self, flt: IndexFilter):
        self.groups = [set(g) for g in flt.membership_groups() or []]
        self.docs = None if flt.document_ids is None else {int(i) for i in flt.document_ids}
        self.types = None if flt.doc_types is None else {str(t) for t in flt.doc_types}

    def __call__(self, meta: dict[str, Any]) -> bool:
        toks = set(meta.get(MEMBERSHIPS) or ())
        return (all(not toks.isdisjoint(g) for g in self.groups)
                and (self.docs is None or meta.get("document_id") in self.docs)
                and (self.types is None or meta.get("doc_type") in self.types))


FILTER_FIELDS = ("document_id", "doc_type", MEMBERSHIPS)  # what `_Matcher` tests


def _filter_fields(meta: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a chunk's Chroma metadata that filters test, for the exact-search log."""
    return {k: meta[k] for k in FILTER_FIELDS if meta.get(k) is not None}


def _metadata(chunk: IndexedChunk) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "document_id": int(chunk.document_id),
        "version_id": int(chunk.version_id),
        "doc_type": chunk.doc_type or "",
        "language": chunk.language or "",
    }
    tokens = chunk.membership_tokens
    if tokens:  # Chroma refuses empty lists
        meta[MEMBERSHIPS] = tokens
    return meta


def _where(flt: IndexFilter | None) -> dict[str, Any] | None:
    """IndexFilter → Chroma `where`; `_NOTHING` when a filter list is empty. Memberships:
    `$contains` on the token list, `$or` within a kind, `$and` across kinds and filters."""
    if flt is None:
        return None
    clauses: list[dict[str, Any]] = []
    groups = flt.membership_groups()
    if groups is None:
        return _NOTHING
    for toks in groups:
        ors = [{MEMBERSHIPS: {"$contains": t}} for t in toks]
        clauses.append(ors[0] if len(ors) == 1 else {"$or": ors})
    if flt.document_ids is not None:
        ids = sorted({int(i) for i in flt.document_ids})
        if not ids:
            return _NOTHING
        clauses.append({"document_id": {"$in": ids}})
    if flt.doc_types is not None:
        types = sorted({str(t) for t in flt.doc_types})
        if not types:
            return _NOTHING
        clauses.append({"doc_type": {"$in": types}})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}
