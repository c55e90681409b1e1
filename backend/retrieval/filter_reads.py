"""The filter's store reads of every search (backend/retrieval/engine.py `_filter`): the named
collections' ids and whether they hold documents, and whether the indexes carry membership
tokens. They change rarely but cost ~0.3 ms CPU per search (a session and two queries), so a
process keeps them per collection list while the store's ACL generation (migration 0021:
collections' names and knowledge bases) and content generation (0030: documents joining or
leaving a collection, index records) are both unchanged — read together in one statement
(backend/store/generation_cache.py says why a change applies at the next search)."""
from __future__ import annotations

from typing import Sequence

from backend.store import generation_cache, repo

_GENERATIONS_SQL = ("SELECT (SELECT value FROM acl_generation WHERE id = 1) || ':' || "
                    f"({generation_cache.store_counter('content')})")


def memberships_indexed(s) -> bool:
    """Do the indexes carry membership tokens (built with schema version 2 or later)?"""
    shape = repo.index_shape(s, "vector")
    return shape is None or shape[0] == 0 or int(shape[1].get("schema_version", 1)) >= 2


def collections(store, names: Sequence[str]) -> tuple[dict[str, tuple[int, bool]], bool]:
    """(name -> (id, has documents) of those that exist, memberships indexed), as the store
    has them now. Shared between callers: read them, never change them."""
    names = tuple(names)

    def read() -> tuple[dict[str, tuple[int, bool]], bool]:
        with store.session() as s:  # a transaction begun after the counters were read
            return repo.collections_by_name(s, names), memberships_indexed(s)

    return generation_cache.for_engine(store.engine, _GENERATIONS_SQL).get(names, read)
