"""Text + sections -> chunks. A chunk never crosses the boundary of the deepest section it
belongs to; inside a section the text is cut at a paragraph, else a line, else a sentence,
else a word boundary near the target size, with `overlap` characters shared between
neighbours. Offsets are exact: chunk.text == text.text[chunk.start:chunk.end].

A processing profile (backend/ingest/profiles.py) can ask for more: code blocks or tables
(`text.spans`) not cut inside while the chunk stays below `max_whole_factor` x size (else
they are cut at a line end like any text), a whole section as one chunk up to
`whole_section_factor` x size, cuts only at line ends, and no chunk across a page boundary.
Without a profile (or with `generic_text`) the result is what it always was."""
from __future__ import annotations

import re

from dataclasses import dataclass
from typing import TYPE_CHECKING

from backend.ingest.structure import page_for_offset
from backend.ingest.types import ChunkSpec, SectionNode, Span, Text

if TYPE_CHECKING:
    from backend.ingest.profiles import Profile

_SENTENCE_END = re.compile(r"[.!?…][\"'”“»«)\]]*(?=\s)")
_WS = re.compile(r"\s")
_NON_WS = re.compile(r"\S")
TAIL_SHARE = 0.25  # a remainder shorter than this share of `size` is merged into the chunk


@dataclass(frozen=True)
class _Rules:
    whole: tuple[Span, ...] = ()  # spans not to cut inside
    max_whole: int = 0
    whole_section: int = 0
    lines_only: bool = False


def chunk_text(text: Text, sections: list[SectionNode], size: int, overlap: int,
               profile: "Profile | None" = None) -> list[ChunkSpec]:
    """Cut the text into chunks of about `size` characters (deterministic, linear time)."""
    if size <= 0:
        raise ValueError("size must be positive")
    overlap = max(0, min(overlap, size // 2))
    s = text.text
    starts = [p.start for p in text.pages]
    rules = _Rules()
    segments = _leaf_segments(sections, len(s))
    if profile is not None:
        rules = _Rules(tuple(x for x in text.spans if x.kind in profile.keep_whole),
                       int(size * profile.max_whole_factor),
                       int(size * (profile.whole_section_factor or 0)), profile.lines_only)
        if profile.page_bounds and len(text.pages) > 1:
            segments = _split_at(segments, [p.start for p in text.pages[1:]])
    chunks: list[ChunkSpec] = []
    for seg_start, seg_end, section in segments:
        for a, b in _split(s, seg_start, seg_end, size, overlap, rules):
            chunks.append(
                ChunkSpec(
                    ordinal=len(chunks),
                    start=a,
                    end=b,
                    text=s[a:b],
                    section=section,
                    page=page_for_offset(text.pages, a, starts),
                    page_end=page_for_offset(text.pages, b - 1, starts),
                )
            )
    return chunks


def _leaf_segments(sections: list[SectionNode], n: int) -> list[tuple[int, int, int]]:
    """Partition [0, n) into (start, end, deepest section index) runs. Sections are in
    document (pre-)order and properly nested."""
    if not sections:
        return [(0, n, 0)]
    bounds = sorted({0, n, *(min(x.start, n) for x in sections), *(min(x.end, n) for x in sections)})
    order = sorted(range(len(sections)), key=lambda i: (sections[i].start, i))
    stack: list[int] = []
    nxt = 0
    out: list[tuple[int, int, int]] = []
    for a, b in zip(bounds, bounds[1:]):
        while stack and sections[stack[-1]].end <= a:
            stack.pop()
        while nxt < len(order) and sections[order[nxt]].start <= a:
            idx = order[nxt]
            nxt += 1
            if sections[idx].end > a:
                while stack and sections[stack[-1]].end <= a:
                    stack.pop()
                stack.append(idx)
        out.append((a, b, stack[-1] if stack else 0))
    return out


def _split_at(segments: list[tuple[int, int, int]], bounds: list[int]) -> list[tuple[int, int, int]]:
    """Segments additionally cut at the given offsets (page starts)."""
    out = []
    for a, b, sec in segments:
        inner = [x for x in bounds if a < x < b]
        for x, y in zip([a, *inner], [*inner, b]):
            out.append((x, y, sec))
    return out


def _split(s: str, start: int, end: int, size: int, overlap: int,
           rules: _Rules = _Rules()) -> list[tuple[int, int]]:
    """(start, end) pieces of s[start:end], stripped of surrounding whitespace."""
    start, end = _strip(s, start, end)
    pieces: list[tuple[int, int]] = []
    pos = start
    if rules.whole_section and end - pos <= rules.whole_section:
        return [(pos, end)] if pos < end else []
    while pos < end:
        if end - pos <= size:
            pieces.append((pos, end))
            break
        cut = _find_cut(s, pos, pos + size, rules.lines_only)
        if rules.whole:
            cut = _outside_spans(s, pos, cut, end, size, rules)
        tail_start = _skip_ws(s, cut, end)
        if end - tail_start < size * TAIL_SHARE and end - pos <= size * (1 + TAIL_SHARE):
            pieces.append((pos, end))
            break
        _, piece_end = _strip(s, pos, cut)
        pieces.append((pos, piece_end))
        nxt = _overlap_start(s, pos, cut, overlap) if overlap else cut
        if rules.lines_only and nxt < cut:  # the overlap starts at a line start too
            line = s.find("\n", nxt - 1, cut)
            nxt = line + 1 if line >= 0 else cut
        pos = _skip_ws(s, max(nxt, pos + 1), end)
    return pieces


def _outside_spans(s: str, pos: int, cut: int, end: int, size: int, rules: _Rules) -> int:
    """Move a cut that falls inside a span to keep whole: before the span when the chunk
    keeps at least a quarter of `size`, else after it while the chunk stays below
    `max_whole`; a span too long for that is cut where `cut` is."""
    for sp in rules.whole:
        if sp.end <= pos or sp.start >= cut:
            continue
        if not (sp.start < cut < sp.end):
            continue
        before = _strip(s, pos, sp.start)[1]
        if before - pos >= size // 4:
            return sp.start
        if min(sp.end, end) - pos <= rules.max_whole:
            return min(sp.end, end)
        return cut
    return cut


def _find_cut(s: str, lo: int, limit: int, lines_only: bool = False) -> int:
    """Best cut position in (lo, limit]: paragraph, line, sentence, word, else `limit`
    (`lines_only`: paragraph or line, else the last line end before `limit`, else `limit`)."""
    half = lo + (limit - lo) // 2
    for sep in ("\n\n", "\n"):
        i = s.rfind(sep, half, limit)
        if i > lo:
            return i
    if lines_only:
        i = s.rfind("\n", lo + 1, limit)
        return i if i > lo else limit
    last = None
    for m in _SENTENCE_END.finditer(s, half, limit):
        last = m.end()
    if last is not None:
        return last
    i = max(s.rfind(" ", lo + 1, limit + 1), s.rfind("\n", lo + 1, limit + 1))
    return i if i > lo else limit


def _overlap_start(s: str, pos: int, cut: int, overlap: int) -> int:
    """Start of the next chunk: the first word boundary at or after cut - overlap (never at
    or before `pos`); `cut` when there is none."""
    at = max(pos + 1, cut - overlap)
    if not s[at - 1].isspace():
        m = _WS.search(s, at, cut)
        if m is None:
            return cut
        at = m.start()
    return at


def _skip_ws(s: str, i: int, end: int) -> int:
    m = _NON_WS.search(s, i, end)
    return m.start() if m else end


def _strip(s: str, a: int, b: int) -> tuple[int, int]:
    a = _skip_ws(s, a, b)
    while b > a and s[b - 1].isspace():
        b -= 1
    return a, b
