"""reStructuredText and AsciiDoc, line based: headings (RST underlines/overlines, AsciiDoc
`=` titles), literal and listing blocks kept as code, tables as table blocks; the rest as
paragraphs. Directives and attributes are not interpreted (their text stays readable)."""
from __future__ import annotations

import re

from backend.ingest.types import Block, RawDocument

from .text import decode_text

_RST_ADORN = re.compile(r"^([=\-~^\"'`#*+:.<>_])\1{2,}\s*$")
_ADOC_HEADING = re.compile(r"^(={1,6})\s+(\S.*?)\s*=*\s*$")
_ADOC_DELIM = re.compile(r"^(-{4,}|\.{4,}|={4,}|\+{4,}|\*{4,}|_{4,})\s*$")
_ADOC_TABLE = re.compile(r"^\|={3,}\s*$")
_RST_TABLE = re.compile(r"^\s*[+=][-=+]{3,}")


def extract_rst(data: bytes, filename: str) -> RawDocument:
    text, encoding, warnings = decode_text(data, filename)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[Block] = []
    levels: list[str] = []  # adornment styles in order of first use -> level
    para: list[str] = []
    i = 0

    def flush() -> None:
        if para:
            body = "\n".join(para)
            kind = "table" if _RST_TABLE.match(para[0]) else None
            blocks.append(Block(body, preformatted=kind is not None, kind=kind))
            para.clear()

    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        over = _RST_ADORN.match(line) and i + 2 < len(lines) and _RST_ADORN.match(lines[i + 2]) \
            and nxt.strip() and len(line.strip()) >= len(nxt.strip())
        if over:
            flush()
            blocks.append(Block(nxt.strip(), heading_level=_level(levels, "o" + line.strip()[0])))
            i += 3
            continue
        if line.strip() and not line.startswith((" ", "\t")) and _RST_ADORN.match(nxt) \
                and len(nxt.strip()) >= len(line.strip()) and not _RST_TABLE.match(line):
            flush()
            blocks.append(Block(line.strip(), heading_level=_level(levels, nxt.strip()[0])))
            i += 2
            continue
        if not line.strip():
            flush()
            i += 1
            continue
        if line.rstrip().endswith("::") and not line.startswith((" ", "\t")):
            para.append(line.rstrip()[:-1] if line.rstrip() != "::" else "")
            flush()
            i += 1
            code, i = _indented(lines, i)
            if code:
                blocks.append(Block(code, preformatted=True, kind="code"))
            continue
        para.append(line)
        i += 1
    flush()
    return _raw(blocks, encoding, warnings)


def _indented(lines: list[str], i: int) -> tuple[str, int]:
    """The indented literal block starting at line i (after blank lines)."""
    while i < len(lines) and not lines[i].strip():
        i += 1
    out = []
    while i < len(lines) and (not lines[i].strip() or lines[i].startswith((" ", "\t"))):
        out.append(lines[i])
        i += 1
    code = "\n".join(out).strip("\n")
    indent = min((len(x) - len(x.lstrip()) for x in out if x.strip()), default=0)
    return "\n".join(x[indent:] for x in code.split("\n")), i


def _level(levels: list[str], style: str) -> int:
    if style not in levels:
        levels.append(style)
    return min(6, levels.index(style) + 1)


def extract_asciidoc(data: bytes, filename: str) -> RawDocument:
    text, encoding, warnings = decode_text(data, filename)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[Block] = []
    para: list[str] = []
    i = 0

    def flush() -> None:
        if para:
            blocks.append(Block("\n".join(para)))
            para.clear()

    while i < len(lines):
        line = lines[i]
        m = _ADOC_HEADING.match(line)
        if m and not para:
            blocks.append(Block(m.group(2), heading_level=len(m.group(1))))
            i += 1
            continue
        delim = _ADOC_DELIM.match(line) or _ADOC_TABLE.match(line)
        if delim:
            flush()
            fence = line.strip()
            j = i + 1
            while j < len(lines) and lines[j].strip() != fence:
                j += 1
            body = "\n".join(lines[i + 1:j]).strip("\n")
            if body:
                table = fence.startswith("|")
                kind = "table" if table else ("code" if fence[0] in "-." else None)
                blocks.append(Block(body, preformatted=kind is not None, kind=kind))
            i = j + 1
            continue
        if not line.strip():
            flush()
        elif not (line.startswith(":") and line.count(":") >= 2 and not para) \
                and not line.startswith(("//", "[")):
            para.append(line)
        i += 1
    flush()
    return _raw(blocks, encoding, warnings)


def _raw(blocks: list[Block], encoding: str, warnings: list[str]) -> RawDocument:
    title = next((b.text for b in blocks if b.heading_level == 1), None)
    meta: dict = {"encoding": encoding}
    if warnings:
        meta["warnings"] = warnings
    return RawDocument(blocks=[b for b in blocks if b.text.strip()], title=title, metadata=meta)
