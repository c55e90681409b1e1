"""Collection membership in the indexes (docs/retrieval.md, "Filters").

The store is the source of truth (`collection_documents`); every chunk in both indexes carries
its document's membership tokens ("collection:<id>", `backend.index.base.MEMBERSHIP_KINDS`).
They are written
- with the chunk: `fill` reads them from the store right before the chunks are added, under
  the index write lock, so they are the store's state at that moment;
- when a document joins a collection after its chunks are indexed (a file ingested again into
  another collection, a duplicate linked): `sync` rewrites the tokens of its active chunks in
  place (no re-embedding), under the lock, from the store's state at that moment.
A process that dies between linking and `sync` leaves stale tokens; `check` reads tokens back
and `check --repair` syncs them (backend/ingest/consistency.py)."""
from __future__ import annotations

from typing import Sequence

from backend.index.base import IndexedChunk, membership_tokens
from backend.store import repo


def fill(rs, chunks: Sequence[IndexedChunk]) -> None:
    """Set each chunk's memberships from the store (call under the index write lock)."""
    if not chunks:
        return
    with rs.store.session() as s:
        by_doc = repo.memberships(s, {c.document_id for c in chunks})
    for c in chunks:
        c.memberships = dict(by_doc.get(c.document_id, {}))


def expected_tokens(rs, chunk_ids: Sequence[str]) -> dict[str, set[str]]:
    """The tokens the store says these chunks should carry (unknown ids left out)."""
    with rs.store.session() as s:
        doc_of = {cid: c.document_id for cid, c in repo.chunks_by_ids(s, chunk_ids).items()}
        by_doc = repo.memberships(s, set(doc_of.values()))
    return {cid: set(membership_tokens(by_doc[d])) for cid, d in doc_of.items()}


def sync(rs, document_ids: Sequence[int]) -> int:
    """Rewrite the membership tokens of these documents' active chunks in both indexes from
    the store. Returns the number of chunks updated."""
    ids = sorted(set(document_ids))
    if not ids:
        return 0
    with rs.index_lock.hold("update collection memberships"):
        with rs.store.session() as s:
            chunks = repo.active_chunks_of_documents(s, ids)
            by_doc = repo.memberships(s, list(chunks))
        tokens = {cid: membership_tokens(by_doc[d]) for d, cids in chunks.items()
                  for cid in cids}
        if tokens:
            rs.vector_index.set_memberships(tokens)
            rs.keyword_index.set_memberships(tokens)
    return len(tokens)
