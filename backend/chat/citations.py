"""Verifiable citations (issue 23): what each source of an answer carries so that a reader
can check it in one click, built in one place (`attach`, called by `ChatService.store_turn`
for every stored answer: retrieval, inventory and analysis answers alike, so the chat API,
the ask stream, the MCP tools and the chatbots' API all return the same fields).

Per source, besides the retrieval fields:

- `passage`: the chunk's text (exactly `version_text[chunk.start:chunk.end]`);
- `quote`: the sentence (or line: a table row, a list item) of that chunk that best supports
  the answer's sentences citing `[n]` — a content-word overlap (Dice coefficient, figures
  counted twice, since the value asked for is what a reader checks) — or None when the
  source is not cited or no sentence shares a word with the answer;
- `quote_offsets`: `[start, end)` of the quote in the document version's text, so
  `quote == version_text[start:end]` (also the PDF highlight's input);
- `page`: the PDF page of the quote (the version's page spans), else the chunk's page;
- `section`: `{"id", "title", "path"}` of the chunk's section;
- `file_type`, `version_id`;
- `preview_url`: the authenticated PNG of the quote's PDF page with the quote highlighted
  (`GET /api/documents/{id}/versions/{v}/pages/{page}.png?quote_start=…&quote_end=…`),
  None for other formats (their text is at `links.fulltext`).

The quote must lie inside the passage, so a highlight is always shown inside what the
reader sees as the passage. A question's web page (`kind: "web"`, backend/chat/question_url.py)
has its `url`, `title`, `passage` and `quote`, and no offsets, page or preview."""
from __future__ import annotations

import re
from urllib.parse import urlencode

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.chat.prompt import _CITE, citation_numbers, split_answer_sentences
from backend.answer.evidence.sentences import split_sentences
from backend.ingest.structure import page_for_offset
from backend.ingest.types import PageSpan
from backend.store.models import Chunk, Document, DocumentVersion, Section

_WORD = re.compile(r"\w+", re.UNICODE)
_DIGIT = re.compile(r"\d")
MIN_QUOTE_SCORE = 0.05  # below this no sentence shares a meaningful word with the answer
_STOP = frozenset("""der die das den dem des ein eine einer einem einen und oder ist sind
wird werden wurde wurden im in am an auf aus bei mit von zu zum zur für fur als auch nicht
es sie er wir ich the a an and or is are was were be been of to in on at by for with as it
this that from which what""".split())


def preview_url(document_id: int, version: int, page: int, start: int, end: int) -> str:
    """The authenticated PNG of a PDF page with the quote `[start, end)` highlighted."""
    return (f"/api/documents/{int(document_id)}/versions/{int(version)}/pages/{int(page)}.png"
            f"?{urlencode({'quote_start': int(start), 'quote_end': int(end)})}")


def attach(s: Session, answer: str, sources: list[dict]) -> list[dict]:
    """`sources` with the citation fields set (in place, and returned). Sources without a
    chunk (a document listed without text) get empty ones."""
    by_n = _sentences_by_source(answer)
    ids = [x["chunk_id"] for x in sources if x.get("chunk_id")]
    rows = _chunks(s, ids)
    for src in sources:
        cited_by = by_n.get(int(src.get("n") or 0), [])
        if src.get("kind") == "web":  # a question's page (backend/chat/question_url.py)
            src.update(_web_fields(src, cited_by))
            continue
        row = rows.get(src.get("chunk_id") or "")
        src.update(_fields(row, src, cited_by))
    return sources


def _web_fields(src: dict, cited_by: list[str]) -> dict:
    """A web page's citation fields: its passage and quote; no document, page or image."""
    passage = src.get("passage") or ""
    found = best_quote(passage, cited_by) if cited_by else None
    return {"quote": passage[found[0]:found[1]] if found else None, "quote_offsets": None,
            "section": {"id": None, "title": "", "path": []}, "preview_url": None,
            "file_type": src.get("file_type") or ""}


def _sentences_by_source(answer: str) -> dict[int, list[str]]:
    """The answer's sentences (citation marks removed) per cited source number."""
    out: dict[int, list[str]] = {}
    for sentence in split_answer_sentences(answer or ""):
        plain = _CITE.sub(" ", sentence)
        for n in set(citation_numbers(sentence)):
            out.setdefault(n, []).append(plain)
    return out


def _chunks(s: Session, ids: list[str]) -> dict[str, tuple]:
    """chunk id -> (Chunk, version number, version meta, file type, Section or None)."""
    out: dict[str, tuple] = {}
    for i in range(0, len(ids), 500):
        q = (select(Chunk, DocumentVersion.number, DocumentVersion.meta, Document.file_type,
                    Section)
             .join(DocumentVersion, DocumentVersion.id == Chunk.version_id)
             .join(Document, Document.id == Chunk.document_id)
             .outerjoin(Section, Section.id == Chunk.section_id)
             .where(Chunk.id.in_(ids[i:i + 500])))
        for chunk, number, meta, file_type, section in s.execute(q):
            out[chunk.id] = (chunk, number, meta or {}, file_type or "", section)
    return out


def _fields(row: tuple | None, src: dict, cited_by: list[str]) -> dict:
    if row is None:
        return {"passage": None, "quote": None, "quote_offsets": None,
                "section": {"id": None, "title": "", "path": list(src.get("section_path") or [])},
                "preview_url": None, "file_type": src.get("file_type") or ""}
    chunk, number, meta, file_type, section = row
    found = best_quote(chunk.text, cited_by) if cited_by else None
    offsets = [chunk.start + found[0], chunk.start + found[1]] if found else None
    pages = [PageSpan(n, a, b) for n, a, b in meta.get("pages", [])]
    page = page_for_offset(pages, offsets[0]) if offsets and pages else chunk.page
    url = (preview_url(chunk.document_id, number, page, *offsets)
           if file_type == "pdf" and page is not None and offsets else None)
    return {"passage": chunk.text,
            "quote": chunk.text[found[0]:found[1]] if found else None,
            "quote_offsets": offsets, "page": page if page is not None else src.get("page"),
            "section": {"id": chunk.section_id, "title": section.title if section else "",
                        "path": list(src.get("section_path") or [])},
            "version_id": chunk.version_id, "version": number, "file_type": file_type,
            "preview_url": url}


def best_quote(passage: str, claims: list[str]) -> tuple[int, int] | None:
    """[start, end) within `passage` of its sentence (or line) that best supports one of
    the `claims`; None when none shares a content word with them."""
    claim_words = [_words(c) for c in claims]
    best, best_score = None, MIN_QUOTE_SCORE
    for start, end in candidate_spans(passage):
        words = _words(passage[start:end])
        score = max((_dice(words, c) for c in claim_words), default=0.0)
        if score > best_score:
            best, best_score = (start, end), score
    return best


def candidate_spans(text: str) -> list[tuple[int, int]]:
    """[start, end) of each sentence of each line of `text`, stripped, in order: lines first,
    since table rows, list items and headings end without a full stop."""
    spans, pos = [], 0
    for line in text.split("\n"):
        spans.extend((pos + a, pos + b) for a, b in _line_spans(line))
        pos += len(line) + 1
    return spans


def _line_spans(line: str) -> list[tuple[int, int]]:
    out, cursor = [], 0
    for sentence in split_sentences(line):
        at = line.find(sentence, cursor)
        if at < 0:  # the splitter changed the text (joined fragments): the whole line
            stripped = line.strip()
            return [(line.find(stripped), line.find(stripped) + len(stripped))] if stripped else []
        out.append((at, at + len(sentence)))
        cursor = at + len(sentence)
    return out


def _words(text: str) -> dict[str, float]:
    """Content words with their weight: figures count twice."""
    out: dict[str, float] = {}
    for w in _WORD.findall(text.lower()):
        if w in _STOP or (len(w) < 2 and not w.isdigit()):
            continue
        out[w] = 2.0 if _DIGIT.search(w) else 1.0
    return out


def _dice(a: dict[str, float], b: dict[str, float]) -> float:
    shared = sum(a[w] for w in a.keys() & b.keys())
    total = sum(a.values()) + sum(b.values())
    return 2 * shared / total if total else 0.0
