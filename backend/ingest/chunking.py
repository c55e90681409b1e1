"""Text + sections -> chunks. A chunk never crosses the boundary of the deepest section it
belongs to; inside a section the text is cut at a paragraph, else a line, else a sentence,
else a word boundary near the target size, with `overlap` characters shared between
neighbours. Offsets are exact: chunk.text == text.text[chunk.start:chunk.end]."""
from __future__ import annotations

import re

from backend.ingest.structure import page_for_offset
from backend.ingest.types import ChunkSpec, SectionNode, Text

_SENTENCE_END = re.compile(r"[.!?…][\"'”“»«)\]]*(?=\s)")
_WS = re.compile(r"\s")
_NON_WS = re.compile(r"\S")
TAIL_SHARE = 0.25  # a remainder shorter than this share of `size` is merged into the chunk


def chunk_text(text: Text, sections: list[SectionNode], size: int, overlap: int) -> list[ChunkSpec]:
    """Cut the text into chunks of about `size` characters (deterministic, linear time)."""
    if size <= 0:
        raise ValueError("size must be positive")
    overlap = max(0, min(overlap, size // 2))
    s = text.text
    starts = [p.start for p in text.pages]
    chunks: list[ChunkSpec] = []
    for seg_start, seg_end, section in _leaf_segments(sections, len(s)):
        for a, b in _split(s, seg_start, seg_end, size, overlap):
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


def _split(s: str, start: int, end: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """(start, end) pieces of s[start:end], stripped of surrounding whitespace."""
    start, end = _strip(s, start, end)
    pieces: list[tuple[int, int]] = []
    pos = start
    while pos < end:
        if end - pos <= size:
            pieces.append((pos, end))
            break
        cut = _find_cut(s, pos, pos + size)
        tail_start = _skip_ws(s, cut, end)
        if end - tail_start < size * TAIL_SHARE and end - pos <= size * (1 + TAIL_SHARE):
            pieces.append((pos, end))
            break
        _, piece_end = _strip(s, pos, cut)
        pieces.append((pos, piece_end))
        nxt = _overlap_start(s, pos, cut, overlap) if overlap else cut
        pos = _skip_ws(s, max(nxt, pos + 1), end)
    return pieces


def _find_cut(s: str, lo: int, limit: int) -> int:
    """Best cut position in (lo, limit]: paragraph, line, sentence, word, else `limit`."""
    half = lo + (limit - lo) // 2
    for sep in ("\n\n", "\n"):
        i = s.rfind(sep, half, limit)
        if i > lo:
            return i
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
