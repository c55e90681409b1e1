"""Rebuild one index from the store (`check --repair`, backend/ingest/consistency.py): drop
every entry and add every active chunk again. The repair's last resort for an index that
answers but cannot be read (a deleted Chroma segment, a corrupted tantivy segment store):
re-adding single entries does not heal such an index, since listing or reading it still
fails. The caller holds the index write lock."""
from __future__ import annotations

from typing import Callable

from backend.store import repo

BATCH = 256


def rebuild(cs, name: str,
            on_progress: Callable[[int, int], None] | None = None, batch: int = BATCH) -> int:
    """Reset the `name` ("vector" or "keyword") index of `cs` (the Consistency) and re-add
    every active chunk to it (vectors re-embedded); the number of chunks added."""
    getattr(cs.rs, f"{name}_index").reset()
    with cs.store.session() as s:
        ids = sorted(repo.active_chunk_ids(s))
    for i in range(0, len(ids), batch):
        part = set(ids[i:i + batch])
        cs.readd(sorted(part), part if name == "vector" else set(),
                 part if name == "keyword" else set())
        if on_progress:
            on_progress(min(i + batch, len(ids)), len(ids))
    return len(ids)
