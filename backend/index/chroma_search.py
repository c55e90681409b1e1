"""Nearest-neighbour search of ChromaVectorIndex (backend/index/chroma_index.py, which
extends `ChromaSearch`): unfiltered searches from the exact-search log or Chroma's HNSW graph,
concurrent ones coalesced into one call; filtered ones planned between a post-filter of the
nearest chunks and Chroma's own `where` search (measured: docs/benchmarks.md, "Collection
filters").

`ChromaSearch` holds no state of its own: it uses the index's `exact` log, its coalescing
batchers (`_nearest_calls`, `_metadata_calls`), `_read`, `_adopt_exact_log` and
`get_metadata`."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from backend.index.base import IndexFilter, IndexHit
from backend.index.chroma_filters import _NOTHING, _hits, _Matcher, _where

OVERFETCH = 4  # a filtered search looks at this many times k nearest chunks first
POSTFILTER = True  # False: every filter goes to Chroma's `where` (bench/bench_filters.py)


class ChromaSearch:
    """The VectorIndex search methods of ChromaVectorIndex."""

    def search(self, embedding: Sequence[float], k: int, flt: IndexFilter | None = None) -> list[IndexHit]:
        return self.search_many([embedding], k, flt)[0]

    def search_many(self, embeddings: Sequence[Sequence[float]], k: int,
                    flt: IndexFilter | None = None) -> list[list[IndexHit]]:
        """Nearest chunks for several query vectors in one call.

        Filtered searches first take the OVERFETCH·k nearest chunks unfiltered and keep the
        ones whose stored metadata pass the filter (read a page at a time, nearest first,
        until k pass); only queries left with fewer than k go to Chroma's own filtered
        search. Chroma evaluates a `where` by collecting every
        chunk that passes it before searching, which costs time in proportion to those
        chunks (measured: docs/benchmarks.md, "Collection filters"); a filter that keeps
        many chunks is answered here at about the cost of an unfiltered search, one that
        keeps few by Chroma at little cost. Both give the same ranking."""
        n = len(embeddings)
        if k <= 0 or n == 0:
            return [[] for _ in range(n)]
        where = _where(flt)
        if where is _NOTHING:
            return [[] for _ in range(n)]
        query = np.asarray(embeddings, dtype=np.float32).reshape(n, -1)
        if not where or not POSTFILTER:
            return self._query(query, k, where)
        wide = k * OVERFETCH
        keep = _Matcher(flt)
        out: list[list[IndexHit]] = []
        retry: list[int] = []
        for i, (ids, dists) in enumerate(self._nearest(query, wide)):
            kept = self._passing(ids, dists, k, keep)
            if kept is None:  # too few pass among the nearest, and more chunks exist
                retry.append(i)
                kept = []
            out.append(_hits(kept))
        if retry:
            for i, hits in zip(retry, self._query(query[retry], k, where)):
                out[i] = hits
        return out

    def _passing(self, ids: list[str], dists: list[float], k: int, keep: "_Matcher"
                 ) -> list[tuple[str, float]] | None:
        """The first k of the nearest chunks whose metadata pass, reading metadata a page at
        a time (Chroma's metadata reads cost time per chunk); None when fewer than k pass
        and the nearest were not all chunks there are (Chroma's `where` must answer)."""
        kept: list[tuple[str, float]] = []
        pos = 0
        exhausted = len(ids) < k * OVERFETCH
        while len(kept) < k and pos < len(ids):
            seen = max(pos, 1)
            rate = len(kept) / seen if pos else 1.0
            if pos and not exhausted and len(kept) + rate * (len(ids) - pos) < k:
                return None  # at this pass rate the rest cannot make up k
            size = min(len(ids) - pos, max(k - len(kept),
                                           int((k - len(kept)) / max(rate, 1 / OVERFETCH))))
            page = ids[pos:pos + size]
            metas = self._filter_metadata(page)
            kept += [(c, d) for c, d in zip(page, dists[pos:pos + size])
                     if keep(metas.get(c, {}))]
            pos += size
        if len(kept) < k and not exhausted:
            return None
        return kept[:k]

    def _filter_metadata(self, page: list[str]) -> dict[str, dict[str, Any]]:
        """What the filter tests of these chunks: from the exact-search log's memory where it
        holds them (no Chroma call: the cost py-spy found in filtered API searches), Chroma's
        stored metadata for the rest (a format-1 log, a Chroma server, a chunk whose fields
        record a reader has not seen yet)."""
        known = self.exact.fields(page) if self.exact is not None else {}
        missing = tuple(c for c in page if c not in known)
        if missing:
            known = {**known, **self._metadata_calls.call(missing)}
        return known

    def _nearest(self, query: np.ndarray, n_results: int) -> list[tuple[list[str], list[float]]]:
        """(ids, distances) of the `n_results` nearest chunks of each query row, no filter;
        a single query shares its Chroma call with concurrent ones."""
        if len(query) == 1:
            return [self._nearest_calls.call((n_results, query[0]))]
        return self._nearest_batch([(n_results, row) for row in query])

    def _nearest_batch(self, items: list[tuple[int, np.ndarray]]
                       ) -> list[tuple[list[str], list[float]]]:
        """One Chroma query per distinct `n_results` among the items."""
        out: list[tuple[list[str], list[float]]] = [([], [])] * len(items)
        by_n: dict[int, list[int]] = {}
        for i, (n, _) in enumerate(items):
            by_n.setdefault(n, []).append(i)
        self._adopt_exact_log()
        for n, idx in by_n.items():
            query = np.stack([items[i][1] for i in idx])
            if self.exact is not None:
                for i, hit in zip(idx, self.exact.nearest(query, n)):
                    out[i] = hit
                continue
            res = self._read(lambda col, query=query, n=n: col.query(
                query_embeddings=query, n_results=n, include=["distances"]))
            for i, ids, dists in zip(idx, res.get("ids") or [[]] * len(idx),
                                     res.get("distances") or [[]] * len(idx)):
                out[i] = (list(ids), list(dists))
        return out

    def _metadata_batch(self, pages: list[tuple[str, ...]]) -> list[dict[str, dict[str, Any]]]:
        """Metadata of several searches' candidate pages in one read."""
        metas = self.get_metadata([cid for page in pages for cid in page])
        return [{cid: metas[cid] for cid in page if cid in metas} for page in pages]

    def _query(self, query: np.ndarray, k: int, where: dict[str, Any] | None
               ) -> list[list[IndexHit]]:
        if not where:
            return [_hits(list(zip(ids, dists))) for ids, dists in self._nearest(query, k)]
        kwargs: dict[str, Any] = {"query_embeddings": query, "n_results": k,
                                  "include": ["distances"]}
        if where:
            kwargs["where"] = where
        res = self._read(lambda col: col.query(**kwargs))
        n = len(query)
        return [_hits(list(zip(ids, dists))) for ids, dists in
                zip(res.get("ids") or [[]] * n, res.get("distances") or [[]] * n)]
