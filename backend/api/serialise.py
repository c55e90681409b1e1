"""The JSON shapes the HTTP API and the MCP tools return, built from the service layer's
dataclasses in one place, so both interfaces answer alike."""
from __future__ import annotations

from dataclasses import asdict, fields
from datetime import datetime, timezone
from typing import Any
from urllib.parse import quote

from backend.services import documents
from backend.security.display import safe_text
from backend.services.library import JobInfo
from backend.services.navigation import OriginalMeta, SectionText, TextPage
from backend.retrieval import Hit
from backend.services.search import SearchPage, SmartResult

_HIT_FIELDS = tuple(f.name for f in fields(Hit))


def aware(value: Any) -> Any:
    """The value with every naive datetime (SQLite gives them; stored as UTC) marked UTC,
    so JSON carries RFC 3339 timestamps with an offset."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, dict):
        return {k: aware(v) for k, v in value.items()}
    if isinstance(value, list):
        return [aware(v) for v in value]
    return value


def next_offset(offset: int, shown: int, total: int) -> int | None:
    return offset + shown if offset + shown < total else None


def document_links(doc_id: int) -> dict[str, str]:
    base = f"/api/documents/{doc_id}"
    return {"document": base, "fulltext": f"{base}/fulltext", "structure": f"{base}/structure",
            "original": f"{base}/original"}


def download_url(doc_id: int, version: int) -> str:
    return f"/api/documents/{doc_id}/original?version={version}"


def _fields(hit: Hit) -> dict:
    """A hit's fields, not copied (`asdict` deep-copies each value: 3x the time for flat
    fields that are only encoded to JSON)."""
    return {name: getattr(hit, name) for name in _HIT_FIELDS}


def search_page(page: SearchPage, *, include_trace: bool = False) -> dict:
    res = page.result
    hits = [{**_fields(h), "version": h.version_number, "breadcrumb": h.breadcrumb,
             "links": {**document_links(h.document_id),
                       **({"section": f"/api/documents/{h.document_id}/section?section_id="
                                      f"{h.section_id}"} if h.section_id else {})}}
            for h in page.hits]
    for h in hits:
        h.pop("original_path", None)  # a path inside the data dir: the links serve the file
    docs = res.documents[page.offset:page.offset + page.limit]
    if res.mode == "chunks":  # ranked lazily: not counted beyond the page
        total, after = None, page.offset + len(hits) if page.more else None
    else:
        total = len(res.documents)
        after = next_offset(page.offset, len(docs), total)
    return {"query": res.query, "mode": res.mode, "language": res.language,
            "warnings": res.warnings, "hits": hits, "documents": [asdict(d) for d in docs],
            "total": total, "offset": page.offset, "limit": page.limit, "next_offset": after,
            "trace": asdict(res.trace) if include_trace else None}


def smart_result(res: SmartResult) -> dict:
    return {"query": res.query, "mode": res.mode, "language": res.language,
            "warnings": res.warnings, "total": res.total, "offset": res.offset,
            "limit": res.limit,
            "next_offset": next_offset(res.offset, len(res.documents), res.total),
            "documents": [{**asdict(d), "links": document_links(d.document_id)}
                          for d in res.documents]}


def document_page(page: documents.DocumentPage, offset: int, limit: int) -> dict:
    return {"items": aware([{**asdict(r), "display_name": safe_text(r.filename)}
                            for r in page.rows]), "total": page.total,
            "offset": offset, "limit": limit,
            "next_offset": next_offset(offset, len(page.rows), page.total)}


def document_detail(d: documents.DocumentDetail) -> dict:
    active = next((v.number for v in d.versions if v.id == d.active_version_id), None)
    versions = [{k: v for k, v in asdict(x).items() if k != "id"} for x in d.versions]
    return aware({**{k: v for k, v in asdict(d).items()
                     if k not in ("versions", "active_version_id")},
                  "display_name": safe_text(d.filename),
                  "active_version": active, "versions": versions,
                  "links": document_links(d.id)})


def text_page(p: TextPage) -> dict:
    return {**asdict(p), "next_offset": p.next_offset}


def section_list(doc_id: int, number: int, rows: list, total: int, offset: int,
                 limit: int) -> dict:
    return {"document_id": doc_id, "version": number, "items": [asdict(r) for r in rows],
            "total": total, "offset": offset, "limit": limit,
            "next_offset": next_offset(offset, len(rows), total)}


def node(n: documents.SectionNode) -> dict:
    return {"id": n.id, "level": n.level, "kind": n.kind, "title": n.title, "label": n.label,
            "number": n.number, "start": n.start, "end": n.end, "page_start": n.page_start,
            "page_end": n.page_end, "chunks": n.chunks, "subtree_chunks": n.subtree_chunks,
            "children": [node(c) for c in n.children]}


def structure(doc_id: int, number: int, root: documents.SectionNode | None) -> dict:
    return {"document_id": doc_id, "version": number,
            "root": node(root) if root is not None else None}


def section_text(st: SectionText) -> dict:
    return {"document_id": st.document_id, "version": st.version, "matched_by": st.matched_by,
            "section": asdict(st.section), "breadcrumb": st.breadcrumb,
            "offset": st.page.offset, "limit": st.page.limit,
            "total_chars": st.page.total_chars, "next_offset": st.page.next_offset,
            "text": st.page.text}


def original_meta(m: OriginalMeta) -> dict:
    return {**asdict(m), "download_url": download_url(m.document_id, m.version)}


def content_disposition(filename: str) -> str:
    ascii_name = "".join(c if c.isascii() and (c.isalnum() or c in "._- ") else "_"
                         for c in filename) or "original"
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(filename)}"


def collections_page(rows: list, total: int, offset: int, limit: int) -> dict:
    return {"items": [asdict(r) for r in rows], "total": total, "offset": offset,
            "limit": limit, "next_offset": next_offset(offset, len(rows), total)}


def job(info: JobInfo) -> dict:
    return aware(asdict(info))


def public_source(src: dict) -> dict:
    """A chat source without the data-dir path of its original, with links instead. The
    citation fields (passage, quote, quote_offsets, page, section, preview_url;
    backend/chat/citations.py) stay as stored."""
    out = {k: v for k, v in src.items() if k != "original_path"}
    if src.get("document_id"):
        out["links"] = document_links(src["document_id"])
    return out


def confidence_fields(citations: dict | None) -> dict:
    """`confidence` (level, p_right, passages, documents, text; backend/answer/confidence.py)
    of every answer, and `related` (the closest passages of a declined one) when there are."""
    c = citations or {}
    out = {"confidence": c.get("confidence")}
    if c.get("related"):
        out["related"] = c["related"]
    return out


def answer(session: str, m, context: str | None = None) -> dict:
    """A stored chat answer (MessageInfo) as the ask stream's `answer` event and the
    `answer_question` MCP tool return it; `rewrite`: how a follow-up was retrieved
    (backend/chat/followup.py), `context`: the session's context mode when given."""
    out = {"session": session, "message_id": m.id, "text": m.content,
           "citations": m.citations, "sources": [public_source(s) for s in m.sources],
           "provider": m.provider, "model": m.model, "fallback": m.fallback,
           "notice": m.notice, "latency_ms": m.latency_ms, "trace_id": m.trace_id,
           "rewrite": m.rewrite, **confidence_fields(m.citations)}
    if context is not None:
        out["context"] = context
    return out
