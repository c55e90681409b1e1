"""Line geometry for PDF text: pypdf's text visitor gives each piece of the extracted text
with its matrices and font, so every output line gets a baseline y, an effective font size
and a bold flag. From these, paragraphs are split at vertical gaps and lines in a larger
(or bold, standalone) font become headings."""
from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from dataclasses import dataclass

from backend.ingest.normalise import clean_chars, keep_break

_BOLD = re.compile(r"bold|black|heavy|demi|semibold|,b\b", re.IGNORECASE)
HEADING_RATIO = 1.08  # font size relative to body text from which a line is a heading
GAP_RATIO = 1.4  # a vertical gap larger than this times the usual line gap ends a paragraph
MAX_HEADING_CHARS = 150


@dataclass
class Line:
    text: str
    y: float | None = None
    size: float = 0.0
    bold: bool = False


@dataclass
class LayoutStats:
    body_size: float = 0.0
    line_gap: float | None = None
    heading_levels: dict[float, int] | None = None  # rounded size -> level


def read_page_lines(page) -> list[Line]:
    """Lines of one page with their geometry (empty geometry when the visitor gives none)."""
    pieces: list[tuple[str, float | None, float, bool]] = []

    def visit(text, cm, tm, font, size):
        if not text:
            return
        y, eff = _geometry(cm, tm, size)
        name = str((font or {}).get("/BaseFont", "")) if hasattr(font, "get") else ""
        pieces.append((text, y, eff, bool(_BOLD.search(name))))

    returned = page.extract_text(visitor_text=visit) or ""
    if not "".join(p[0] for p in pieces).strip():
        return [Line(x) for x in _plain_lines(returned)]
    lines: list[Line] = []
    current = Line("")
    parts: list[str] = []
    bold_flags: list[bool] = []
    for text, y, size, bold in pieces:
        for k, seg in enumerate(text.split("\n")):
            if k:
                _finish(lines, current, parts, bold_flags)
                current, parts, bold_flags = Line(""), [], []
            if seg:
                parts.append(seg)
                if seg.strip():
                    if current.y is None:
                        current.y = y
                    current.size = max(current.size, size)
                    bold_flags.append(bold)
    _finish(lines, current, parts, bold_flags)
    return lines


def _finish(lines: list[Line], line: Line, parts: list[str], bold_flags: list[bool]) -> None:
    text = " ".join(clean_chars("".join(parts)).split())
    if text:
        line.text = text
        line.bold = bool(bold_flags) and all(bold_flags)
        lines.append(line)


def _plain_lines(text: str) -> list[str]:
    return [" ".join(x.split()) for x in clean_chars(text).split("\n") if x.strip()]


def _geometry(cm, tm, size) -> tuple[float | None, float]:
    """Baseline y and effective font size of a text piece (text matrix times CTM)."""
    try:
        c = tm[2] * cm[0] + tm[3] * cm[2]
        d = tm[2] * cm[1] + tm[3] * cm[3]
        f = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        eff = float(size) * math.hypot(c, d)
        return float(f), eff
    except (TypeError, IndexError, ValueError):
        return None, float(size or 0)


def layout_stats(pages: list[list[Line]]) -> LayoutStats:
    """Body font size (most text), usual line gap, and heading sizes -> levels."""
    weights: Counter[float] = Counter()
    for lines in pages:
        for line in lines:
            if line.size:
                weights[_round(line.size)] += len(line.text)
    if not weights:
        return LayoutStats()
    body = weights.most_common(1)[0][0]
    gaps = [
        a.y - b.y
        for lines in pages
        for a, b in zip(lines, lines[1:])
        if a.y is not None and b.y is not None and _round(a.size) == body == _round(b.size)
        and 0.5 * body < a.y - b.y < 4 * body
    ]
    heading_sizes = sorted(
        {_round(x.size) for lines in pages for x in lines
         if x.size >= body * HEADING_RATIO and len(x.text) <= MAX_HEADING_CHARS},
        reverse=True,
    )
    levels = {s: min(i + 1, 6) for i, s in enumerate(heading_sizes)}
    return LayoutStats(body, statistics.median(gaps) if gaps else None, levels)


def _round(size: float) -> float:
    return round(size * 2) / 2


def group_blocks(
    lines: list[Line], stats: LayoutStats, width: int, headings: bool
) -> list[tuple[str, int | None]]:
    """Paragraphs of one page as (text with newlines, heading level or None)."""
    levels = [_heading_level(i, lines, stats) if headings else None for i in range(len(lines))]
    out: list[tuple[list[str], int | None]] = []
    for i, line in enumerate(lines):
        if i and not _breaks(lines[i - 1], line, levels[i - 1], levels[i], stats, width):
            out[-1][0].append(line.text)
        else:
            out.append(([line.text], levels[i]))
    return [("\n".join(texts), level) for texts, level in out]


def _heading_level(i: int, lines: list[Line], stats: LayoutStats) -> int | None:
    line = lines[i]
    if not stats.heading_levels or not line.size or len(line.text) > MAX_HEADING_CHARS:
        return _bold_heading(i, lines, stats)
    level = stats.heading_levels.get(_round(line.size))
    return level if level is not None else _bold_heading(i, lines, stats)


def _bold_heading(i: int, lines: list[Line], stats: LayoutStats) -> int | None:
    """A short bold line of body size between non-bold lines, not ending like a sentence."""
    line = lines[i]
    if not line.bold or len(line.text) > 100 or line.text[-1] in ".,;:" or not stats.body_size:
        return None
    if _round(line.size) != stats.body_size:
        return None
    if (i and lines[i - 1].bold) or (i + 1 < len(lines) and lines[i + 1].bold):
        return None
    return len(stats.heading_levels or {}) + 1


def _breaks(prev: Line, line: Line, prev_level, level, stats: LayoutStats, width: int) -> bool:
    if prev_level != level:
        return True
    gap = stats.line_gap
    if prev.y is not None and line.y is not None and gap:
        dy = prev.y - line.y
        same_line = abs(dy) < 0.3 * max(line.size, 1.0)
        if not same_line and (dy < 0 or dy > gap * GAP_RATIO * max(1.0, line.size / stats.body_size)):
            return True
    if level is not None:
        return False  # a heading wrapped over several lines stays one block
    return keep_break(prev.text, line.text, width)


def page_tables(page, lines: list[Line]) -> list[tuple[int, int, list[list[str]]]]:
    """Tables of one page as (first line, end line, rows) over `lines`. The visitor's lines
    carry no column positions, so the page is read once more in pypdf's layout mode, which
    places the text on a character grid; aligned columns there (aligned.py) become rows, also
    when the rows are spaced wider than lines (layout mode puts blank lines between them). A
    table counts only when the same characters, in any order, make a run of `lines` — the
    plain reading order of a wrapped cell differs ("Employees at" / "year-end 264 251") —
    so a layout reading that differs from the text layer changes nothing."""
    from .aligned import close_row_gaps, split_tables

    try:
        layout = page.extract_text(extraction_mode="layout") or ""
    except Exception:  # layout mode fails on some fonts: the page keeps its plain lines
        return []
    found = []
    pos = 0
    for piece in split_tables(close_row_gaps(clean_chars(layout))):
        if piece.rows is None:
            continue
        span = _match_lines(lines, piece.lines, piece.rows, pos)
        if span is not None:
            found.append((*span, piece.rows))
            pos = span[1]
    return found


def _squash(text: str) -> str:
    return "".join(text.split())


def _match_lines(lines: list[Line], table: list[str], rows: list[list[str]],
                 start: int) -> tuple[int, int] | None:
    want = Counter(_squash("".join(table)))
    first = _squash(rows[0][0] or next(c for c in rows[0] if c))
    for s in range(start, len(lines)):
        if not _squash(lines[s].text).startswith(first):
            continue
        have: Counter[str] = Counter()
        for e in range(s, len(lines)):
            have.update(_squash(lines[e].text))
            if have == want:
                return s, e + 1
            if any(n > want[c] for c, n in have.items()):
                break
    return None
