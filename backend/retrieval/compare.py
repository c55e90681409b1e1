"""Two retrieval results of one query compared (the query-debug page's compare mode): how
much their top k agree and which hits moved. Pure functions on `RetrievalResult.to_dict()`
results; `labels` names a chunk for people (title · section · page), never its hex id."""
from __future__ import annotations

from typing import Any, Mapping


def _ranks(result: Mapping[str, Any], k: int) -> dict[str, int]:
    return {h["chunk_id"]: int(h["rank"]) for h in result.get("hits", [])[:k] if h.get("chunk_id")}


def compare_results(a: Mapping[str, Any], b: Mapping[str, Any], k: int | None = None,
                    labels: Mapping[str, str] | None = None) -> dict[str, Any]:
    """overlap@k (shared hits among both top k, over k) and, for every hit of either top k,
    how it changed from A to B: "up"/"down" by so many ranks, "same", "new" (only in B),
    "dropped" (only in A). Rows are ordered by B's rank, dropped hits last."""
    k = k or max(len(a.get("hits", [])), len(b.get("hits", [])), 1)
    ra, rb = _ranks(a, k), _ranks(b, k)
    labels = labels or {}
    rows = []
    for cid in sorted(set(ra) | set(rb), key=lambda c: (rb.get(c, 10**6), ra.get(c, 10**6))):
        x, y = ra.get(cid), rb.get(cid)
        if x is None:
            change, moved = "new", None
        elif y is None:
            change, moved = "dropped", None
        else:
            moved = x - y
            change = "up" if moved > 0 else "down" if moved < 0 else "same"
        rows.append({"passage": labels.get(cid) or cid[:12], "rank A": x, "rank B": y,
                     "change": change, "moved": None if moved is None else abs(moved)})
    shared = len(set(ra) & set(rb))
    counts = {c: sum(r["change"] == c for r in rows) for c in ("up", "down", "same", "new",
                                                              "dropped")}
    return {"k": k, "overlap": shared / k, "shared": shared, "counts": counts, "rows": rows}


def shared_time_range(*results: Mapping[str, Any] | None) -> list[float]:
    """One x-axis range (ms) for the timing waterfalls of every result shown, so that two
    configurations' bars compare by length (each chart scaled itself before)."""
    from backend.retrieval.report import stage_timings

    ends = [t["start_ms"] + t["ms"] for r in results if r for t in stage_timings(r)]
    return [0.0, max(ends, default=1.0) * 1.05]
