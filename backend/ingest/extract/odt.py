"""ODT via odfpy: text:h (with outline level) -> headings, text:p -> paragraphs, lists
and sections walked in order, tables as " | "-joined rows like DOCX."""
from __future__ import annotations

import io
import zipfile

from backend.errors import ExtractionError
from backend.ingest.types import Block, RawDocument

from .docx import first_heading

_TEXT_NS = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_TABLE_NS = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
_STYLE_NS = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
_CONTAINERS = {
    (_TEXT_NS, "list"), (_TEXT_NS, "list-item"), (_TEXT_NS, "list-header"),
    (_TEXT_NS, "section"), (_TEXT_NS, "index-body"), (_TEXT_NS, "table-of-content"),
}
_SKIP = {(_TEXT_NS, "tracked-changes"), (_TEXT_NS, "sequence-decls"), (_TEXT_NS, "index-title")}


def extract_odt(data: bytes, filename: str) -> RawDocument:
    from odf.opendocument import load

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            if "content.xml" not in zf.namelist():
                raise ExtractionError(filename, "not a valid ODT file (no content.xml)")
        document = load(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise ExtractionError(filename, f"not a valid ODT file (broken ZIP archive: {exc})")
    blocks: list[Block] = []
    title_styles = _title_styles(document)
    _walk(document.text, blocks, title_styles)
    return RawDocument(blocks=blocks, title=_title(document) or first_heading(blocks))


def _walk(node, blocks: list[Block], title_styles: set[str]) -> None:
    from odf import teletype

    for child in node.childNodes:
        qname = getattr(child, "qname", None)
        if qname is None or qname in _SKIP:
            continue
        if qname == (_TEXT_NS, "h"):
            level = child.getAttrNS(_TEXT_NS, "outline-level")
            text = teletype.extractText(child)
            if text.strip():
                blocks.append(Block(text, heading_level=_int(level, 1)))
        elif qname == (_TEXT_NS, "p"):
            text = teletype.extractText(child)
            if text.strip():
                style = child.getAttrNS(_TEXT_NS, "style-name") or ""
                blocks.append(Block(text, heading_level=1 if style in title_styles else None))
        elif qname == (_TABLE_NS, "table"):
            rows = _table_rows(child)
            if rows:
                blocks.append(Block("\n".join(rows), preformatted=True, kind="table"))
        elif qname in _CONTAINERS:
            _walk(child, blocks, title_styles)


def _table_rows(table) -> list[str]:
    from odf import teletype

    rows = []
    for row in _descendants(table, (_TABLE_NS, "table-row")):
        cells = [
            " ".join(teletype.extractText(c).split())
            for c in row.childNodes
            if getattr(c, "qname", None) == (_TABLE_NS, "table-cell")
        ]
        if any(cells):
            rows.append(" | ".join(cells))
    return rows


def _descendants(node, qname):
    for child in node.childNodes:
        if getattr(child, "qname", None) == qname:
            yield child
        elif getattr(child, "qname", None) != (_TABLE_NS, "table"):  # not into nested tables
            yield from _descendants(child, qname)


def _title_styles(document) -> set[str]:
    """Automatic paragraph styles derived from the "Title" style count as a title."""
    names = {"Title"}
    for style in document.automaticstyles.childNodes:
        if getattr(style, "qname", None) == (_STYLE_NS, "style"):
            if style.getAttrNS(_STYLE_NS, "parent-style-name") == "Title":
                names.add(style.getAttrNS(_STYLE_NS, "name"))
    return names


def _title(document) -> str | None:
    from odf import dc, teletype

    for el in document.meta.getElementsByType(dc.Title):
        title = " ".join(teletype.extractText(el).split())
        if title:
            return title
    return None


def _int(value, default: int) -> int:
    try:
        return max(1, int(value))
    except (TypeError, ValueError):
        return default
