"""The two index protocols. One backend per file; `backend.index.factory` picks them from
settings. Retrieval code never asks which engine it talks to.

Only chunks of active document versions are in the indexes; the store is the source of truth
and `reindex` rebuilds both indexes from it.

Writes to the indexes of a data dir hold one exclusive lock across processes
(`backend.index.writelock.IndexWriteLock`); backends take it in every write method, and the
ingestion takes it around a whole publish step (both indexes + activation in the store)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Collection, Iterable, Mapping, Protocol, Sequence, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

# Groups a document belongs to (n:m, by id), stored with every chunk in both indexes and
# filtered there: a filtered query costs about what an unfiltered one does, however many
# documents the group has (docs/retrieval.md, "Filters"). Each backend keeps one multi-valued
# field of tokens "<kind>:<id>", so adding a kind (knowledge bases, issue 13) needs no schema
# change: add it here and to `repo.memberships` (the store is the source of truth), then
# `reindex` or `check --repair` writes the new tokens.
MEMBERSHIP_KINDS = ("collection",)


def membership_tokens(memberships: Mapping[str, Iterable[int]]) -> list[str]:
    """{"collection": [3, 1]} -> ["collection:1", "collection:3"] (sorted, unique)."""
    out = set()
    for kind, ids in memberships.items():
        if kind not in MEMBERSHIP_KINDS:
            raise ValueError(f"unknown membership kind {kind!r} (known: {MEMBERSHIP_KINDS})")
        out.update(f"{kind}:{int(i)}" for i in ids)
    return sorted(out)


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
    # {"collection": (1, 4)}: filled from the store when the chunk is written (publish holds
    # the index write lock, so it is the store's state at that moment)
    memberships: dict[str, tuple[int, ...]] = field(default_factory=dict)

    @property
    def membership_tokens(self) -> list[str]:
        return membership_tokens(self.memberships)


@dataclass
class IndexFilter:
    """Restricts a search. None means no restriction. An empty list matches nothing."""

    document_ids: Sequence[int] | None = None
    doc_types: Sequence[str] | None = None
    # {"collection": [1, 4]}: in any of these (per kind), and in every kind given
    memberships: Mapping[str, Sequence[int]] | None = None

    def membership_groups(self) -> list[list[str]] | None:
        """Tokens per kind (a chunk matches when it has one of each group); None when a
        group is empty (nothing can match)."""
        groups = []
        for kind, ids in (self.memberships or {}).items():
            toks = membership_tokens({kind: ids})
            if not toks:
                return None
            groups.append(toks)
        return groups


@dataclass
class IndexHit:
    chunk_id: str
    score: float
    rank: int  # 1-based
    highlights: list[str] = field(default_factory=list)
    # an index that `defers_highlights` (tantivy), asked to: the snippet, computed when called
    # (only for the hits a caller returns; docs/retrieval.md, "Snippets")
    pending: Callable[[], list[str]] | None = field(default=None, repr=False, compare=False)


@runtime_checkable
class VectorIndex(Protocol):
    name: str

    def add(self, chunks: Sequence[IndexedChunk], embeddings: Sequence[Sequence[float]]) -> None:
        """Upsert chunks with their embeddings (same order). Idempotent by chunk_id."""

    def delete(self, chunk_ids: Sequence[str]) -> None: ...

    def search(self, embedding: Sequence[float], k: int, flt: IndexFilter | None = None) -> list[IndexHit]:
        """Nearest chunks by cosine similarity; score = similarity (higher is better)."""

    def search_many(self, embeddings: Sequence[Sequence[float]], k: int,
                    flt: IndexFilter | None = None) -> list[list[IndexHit]]:
        """`search` for several query vectors in one call (used by `check`)."""

    def get_embeddings(self, chunk_ids: Sequence[str]) -> dict[str, "np.ndarray"]:
        """Stored vectors of the given chunks; missing ids are left out."""

    def ids(self) -> set[str]: ...

    def count(self) -> int: ...

    def reset(self) -> None:
        """Drop every chunk (used by reindex)."""

    def set_memberships(self, tokens: Mapping[str, Sequence[str]]) -> None:
        """Replace the membership tokens of stored chunks ({chunk_id: tokens}); ids not in
        the index are ignored. Used when a document joins a collection."""

    def memberships(self, chunk_ids: Sequence[str]) -> dict[str, set[str]]:
        """Stored membership tokens of the given chunks (missing ids are left out; used by
        `check`)."""

    def close(self) -> None:
        """Give back clients, file handles and threads (whoever built the index closes it;
        `Ragscope.close()` for its own). Closing twice is harmless; use afterwards raises
        BackendUnavailable."""


@runtime_checkable
class KeywordIndex(Protocol):
    name: str
    analyzer: str  # recorded in index metadata (guardrails)

    def add(self, chunks: Sequence[IndexedChunk]) -> None:
        """Upsert chunks. Idempotent by chunk_id."""

    def delete(self, chunk_ids: Sequence[str]) -> None: ...

    def search(self, query: str, k: int, flt: IndexFilter | None = None, *, fuzzy: bool = False,
               highlight_limit: int | None = None,
               highlight_skip: Collection[str] = ()) -> list[IndexHit]:
        """BM25 search. Never raises on query syntax: any user text is a valid query.
        Score = BM25 score (higher is better); highlights = short snippets with the
        matched terms marked as <b>..</b> (HTML-escaped otherwise), for the first
        `highlight_limit` hits (all when None; snippets cost more than the search) except
        those in `highlight_skip` (chunks whose snippet the caller has from elsewhere; an
        index may still return one). An index with `defers_highlights = True` also takes
        `defer_highlights=True`: those hits then carry `pending` instead, the snippet computed
        when called."""

    def texts(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """Stored text of the given chunks; missing ids are left out (used by `check`)."""

    def ids(self) -> set[str]: ...

    def count(self) -> int: ...

    def reset(self) -> None: ...

    def set_memberships(self, tokens: Mapping[str, Sequence[str]]) -> None:
        """As VectorIndex.set_memberships."""

    def memberships(self, chunk_ids: Sequence[str]) -> dict[str, set[str]]:
        """As VectorIndex.memberships."""

    def close(self) -> None:
        """As VectorIndex.close."""
