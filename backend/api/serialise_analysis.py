"""The JSON shapes of the analysis routes and MCP tools (backend/api/schemas_analysis.py),
built from the analysis layer's dataclasses (backend/analysis/types.py, compare.py, xref.py)
in one place, so both interfaces answer alike. Long lists are cut to the requested page;
sections' full texts are left out of comparisons (the word diff carries what changed, the
section route serves the text)."""
from __future__ import annotations

from dataclasses import asdict

from backend.analysis.extractors import EXTRACTORS
from backend.api.serialise import next_offset


def section_link(doc_id: int | None, section_id: int | None) -> str | None:
    if doc_id is None or section_id is None:
        return None
    return f"/api/documents/{doc_id}/section?section_id={section_id}"


def item(i, doc_id: int | None) -> dict:
    return {**i.to_dict(), "link": section_link(doc_id, i.section_id)}


def analysis(res, *, section: str | None, offset: int, limit: int) -> dict:
    doc_id = res.document.document_id
    out = []
    for name, r in res.results.items():
        spec = EXTRACTORS[name]
        page = r.items[offset:offset + limit]
        out.append({"name": name, "label": spec.label, "description": spec.description,
                    "version": r.version, "columns": list(spec.fields), "total": r.total,
                    "truncated": r.truncated, "cached": r.cached, "refined_by": r.refined_by,
                    "items": [item(i, doc_id) for i in page], "offset": offset, "limit": limit,
                    "next_offset": next_offset(offset, len(page), len(r.items))})
    return {"document": asdict(res.document), "section": section,
            "warnings": list(res.warnings), "extractors": out}


def summary(s) -> dict:
    doc_id = s.document.document_id
    return {"document": asdict(s.document), "scope": s.scope, "section_id": s.section_id,
            "length": s.length, "method": s.method, "parts": s.parts, "cached": s.cached,
            "warnings": list(s.warnings), "text": s.text,
            "sentences": [{"n": n, "text": x.text, "section_id": x.section_id,
                           "section": x.section, "page": x.page, "start": x.start,
                           "end": x.end, "link": section_link(doc_id, x.section_id)}
                          for n, x in enumerate(s.sentences, 1)]}


def version_comparison(c, *, offset: int, limit: int, items_offset: int,
                       items_limit: int) -> dict:
    """Changed sections first (added, removed, changed in document order), then the
    unchanged ones, so the first page shows what changed."""
    a_id, b_id = c.document_a.document_id, c.document_b.document_id
    ordered = [s for s in c.sections if s.status != "unchanged"] + \
        [s for s in c.sections if s.status == "unchanged"]
    page = ordered[offset:offset + limit]
    items = c.items[items_offset:items_offset + items_limit]
    return {
        "document_a": asdict(c.document_a), "document_b": asdict(c.document_b),
        "counts": c.counts(),
        "sections": [{"status": s.status, "label": s.label, "label_a": s.label_a,
                      "label_b": s.label_b, "section_id_a": s.section_id_a,
                      "section_id_b": s.section_id_b, "page_a": s.page_a, "page_b": s.page_b,
                      "similarity": s.similarity,
                      "ops": [asdict(o) for o in s.ops if o.op != "equal"]} for s in page],
        "total": len(ordered), "offset": offset, "limit": limit,
        "next_offset": next_offset(offset, len(page), len(ordered)),
        "items": [{"extractor": i.extractor, "status": i.status, "section": i.section,
                   "a": item(i.a, a_id) if i.a else None,
                   "b": item(i.b, b_id) if i.b else None} for i in items],
        "items_total": len(c.items), "items_offset": items_offset, "items_limit": items_limit,
        "items_next_offset": next_offset(items_offset, len(items), len(c.items)),
    }


def document_comparison(c, *, limit: int) -> dict:
    """Each overlap list cut to `limit` entries; the `*_total` fields give the full counts."""
    a_id, b_id = c.document_a.document_id, c.document_b.document_id
    return {
        "document_a": asdict(c.document_a), "document_b": asdict(c.document_b),
        "topic_similarity": c.topic_similarity, "shared_topics": list(c.shared_topics),
        "topics_only_a": list(c.topics_only_a), "topics_only_b": list(c.topics_only_b),
        "overlaps": [{"extractor": n,
                      "shared": [[item(x, a_id), item(y, b_id)] for x, y in o.shared[:limit]],
                      "only_a": [item(x, a_id) for x in o.only_a[:limit]],
                      "only_b": [item(y, b_id) for y in o.only_b[:limit]],
                      "shared_total": len(o.shared), "only_a_total": len(o.only_a),
                      "only_b_total": len(o.only_b)} for n, o in c.overlaps.items()],
        "limit": limit,
    }


def cross_references(x, *, offset: int, limit: int) -> dict:
    """`x` was asked for offset + limit + 1 hits: one more says there is a next page."""
    page = x.hits[offset:offset + limit]
    more = len(x.hits) > offset + limit
    return {"query": x.query, "origin": x.origin,
            "hits": [{**{k: v for k, v in asdict(h).items() if k != "chunk_ids"},
                      "link": section_link(h.document_id, h.section_id)
                      or f"/api/documents/{h.document_id}"} for h in page],
            "offset": offset, "limit": limit,
            "next_offset": offset + len(page) if more else None}
