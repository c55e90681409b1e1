"""A per-process cache of computed scopes, valid while the store's ACL generation is unchanged.

Computing a scope costs two queries (backend/security/access.py, `scope_of`): 3 ms CPU of an
API search's 15-20 (docs/benchmarks.md, "Server CPU per search"). The database bumps one
counter row (`acl_generation`, migration 0021) by triggers in the transaction of every change
a scope depends on, whoever makes it, so "group changes take effect at the next call" holds
(backend/store/generation_cache.py says how)."""
from __future__ import annotations

from backend.store.generation_cache import GenerationCache, for_engine

_GENERATION_SQL = "SELECT value FROM acl_generation WHERE id = 1"


def for_store(store) -> GenerationCache:
    """The store's scope cache (one per engine, dropped with it)."""
    return for_engine(store.engine, _GENERATION_SQL)
