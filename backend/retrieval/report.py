"""Tables for the query-debug page, computed from a result in `to_dict()` form (live or
stored), so the page only renders. No Streamlit here."""
from __future__ import annotations

import html
import re
from typing import Any

from backend.security.safe_markdown import md_escape

STAGE_ORDER = ["query", "filter", "domain_rules", "query_embedding", "vector_search",
               "keyword_search", "fusion", "lookup", "boost", "document_rank", "section_rank", "rerank",
               "resolve", "expansion", "inventory"]


def _fmt(x: float | None, digits: int = 4) -> float | None:
    return None if x is None else round(float(x), digits)


def hits_rows(result: dict[str, Any], labels: dict[str, str] | None = None
              ) -> list[dict[str, Any]]:
    """One row per final hit: what it is first ("title · section · p. N" from `labels`, or
    title › section), then its score and rank at every stage. Few columns, so that the
    table fits the page (its right part was cut off with 16)."""
    labels = labels or {}
    rows = []
    for h in result.get("hits", []):
        name = labels.get(h["chunk_id"]) or " › ".join(
            x for x in (h["document_title"] or h["filename"], h.get("breadcrumb")) if x)
        rows.append({
            "rank": h["rank"], "passage": name, "score": _fmt(h["score"]),
            "vector": _fmt(h["vector_score"]), "vector rank": h["vector_rank"],
            "bm25": _fmt(h["keyword_score"]), "bm25 rank": h["keyword_rank"],
            "fused": _fmt(h["fused_score"]), "fused rank": h["fused_rank"],
            "boost": _fmt(h["boost"]), "rerank": _fmt(h["rerank_score"]),
        })
    return rows


def stage_line(h: dict[str, Any]) -> str:
    """One line with a hit's score and rank at every stage (Markdown, no document text)."""
    def part(label: str, score, rank=None) -> str:
        if score is None:
            return f"{label} –"
        return f"{label} **{score:.3f}**" + (f" (#{rank})" if rank else "")

    return " · ".join([
        part("vector", h["vector_score"], h["vector_rank"]),
        part("BM25", h["keyword_score"], h["keyword_rank"]),
        part("fused", h["fused_score"], h["fused_rank"]),
        part("boost", h["boost"] or None), part("rerank", h["rerank_score"]),
        part("final", h["score"], h["rank"]),
    ])


def _stage(result: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((s for s in result["trace"]["stages"] if s["name"] == name), None)


def candidates_side_by_side(result: dict[str, Any], labels: dict[str, str] | None = None
                            ) -> list[dict[str, Any]]:
    """Vector and BM25 candidate lists in one table: for every candidate either retriever
    found, its rank in each list, its fused rank and its final rank (None where absent).
    `labels`: chunk id -> "title · section · page" (the short id where there is none)."""
    labels = labels or {}
    vec = {c["id"]: c for c in (_stage(result, "vector_search") or {}).get("candidates", [])}
    kw = {c["id"]: c for c in (_stage(result, "keyword_search") or {}).get("candidates", [])}
    fused = {c["id"]: c for c in (_stage(result, "fusion") or {}).get("candidates", [])}
    final = {h["chunk_id"]: h["rank"] for h in result.get("hits", [])}
    ids = sorted(set(vec) | set(kw), key=lambda i: (fused.get(i, {}).get("rank", 10**6), i))
    rows = []
    for i in ids:
        v, k, f = vec.get(i), kw.get(i), fused.get(i)
        rows.append({
            "passage": labels.get(i) or i[:12], "vector rank": v and v["rank"], "vector score": v and v["score"],
            "bm25 rank": k and k["rank"], "bm25 score": k and k["score"],
            "fused rank": f and f["rank"], "fused score": f and f["score"],
            "final rank": final.get(i),
            "found by": "both" if v and k else ("vector" if v else "bm25"),
        })
    return rows


def overlap_summary(result: dict[str, Any]) -> dict[str, int]:
    rows = candidates_side_by_side(result)
    return {
        "vector only": sum(r["found by"] == "vector" for r in rows),
        "bm25 only": sum(r["found by"] == "bm25" for r in rows),
        "both": sum(r["found by"] == "both" for r in rows),
        "in final hits": sum(r["final rank"] is not None for r in rows),
    }


def stage_timings(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Waterfall rows: stage, start offset and duration in ms. The two searches run
    concurrently, so they start at the same offset."""
    rows, t = [], 0.0
    parallel_start = None
    for s in result["trace"]["stages"]:
        name = s["name"]
        if name in ("query_embedding", "keyword_search") and parallel_start is None:
            parallel_start = t
        if name == "keyword_search":
            start = parallel_start
            rows.append({"stage": name, "start_ms": start, "ms": s["ms"], "error": s["error"]})
            t = max(t, start + s["ms"])
            continue
        rows.append({"stage": name, "start_ms": t, "ms": s["ms"], "error": s["error"]})
        t += s["ms"]
    return rows


def score_series(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Long-form scores per hit and stage (normalised to the stage maximum) for a chart."""
    out = []
    hits = result.get("hits", [])
    for key, label in (("vector_score", "vector"), ("keyword_score", "bm25"),
                       ("fused_score", "fused"), ("rerank_score", "rerank"), ("score", "final")):
        vals = [h[key] for h in hits if h[key] is not None]
        top = max(vals) if vals else 0.0
        for h in hits:
            if h[key] is not None:
                out.append({"hit": f"#{h['rank']}", "stage": label,
                            "score": h[key] / top if top else 0.0, "raw": h[key]})
    return out


_MARK = re.compile(r"<b>(.*?)</b>", re.S)


def highlight_markdown(snippet: str) -> str:
    """A keyword-index highlight (HTML-escaped text with <b> marks) as safe Markdown: the
    text is unescaped and then escaped for Markdown (md_escape: no link, bare-URL autolink,
    image, icon, emoji or HTML), matched terms shown highlighted. Only the <b> marks the
    index made become formatting; nothing in a document can."""
    parts, pos = [], 0
    for m in _MARK.finditer(snippet):
        parts.append(md_escape(html.unescape(snippet[pos:m.start()])))
        parts.append(f":orange-background[**{md_escape(html.unescape(m.group(1)))}**]")
        pos = m.end()
    parts.append(md_escape(html.unescape(snippet[pos:])))
    return "".join(parts)


def rewrite_info(result: dict[str, Any]) -> dict[str, Any] | None:
    """A chat follow-up's rewrite (backend/chat/followup.py) for a stored chat trace: the
    question as asked, the query retrieved with, why, the document pinned to; None when
    the question was retrieved as asked."""
    st = _stage(result, "rewrite")
    p = (st or {}).get("params") or {}
    return p if p.get("followup") else None


def route_info(result: dict[str, Any]) -> dict[str, Any] | None:
    """The chat's route for a stored chat trace (backend/answer/route.py): which
    route answered (`analysis` or `retrieval`), its answer path (`passage`, `inventory`, `url`,
    `extract:decisions`, … — issue 22), a URL noted in the question, why, and for the analysis
    route the action,
    the document chosen and why; None for traces without a route (query-debug searches)."""
    route = _stage(result, "route")
    if route is None:
        return None
    p = route.get("params") or {}
    choice = (_stage(result, "document_choice") or {}).get("params") or {}
    return {"route": p.get("route", ""), "why": p.get("why", ""), "action": p.get("action"),
            "path": p.get("path"), "url": p.get("url"),
            "document_id": choice.get("document_id"), "document_why": choice.get("why")}
