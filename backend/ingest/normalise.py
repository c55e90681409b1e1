"""RawDocument -> Text: clean characters, re-flow hard-wrapped lines, join blocks with a blank
line and record page spans and headings as offsets into the final text."""
from __future__ import annotations

import re
import unicodedata

from backend.ingest.structure import match_heading
from backend.ingest.types import Block, Heading, OutlineEntry, PageSpan, RawDocument, Span, Text

# Characters removed outright: C0/C1 controls (except tab/newline), zero-width marks, BOM.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200d\u2060\ufeff]")
_SPACES = re.compile(r"[ \t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+")
_LIGATURES = {"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"}
_LIGATURE = re.compile("[ﬀ-ﬆ]")
_BULLET = re.compile(r"^[-*•·▪◦‣○■□➢✓]\s")
_LIST_MARKER = re.compile(r"^(?:[-*•·▪◦‣○■□➢✓]\s|\(?\d{1,3}[.)]\s|\(\d{1,3}\)\s|[a-z]\)\s)")
_SENTENCE_END_CHARS = frozenset('.:;!?…)"“”»')
_KEEP_HYPHEN_WORDS = frozenset({"und", "oder", "bzw.", "sowie", "bis", "and", "or", "to"})
SHORT_LINE = 0.6  # a line shorter than this share of the block width ends a paragraph
MIN_WIDTH = 30  # blocks narrower than this are lists/addresses: keep every line break


def clean_chars(text: str) -> str:
    """NFC, unified line endings, no control characters, ligatures expanded, soft hyphens
    at line ends joined, other soft hyphens dropped."""
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = _LIGATURE.sub(lambda m: _LIGATURES[m.group(0)], text)
    text = text.replace("\u00ad\n", "").replace("\u00ad", "")
    return _CONTROL.sub("", text)


def _join(pieces: list[str], b: str) -> None:
    """Append line `b` to the physical-line pieces of the current line, undoing end-of-line
    hyphenation: "Konfigu-" + "ration" -> "Konfiguration"; "E-Mail-" + "Adresse" ->
    "E-Mail-Adresse"; "Ein-" + "und Ausgabe" -> "Ein- und Ausgabe"."""
    a = pieces[-1]
    if _hyphenated(a) and b[:1].isalpha():
        if b.split(" ", 1)[0] in _KEEP_HYPHEN_WORDS:
            pieces.append(" " + b)
        elif b[0].islower():
            pieces[-1] = a[:-1]
            pieces.append(b)
        else:
            pieces.append(b)
    else:
        pieces.append(" " + b)


def join_lines(a: str, b: str) -> str:
    """Join two lines as `reflow` would."""
    pieces = [a]
    _join(pieces, b)
    return "".join(pieces)


def _hyphenated(line: str) -> bool:
    """The line ends with a letter followed by a hyphen ("Konfigu-", not " -" or "3-")."""
    return len(line) > 1 and line[-1] == "-" and line[-2].isalpha()


def keep_break(a: str, b: str, width: int) -> bool:
    """True when the line break between lines `a` and `b` (stripped) is meaningful:
    after a short line, before a list item or heading, in a narrow block."""
    if _hyphenated(a) and b[:1].isalpha():
        return False
    if width < MIN_WIDTH or len(a) < SHORT_LINE * width:
        return True
    if _BULLET.match(b):
        return True
    if _LIST_MARKER.match(b) and (a[-1:] in _SENTENCE_END_CHARS or _LIST_MARKER.match(a)):
        return True
    if a[-1:] in _SENTENCE_END_CHARS and match_heading(b):
        return True
    return bool(match_heading(a))


def reflow(lines: list[str], width: int | None = None) -> list[str]:
    """Merge hard-wrapped lines (stripped, non-empty); returns the lines whose breaks are
    kept. `width` defaults to the longest line. Linear in the total length."""
    if not lines:
        return []
    width = width if width is not None else max(len(x) for x in lines)
    out: list[str] = []
    pieces = [lines[0]]
    prev = lines[0]
    for line in lines[1:]:
        if keep_break(prev, line, width):
            out.append("".join(pieces))
            pieces = [line]
        else:
            _join(pieces, line)
        prev = line
    out.append("".join(pieces))
    return out


def _clean_block(block: Block) -> str:
    text = clean_chars(block.text)
    if block.preformatted:  # code keeps its spacing (alignment, comments); tables collapse
        keep = block.kind == "code"
        lines = [x.rstrip() if keep else _collapse_inner(x.rstrip()) for x in text.split("\n")]
        return "\n".join(lines).strip("\n")
    paragraphs = []
    for para in re.split(r"\n\s*\n", _SPACES.sub(" ", text)):
        lines = [x.strip() for x in para.split("\n")]
        lines = [x for x in lines if x]
        if not lines:
            continue
        if block.heading_level:
            paragraphs.append(" ".join(lines))
        else:
            paragraphs.append("\n".join(reflow(lines)))
    return ("\n\n" if not block.heading_level else " ").join(paragraphs)


def _collapse_inner(line: str) -> str:
    body = line.lstrip(" \t")
    return line[: len(line) - len(body)] + _SPACES.sub(" ", body)


def normalise(raw: RawDocument) -> Text:
    """Build the normalised text of a document with its page spans and headings."""
    parts: list[str] = []
    headings: list[Heading] = []
    spans: list[Span] = []
    page_bounds: dict[int, list[int]] = {}
    pos = 0
    for block in raw.blocks:
        text = _clean_block(block)
        if not text:
            continue
        if parts:
            pos += 2
        start, end = pos, pos + len(text)
        parts.append(text)
        pos = end
        if block.page is not None:
            bounds = page_bounds.setdefault(block.page, [start, end])
            bounds[1] = end
        if block.heading_level:
            headings.append(Heading(text, block.heading_level, start, end, "markup"))
        elif block.anchor:
            line_end = text.find("\n")
            headings.append(Heading(" ".join(block.anchor.split())[:200], block.anchor_level or 1,
                                    start, start + (len(text) if line_end < 0 else line_end),
                                    "symbol"))
        if block.kind:
            spans.append(Span(start, end, block.kind))
    full = "\n\n".join(parts)
    pages = [PageSpan(n, s, e) for n, (s, e) in sorted(page_bounds.items())]
    if raw.outline and pages:
        headings.extend(_outline_headings(full, pages, raw.outline))
    headings.sort(key=lambda h: (h.start, h.level))
    meta = dict(raw.metadata)
    if raw.page_count is not None:
        meta["page_count"] = raw.page_count
    title = (raw.title or "").strip() or None
    return Text(text=full, pages=pages, headings=headings, title=title, metadata=meta,
                spans=spans)


def _outline_headings(text: str, pages: list[PageSpan], outline: list[OutlineEntry]) -> list[Heading]:
    """Place each outline entry where its title appears on (or after the start of) its page:
    preferably at a line start, case- and whitespace-insensitive; else at the page start."""
    by_number = {p.number: p for p in pages}
    result: list[Heading] = []
    cursor: dict[int, int] = {}
    for entry in outline:
        title = " ".join(entry.title.split())
        if not title:
            continue
        span = by_number.get(entry.page) or _next_page(pages, entry.page)
        if span is None:
            continue
        lo = max(span.start, cursor.get(span.number, span.start))
        hi = min(len(text), span.end + len(title) + 200)
        found = _find_title(text, title, lo, hi)
        if found is None:
            start = span.start
            end = text.find("\n", start, span.end)
            end = span.end if end < 0 else end
        else:
            start, end = found
            cursor[span.number] = end
        result.append(Heading(title, max(1, entry.level), start, end, "outline"))
    return result


def _next_page(pages: list[PageSpan], number: int) -> PageSpan | None:
    later = [p for p in pages if p.number >= number]
    return later[0] if later else (pages[-1] if pages else None)


def _find_title(text: str, title: str, lo: int, hi: int) -> tuple[int, int] | None:
    pattern = re.compile(r"\s+".join(re.escape(w) for w in title.split()), re.IGNORECASE)
    first = None
    for m in pattern.finditer(text, lo, hi):
        at_line_start = m.start() == 0 or text[m.start() - 1] == "\n"
        if at_line_start:
            line_end = text.find("\n", m.end())
            line_end = len(text) if line_end < 0 else line_end
            return m.start(), line_end if line_end - m.end() <= 40 else m.end()
        if first is None:
            first = (m.start(), m.end())
    return first
