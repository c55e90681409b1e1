"""Result shaping after fusion: document_first / section_first policies, grouping with a
per-document cap, section breadcrumbs, small-to-big expansion, and inventory mode."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

from backend.index.base import IndexFilter
from backend.retrieval import lookup
from backend.retrieval.types import Candidate, DocumentHit, Hit, RetrievalParams, Searcher, Stage
from backend.store import repo

if TYPE_CHECKING:
    from backend.security.access import Scope
    from backend.retrieval.query import ParsedQuery
    from backend.retrieval.types import RetrievalResult

AGG_TAIL = 0.1  # weight of further matching chunks in a document/section score
SECTION_CAP = 3  # chunks returned per section in section_first


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)


def _aggregate(hits: list[Hit], key) -> list[tuple[object, float, list[Hit]]]:
    groups: dict[object, list[Hit]] = {}
    for h in hits:
        groups.setdefault(key(h), []).append(h)
    scored = []
    for k, hs in groups.items():
        hs.sort(key=lambda h: -h.score)
        scored.append((k, hs[0].score + AGG_TAIL * sum(h.score for h in hs[1:4]), hs))
    scored.sort(key=lambda x: (-x[1], str(x[0])))
    return scored


def apply(r: Searcher, p: RetrievalParams, hits: list[Hit], result: "RetrievalResult"):
    if p.policy == "document_first":
        return _document_first(p, hits, result)
    if p.policy == "section_first":
        return _section_first(r, p, hits, result)
    return hits


def _document_first(p: RetrievalParams, hits: list[Hit], result: "RetrievalResult"):
    t0 = time.perf_counter()
    docs = _aggregate(hits, lambda h: h.document_id)
    per_doc = p.per_document_cap or 2
    out: list[Hit] = []
    for rank, (doc_id, score, hs) in enumerate(docs, 1):
        result.documents.append(DocumentHit(doc_id, hs[0].document_title, hs[0].filename,
                                            hs[0].doc_type, round(score, 6), rank, len(hs),
                                            hs[0].chunk_id))
        for h in hs[:per_doc]:
            h.score = score - 1e-6 * len(out)  # keep document order, best chunk first
            out.append(h)
    result.trace.stages.append(Stage("document_rank", _ms(t0), {"per_document": per_doc},
                                     [Candidate(str(d), round(s, 6), i) for i, (d, s, _)
                                      in enumerate(docs[:50], 1)]))
    return out


def _section_first(r: Searcher, p: RetrievalParams, hits: list[Hit],
                   result: "RetrievalResult"):
    t0 = time.perf_counter()
    secs = _aggregate([h for h in hits if h.section_id is not None], lambda h: h.section_id)
    cap = p.per_document_cap or SECTION_CAP
    out: list[Hit] = []
    with r.rs.store.session() as s:
        for sid, score, hs in secs:
            if len(out) >= p.k:
                break
            chosen = hs[:cap]
            have = {h.chunk_id for h in chosen}
            if len(chosen) < cap:  # fill with the section's other chunks in reading order
                for c in lookup.section_chunks(s, sid):
                    if len(chosen) >= cap:
                        break
                    if c.id not in have:
                        base = hs[0]
                        chosen.append(Hit(
                            chunk_id=c.id, document_id=c.document_id, version_id=c.version_id,
                            text=c.text, document_title=base.document_title,
                            filename=base.filename, version_number=base.version_number,
                            doc_type=base.doc_type, file_type=base.file_type, section_id=sid,
                            page=c.page, page_end=c.page_end, start=c.start, end=c.end,
                            ordinal=c.ordinal, original_path=base.original_path,
                            source_uri=base.source_uri))
            chosen.sort(key=lambda h: h.ordinal)
            for h in chosen:
                h.score = score - 1e-6 * len(out)
                out.append(h)
    result.trace.stages.append(Stage("section_rank", _ms(t0), {"per_section": cap},
                                     [Candidate(str(k), round(v, 6), i) for i, (k, v, _)
                                      in enumerate(secs[:50], 1)]))
    return out


TIE = 0.005  # scores within this share of the top score count as tied


def _crawled(h: Hit) -> bool:
    return h.source_uri.startswith(("http://", "https://"))


def prefer_uploads(hits: list[Hit]) -> list[Hit]:
    """Among hits whose scores tie, uploaded (local) files come before crawled web pages;
    otherwise the order stays."""
    if not hits:
        return hits
    eps = TIE * max(abs(hits[0].score), 1e-9)
    out = list(hits)
    for i in range(1, len(out)):  # insertion: an upload moves up past tied crawled pages
        j = i
        while (j > 0 and not _crawled(out[j]) and _crawled(out[j - 1])
               and out[j - 1].score - out[j].score <= eps):
            out[j - 1], out[j] = out[j], out[j - 1]
            j -= 1
    return out


def group(p: RetrievalParams, hits: list[Hit]) -> list[Hit]:
    """Per-document cap, and with group_by_document hits of one document kept together."""
    if p.per_document_cap and p.policy not in ("document_first", "section_first"):
        seen: dict[int, int] = {}
        capped = []
        for h in hits:
            seen[h.document_id] = seen.get(h.document_id, 0) + 1
            if seen[h.document_id] <= p.per_document_cap:
                capped.append(h)
        hits = capped
    if p.group_by_document:
        order: dict[int, int] = {}
        for h in hits:
            order.setdefault(h.document_id, len(order))
        hits = sorted(hits, key=lambda h: (order[h.document_id], -h.score))
    return hits


def decorate(r: Searcher, p: RetrievalParams, hits: list[Hit], trace) -> None:
    """Section breadcrumbs for the final hits, then small-to-big expansion."""
    if not hits:
        return
    t0 = time.perf_counter()
    paths = r.rs.section_paths.paths(r.rs.store.session, {h.version_id for h in hits},
                                     {h.section_id for h in hits if h.section_id is not None})
    for h in hits:
        if h.section_id in paths:
            h.section_path, h.section_title, _, _ = paths[h.section_id]
    if p.expand != "none" and p.expand_chars > 0:
        with r.rs.store.session() as s:
            for h in hits:
                _expand(s, p, h, paths)
    trace.stages.append(Stage("expansion" if p.expand != "none" else "resolve", _ms(t0),
                              {"expand": p.expand, "expand_chars": p.expand_chars}))


def _expand(s, p: RetrievalParams, h: Hit, paths) -> None:
    budget = max(p.expand_chars, h.end - h.start)
    if p.expand == "section" and h.section_id in paths:
        _, _, a, b = paths[h.section_id]
        if b - a > budget:  # centre a window of the budget on the hit, inside the section
            mid = (h.start + h.end) // 2
            a = max(a, min(mid - budget // 2, b - budget))
            b = min(b, a + budget)
    else:
        a, b = h.start, h.end
        for c in lookup.neighbour_chunks(s, h.version_id, h.ordinal, 3):
            if c.section_id != h.section_id and p.expand == "section":
                continue
            lo, hi = min(a, c.start), max(b, c.end)
            if hi - lo <= budget:
                a, b = lo, hi
    h.expanded_start, h.expanded_end = a, b
    h.expanded_text = lookup.version_slice(s, h.version_id, a, b)


def inventory(r: Searcher, q: "ParsedQuery", p: RetrievalParams, flt: IndexFilter,
              result: "RetrievalResult", scope: "Scope") -> None:
    """'Which documents cover X?' -> a document list. Without a topic: all documents."""
    t0 = time.perf_counter()
    result.mode = "inventory"
    ids = flt.document_ids
    if q.inventory_types or q.inventory_language:  # "Welche (englischsprachigen) Protokolle
        with r.rs.store.session() as s:  # …": only documents of that type / language
            ids = repo.document_ids(s, repo.DocumentFilter(
                doc_types=q.inventory_types or None, document_ids=ids,
                languages=[q.inventory_language] if q.inventory_language else None))
    if not q.inventory_topic:
        collections = scope.collections(p.collections)  # the readable ones, as retrieval's
        docs = []
        if collections != [] and ids != []:
            with r.rs.store.session() as s:
                docs, _ = repo.list_documents(s, repo.DocumentFilter(
                    collections=collections or None, document_ids=ids,
                    statuses=["active"]), limit=max(p.k, 50))
        result.documents = [DocumentHit(d.id, d.title, d.filename, d.doc_type, 1.0, i, 0)
                            for i, d in enumerate(sorted(docs, key=lambda d: d.title.lower()), 1)]
    else:
        sub = p.model_copy(update={"policy": "document_first", "inventory": "off",
                                   "k": max(p.k, 20), "candidates": max(p.candidates, 100),
                                   "persist_trace": False, "document_ids": ids})
        inner = r.retrieve(q.inventory_topic, sub, scope=scope)
        result.trace.stages.extend(inner.trace.stages)
        docs = inner.documents
        if docs and p.inventory_cutoff > 0:  # relevance cut-off relative to the best
            docs = [d for d in docs if d.score >= p.inventory_cutoff * docs[0].score]
        result.documents = docs[: p.k]
        result.hits = [h for h in inner.hits if h.document_id in
                       {d.document_id for d in result.documents}][: p.k]
        for i, h in enumerate(result.hits, 1):
            h.rank = i
    result.trace.stages.append(Stage("inventory", _ms(t0), {
        "topic": q.inventory_topic, "types": q.inventory_types,
        "language": q.inventory_language, "cutoff": p.inventory_cutoff},
                                     [Candidate(str(d.document_id), d.score, d.rank)
                                      for d in result.documents]))
