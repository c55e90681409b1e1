"""DOCX via python-docx: body paragraphs and tables in document order; heading styles
become heading levels; a table becomes one block with one " | "-joined line per row."""
from __future__ import annotations

import io
import re

from backend.errors import ExtractionError
from backend.ingest.types import Block, RawDocument

_HEADING_STYLE = re.compile(r"^(?:heading|überschrift|titre|kop)\s*(\d)$", re.IGNORECASE)
_TITLE_STYLES = frozenset({"title", "titel"})


def extract_docx(data: bytes, filename: str) -> RawDocument:
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        document = docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, KeyError, ValueError) as exc:
        raise ExtractionError(filename, f"not a valid DOCX file ({type(exc).__name__}: {exc})"[:240])
    blocks: list[Block] = []
    _walk(document, document.element.body, blocks)
    title = (document.core_properties.title or "").strip() or first_heading(blocks)
    return RawDocument(blocks=blocks, title=title)


def first_heading(blocks: list[Block]) -> str | None:
    """Text of the first level-1 heading block, as a fallback title."""
    return next((" ".join(b.text.split()) for b in blocks if b.heading_level == 1), None)


def _walk(document, container, blocks: list[Block]) -> None:
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    for child in container.iterchildren():
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            para = Paragraph(child, document)
            text = para.text
            if text.strip():
                blocks.append(Block(text, heading_level=_heading_level(para)))
        elif tag == "tbl":
            rows = table_rows(Table(child, document))
            if rows:
                blocks.append(Block("\n".join(rows), preformatted=True, kind="table"))
        elif tag in ("sdt", "sdtContent", "customXml"):
            _walk(document, child, blocks)


def _heading_level(para) -> int | None:
    try:
        name = (para.style.name or "") if para.style is not None else ""
    except (KeyError, ValueError):
        return None
    m = _HEADING_STYLE.match(name.strip())
    if m:
        return max(1, int(m.group(1)))
    return 1 if name.strip().lower() in _TITLE_STYLES else None


def table_rows(table) -> list[str]:
    """One line per row, cells joined with " | "; merged cells are not repeated."""
    rows = []
    for row in table.rows:
        cells, seen = [], set()
        try:
            row_cells = row.cells
        except (IndexError, ValueError):
            continue
        for cell in row_cells:
            if cell._tc in seen:
                continue
            seen.add(cell._tc)
            cells.append(" ".join(cell.text.split()))
        if any(cells):
            rows.append(" | ".join(cells))
    return rows
