"""PDF via pypdf: one block per paragraph with its page, the outline, the metadata title.
pypdf gives lines without paragraph gaps, so paragraphs are rebuilt from the line geometry
(vertical gaps, font sizes; see pdf_layout) and line lengths (a line much shorter than the
page's text width ends a paragraph). Without an outline, lines in a larger or bold font
become headings."""
from __future__ import annotations

import io
import logging
import re
from collections import Counter

from backend.errors import ExtractionError
from backend.ingest.types import Block, OutlineEntry, RawDocument

from .pdf_layout import Line, group_blocks, layout_stats, read_page_lines

log = logging.getLogger(__name__)
_PAGE_NUMBER = re.compile(
    r"^(?:[-–—]\s*\d{1,4}\s*[-–—]|\d{1,3}|(?:Seite|Page|S\.)\s*\d{1,4}(?:\s*(?:von|of|/)\s*\d{1,4})?"
    r"|\d{1,4}\s*(?:/|von|of)\s*\d{1,4})$",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")


def extract_pdf(data: bytes, filename: str) -> RawDocument:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        _decrypt(reader, filename)
        pages = list(reader.pages)
    except ExtractionError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, OSError) as exc:
        raise ExtractionError(filename, f"corrupt or truncated PDF ({_reason(exc)})") from None
    if not pages:
        raise ExtractionError(filename, "corrupt or truncated PDF (no pages found)")
    warnings: list[str] = []
    page_lines: list[list[Line]] = []
    for number, page in enumerate(pages, start=1):
        try:
            page_lines.append(read_page_lines(page))
        except Exception as exc:  # one broken page should not lose the whole document
            warnings.append(f"page {number}: text could not be extracted ({_reason(exc)})")
            page_lines.append([])
    if not any(page_lines):
        raise ExtractionError(filename, "no extractable text (scanned PDF? OCR is not supported)")
    _drop_running_lines(page_lines)
    outline = _outline(reader, warnings)
    stats = layout_stats(page_lines)
    blocks = [
        Block(text, page=number, heading_level=level)
        for number, lines in enumerate(page_lines, start=1)
        if lines
        for text, level in group_blocks(lines, stats, _text_width(lines), headings=not outline)
    ]
    meta: dict = {}
    if warnings:
        meta["warnings"] = warnings
    return RawDocument(
        blocks=blocks,
        title=_title(reader),
        outline=outline,
        metadata=meta,
        page_count=len(pages),
    )


def _decrypt(reader, filename: str) -> None:
    """Open an encrypted PDF with the empty user password, else fail clearly."""
    if not reader.is_encrypted:
        return
    from pypdf import PasswordType

    try:
        ok = reader.decrypt("") != PasswordType.NOT_DECRYPTED
    except Exception as exc:  # unsupported algorithm, missing crypto library
        raise ExtractionError(filename, f"PDF is encrypted and cannot be opened ({_reason(exc)})")
    if not ok:
        raise ExtractionError(
            filename, "PDF is encrypted (password protected); remove the password and upload again"
        )


def _drop_running_lines(page_lines: list[list[Line]]) -> None:
    """Remove page numbers and running headers/footers: the first/last two lines of a page
    that are a bare page number, or that repeat (digits ignored) on most pages."""
    if len(page_lines) >= 3:
        counts: Counter[str] = Counter()
        for lines in page_lines:
            edges = [x.text for x in lines[:2] + lines[-2:]]
            counts.update({_DIGITS.sub("#", x) for x in edges if len(x) <= 80})
        repeated = {k for k, v in counts.items() if v >= max(3, 0.6 * len(page_lines))}
    else:
        repeated = set()
    for lines in page_lines:
        edge = set(range(min(2, len(lines)))) | set(range(max(0, len(lines) - 2), len(lines)))
        drop = {
            i for i in edge
            if _PAGE_NUMBER.match(lines[i].text)
            or (len(lines[i].text) <= 80 and _DIGITS.sub("#", lines[i].text) in repeated)
        }
        if drop and len(drop) < len(lines):
            lines[:] = [x for i, x in enumerate(lines) if i not in drop]


def _text_width(lines: list[Line]) -> int:
    """Typical length of a full line on the page (90th percentile of line lengths)."""
    lengths = sorted(len(x.text) for x in lines)
    return lengths[min(len(lengths) - 1, int(len(lengths) * 0.9))]


def _title(reader) -> str | None:
    try:
        meta = reader.metadata
        title = meta.title if meta else None
    except Exception:
        return None
    title = " ".join(str(title).split()) if title else ""
    return title or None


def _outline(reader, warnings: list[str]) -> list[OutlineEntry]:
    try:
        outline = reader.outline
    except Exception as exc:
        warnings.append(f"outline could not be read ({_reason(exc)})")
        return []
    entries: list[OutlineEntry] = []
    _walk_outline(reader, outline, 1, entries)
    return entries


def _walk_outline(reader, items, level: int, out: list[OutlineEntry]) -> None:
    for item in items or []:
        if isinstance(item, list):
            _walk_outline(reader, item, level + 1, out)
            continue
        try:
            title = " ".join(str(item.title or "").split())
            page = reader.get_destination_page_number(item)
        except Exception:
            continue
        if title and page is not None and page >= 0:
            out.append(OutlineEntry(title=title, level=level, page=page + 1))


def _reason(exc: Exception) -> str:
    msg = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {msg}"[:200] if msg else type(exc).__name__
