"""Text -> flat section tree. Headings come from markup/outline when present, else (and for
strong keywords like "TOP 3", "Anlage 2", "§ 4" also in addition) from numbering patterns
on their own line. Index 0 is the document root; nodes are in document order."""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from typing import TYPE_CHECKING

from backend.ingest.types import PageSpan, SectionNode, Text

if TYPE_CHECKING:
    from backend.ingest.profiles import Profile

MAX_HEADING_CHARS = 120
MAX_TITLE_WORDS = 14

_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,4})\.?\s+(\S.*)$")
_PARAGRAPH = re.compile(r"^(§)\s*(\d{1,4}[a-z]?)(?![\w.])(?:\s*[:.\-–—]?\s+(.*))?$")
_AGENDA = re.compile(
    r"^(TOP|Tagesordnungspunkt|Agendapunkt|(?i:agenda item))\s*(\d{1,2}(?:\.\d{1,2}){0,3})"
    r"(?![\w])\.?(?:\s*[:.\-–—)]?\s*(.*))?$"
)
_KEYWORD = re.compile(
    r"^((?i:Anlage|Anhang|Appendix|Annex|Attachment|Beilage|Kapitel|Chapter|Teil|Part|"
    r"Abschnitt|Section|Artikel|Article))\s+(\d{1,3}[a-z]?|[IVXLC]{1,6}|[A-Z])(?![\w])\.?"
    r"(?:\s*[:.\-–—)]?\s*(.*))?$"
)
# kind and rank per keyword; a smaller rank is higher in the tree
_KEYWORD_KIND = {
    "anlage": ("appendix", 1), "anhang": ("appendix", 1), "appendix": ("appendix", 1),
    "annex": ("appendix", 1), "attachment": ("appendix", 1), "beilage": ("appendix", 1),
    "teil": ("chapter", 10), "part": ("chapter", 10),
    "kapitel": ("chapter", 20), "chapter": ("chapter", 20),
    "abschnitt": ("section", 25), "section": ("section", 25),
    "artikel": ("paragraph", 60), "article": ("paragraph", 60),
}
_PARAGRAPH_RANK = 60
# first words that make "3 Mio. Euro ..." or "5 Mitglieder ..." a quantity, not a heading
_QUANTITY_WORDS = frozenset(
    "mio mio. mrd mrd. tsd tsd. million millionen milliarden euro eur usd prozent uhr jahre "
    "jahren monate monaten tage tagen wochen stunden minuten personen mitglieder teilnehmer "
    "stück mal seiten percent years months days weeks hours minutes people members times "
    "pages items".split()
)
_LEGAL_REFS = frozenset("abs abs. absatz satz s. nr nr. ziff ziff. lit lit. ff ff. i.v.m.".split())
_FIRST_CHARS = frozenset("0123456789§TAKCPSB")  # digits and keyword initials
_TOC_TAIL = re.compile(r"(?:\.{3,}|…)\s*\d{1,4}$")  # table-of-contents dot leaders
_CANDIDATE_LINE = re.compile(
    r"^[ \t]*(?:\d|§|TOP|Tagesordnungspunkt|Agendapunkt|Agenda item|"
    r"Anlage|Anhang|Appendix|Annex|Attachment|Beilage|"
    r"Kapitel|Chapter|Teil|Part|Abschnitt|Section|Artikel|Article)[^\n]*",
    re.MULTILINE | re.IGNORECASE,
)


@dataclass(frozen=True)
class HeadingMatch:
    """A line that looks like a numbered heading."""

    kind: str
    number: str
    rank: int
    parts: tuple[int, ...] | None = None  # numeric parts of a "3.2" heading


def _title_ok(rest: str, *, strict: bool) -> bool:
    """The words after the number look like a title, not like running prose."""
    if not rest:
        return not strict
    first = rest[0]
    if not (first.isupper() or first.isdigit() or first in "\"'„“«(["):
        return False
    words = rest.split()
    if len(words) > MAX_TITLE_WORDS or rest.endswith((",", ";")):
        return False
    if rest.endswith(".") and (strict or len(words) > 6):
        return False
    return words[0].lower() not in _QUANTITY_WORDS and words[0].lower() not in _LEGAL_REFS


def match_heading(line: str) -> HeadingMatch | None:
    """Classify one line as a numbered/keyword heading ("3.2 Title", "§ 4", "TOP 5: ...",
    "Anlage 2", "Kapitel 3", "Artikel 3"), or None."""
    line = line.strip()
    if not line or len(line) > MAX_HEADING_CHARS or line[0] not in _FIRST_CHARS:
        return None
    first = line[0]
    if first.isdigit():
        m = _NUMBERED.match(line)
        if not m or _TOC_TAIL.search(m.group(2)) or not _title_ok(m.group(2), strict=True):
            return None
        parts = tuple(int(p) for p in m.group(1).split("."))
        kind = "chapter" if len(parts) == 1 else "section"
        return HeadingMatch(kind, m.group(1), 20 + 10 * len(parts), parts)
    if first == "§":
        m = _PARAGRAPH.match(line)
        if m and _title_ok((m.group(3) or "").strip(), strict=False):
            return HeadingMatch("paragraph", f"§ {m.group(2)}", _PARAGRAPH_RANK)
        return None
    if first in "TA" and (m := _AGENDA.match(line)):
        if not _title_ok((m.group(3) or "").strip(), strict=False):
            return None
        word = "Item" if m.group(1).lower() == "agenda item" else "TOP"
        return HeadingMatch("agenda_item", f"{word} {m.group(2)}", m.group(2).count(".") + 1)
    m = _KEYWORD.match(line)
    if m and first.isupper() and _title_ok((m.group(3) or "").strip(), strict=False):
        kind, rank = _KEYWORD_KIND[m.group(1).lower()]
        return HeadingMatch(kind, f"{m.group(1)} {m.group(2)}", rank)
    return None


@dataclass
class _Cand:
    start: int
    end: int
    title: str
    kind: str
    rank: int
    number: str | None
    parts: tuple[int, ...] | None = None


def build_sections(text: Text, profile: "Profile | None" = None) -> list[SectionNode]:
    """Flat section list in document order; index 0 is the root spanning the whole text.
    The profile (backend/ingest/profiles.py) says which patterns make headings and whether a
    text without headings gets one section per page; default: all of them."""
    n = len(text.text)
    starts = [p.start for p in text.pages]
    root = SectionNode(
        "document", 0, text.title or "", 0, n,
        page_for_offset(text.pages, 0, starts), page_for_offset(text.pages, max(0, n - 1), starts),
        None,
    )
    numbered = profile.numbered_headings if profile is not None else True
    keywords = profile.keyword_headings if profile is not None else True
    pages = profile.page_sections if profile is not None else True
    cands = _markup_candidates(text)
    if keywords:
        cands += _pattern_candidates(text.text, keyword_only=bool(cands) or not numbered,
                                     taken=cands)
    cands.sort(key=lambda c: (c.start, c.rank))
    if not cands and text.pages and pages:
        cands = _page_candidates(text)
    nodes = [root]
    _nest(nodes, cands, n)
    for node in nodes[1:]:
        node.page_start = page_for_offset(text.pages, node.start, starts)
        node.page_end = page_for_offset(text.pages, max(node.start, node.end - 1), starts)
    return nodes


def _markup_candidates(text: Text) -> list[_Cand]:
    out = []
    for h in text.headings:
        m = match_heading(h.title) if h.source != "symbol" else None
        if h.source == "symbol":
            kind, number = "symbol", None
        elif m:
            kind, number = m.kind, m.number
        else:
            kind, number = ("chapter" if h.level <= 1 else "section"), None
        out.append(_Cand(h.start, h.end, h.title, kind, 10 * max(1, h.level), number))
    return out


def _pattern_candidates(text: str, *, keyword_only: bool, taken: list[_Cand]) -> list[_Cand]:
    spans = sorted((c.start, c.end) for c in taken)
    span_starts = [s for s, _ in spans]
    found: list[_Cand] = []
    for m in _CANDIDATE_LINE.finditer(text):
        line = m.group(0)
        if len(line.strip()) > MAX_HEADING_CHARS:
            continue
        hm = match_heading(line)
        if hm is None or (keyword_only and hm.parts is not None):
            continue
        start = m.start() + len(line) - len(line.lstrip())
        i = bisect.bisect_right(span_starts, start) - 1
        if i >= 0 and spans[i][0] <= start <= spans[i][1]:
            continue  # already a markup/outline heading
        found.append(_Cand(start, m.end(), line.strip(), hm.kind, hm.rank, hm.number, hm.parts))
    return _filter_numbered(found, text)


def _filter_numbered(cands: list[_Cand], text: str) -> list[_Cand]:
    """Drop numbered candidates that are list items (adjacent siblings with nothing between)
    or that do not continue a plausible numbering sequence (1, 1.1, 1.2, 2, ...)."""
    numbered = [c for c in cands if c.parts is not None]
    listish: set[int] = set()
    for a, b in zip(numbered, numbered[1:]):
        if not text[a.end : b.start].strip() and b.parts != a.parts + (1,):
            listish.update((id(a), id(b)))
    listish |= _agenda_overview(cands, text)
    out: list[_Cand] = []
    last: tuple[int, ...] | None = None
    for c in cands:
        if id(c) in listish:
            continue
        if c.parts is None:
            if c.kind == "appendix":
                last = None  # an appendix may restart the numbering
            out.append(c)
        elif _plausible_next(last, c.parts):
            out.append(c)
            last = c.parts
    return out


def _agenda_overview(cands: list[_Cand], text: str) -> set[int]:
    """Ids of agenda lines that form an adjacent, increasing list (the "Tagesordnung" at the
    top of minutes) whose numbers all come again later as the real agenda item headings."""
    agenda = [c for c in cands if c.kind == "agenda_item"]
    runs: list[list[_Cand]] = []
    for c in agenda:
        prev = runs[-1][-1] if runs else None
        if prev and not text[prev.end : c.start].strip() and _num(c) > _num(prev):
            runs[-1].append(c)
        else:
            runs.append([c])
    drop: set[int] = set()
    for run in runs:
        if len(run) < 2:
            continue
        later = {c.number for c in agenda if c.start > run[-1].start}
        if all(c.number in later for c in run):
            drop.update(id(c) for c in run)
    return drop


def _num(c: _Cand) -> tuple[int, ...]:
    return tuple(int(p) for p in (c.number or "").split()[-1].split(".") if p.isdigit())


def _plausible_next(last: tuple[int, ...] | None, parts: tuple[int, ...]) -> bool:
    if last is None:
        return parts[0] <= 3 and all(p <= 1 for p in parts[1:])
    if parts == last + (1,):
        return True
    for i in range(len(last)):
        if (
            parts[:i] == last[:i]
            and len(parts) > i
            and parts[i] - last[i] in (1, 2)
            and all(p == 1 for p in parts[i + 1 :])
        ):
            return True
    return False


def _page_candidates(text: Text) -> list[_Cand]:
    from backend.ingest.language import detect_language

    word = "Seite" if detect_language(text.text[:5000]) == "de" else "Page"
    return [
        _Cand(p.start, p.start, f"{word} {p.number}", "page", 1, str(p.number))
        for p in text.pages
    ]


def _nest(nodes: list[SectionNode], cands: list[_Cand], n: int) -> None:
    """Append candidates as nodes, nesting by rank; a node ends where the next node of the
    same or a higher rank starts, or where its parent ends."""
    ranks = [0]
    stack = [0]
    for c in cands:
        while len(stack) > 1 and ranks[stack[-1]] >= c.rank:
            nodes[stack.pop()].end = c.start
        node = SectionNode(
            c.kind, len(stack), c.title, c.start, n, None, None, stack[-1], c.number
        )
        nodes.append(node)
        ranks.append(c.rank)
        stack.append(len(nodes) - 1)


def page_for_offset(pages: list[PageSpan], offset: int, starts: list[int] | None = None) -> int | None:
    """1-based page number of a text offset (the last page starting at or before it)."""
    if not pages:
        return None
    starts = starts if starts is not None else [p.start for p in pages]
    i = bisect.bisect_right(starts, offset) - 1
    return pages[max(0, i)].number


def section_path(sections: list[SectionNode], idx: int) -> list[str]:
    """Breadcrumb titles from the top-level section down to `idx`, without the root."""
    path = []
    while idx is not None and idx > 0:
        node = sections[idx]
        path.append(node.title)
        idx = node.parent
    return path[::-1]
