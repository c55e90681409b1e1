"""Answer candidates from retrieved contexts: the units an extractive answer can quote.

A context (chunk text, or its small-to-big expansion) is read block by block (blocks are
separated by blank lines):

* a short line without a sentence end is a heading: not quoted, but kept as context of what
  follows (so "§ 7 Löschfristen" helps the rows below it);
* table rows ("a | b | c") become one candidate each, shown with the header labels
  ("Datenkategorie: Viertelstündliche Messwerte; Löschfrist: 3 Jahre nach Erhebung; …");
  the heading above the table is their previous text, so a caption such as "Anlage 1:
  Kostenaufstellung Sanierung Hochbehälter Eichberg" counts for every row;
* label lines ("Vorsitz: Bürgermeister Thomas Reinhardt") are candidates of their own, also
  when the extractor joined several onto one line;
* list items and paragraphs are split into sentences; each sentence keeps the previous one
  of its paragraph as context ("The key X limits … The default is 512.");
* code (commands, YAML) is skipped, and so is a sentence fragment at the start of a context
  that begins mid-sentence (chunks overlap)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from backend.answer.evidence.sentences import split_sentences
from backend.ingest.language import detect_language
from backend.llm.base import Evidence

MIN_CHARS = 12
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_END = (".", "!", "?", ":", ";", ")", '"', "“", "”")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")
_FIELD_START = re.compile(r"^[A-ZÄÖÜ][\w./()-]*(?: [\w./()-]+){0,3}: \S")
_FIELD_SPLIT = re.compile(r"\s+(?=[A-ZÄÖÜ][a-zäöüß]+(?: [a-zäöüß]+)?: \S)")
_NUMBERED = re.compile(r"^(?:\d+(?:\.\d+)*\.? [A-ZÄÖÜ]|§ ?\d|TOP \d|Anlage \d|Agenda item \d|"
                       r"Version \d|Kapitel \d|Chapter \d|Section \d)")
_CODE = re.compile(r"^\s*(?:[a-z_][\w.-]*:\s*\S*\s*$|[a-z_][\w.-]*:\s*$|\$ |#|sudo |lumenctl |"
                   r"systemctl |curl |tail |grep |export |[a-z]+ --?[a-z])")


@dataclass
class Candidate:
    n: int  # the source number (Evidence.n)
    index: int  # position inside the source
    text: str  # as quoted in an answer
    match_text: str  # what is matched against the question (row: header labels + cells)
    heading: str  # section heading and table header: context for matching, not quoted
    previous: str  # the previous sentence of the same paragraph ("" if none)
    before: str  # every earlier sentence of the paragraph (context, not quoted)
    kind: str  # "sentence" | "row" | "field" | "line"
    language: str

    @property
    def context(self) -> str:
        return f"{self.heading} {self.before}".strip()


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _is_row(line: str) -> bool:
    return line.count("|") >= 1 and len([c for c in _cells(line) if c]) >= 2


def _is_heading(block: str, first: bool) -> bool:
    """A short line without a sentence end. One with a figure in it is a heading only at the
    start of a context or when numbered like one ("2.2 …", "§ 7 …", "TOP 3: …"); otherwise it
    is a line of a table the extractor flattened ("Revenue EUR 84.6 million …")."""
    b = " ".join(block.split())
    if len(b.split()) >= 20 or "|" in b:
        return False
    if b.endswith("?"):
        return True  # an FAQ question: context for the answer below it
    if len(b.split()) < 15 and _NUMBERED.match(b) and not b.endswith("."):
        return True
    if b.endswith(_END) or _FIELD_START.match(b) or len(b.split()) >= 15:
        return False
    return first or not re.search(r"\d", b)


def _row_text(cells: list[str], header: list[str] | None) -> str:
    """Cells with their header labels; a label cell that ends with a colon (an aligned
    "Summe netto:   1.565.000,00 EUR" line) reads on into its value."""
    if header and len(header) == len(cells):
        parts = [f"{h}: {c}" if h and c else c for h, c in zip(header, cells)]
    else:
        parts = cells
    out = ""
    for p in (p for p in parts if p):
        out += p if not out else (" " if out.endswith(":") else "; ") + p
    return out + "."


# a model or product code as a column label ("Parameter | HP-6 | HP-9 | HP-12")
_CODE_LABEL = re.compile(r"^[A-Za-zÄÖÜäöü]{1,6}[- ]?\d{1,4}[A-Za-z]?$")


def _is_header(cells: list[str]) -> bool:
    """The first row of a table is its header unless it holds figures; years and model
    codes are labels ("Key figure | 2023 | 2022", "Parameter | HP-6 | HP-9")."""
    return not any(re.search(r"\d", c) and not _YEAR.match(c) and not _CODE_LABEL.match(c)
                   for c in cells) and not all(_YEAR.match(c) for c in cells)


def candidates(evidence: list[Evidence]) -> list[Candidate]:
    """Every source's candidates; a text already taken from a better-ranked source (chunks
    overlap) is not repeated."""
    out: list[Candidate] = []
    seen: set[str] = set()
    for e in evidence:
        for c in _from_source(e):
            key = c.text.casefold()
            if key not in seen:
                seen.add(key)
                out.append(c)
    return out


def _from_source(e: Evidence) -> list[Candidate]:
    text = (e.text or "").replace("\r", "")
    blocks = [b for b in re.split(r"\n\s*\n", text) if b.strip()]
    lang = detect_language(text)
    heading = e.section or ""
    title = " ".join((e.document or "").split()).casefold()
    out: list[Candidate] = []

    def add(kind: str, quoted: str, match: str, heading: str, previous: str = "",
            before: str = "") -> None:
        quoted = " ".join(quoted.split())
        if len(quoted) < MIN_CHARS and not re.search(r"\d", quoted):
            return
        if kind != "sentence" and title and (quoted.casefold() in title
                                             or title in quoted.casefold()):
            return  # the document's title line
        out.append(Candidate(e.n, len(out), quoted, " ".join(match.split()), heading.strip(),
                             previous, before, kind, detect_language(quoted) or lang))

    for bi, block in enumerate(blocks):
        lines = [ln for ln in block.split("\n") if ln.strip()]
        if len(lines) == 1 and not _CODE.match(lines[0]):
            if _is_heading(lines[0], bi == 0):
                heading = " ".join(lines[0].split())
                continue
            if not lines[0].rstrip().endswith(_END):  # a flattened table line
                add("line", lines[0], lines[0], heading)
                continue
        rows = [ln for ln in lines if "|" in ln]  # a row of one filled cell stays a row
        if rows and len(rows) == len(lines) and any(_is_row(ln) for ln in rows):
            header = _cells(rows[0]) if len(rows) >= 2 else None
            if header and not _is_header(header):
                header = None  # a data row (the chunk starts inside a table)
            for row in rows[1:] if header else rows:
                cells = _cells(row)
                add("row", _row_text(cells, header), " ".join(cells),
                    f"{heading} {' '.join(header or [])}", heading)
            continue
        paragraph: list[str] = []
        for ln in lines + [""]:
            s = ln.strip()
            if s and _CODE.match(ln) and not _BULLET.match(ln):
                continue  # commands, YAML
            if s and (_BULLET.match(ln) or _FIELD_START.match(s)) or not s:
                if paragraph:
                    _sentences(" ".join(paragraph), add, heading, lang,
                               first=bi == 0 and not out)
                    paragraph = []
                if not s:
                    continue
                if _BULLET.match(ln):
                    paragraph = [_BULLET.sub("", ln).strip()]
                    continue
                for field in _FIELD_SPLIT.split(s):
                    if _FIELD_START.match(field) and len(field.split()) <= 25 \
                            and not field.rstrip().endswith((".", "!", "?")):
                        add("field", field, field, heading)
                    else:
                        paragraph.append(field)
                continue
            paragraph.append(s)
    return out


def _sentences(paragraph: str, add, heading: str, lang: str, *, first: bool) -> None:
    done: list[str] = []
    for i, sent in enumerate(split_sentences(paragraph, lang)):
        if i == 0 and first and sent[:1].islower():
            continue  # the tail of a sentence cut off by the chunk boundary
        if len(sent.split()) >= 3 or re.search(r"\d", sent):
            add("sentence", sent, sent, heading, done[-1] if done else "", " ".join(done))
        done.append(sent)
