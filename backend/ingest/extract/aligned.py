"""Tables whose columns are aligned with spaces or tabs (text files, Markdown, PDF pages in
pypdf's layout mode) become table rows "cell | cell | cell", as DOCX tables do, so a value is
read (and quoted) together with its row label instead of being re-flowed into one line with
the rows around it.

How a table is found, in the lines of one paragraph:

* a *gapped* line has text on both sides of two or more spaces (or a tab); a list item
  ("- a  b", "•  Knoten") is never a row;
* a run of at least two gapped lines (up to two other lines between them) is a candidate; its
  column separators are the runs of columns that are blank in *every* gapped line and have
  text on both sides in at least two of them (left- and right-aligned columns both leave such
  a "river"); a double space inside one cell is no separator;
* other lines of the run are wrapped cells when their words stay inside one column: a line
  with an empty first column continues the row above, a lone label that starts in lower case
  or follows a label ending in "und"/"and"/"-"/"," continues it too ("Lüftung und" /
  "Zugangssicherung"), a label ending so is joined to the row below;
* the candidate is refused, and its lines stay text, when it reads like prose (long cells,
  sentences split at two spaces after a full stop, justified lines whose gaps break phrases)
  or like code (comments, assignments, braces, prompts, shell continuations), when it is
  drawn with bars or box lines, or when fewer than two rows have two filled cells.

The thresholds (`MAX_MEAN_CELL_WORDS`, `MIN_ROWS`, the rules of `_plausible`) were checked on
the sample corpus and on 2,393 text and Markdown files of /usr/share/doc and installed
packages; the false positives found there are tests in tests/test_aligned_tables.py
(docs/ingestion.md, "Aligned tables")."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from backend.ingest.types import Block

MIN_ROWS = 2  # rows with two filled cells; a single aligned line is no table
MAX_MEAN_CELL_WORDS = 5.0  # prose split at double spaces has longer "cells"
MAX_BETWEEN = 2  # lines between two gapped lines that may still be wrapped cells
MAX_TABLE_ROWS = 200  # a longer run is read as several tables (bounds the work per line)
MAX_RETRIES = 4  # columns broken by the last lines of a run: so many shorter runs are tried
# gapped lines of one text that started no table, after which the rest of it is not tried:
# bounds the time on long runs of double-spaced prose (5,000 lines: 87 s without it)
MAX_FAILURES = 100
TAB_SIZE = 8

_LIST_ITEM = re.compile(r"^\s*(?:[-*+•·▪◦‣○■□➢✓–]|\(?\d{1,3}[.)]|\(\d{1,3}\)|[a-z]\))\s")
_CODE = re.compile(
    r"^\s*(?:\$ |>>> |#\s|#[A-Za-z]+\b|//|/\*|--\s|\./|(?:echo|sudo|cd|export)\s|def |"
    r"class |import |from \S+ import|return\b|"
    r"(?:if|for|while)\s*\(|(?:let|var|const|function|public|private|static)\s)"
    r"|[{};]\s*$|\s(?:=|==|!=|:=|\+=|\?=|->|=>|&&|\|\|)\s|\w\([^)]*\)\s*(?:$|[;{:])"
    r"|\s(?:#|//)\s|/\*|\*/|;\s*$|\s\\$")
_SENTENCE_END = re.compile(r"[.!?]$")
_BARS = re.compile(r"[|\u2500-\u257f]")  # "|" and box-drawing characters
_FUNCTION_WORDS = frozenset({
    "a", "an", "the", "of", "in", "on", "at", "and", "or", "to", "as", "is", "be", "by", "for",
    "any", "its", "with", "that", "this", "but", "not", "nor", "if", "than", "from", "der",
    "die", "das", "den", "dem", "des", "ein",
    "eine", "einer", "und", "oder", "im", "zu", "zum", "zur", "von", "mit", "für", "auf", "ist",
    "sind", "wird", "werden", "nicht", "auch"})
_JOIN_AFTER = frozenset({"und", "oder", "sowie", "bzw.", "mit", "für", "von", "der", "die",
                         "das", "des", "zur", "zum", "im", "in", "an", "auf", "and", "or",
                         "of", "for", "the", "with", "to", "&", "/", "+"})


@dataclass
class Piece:
    """A run of lines of a paragraph: plain text (`rows` None) or a table."""

    lines: list[str]
    rows: list[list[str]] | None = None

    @property
    def text(self) -> str:
        if self.rows is None:
            return "\n".join(self.lines)
        return "\n".join(row_text(r) for r in self.rows)


@dataclass
class _Line:
    raw: str  # tabs expanded
    gapped: bool
    item: bool  # a list item
    spans: list[tuple[int, int]] = field(default_factory=list)  # words (single spaces)
    mask: int = 0  # bit c set: column c holds text


def row_text(cells: list[str]) -> str:
    """The row as DOCX rows are stored: cells joined with " | " (empty cells kept, so the
    columns stay countable)."""
    return " | ".join(cells)


def split_tables(text: str) -> list[Piece]:
    """The lines of `text` (one paragraph or page) as text pieces and table pieces, in order;
    nothing is dropped: a piece's lines are the original lines."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    info = [_describe(x) for x in lines]
    pieces: list[Piece] = []
    plain: list[str] = []
    i = failures = 0
    while i < len(lines):
        found = None
        if info[i].gapped and failures < MAX_FAILURES:
            found = _table_at(lines, info, i)
            failures += found is None
        if found is None:
            plain.append(lines[i])
            i += 1
            continue
        end, rows = found
        if plain and _lead_label(info[i - 1], info[i], rows):  # "Lüftung und" above its row
            rows[0][0] = _join(plain.pop().strip(), rows[0][0])
            i -= 1
        if plain:
            pieces.append(Piece(plain))
            plain = []
        pieces.append(Piece(lines[i:end], rows))
        i = end
    if plain:
        pieces.append(Piece(plain))
    return pieces


def close_row_gaps(text: str) -> str:
    """Blank lines between two gapped lines removed: a PDF in layout mode puts blank lines
    between table rows that are spaced wider than the text's lines."""
    lines = text.split("\n")
    gapped = [_describe(x).gapped for x in lines]
    keep = []
    last = None  # gapped flag of the last non-blank line
    for k, line in enumerate(lines):
        if line.strip():
            keep.append(line)
            last = gapped[k]
            continue
        nxt = next((gapped[j] for j in range(k + 1, min(len(lines), k + 4))
                    if lines[j].strip()), None)
        if not (last and nxt):
            keep.append(line)
    return "\n".join(keep)


def table_blocks(text: str, **block_args) -> list[Block]:
    """Blocks of one paragraph: its table pieces as table blocks (preformatted, kind "table"),
    the text around them as ordinary blocks."""
    out = []
    for piece in split_tables(text):
        body = piece.text
        if not body.strip():
            continue
        if piece.rows is None:
            out.append(Block(body.strip("\n"), **block_args))
        else:
            out.append(Block(body, preformatted=True, kind="table", **block_args))
    return out


def _lead_label(line: _Line, first: _Line, rows: list[list[str]]) -> bool:
    """The line above a table is the first part of its first row's label."""
    return (len(line.spans) == 1 and not line.item and bool(rows[0][0])
            and _continues(line.raw.strip()) and abs(line.spans[0][0] - first.spans[0][0]) <= 1
            and line.spans[0][1] < first.spans[1][0])


def _describe(line: str) -> _Line:
    raw = _expand(line)
    item = bool(_LIST_ITEM.match(raw))
    spans = [(m.start(), m.end()) for m in re.finditer(r"\S+(?: \S+)*", raw)]
    mask = 0
    for a, b in spans:
        mask |= ((1 << (b - a)) - 1) << a
    return _Line(raw, not item and len(spans) >= 2, item, spans, mask)


def _expand(line: str) -> str:
    """Tabs to the next stop, but at least two spaces: a tab always separates cells."""
    if "\t" not in line:
        return line.rstrip()
    out: list[str] = []
    col = 0
    for ch in line.rstrip():
        piece = " " * max(2, TAB_SIZE - col % TAB_SIZE) if ch == "\t" else ch
        out.append(piece)
        col += len(piece)
    return "".join(out)


def _table_at(lines: list[str], info: list[_Line], i: int) -> tuple[int, list[list[str]]] | None:
    """The table starting at gapped line `i`: (end line, rows), or None."""
    if "\t" in lines[i].strip():  # tab-separated: the tabs are the columns when they agree
        found = _tab_table(lines, info, i)
        if found:
            return found
    gapped = [i]
    k = i + 1
    while k < len(lines) and info[k].raw.strip() and not info[k].item \
            and k - gapped[-1] <= MAX_BETWEEN + 1 and len(gapped) < MAX_TABLE_ROWS:
        if info[k].gapped:
            gapped.append(k)
        k += 1
    if len(gapped) < MIN_ROWS or not _separators([info[g] for g in gapped[:MIN_ROWS]]):
        return None  # a table holds its first two gapped lines: no columns there, no table
    for _ in range(MAX_RETRIES):  # bounded: a long run of prose is tried a few times only
        if len(gapped) < MIN_ROWS:
            break
        seps = _separators([info[g] for g in gapped])
        if seps:
            end = _extent(info, gapped, seps, k)
            rows = _rows([info[j] for j in range(i, end)], seps)
            if _plausible(rows, [lines[j] for j in range(i, end)]):
                return end, rows
        gapped.pop()  # a last gapped line that breaks the columns: try without it
    return None


def _separators(rows: list[_Line]) -> list[tuple[int, int]]:
    """Runs of columns blank in every row, with text on both sides in at least two rows."""
    width = max(len(r.raw) for r in rows)
    left = min(r.spans[0][0] for r in rows)
    used = 0
    for r in rows:
        used |= r.mask
    seps = []
    c = left
    while c < width:
        if used >> c & 1:
            c += 1
            continue
        start = c
        while c < width and not used >> c & 1:
            c += 1
        support = sum(1 for r in rows if r.spans[0][0] < start and r.spans[-1][1] > c)
        if c < width and support >= MIN_ROWS:
            seps.append((start, c))
    return seps


def _column(span: tuple[int, int], seps: list[tuple[int, int]]) -> int | None:
    """The column a run of words belongs to: by where it starts (a wider right-aligned
    value may start inside the gap before its column); None when it reaches past the gap
    after that column into the next one (the line does not fit the columns)."""
    k = sum(1 for start, _ in seps if start <= span[0])
    return k if k == len(seps) or span[1] <= seps[k][1] else None


def _fits(line: _Line, seps: list[tuple[int, int]], left: int) -> bool:
    """The line's words stay inside the columns and do not start left of the table."""
    return line.spans[0][0] >= left - 1 and all(_column(sp, seps) is not None
                                                for sp in line.spans)


def _extent(info: list[_Line], gapped: list[int], seps, limit: int) -> int:
    """End of the table: after the last gapped line, plus wrapped-cell lines that fit the
    columns; a line between gapped lines that does not fit ends the table before it."""
    end = gapped[0] + 1
    left = min(info[g].spans[0][0] for g in gapped)
    for j in range(gapped[0] + 1, limit):
        if j > gapped[-1] + MAX_BETWEEN or not _fits(info[j], seps, left):
            break
        if j > gapped[-1] and not _wraps(info[j - 1], info[j], seps):
            break  # after the last row only wrapped cells: a short line there is text
        end = j + 1
    return end


def _wraps(above: _Line, line: _Line, seps) -> bool:
    """`line` continues a cell of the line above: its first column is empty, or its label
    starts in lower case, or the label above ends in "und", "-", ","."""
    first = _cells(line, seps)[0]
    return not first or first[:1].islower() or _continues(_cells(above, seps)[0])


def _cells(line: _Line, seps: list[tuple[int, int]]) -> list[str]:
    cells: list[list[str]] = [[] for _ in range(len(seps) + 1)]
    for span in line.spans:
        cells[_column(span, seps) or 0].append(line.raw[span[0]:span[1]])
    return [" ".join(" ".join(words).split()) for words in cells]


def _rows(lines: list[_Line], seps) -> list[list[str]]:
    rows: list[list[str]] = []
    pending = ""  # a label ending in "und", "-", ...: the start of the next row's label
    for line in lines:
        cells = _cells(line, seps)
        filled = [c for c in cells if c]
        if not filled:
            continue
        if rows and not cells[0]:  # empty first column: the row above goes on
            rows[-1] = [_join(a, b) for a, b in zip(rows[-1], cells)]
            continue
        if len(filled) == 1 and cells[0] and len(cells) > 1:
            if rows and (_continues(rows[-1][0]) or cells[0][:1].islower()):
                rows[-1][0] = _join(rows[-1][0], cells[0])
                continue
            if _continues(cells[0]):
                pending = _join(pending, cells[0])
                continue
        if pending:
            cells[0] = _join(pending, cells[0])
            pending = ""
        rows.append(cells)
    if pending:
        rows.append([pending] + [""] * len(seps))
    return rows


def _continues(label: str) -> bool:
    """The label goes on in the next line: it ends with a hyphen, a comma or a joining word."""
    if not label:
        return False
    last = label.split()[-1].casefold()
    return bool(re.search(r"\w-$", label)) or label.endswith(",") or last in _JOIN_AFTER


def _join(a: str, b: str) -> str:
    from backend.ingest.normalise import join_lines

    if not a or not b:
        return a or b
    return join_lines(a, b)


def _plausible(rows: list[list[str]], lines: list[str]) -> bool:
    """Enough rows with two filled cells, short cells, and neither prose nor code."""
    full = [r for r in rows if sum(1 for c in r if c) >= 2]
    if len(full) < MIN_ROWS:
        return False
    cells = [c for r in rows for c in r if c]
    if sum(len(c.split()) for c in cells) / len(cells) > MAX_MEAN_CELL_WORDS:
        return False
    if sum(_CODE.search(x) is not None for x in lines) * 3 >= len(lines):
        return False
    if any(c.startswith(("#", "//", "/*")) for r in rows for c in r[1:]):
        return False  # aligned comments after code
    if sum(1 for r in full if not any(ch.isalnum() for ch in r[0])) * 2 >= len(full):
        return False  # quote bars, markers: no row labels
    if sum(_spread(line) for line in lines) * 2 >= len(lines):
        return False
    if any(_BARS.search(c) for c in cells):
        return False  # a table drawn with bars or box lines is read as such (Markdown, candidates)
    pairs = [(a, b) for r in full for a, b in zip(r, r[1:]) if a and b]
    if sum(_sentence_break(a, b) for a, b in pairs) * 3 >= len(full):
        return False  # sentences split at two spaces after a full stop
    return sum(_flows(a, b) for a, b in pairs) * 2 < len(pairs)  # justified prose


def _sentence_break(a: str, b: str) -> bool:
    b = b.lstrip("(\"'„“»")
    return bool(_SENTENCE_END.search(a)) and b[:1].isupper() and (
        len(b.split()) >= 3 or len(a.split()) >= 2 and len(b.split()) >= 2)


def _flows(a: str, b: str) -> bool:
    """The text reads on from one cell into the next: a sentence broken at a wide space."""
    last = a.split()[-1].strip("\"'()„“”").casefold()
    return (last in _FUNCTION_WORDS or a.endswith(",") or b.split()[0].casefold() in _FUNCTION_WORDS
            or (b[:1].islower() and a[-1:].islower() and len(a.split()) >= 2
                and len(b.split()) >= 2))


def _spread(line: str) -> bool:
    """Justified or spread-out prose: many gaps, most parts starting in lower case."""
    parts = [x for x in re.split(r"\s{2,}|\t", line.strip()) if x]
    return len(parts) >= 5 and sum(p[:1].islower() for p in parts) >= 3


def _tab_table(lines: list[str], info: list[_Line], i: int) -> tuple[int, list[list[str]]] | None:
    """Tab-separated lines whose tabs do not line up (cells longer than a tab stop): a table
    when at least two consecutive lines have the same number of tab-separated cells."""
    def tab_cells(line: str) -> list[str]:
        return [" ".join(c.split()) for c in re.split(r"[ \t]*\t[ \t]*", line.strip())]

    n = len(tab_cells(lines[i]))
    end = i
    while end < len(lines) and "\t" in lines[end].strip() and len(tab_cells(lines[end])) == n:
        end += 1
    rows = [tab_cells(x) for x in lines[i:end]]
    return (end, rows) if end - i >= MIN_ROWS and _plausible(rows, lines[i:end]) else None
