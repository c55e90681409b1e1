"""Markdown: ATX and setext headings, fenced code kept whole (a `#` inside a fence is code),
pipe tables and columns aligned with spaces (aligned.py; not in an indented code block) as
rows, light inline clean-up that keeps the text readable."""
from __future__ import annotations

import re

from backend.ingest.types import Block, RawDocument

from .aligned import row_text, split_tables
from .text import decode_text

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_THEMATIC = re.compile(r"^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_QUOTE = re.compile(r"^ {0,3}> ?")
_INDENTED_CODE = re.compile(r"^(?: {4}|\t)")
_FRONT_TITLE = re.compile(r"^title:\s*[\"']?(.*?)[\"']?\s*$", re.MULTILINE)
_INLINE = [
    (re.compile(r"<!--.*?-->", re.DOTALL), ""),
    (re.compile(r"!\[([^\]]*)\]\([^)]*\)"), r"\1"),  # image -> alt text
    (re.compile(r"\[([^\]]+)\]\([^)]*\)"), r"\1"),  # link -> link text
    (re.compile(r"\[([^\]]+)\]\[[^\]]*\]"), r"\1"),  # reference link
    (re.compile(r"`([^`\n]+)`"), r"\1"),
    (re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"), r"\2"),
    (re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])"), r"\1"),
    (re.compile(r"(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])"), r"\1"),
    (re.compile(r"~~(?=\S)(.+?)(?<=\S)~~"), r"\1"),
    (re.compile(r"<(https?://[^>\s]+)>"), r"\1"),
]


def strip_inline(text: str) -> str:
    for pattern, repl in _INLINE:
        text = pattern.sub(repl, text)
    return text


def extract_markdown(data: bytes, filename: str) -> RawDocument:
    text, encoding, warnings = decode_text(data, filename)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text, front_title = _front_matter(text)
    blocks = parse_markdown(text)
    title = next((b.text for b in blocks if b.heading_level == 1), None) or front_title
    meta: dict = {"encoding": encoding}
    if warnings:
        meta["warnings"] = warnings
    return RawDocument(blocks=blocks, title=title, metadata=meta)


def _front_matter(text: str) -> tuple[str, str | None]:
    if not text.startswith("---\n"):
        return text, None
    end = text.find("\n---", 4)
    if end < 0:
        return text, None
    m = _FRONT_TITLE.search(text[4:end])
    rest = text[end + 4 :]
    return rest.split("\n", 1)[1] if "\n" in rest else "", (m.group(1).strip() or None) if m else None


def parse_markdown(text: str) -> list[Block]:
    """Line-based parser producing paragraph, heading, code and table blocks."""
    blocks: list[Block] = []
    para: list[str] = []
    fence: str | None = None
    code: list[str] = []

    def flush() -> None:
        if para:
            _add_paragraph(blocks, para)
            para.clear()

    for line in text.split("\n"):
        if fence is not None:
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                blocks.append(Block("\n".join(code), preformatted=True, kind="code"))
                fence, code = None, []
            else:
                code.append(line)
            continue
        m = _FENCE.match(line)
        if m:
            flush()
            fence = m.group(1)
            continue
        line = _QUOTE.sub("", line)
        if not line.strip():
            flush()
        elif para and _SETEXT.match(line) and not _is_table(para):
            title = strip_inline(" ".join(x.strip() for x in para))
            para.clear()
            blocks.append(Block(title, heading_level=1 if line.strip()[0] == "=" else 2))
        elif _THEMATIC.match(line):
            flush()
        elif m := _ATX.match(line):
            flush()
            title = strip_inline((m.group(2) or "").strip())
            if title:
                blocks.append(Block(title, heading_level=len(m.group(1))))
        else:
            para.append(line)
    flush()
    if fence is not None and code:  # unclosed fence: keep the code
        blocks.append(Block("\n".join(code), preformatted=True, kind="code"))
    return [b for b in blocks if b.text.strip()]


def _is_table(lines: list[str]) -> bool:
    return len(lines) >= 2 and "|" in lines[0] and bool(_TABLE_SEP.match(lines[1]))


def _add_paragraph(blocks: list[Block], lines: list[str]) -> None:
    if _is_table(lines):
        rows = [_table_row(x) for i, x in enumerate(lines) if i != 1]
        blocks.append(Block("\n".join(r for r in rows if r), preformatted=True, kind="table"))
        return
    if not all(_INDENTED_CODE.match(x) for x in lines):  # an indented code block stays text
        pieces = split_tables("\n".join(lines))
        if any(p.rows for p in pieces):
            for piece in pieces:
                if piece.rows:
                    rows = [row_text([strip_inline(c) for c in r]) for r in piece.rows]
                    blocks.append(Block("\n".join(rows), preformatted=True, kind="table"))
                elif any(x.strip() for x in piece.lines):
                    _add_text(blocks, piece.lines)
            return
    _add_text(blocks, lines)


def _add_text(blocks: list[Block], lines: list[str]) -> None:
    cleaned = [_list_item(x) for x in lines]
    blocks.append(Block(strip_inline("\n".join(cleaned))))


def _table_row(line: str) -> str:
    cells = [strip_inline(c.strip()) for c in line.strip().strip("|").split("|")]
    return " | ".join(cells) if any(cells) else ""


def _list_item(line: str) -> str:
    """Normalise list markers to "- " / "1. " so the normaliser keeps items on their lines."""
    stripped = line.strip()
    m = re.match(r"^[-*+]\s+(?:\[[ xX]\]\s+)?(.*)$", stripped)
    if m:
        return "- " + m.group(1)
    return stripped
