"""Per-process caches valid while a counter row of the store is unchanged (issue 25).

Some reads of a search change rarely but cost CPU on every request: an actor's scope (two
queries; counter `acl_generation`, migration 0021), the tag vocabulary (every tag row), the
candidate chunks' rows and the filter's collections (counters `tags` and `content` of
`store_generations`, 0030). The database bumps such a counter by triggers in the
transaction of every change the value depends on, whoever makes it: this process, another
one, plain SQL. A cached value is used only while its counter still reads the value read
*before* the value was computed, so a change applies at the next call: that call reads the
new counter and computes afresh. `compute` must read in a transaction that starts after the
counter was read (its own session), else it may see rows older than the counter. Reading a
counter is one indexed single-row read on a pooled connection's DB-API cursor. A store
without the table (opened without migrations on an old schema) is not cached."""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from typing import Callable, Hashable, Iterable, TypeVar

T = TypeVar("T")

MAX_ENTRIES = 4096  # values kept per counter and engine


def store_counter(name: str) -> str:
    """The statement that reads counter `name` of `store_generations` (migration 0030)."""
    return f"SELECT value FROM store_generations WHERE name = '{name}'"


class GenerationCache:
    def __init__(self, engine, sql: str, max_entries: int = MAX_ENTRIES):
        """`sql` reads the counter (one row, one column)."""
        self._engine = engine
        self._sql = sql
        self._max = max_entries
        self._seen: Hashable | None = None
        self._entries: OrderedDict[Hashable, object] = OrderedDict()
        self._lock = threading.Lock()

    def generation(self) -> Hashable | None:
        """The counter now (or what `sql` makes of several), or None when the store has
        none (no caching then)."""
        conn = self._engine.raw_connection()  # the DB-API cursor: 16 µs, not 62 µs via Core
        try:
            cur = conn.cursor()
            try:
                cur.execute(self._sql)
                row = cur.fetchone()
            finally:
                cur.close()
        except Exception:  # noqa: BLE001 - no table (old schema): compute every time
            return None
        finally:
            conn.close()  # back to the pool (which rolls back what the read began)
        return None if row is None else row[0]

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        """The value cached for `key` under the current generation, else `compute()`."""
        return self.get_many([key], lambda keys: {key: compute()})[key]

    def get_many(self, keys: Iterable[Hashable],
                 compute: Callable[[list], dict]) -> dict:
        """key -> value of those of `keys` that have one: cached under the current generation,
        or from `compute(missing keys)`, which returns the values it found (only those are
        kept: a key without a value may get one later)."""
        gen = self.generation()
        if gen is None:
            return compute(list(keys))
        out: dict = {}
        missing: list = []
        with self._lock:
            if gen != self._seen:
                self._entries.clear()
                self._seen = gen
            for k in keys:
                if k in self._entries:
                    self._entries.move_to_end(k)
                    out[k] = self._entries[k]
                else:
                    missing.append(k)
        if not missing:
            return out
        found = compute(missing)  # read after `gen`: at least as new as what `gen` stands for
        out.update(found)
        with self._lock:
            if gen == self._seen:  # not if a newer generation was seen in between
                self._entries.update(found)
                while len(self._entries) > self._max:
                    self._entries.popitem(last=False)
        return out


_caches: "weakref.WeakKeyDictionary[object, dict[str, GenerationCache]]" = \
    weakref.WeakKeyDictionary()
_caches_lock = threading.Lock()


def for_engine(engine, sql: str) -> GenerationCache:
    """The engine's cache for the counter `sql` reads (dropped with the engine)."""
    with _caches_lock:
        by_sql = _caches.setdefault(engine, {})
        cache = by_sql.get(sql)
        if cache is None:
            cache = by_sql[sql] = GenerationCache(engine, sql)
        return cache
