"""PDF via pypdf: one block per paragraph with its page, the outline, the metadata title.
pypdf gives lines without paragraph gaps, so paragraphs are rebuilt from the line geometry
(vertical gaps, font sizes; see pdf_layout) and line lengths (a line much shorter than the
page's text width ends a paragraph). Without an outline, lines in a larger or bold font
become headings. Tables whose columns line up become table rows (pdf_layout.page_tables).
Pages without a usable text layer (scanned pages, also single pages of a
mixed PDF) are OCR'd with Tesseract (backend/ingest/ocr.py) when `ocr` options are given;
their lines take the same way, and the version records each page's OCR confidence."""
from __future__ import annotations

import contextlib
import io
import logging
import re
import threading
from collections import Counter
from typing import TYPE_CHECKING

from backend.errors import ExtractionError
from backend.ingest.types import Block, OutlineEntry, RawDocument

from .limits import chars_error

if TYPE_CHECKING:
    from backend.ingest.ocr import OcrOptions
from .aligned import row_text
from .pdf_layout import Line, group_blocks, layout_stats, page_tables, read_page_lines

log = logging.getLogger(__name__)
_PAGE_NUMBER = re.compile(
    r"^(?:[-–—]\s*\d{1,4}\s*[-–—]|\d{1,3}|(?:Seite|Page|S\.)\s*\d{1,4}(?:\s*(?:von|of|/)\s*\d{1,4})?"
    r"|\d{1,4}\s*(?:/|von|of)\s*\d{1,4})$",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")


class _PypdfNotes(logging.Handler):
    """pypdf reports what it repaired ("EOF marker not found", "Stream length not defined")
    through its loggers, which reached stderr and the API's log. While a thread extracts a
    PDF, those records become the file's warnings instead; pypdf records outside an
    extraction go on to the root logger's handlers as before."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.local = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        notes = getattr(self.local, "notes", None)
        if notes is None:
            logging.getLogger().handle(record)
        elif len(notes) < 20:
            note = f"PDF repaired while reading: {record.getMessage()}"
            if note not in notes:
                notes.append(note)

    @contextlib.contextmanager
    def collect(self):
        self.local.notes = notes = []
        try:
            yield notes
        finally:
            self.local.notes = None


_NOTES = _PypdfNotes()
_pypdf_log = logging.getLogger("pypdf")
_pypdf_log.addHandler(_NOTES)
_pypdf_log.propagate = False  # _NOTES passes on what is not collected


def extract_pdf(data: bytes, filename: str, max_chars: int | None = None,
                ocr: "OcrOptions | None" = None) -> RawDocument:
    """`max_chars`: stop with FileTooLarge as soon as the pages read so far have more text
    (pypdf bounds each decompressed stream itself, at 75 MB). `ocr`: OCR pages without a
    usable text layer (None: never). What pypdf repaired is in the warnings."""
    with _NOTES.collect() as notes:
        raw = _extract_pdf(data, filename, max_chars, ocr)
    if notes:
        raw.metadata["warnings"] = notes + raw.metadata.get("warnings", [])
    return raw


def _extract_pdf(data: bytes, filename: str, max_chars: int | None,
                 ocr: "OcrOptions | None") -> RawDocument:
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
    chars = 0
    for number, page in enumerate(pages, start=1):
        try:
            page_lines.append(read_page_lines(page))
        except Exception as exc:  # one broken page should not lose the whole document
            warnings.append(f"page {number}: text could not be extracted ({_reason(exc)})")
            page_lines.append([])
        chars += sum(len(x.text) for x in page_lines[-1])
        if max_chars is not None and chars > max_chars:
            raise chars_error(filename, chars, max_chars, so_far=True)
    meta: dict = {}
    ocr_pages = _ocr_pages(data, pages, page_lines, ocr, filename, warnings, meta)
    if max_chars is not None and ocr_pages:
        chars = sum(len(x.text) for lines in page_lines for x in lines)
        if chars > max_chars:
            raise chars_error(filename, chars, max_chars)
    if not any(page_lines):
        raise ExtractionError(filename, "no extractable text (the pages have no text layer and "
                              "OCR found no text)" if ocr_pages else "no extractable text")
    _drop_running_lines(page_lines)
    outline = _outline(reader, warnings)
    text_stats = layout_stats([x for i, x in enumerate(page_lines) if i + 1 not in ocr_pages])
    ocr_stats = layout_stats([x for i, x in enumerate(page_lines) if i + 1 in ocr_pages])
    blocks = []
    for number, lines in enumerate(page_lines, start=1):
        if lines:
            tables = [] if number in ocr_pages else _tables(pages[number - 1], lines, number,
                                                            warnings)
            blocks += _page_blocks(number, lines, tables,
                                   ocr_stats if number in ocr_pages else text_stats, not outline)
    if warnings:
        meta["warnings"] = warnings
    return RawDocument(
        blocks=blocks,
        title=_title(reader),
        outline=outline,
        metadata=meta,
        page_count=len(pages),
    )


def _tables(page, lines: list[Line], number: int, warnings: list[str]):
    """The page's aligned tables; a failure of the detection costs the rows, not the page."""
    try:
        return page_tables(page, lines)
    except Exception as exc:
        log.debug("table detection on page %s failed", number, exc_info=True)
        warnings.append(f"page {number}: tables not detected ({_reason(exc)}); its text is kept")
        return []


def _page_blocks(number: int, lines: list[Line], tables, stats, headings: bool) -> list[Block]:
    """The page's paragraphs, with its aligned tables (page_tables) as table blocks."""
    width = _text_width(lines)
    out: list[Block] = []
    pos = 0
    for start, end, rows in [*tables, (len(lines), len(lines), None)]:
        out += [Block(text, page=number, heading_level=level)
                for text, level in group_blocks(lines[pos:start], stats, width, headings)]
        if rows:
            out.append(Block("\n".join(row_text(r) for r in rows), page=number,
                             preformatted=True, kind="table"))
        pos = end
    return out


def _ocr_pages(data: bytes, pages, page_lines: list[list[Line]], ocr, filename: str,
               warnings: list[str], meta: dict) -> set[int]:
    """OCR the pages whose text layer has fewer than `ocr.min_page_chars` characters and that
    show an image; fills their lines in place. Returns the 1-based numbers of OCR'd pages."""
    from backend.ingest.ocr import check_available, ocr_images, record, render_pdf_pages

    threshold = ocr.min_page_chars if ocr is not None else 1
    wanted = [i for i, lines in enumerate(page_lines)
              if sum(len(x.text) for x in lines) < threshold and _has_image(pages[i])]
    if not wanted:
        if not any(page_lines):
            raise ExtractionError(filename, "no extractable text (the pages have neither a text "
                                  "layer nor an image)")
        return set()
    why = (f"{'the PDF has' if len(wanted) == len(pages) else f'{len(wanted)} page(s) have'} "
           "no text layer (scanned?)")
    try:
        version = check_available(ocr or _off(), filename, why)
    except ExtractionError:
        if any(page_lines):  # a mixed PDF: keep the text pages, say what is missing
            which = (f"page {wanted[0] + 1} has" if len(wanted) == 1
                     else f"pages {_ranges(wanted)} have")
            warnings.append(f"{which} no text layer and {'was' if len(wanted) == 1 else 'were'} "
                            "not OCR'd (OCR is off or Tesseract is missing)")
            return set()
        raise
    if len(wanted) > ocr.max_pages:
        warnings.append(f"only the first {ocr.max_pages} of {len(wanted)} pages without a text "
                        "layer were OCR'd (RAGSCOPE_OCR_MAX_PAGES)")
        wanted = wanted[:ocr.max_pages]
    done = []
    for start in range(0, len(wanted), max(1, ocr.workers)):  # bounded memory: a few images
        batch = wanted[start:start + max(1, ocr.workers)]
        dpis = [_render_dpi(pages[i], ocr) for i in batch]
        images = render_pdf_pages(data, batch, dpis, password="" if _encrypted(data) else None)
        done += ocr_images(images, ocr, filename, [i + 1 for i in batch], dpis)
    for page in done:
        page_lines[page.number - 1] = page.lines
    record(meta, warnings, done, ocr, version)
    return {p.number for p in done}


def _render_dpi(page, ocr) -> int:
    """Render a scanned page at the resolution of its largest image (a 200 dpi scan at
    200 dpi: upsampling adds no detail, only pixels to read), at least 150 and at most the
    configured OCR resolution."""
    best = 0.0
    try:
        width_pt = float(page.mediabox.width) or 612.0
        xobjects = page["/Resources"].get_object()["/XObject"].get_object()
        for ref in xobjects.values():
            obj = ref.get_object()
            if obj.get("/Subtype") == "/Image":
                best = max(best, float(obj.get("/Width", 0)) * 72.0 / width_pt)
    except Exception:
        return ocr.dpi
    return int(min(ocr.dpi, max(150.0, best))) if best else ocr.dpi


def _off():
    from backend.ingest.ocr import OcrOptions

    return OcrOptions(enabled=False)


def _encrypted(data: bytes) -> bool:
    return b"/Encrypt" in data


def _has_image(page) -> bool:
    """The page draws an image or a form (a scan is one image per page)."""
    try:
        res = page.get("/Resources")
        xobjects = res.get_object().get("/XObject") if res is not None else None
        return bool(xobjects) and len(xobjects.get_object()) > 0
    except Exception:
        return True  # unreadable resources: let OCR decide


def _ranges(indices: list[int]) -> str:
    """0-based indices -> "2, 4-6" (1-based)."""
    out: list[str] = []
    for i in indices:
        n = i + 1
        if out and out[-1].split("-")[-1] == str(n - 1):
            out[-1] = out[-1].split("-")[0] + f"-{n}"
        else:
            out.append(str(n))
    return ", ".join(out)


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
