"""Tags in retrieval (docs/tags.md): the `tags` and `categories` filters, resolved to
document ids in the store (tags change without a reindex, so no index carries them and the
filter is always current), and tag routing: words of the query that name a tag preselect
the documents carrying it, whose hits get `tag_boost × top score` (trace stage `tags`).

Matching: the tag's words appear in the query in order, case-folded; a tag word of
PREFIX_FROM characters or more also matches a query word it begins ("Protokoll" matches
"Protokolls", "Protokolle"). Tags on documents the caller may not read are never matched
(and never named in the trace).

The vocabulary is read once per tag generation (migration 0030: a counter the database bumps
with every tag change, whoever makes it; backend/store/generation_cache.py), not per query:
reading every tag row cost 0.43 ms CPU of each search."""
from __future__ import annotations

import re
import time
from typing import Iterable

from sqlalchemy.orm import Session

from backend.errors import FilterError
from backend.security import access
from backend.store import generation_cache
from backend.store import tags as store_tags

PREFIX_FROM = 5  # a tag word this long also matches longer query words it starts
_WORD = re.compile(r"\w+")
_GENERATION_SQL = generation_cache.store_counter("tags")


def category_types(store, categories: Iterable[str]) -> list[str]:
    """The document types of the registry in these categories (case-insensitive); an
    unknown category raises FilterError naming the known ones."""
    from backend.ingest import doctypes

    types = doctypes.load(store)
    by_cat: dict[str, list[str]] = {}
    for t in types:
        by_cat.setdefault(t.category.casefold(), []).append(t.name)
    out: list[str] = []
    for c in categories:
        names = by_cat.get(c.casefold())
        if names is None:
            known = ", ".join(sorted(by_cat))
            raise FilterError(f"categories: unknown category {c!r}; known: {known}",
                              "categories")
        out += [n for n in names if n not in out]
    return out


def tagged_documents(s, keys: list[str]) -> set[int]:
    return store_tags.documents_with(s, keys)


def _matches(tag_words: list[str], query_words: list[str]) -> bool:
    n = len(tag_words)
    for i in range(len(query_words) - n + 1):
        if all(q == t or (len(t) >= PREFIX_FROM and q.startswith(t))
               for t, q in zip(tag_words, query_words[i:i + n])):
            return True
    return False


def match(vocabulary: dict[str, dict], query: str) -> dict[str, list[int]]:
    """tag key -> documents, for every tag whose words occur in the query."""
    words = _WORD.findall(query.casefold())
    out = {}
    for key, entry in vocabulary.items():
        tw = _WORD.findall(key)
        if tw and _matches(tw, words):
            out[key] = entry
    return out


def vocabulary(engine) -> dict[str, dict]:
    """The store's tag vocabulary (backend/store/tags.py), as of its current tag generation.
    Shared between callers: read it, never change it."""
    def read() -> dict[str, dict]:
        with Session(engine) as fresh:  # a transaction begun after the counter was read
            return store_tags.vocabulary(fresh)

    return generation_cache.for_engine(engine, _GENERATION_SQL).get("vocabulary", read)


def route(s, query: str, scope, allowed: list[int] | None) -> tuple[list[str], set[int]]:
    """(matched tag names, routed document ids) within the scope and the filter's ids."""
    found = match(vocabulary(s.get_bind()), query)
    if not found:
        return [], set()
    docs = {d for e in found.values() for d in e["documents"]}
    if allowed is not None:
        docs &= set(allowed)
    docs = access.visible_document_ids(s, scope, docs) if docs else set()
    names = [e["name"] for e in found.values() if docs & set(e["documents"])]
    return names, docs


def route_in(store, query: str, scope, allowed: list[int] | None
             ) -> tuple[list[str], set[int]]:
    """`route` in a session of its own, which runs no statement when no tag matched."""
    with store.session() as s:
        return route(s, query, scope, allowed)


def boost(hits, routed: set[int], tag_boost: float) -> int:
    """Add tag_boost × top score to the hits of routed documents, re-sort; how many."""
    if not hits or not routed or tag_boost <= 0:
        return 0
    top = max(h.score for h in hits) or 1.0
    n = 0
    for h in hits:
        if h.document_id in routed:
            h.boost += tag_boost * top
            h.score += tag_boost * top
            n += 1
    hits.sort(key=lambda h: (-h.score, h.chunk_id))
    return n


def stage_params(names: list[str], routed: set[int], boosted: int, tag_boost: float,
                 t0: float) -> tuple[float, dict]:
    return round((time.perf_counter() - t0) * 1000, 3), {
        "matched_tags": names, "documents": sorted(routed), "boosted": boosted,
        "tag_boost": tag_boost}
