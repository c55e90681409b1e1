"""A per-process cache of computed scopes, valid while the store's ACL generation is unchanged.

Computing a scope costs two queries (backend/security/access.py, `scope_of`): 3 ms CPU of an
API search's 15-20 (docs/benchmarks.md, "Server CPU per search"). The database bumps one
counter row (`acl_generation`, migration 0021) by triggers in the transaction of every change
a scope depends on, whoever makes it: this process, another one, plain SQL. A cached scope is
used only while that counter still reads the value read *before* the scope was computed, so
"group changes take effect at the next call" holds: the next call reads the new value and
computes afresh. Reading the counter is one indexed single-row read on its own connection.
A store without the table (opened without migrations on an old schema) is not cached."""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from typing import Callable, Hashable, TypeVar

T = TypeVar("T")

MAX_ENTRIES = 4096  # actors kept per store (a scope is a few small frozensets)
_GENERATION_SQL = "SELECT value FROM acl_generation WHERE id = 1"


class ScopeCache:
    def __init__(self, store, max_entries: int = MAX_ENTRIES):
        self._engine = store.engine
        self._max = max_entries
        self._seen: int | None = None
        self._entries: OrderedDict[Hashable, object] = OrderedDict()
        self._lock = threading.Lock()

    def generation(self) -> int | None:
        """The counter now, or None when the store has none (no caching then)."""
        try:
            with self._engine.connect() as c:
                value = c.exec_driver_sql(_GENERATION_SQL).scalar()
        except Exception:  # noqa: BLE001 - no table (old schema): compute every time
            return None
        return None if value is None else int(value)

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The value cached for `key` under the current generation, else `compute()`."""
        gen = self.generation()
        if gen is None:
            return compute()
        with self._lock:
            if gen != self._seen:
                self._entries.clear()
                self._seen = gen
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key]  # type: ignore[return-value]
        value = compute()  # read after `gen`: at least as new as what `gen` stands for
        with self._lock:
            if gen == self._seen:  # not if a newer generation was seen in between
                self._entries[key] = value
                while len(self._entries) > self._max:
                    self._entries.popitem(last=False)
        return value


_caches: "weakref.WeakKeyDictionary[object, ScopeCache]" = weakref.WeakKeyDictionary()
_caches_lock = threading.Lock()


def for_store(store) -> ScopeCache:
    """The store's cache (one per Store object, dropped with it)."""
    with _caches_lock:
        cache = _caches.get(store)
        if cache is None:
            cache = _caches[store] = ScopeCache(store)
        return cache
