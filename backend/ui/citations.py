"""What the dashboard shows of a verifiable citation (issue 23), so that the chat and
document pages only render: the answer with each `[n]` a link to the cited place, a cited
passage with its quote highlighted, the links of "Open in document" and "retrieval trace",
the cited place in the document (a PDF page image with the quote boxed, else the text around
the passage with the quote highlighted, for crawled pages with the web link), and the
sources a trace's answer cited.

Markdown here is built from escaped text only (backend/security/safe_markdown.py): document text
goes through `md_escape`, the highlight is a `:orange-background[…]` directive around
escaped text (its `]` is escaped, so the text cannot close it), and links carry numbers
only."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlencode

from sqlalchemy import select

from backend.security.safe_markdown import answer_markdown, md_escape, md_link

BEFORE_CHARS, AFTER_CHARS = 600, 1500  # text shown around a cited quote (non-PDF documents)
TITLE_CHARS = 300  # of the quote in a citation link's hover title
_HINT_UNSAFE = re.compile(r"[^\w\s.,;%/+-]")  # what a link title keeps: words, figures
_ESCAPED_CITE = re.compile(r"\\\[(\d{1,4}(?:\\[,;] ?\d{1,4})*)\\\]")


def document_params(src: dict) -> dict[str, str]:
    """Query parameters of the document page opened at a source's cited place (`cited`
    repeats the document: choosing another document on the page keeps the other
    parameters in the URL, which then no longer apply)."""
    params = {"doc": str(int(src["document_id"])), "cited": str(int(src["document_id"]))}
    if src.get("version"):
        params["version_number"] = str(int(src["version"]))
    offsets = src.get("quote_offsets") or []
    if len(offsets) == 2:
        params.update(quote_start=str(int(offsets[0])), quote_end=str(int(offsets[1])))
    if src.get("page") is not None:
        params["page"] = str(int(src["page"]))
    return params


def document_url(src: dict) -> str:
    return "document?" + urlencode(document_params(src))


def trace_params(trace_id: str, question: str | None = None) -> dict[str, str]:
    """Query debug opened on a trace with its question filled in."""
    return {"trace": trace_id, **({"q": question[:2000]} if question else {})}


def trace_url(trace_id: str, question: str | None = None) -> str:
    return "query_debug?" + urlencode(trace_params(trace_id, question))


def linkable(src: dict) -> bool:
    return bool(src.get("document_id")) and not src.get("deleted") and not src.get("hidden")


def cited_markdown(text: str, rich: bool, sources: list[dict], *, bold: bool = False) -> str:
    """The answer as `answer_markdown` renders it (`bold`: the extractive answer's bold
    value kept), each `[n]` of a readable source a link to the cited place in the document
    (its quote as the hover title)."""
    md = answer_markdown(text, rich=rich, bold=bold)
    by_n = {int(s["n"]): s for s in sources if linkable(s)}

    def link(m: re.Match) -> str:
        nums = [int(x) for x in re.findall(r"\d+", m.group(1))]
        return "".join(_cite_link(n, by_n[n]) if n in by_n else f"\\[{n:d}\\]" for n in nums)
    return _ESCAPED_CITE.sub(link, md)


def _cite_link(n: int, src: dict) -> str:
    hint = _HINT_UNSAFE.sub(" ", src.get("quote") or src.get("passage") or src.get("title") or "")
    hint = " ".join(hint.split())[:TITLE_CHARS]  # no quote mark, bracket, colon, $ or @
    return f'[\\[{n:d}\\]]({document_url(src)} "{hint}")'


def passage_markdown(passage: str, quote_at: tuple[int, int] | None) -> str:
    """A passage as Markdown lines, the span `quote_at` (within the passage) highlighted."""
    if not quote_at:
        return "  \n".join(md_escape(x) for x in passage.split("\n"))
    a, b = quote_at
    lines, pos = [], 0
    for line in passage.split("\n"):
        end = pos + len(line)
        x, y = max(a, pos), min(b, end)
        if x < y:
            lines.append(md_escape(line[:x - pos]) + _highlight(line[x - pos:y - pos])
                         + md_escape(line[y - pos:]))
        else:
            lines.append(md_escape(line))
        pos = end + 1
    return "  \n".join(lines)


def _highlight(text: str) -> str:
    """Escaped text on an orange background, bold (a stripped quote: the `**` binds)."""
    inner = md_escape(text.strip())
    lead, tail = text[:len(text) - len(text.lstrip())], text[len(text.rstrip()):]
    return md_escape(lead) + (f":orange-background[**{inner}**]" if inner else "") \
        + md_escape(tail)


def source_passage_markdown(src: dict) -> str:
    """A source's passage with its quote highlighted (quote offsets relative to the
    passage: the quote lies inside it, backend/chat/citations.py)."""
    passage = src.get("passage") or ""
    quote = src.get("quote")
    at = passage.find(quote) if quote else -1
    return passage_markdown(passage, (at, at + len(quote)) if at >= 0 else None)


def web_source_markdown(src: dict) -> str:
    """A question's web page (backend/chat/question_url.py) in the source list: number,
    title, the link to the page and the quote; no document, page image or trace link."""
    line = (f"**[{int(src['n']):d}] {md_escape(src.get('title') or '')}** · web page from the "
            f"question · {md_link(src.get('url') or '', src.get('url') or '')}")
    if src.get("quote"):
        line += f"  \n> {md_escape(src['quote'])}"
    return line


def source_heading(src: dict) -> str:
    """Title · section path · page, escaped."""
    parts = [f"**{md_escape(src.get('title') or '')}**"]
    path = (src.get("section") or {}).get("path") or src.get("section_path") or []
    if path:
        parts.append(md_escape(" › ".join(path)))
    if src.get("page") is not None:
        parts.append(f"p. {int(src['page']):d}")
    return " · ".join(parts)


# ---- the document page at a cited place ----------------------------------------------------


@dataclass
class CitedPlace:
    """What "Open in document" shows: `kind` "pdf" (page image `png` with the quote boxed),
    "text" (the text around the passage, quote highlighted) or "web" (a crawled page's
    stored text, as "text", plus `web_url`)."""

    kind: str
    version: int
    page: int | None = None
    pages: int | None = None
    png: bytes | None = None
    boxes: int = 0
    excerpt_md: str = ""
    quote: str = ""
    web_url: str = ""
    notes: list[str] = field(default_factory=list)


def cited_place(rs, actor, doc_id: int, version: int | None, quote_start: int,
                quote_end: int, page: int | None = None) -> CitedPlace:
    """The cited place of document `doc_id` (NotFound outside the actor's scope)."""
    from backend.security import access
    from backend.services import navigation
    from backend.chat import preview
    from backend.ingest.dedup import base_source

    scope = access.scope_of(rs, actor)
    with rs.store.session() as s:
        v = navigation._version(s, scope, doc_id, version)
        text, number = v.text or "", v.number
        file_type, kind, uri = v.document.file_type, v.document.source_kind, v.document.source_uri
        has_original = bool(v.original_path)
    quote = preview._quote(text, quote_start, quote_end)
    if (file_type or "").lower() == "pdf" and page is not None and has_original:
        p = preview.page_png(rs, actor, doc_id, number, page, quote_start, quote_end)
        notes = [] if p.boxes else ["The page's text layer does not hold the quote (a "
                                    "scanned page?): the page is shown without a box."]
        return CitedPlace("pdf", number, page, p.pages, p.png, p.boxes, quote=quote,
                          notes=notes)
    a = _paragraph_start(text, quote_start - BEFORE_CHARS)
    b = text.find("\n\n", min(len(text), quote_end + AFTER_CHARS))
    b = len(text) if b < 0 else b
    md = (("…  \n" if a else "") + passage_markdown(text[a:b], (quote_start - a, quote_end - a))
          + ("  \n…" if b < len(text) else ""))
    uri = base_source(uri or "")
    web = uri if kind == "crawl" and uri.startswith(("http://", "https://")) else ""
    return CitedPlace("web" if web else "text", number, page, excerpt_md=md, quote=quote,
                      web_url=web)


def _paragraph_start(text: str, offset: int) -> int:
    """Start of the paragraph holding `offset` (0 before the text)."""
    if offset <= 0:
        return 0
    at = text.rfind("\n\n", 0, offset)
    return 0 if at < 0 else at + 2


# ---- query debug: what the answer of a trace cited ---------------------------------------


def place_markdown(place: CitedPlace) -> str:
    """The text of a non-PDF cited place (escaped, quote highlighted)."""
    return place.excerpt_md


def cited_in_trace(rs, trace_id: str, scope, hits: list[dict] | None = None) -> list[dict]:
    """The cited sources (n, chunk id, title, section, page, and `rank`: the trace hit of
    the same chunk, or None) of the chat answer whose retrieval trace is `trace_id`, blanked
    outside `scope` like the chat shows them; empty for a trace no answer used (a
    query-debug run)."""
    from backend.chat.sessions import _message_info
    from backend.chat.sources import scope_sources
    from backend.store.chat_models import ChatMessage

    with rs.store.session() as s:
        rows = list(s.scalars(select(ChatMessage).where(
            ChatMessage.trace_id == trace_id, ChatMessage.role == "assistant").limit(5)))
        infos = scope_sources(s, [_message_info(m) for m in rows], scope)
    out, seen = [], set()
    for m in infos:
        for src in m.sources:
            key = (src.get("n"), src.get("chunk_id"))
            if src.get("cited") and key not in seen:
                seen.add(key)
                out.append({"n": src.get("n"), "chunk_id": src.get("chunk_id") or "",
                            "title": src.get("title") or "", "page": src.get("page"),
                            "section": " › ".join(src.get("section_path") or [])})
    ranks = {h.get("chunk_id"): h.get("rank") for h in hits or [] if h.get("chunk_id")}
    for c in out:
        c["rank"] = ranks.get(c["chunk_id"]) if c["chunk_id"] else None
    return out
