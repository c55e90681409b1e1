"""The two index protocols. One backend per file; `backend.index.factory` picks them from
settings. Retrieval code never asks which engine it talks to.

Only chunks of active document versions are in the indexes; the store is the source of truth
and `reindex` rebuilds both indexes from it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, Sequence, runtime_checkable


@dataclass
class IndexedChunk:
    """What both indexes store per chunk."""

    chunk_id: str
    text: str
    document_id: int
    version_id: int
    doc_type: str = ""
    title: str = ""  # document title (for exact-match boosts)
    filename: str = ""
    section_title: str = ""
    language: str = ""  # "de" | "en" | ""


@dataclass
class IndexFilter:
    """Restricts a search. None means no restriction. An empty list matches nothing."""

    document_ids: Sequence[int] | None = None
    doc_types: Sequence[str] | None = None


@dataclass
class IndexHit:
    chunk_id: str
    score: float
    rank: int  # 1-based
    highlights: list[str] = field(default_factory=list)


@runtime_checkable
class VectorIndex(Protocol):
    name: str

    def add(self, chunks: Sequence[IndexedChunk], embeddings: Sequence[Sequence[float]]) -> None:
        """Upsert chunks with their embeddings (same order). Idempotent by chunk_id."""

    def delete(self, chunk_ids: Sequence[str]) -> None: ...

    def search(self, embedding: Sequence[float], k: int, flt: IndexFilter | None = None) -> list[IndexHit]:
        """Nearest chunks by cosine similarity; score = similarity (higher is better)."""

    def ids(self) -> set[str]: ...

    def count(self) -> int: ...

    def reset(self) -> None:
        """Drop every chunk (used by reindex)."""


@runtime_checkable
class KeywordIndex(Protocol):
    name: str
    analyzer: str  # recorded in index metadata (guardrails)

    def add(self, chunks: Sequence[IndexedChunk]) -> None:
        """Upsert chunks. Idempotent by chunk_id."""

    def delete(self, chunk_ids: Sequence[str]) -> None: ...

    def search(self, query: str, k: int, flt: IndexFilter | None = None, *, fuzzy: bool = False,
               highlight_limit: int | None = None) -> list[IndexHit]:
        """BM25 search. Never raises on query syntax: any user text is a valid query.
        Score = BM25 score (higher is better); highlights = short snippets with the
        matched terms marked as <b>..</b> (HTML-escaped otherwise), for the first
        `highlight_limit` hits (all when None; snippets cost more than the search)."""

    def ids(self) -> set[str]: ...

    def count(self) -> int: ...

    def reset(self) -> None: ...
