"""The input of every analysis: one document version as its stored section tree, cut into
units (sentences, list items, table rows, headings, code lines) with character offsets,
section and page. Loaded from the store (`load_source`) or, for the goldenset and the
benchmark, built from a file with the same ingest stages (`source_from_file`), so both
paths see the same tree.

Sentence splitting is a small rule set (German and English abbreviations, ordinals before
month names, numbers) rather than a library: it keeps exact offsets, and the analysis of a
300-page document must stay within a few seconds."""
from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from pathlib import Path

from backend.analysis.dates import MONTH_WORDS, document_date


@dataclass(frozen=True)
class SectionRef:
    """Where an item was found: a node of the version's section tree."""

    id: int | None  # store id; None when the source was built from a file
    ordinal: int
    label: str  # "TOP 3: Wasserpreise ab 1. Januar 2025", "2.2 Konfiguration"
    path: tuple[str, ...]  # labels from the top level down; the document root is left out
    level: int
    kind: str
    number: str | None
    start: int
    end: int
    page_start: int | None
    page_end: int | None
    parent: int | None = None  # ordinal of the parent section


@dataclass(frozen=True)
class Unit:
    """The smallest passage an item quotes. `block` numbers the paragraph (or table, or
    list item) the unit belongs to, so extractors can take a whole labelled block."""

    start: int
    end: int
    text: str
    section: int  # ordinal into Source.sections
    kind: str  # sentence | item | row | header_row | heading | code
    block: int
    marker: str | None = None  # list marker ("1.", "-", "(2)")
    cells: tuple[str, ...] = ()  # table rows: the cells
    header: tuple[str, ...] = ()  # table rows: the cells of the table's header row
    title_echo: bool = False  # the unit repeats a section title (agenda, table of contents)


@dataclass
class Source:
    text: str
    sections: list[SectionRef]
    pages: list[tuple[int, int, int]] = field(default_factory=list)  # (number, start, end)
    title: str = ""
    filename: str = ""
    doc_type: str = ""
    language: str = ""
    document_id: int | None = None
    version_id: int | None = None
    version_number: int | None = None
    sha256: str = ""
    span: tuple[int, int] | None = None  # analyse only this part of the text (one section)

    @cached_property
    def units(self) -> list[Unit]:
        return list(_units(self))

    @cached_property
    def doc_date(self) -> date | None:
        """The date the document speaks from (meeting, report, "Stand"), for relative dates
        and to tell future deadlines from past events."""
        return document_date(self.filename, self.text[:1500])

    @cached_property
    def _page_starts(self) -> list[int]:
        return [p[1] for p in self.pages]

    def page_at(self, offset: int) -> int | None:
        if not self.pages:
            return None
        i = bisect_right(self._page_starts, offset) - 1
        return self.pages[max(0, i)][0]

    def block_span(self, unit_index: int) -> tuple[int, int]:
        """Index range [first, last] of the units of the same block as unit `unit_index`."""
        units = self.units
        b = units[unit_index].block
        lo = hi = unit_index
        while lo > 0 and units[lo - 1].block == b:
            lo -= 1
        while hi + 1 < len(units) and units[hi + 1].block == b:
            hi += 1
        return lo, hi

    @cached_property
    def section_titles(self) -> set[str]:
        return {_norm(s.label) for s in self.sections if s.label}


# ---- building ------------------------------------------------------------------------


def source_from_rows(text: str, rows: list[dict], *, pages=(), **meta) -> Source:
    """rows: the version's sections in document order, each with id, parent_id (store ids)
    or parent (ordinal), level, kind, title, number, start, end, page_start, page_end."""
    by_id = {r["id"]: i for i, r in enumerate(rows) if r.get("id") is not None}
    refs: list[SectionRef] = []
    for i, r in enumerate(rows):
        parent = r.get("parent")
        if parent is None and r.get("parent_id") is not None:
            parent = by_id.get(r["parent_id"])
        label = _label(r.get("title") or "", r.get("number"))
        is_root = r.get("level", 0) == 0 and r.get("kind") == "document"
        path: tuple[str, ...] = ()
        if parent is not None and parent < len(refs):
            path = refs[parent].path
        if not is_root:
            path = path + (label or r.get("kind", ""),)
        refs.append(SectionRef(r.get("id"), i, label if not is_root else "", path,
                               int(r.get("level") or 0), r.get("kind") or "", r.get("number"),
                               int(r["start"]), int(r["end"]), r.get("page_start"),
                               r.get("page_end"), parent))
    if not refs:  # no section tree at all: the whole text is one root section
        refs.append(SectionRef(None, 0, "", (), 0, "document", None, 0, len(text), None, None))
    return Source(text=text, sections=refs, pages=[tuple(p) for p in pages], **meta)


def source_from_file(path: str | Path, data: bytes | None = None) -> Source:
    """Run the ingest stages without a store: extract -> normalise -> classify with the
    built-in document types -> sections as the type's processing profile cuts them (as
    backend/ingest/pipeline.cut does; no embedding, no classification LLM)."""
    from backend.ingest import doctypes
    from backend.ingest.classify import Subject, better_title, classify
    from backend.ingest.extract import extract
    from backend.ingest.language import detect_language
    from backend.ingest.normalise import normalise
    from backend.ingest.profiles import get_profile
    from backend.ingest.structure import build_sections

    p = Path(path)
    raw = extract(data if data is not None else p.read_bytes(), p.name)
    text = normalise(raw)
    base = build_sections(text)
    sub = Subject(filename=p.name, text=text.text, sections=base, title="", path=str(p),
                  fmt=str(text.metadata.get("format", "")), spans=list(text.spans),
                  meta=dict(text.metadata), page_count=text.metadata.get("page_count"))
    title, _ = better_title(sub, text.title)
    sub.title = title
    types = sorted(doctypes.BUILTIN, key=lambda t: (-t.priority, t.name))
    result = classify(sub, types)
    profile = get_profile(result.processing_profile)
    nodes = base if profile.params() == get_profile("generic_text").params() \
        else build_sections(text, profile)
    rows = [{"id": None, "parent": n.parent, "level": n.level, "kind": n.kind, "title": n.title,
             "number": n.number, "start": n.start, "end": n.end, "page_start": n.page_start,
             "page_end": n.page_end} for n in nodes]
    return source_from_rows(text.text, rows, pages=[(pg.number, pg.start, pg.end)
                                                    for pg in text.pages],
                            title=title or p.stem, filename=p.name,
                            doc_type=result.primary_type,
                            language=detect_language(text.text[:20000]))


def _label(title: str, number: str | None) -> str:
    title = " ".join(title.split())
    if number and number.lower() not in title.lower():
        return f"{number} {title}".strip()
    return title


def _norm(s: str) -> str:
    return " ".join(s.split()).lower()


# ---- units ---------------------------------------------------------------------------

_BLANK = re.compile(r"\n[ \t]*\n+")
_LIST = re.compile(r"^\s*(?P<m>[-•*▪◦–]|\d{1,2}[.)](?!\d)|[a-z][.)]|\(\d{1,2}\)|\([a-z]\))\s+")
_LABEL_LINE = re.compile(r"^[A-ZÄÖÜ][\w .()/-]{0,40}:\s")
_CMD = re.compile(r"^\s*(?:\$ |#\s|sudo |systemctl |pip3? |apt(?:-get)? |dnf |yum |docker |kubectl |"
                  r"python3? |npm |curl |git |make |tail |grep |sed |cat |chmod |chown |mkdir |"
                  r"export |[a-z][a-z0-9_-]*ctl\b)")
_ABBREV = {
    "dr", "prof", "nr", "no", "abs", "art", "ca", "bzw", "vgl", "ggf", "evtl", "inkl", "zzgl",
    "usw", "etc", "ff", "mr", "mrs", "ms", "st", "str", "tel", "fax", "hr", "fr", "gez", "mio",
    "mrd", "bzgl", "ziff", "lit", "max", "min", "sog", "u.a", "z.b", "d.h", "e.g", "i.e",
    "vs", "fig", "abb", "kap", "anm", "jan", "feb", "mär", "apr", "jun", "jul", "aug", "sep",
    "sept", "okt", "oct", "nov", "dez", "dec", "approx", "incl", "dipl", "ing", "geb", "bspw",
    "u", "z", "d", "i", "e", "s", "o",
}
_SENT_END = re.compile(r"[.!?][\"'»«“”)\]]*\s+(?=[\"'„“(\[]?[A-ZÄÖÜ0-9§])")
_SHORT_LINE = 50


def _owned_spans(sections: list[SectionRef], n: int) -> list[tuple[int, int, int]]:
    """(start, end, ordinal) pieces of the text, each owned by its deepest section."""
    bounds = sorted({0, n} | {max(0, min(n, s.start)) for s in sections}
                    | {max(0, min(n, s.end)) for s in sections})
    by_start: dict[int, list[SectionRef]] = {}
    for s in sections:
        by_start.setdefault(s.start, []).append(s)
    active: list[SectionRef] = []
    out: list[tuple[int, int, int]] = []
    for a, b in zip(bounds, bounds[1:]):
        active = [s for s in active if s.end > a]
        active.extend(sorted(by_start.get(a, []), key=lambda s: (s.level, -s.end)))
        if a >= b:
            continue
        owner = max(active, key=lambda s: (s.level, s.start), default=None) if active else None
        ordinal = owner.ordinal if owner else 0
        if out and out[-1][2] == ordinal and out[-1][1] == a:
            out[-1] = (out[-1][0], b, ordinal)
        else:
            out.append((a, b, ordinal))
    return out


def _units(src: Source):
    text = src.text
    block = 0
    titles = src.section_titles
    lo, hi = src.span or (0, len(text))
    for a, b, ordinal in _owned_spans(src.sections, len(text)):
        if b <= lo or a >= hi:
            continue
        a, b = max(a, lo), min(b, hi)
        sec = src.sections[ordinal]
        pos = a
        if a == sec.start and sec.label:  # the heading line(s) of the section
            nl = text.find("\n", a, b)
            head_end = b if nl < 0 else nl
            first = text[a:head_end].strip()
            if first and (_norm(first)[:25] in _norm(sec.label) or _norm(sec.label)[:25] in _norm(first)):
                s, e = _strip(text, a, head_end)
                if s < e:
                    yield Unit(s, e, text[s:e], ordinal, "heading", block)
                    block += 1
                pos = head_end
        for bs, be in _blocks(text, pos, b):
            for u in _block_units(text, bs, be, ordinal, block, titles):
                yield u
            block += 1


def _blocks(text: str, a: int, b: int):
    pos = a
    for m in _BLANK.finditer(text, a, b):
        yield pos, m.start()
        pos = m.end()
    yield pos, b


def _strip(text: str, a: int, b: int) -> tuple[int, int]:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b


def _lines(text: str, a: int, b: int):
    pos = a
    while pos < b:
        nl = text.find("\n", pos, b)
        end = b if nl < 0 else nl
        s, e = _strip(text, pos, end)
        if s < e:
            yield s, e
        pos = end + 1


def _block_units(text: str, a: int, b: int, ordinal: int, block: int, titles: set[str]):
    lines = list(_lines(text, a, b))
    if not lines:
        return
    table = [(s, e) for s, e in lines if " | " in text[s:e]]
    if table and len(table) == len(lines):
        header = tuple(c.strip() for c in text[lines[0][0]:lines[0][1]].split("|"))
        rows = [lines[0]] + [r for s, e in lines[1:] for r in _split_joined_rows(text, s, e, len(header))]
        for i, (s, e) in enumerate(rows):
            cells = tuple(c.strip() for c in text[s:e].split("|"))
            yield Unit(s, e, text[s:e], ordinal, "header_row" if i == 0 and len(rows) > 1
                       else "row", block, cells=cells, header=header if len(rows) > 1 else ())
        return
    # group lines into runs: list items (with wrapped continuation lines), code, prose
    runs: list[list] = []  # [kind, start, end, marker]
    prev_len = 0
    for s, e in lines:
        line = text[s:e]
        m = _LIST.match(line)
        if _CMD.match(line) or (line.startswith("#") and not m):
            runs.append(["code", s, e, None])
        elif m:
            runs.append(["item", s, e, m.group("m")])
        elif runs and runs[-1][0] in ("item", "prose") and prev_len >= _SHORT_LINE \
                and not _LABEL_LINE.match(line):
            runs[-1][2] = e  # a wrapped line continues the item or paragraph
        else:
            runs.append(["prose", s, e, None])
        prev_len = e - s
    for kind, s, e, marker in runs:
        echo = _norm(text[s:e]) in titles
        if kind == "code":
            yield Unit(s, e, text[s:e], ordinal, "code", block, title_echo=echo)
            continue
        body = s + (len(_LIST.match(text[s:e]).group(0)) if marker else 0)
        if kind == "item" and e - s <= 400:
            yield Unit(s, e, text[s:e], ordinal, "item", block, marker=marker, title_echo=echo)
            continue
        first = True
        for ss, se in split_sentences(text, body, e):
            us = s if first else ss  # the marker stays with the first sentence
            yield Unit(us, se, text[us:se], ordinal, "item" if marker else "sentence", block,
                       marker=marker if first else None,
                       title_echo=echo or _norm(text[ss:se]) in titles)
            first = False


# header fields run together on one line by text re-flow: "Ort: Rathaus Beginn: 17:00 Uhr"
_FIELD_LABEL = re.compile(r"(?<=[\w)])\s+(?=(?:Beginn|Ende|Ort|Vorsitz|Protokoll|Protokollführung|Datum|Zeit|"
                          r"Uhrzeit|Chair|Minutes|Date|Time|Location|Venue|Anwesend|Entschuldigt|"
                          r"Verantwortlich|Owner|Due|Status)\s*:\s)")


def _split_joined_rows(text: str, s: int, e: int, k: int) -> list[tuple[int, int]]:
    """Rows of a table that text re-flow joined into one line ("… | 30. April 2024 2 | …"):
    with k header cells, a line of k + m*(k-1) cells holds m+1 rows; the cell between two
    rows ends with the next row's first cell after its last space."""
    cells = text[s:e].split("|")
    n = len(cells)
    if k < 2 or n <= k or (n - k) % (k - 1):
        return [(s, e)]
    out, start, pos = [], s, s
    for idx, cell in enumerate(cells):
        end = pos + len(cell)
        if idx >= k - 1 and (idx - (k - 1)) % (k - 1) == 0 and idx < n - 1:
            cut = text.rfind(" ", pos, end - 1)
            while cut > pos and text[cut - 1] == " ":
                cut -= 1
            if cut <= pos:
                return [(s, e)]
            out.append(_strip(text, start, cut))
            start = cut + 1
        pos = end + 1
    out.append(_strip(text, start, e))
    return out


def split_sentences(text: str, a: int, b: int):
    """Sentence spans of text[a:b] (German and English)."""
    start = a
    for m in _SENT_END.finditer(text, a, b):
        end = m.start() + 1
        if _no_break(text, start, end, m.end()):
            continue
        yield from _fields(text, start, end)
        start = m.end()
    yield from _fields(text, start, b)


def _fields(text: str, a: int, b: int):
    start = a
    for m in _FIELD_LABEL.finditer(text, a, b):
        s, e = _strip(text, start, m.start())
        if s < e:
            yield s, e
        start = m.end()
    s, e = _strip(text, start, b)
    if s < e:
        yield s, e


def _no_break(text: str, start: int, dot: int, nxt: int) -> bool:
    """True when the period at text[dot-1] does not end a sentence."""
    if text[dot - 1] != ".":
        return False
    j = dot - 1
    while j > start and (text[j - 1].isalnum() or text[j - 1] in ".-"):
        j -= 1
    word = text[j:dot - 1]
    if word.lower().rstrip(".") in _ABBREV or (len(word) == 1 and word.isalpha()):
        return True
    if word.isdigit() and len(word) <= 2:  # "12. März", "am 1. des Monats", "3. Quartal"
        following = re.match(r"[\w.]+", text[nxt:nxt + 12])
        if following and (following.group(0).lower().rstrip(".") in MONTH_WORDS
                          or following.group(0)[0].islower()
                          or following.group(0).lower() in ("quartal", "kw", "oktober")):
            return True
    return False
