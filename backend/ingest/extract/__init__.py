"""File bytes -> RawDocument. One module per format; `extract` dispatches by extension,
checks the content a little (empty, wrong container), checks the size limits of
`limits.py` (a ZIP-based file before it is parsed, the extracted text of every format after)
and turns every library failure into an `ExtractionError` that names the file, never a raw
traceback."""
from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import PurePath
from typing import TYPE_CHECKING

from backend.errors import ExtractionError, FileTooLarge, IngestError, UnsupportedFormat
from backend.ingest.types import RawDocument

from . import code, docx, html, image, markdown, odt, pdf, table, text, textmarkup
from .limits import ExtractLimits, check_chars, check_zip

if TYPE_CHECKING:
    from backend.ingest.ocr import OcrOptions

Extractor = Callable[[bytes, str], RawDocument]

_EXTRACTORS: dict[str, tuple[str, Extractor]] = {
    ".pdf": ("pdf", pdf.extract_pdf),
    ".docx": ("docx", docx.extract_docx),
    ".odt": ("odt", odt.extract_odt),
    ".txt": ("txt", text.extract_txt),
    ".md": ("markdown", markdown.extract_markdown),
    ".markdown": ("markdown", markdown.extract_markdown),
    ".html": ("html", html.extract_html),
    ".htm": ("html", html.extract_html),
    ".png": ("png", image.extract_image),
    ".jpg": ("jpeg", image.extract_image),
    ".jpeg": ("jpeg", image.extract_image),
    ".tif": ("tiff", image.extract_image),
    ".tiff": ("tiff", image.extract_image),
    ".rst": ("rst", textmarkup.extract_rst),
    ".adoc": ("asciidoc", textmarkup.extract_asciidoc),
    ".asciidoc": ("asciidoc", textmarkup.extract_asciidoc),
    ".csv": ("csv", table.extract_csv),
    ".tsv": ("csv", table.extract_csv),
    **{ext: ("code", code.extract_code)
       for ext in (*code.PARSED, *code.BLOCKS_ONLY, *code.CONFIG)},
}
IMAGE_FORMATS = ("png", "jpeg", "tiff")
# files known by their name (repositories): extractor by lower-case name
_BY_NAME: dict[str, tuple[str, Extractor]] = {
    **{name: ("code", code.extract_code) for name in code.BY_NAME},
    **{name: ("txt", text.extract_txt) for name in (
        "readme", "license", "licence", "copying", "notice", "authors", "contributors",
        "changelog", "changes", "news", "history", "todo", "install")},
}

SUPPORTED_EXTENSIONS: tuple[str, ...] = tuple(_EXTRACTORS)


def _entry(filename: str) -> tuple[str, Extractor] | None:
    p = PurePath(filename)
    return _EXTRACTORS.get(p.suffix.lower()) or _BY_NAME.get(p.name.lower())


def supported_summary() -> str:
    """The supported types for error messages, grouped (the full list is long)."""
    docs = [e for e, (f, _) in _EXTRACTORS.items() if f not in ("code", *IMAGE_FORMATS)]
    images = [e for e, (f, _) in _EXTRACTORS.items() if f in IMAGE_FORMATS]
    return (f"{', '.join(docs)}; images {', '.join(images)} (OCR); source code and "
            "configuration (.py, .js, .ts, .go, .java, .rs, .yaml, .json, .toml, … "
            "see docs/ingestion.md)")


def unsupported(filename: str) -> UnsupportedFormat:
    ext = PurePath(filename).suffix.lower()
    shown = f"'{ext}'" if ext else "(no extension)"
    return UnsupportedFormat(filename, f"unsupported file type {shown}; supported: "
                             f"{supported_summary()}")


def is_supported(filename: str) -> bool:
    """True for a file ragscope can read: by extension, or by name (README, Dockerfile, ...)."""
    return _entry(filename) is not None

_ZIP_MAGIC = b"PK\x03\x04"
log = logging.getLogger(__name__)


def file_format(filename: str) -> str:
    """Short format name for a file name ("pdf", "docx", "markdown", ...); raises
    UnsupportedFormat for an extension we cannot read."""
    entry = _entry(filename)
    if entry is None:
        raise unsupported(filename)
    return entry[0]


_ZIP_FORMATS = ("docx", "odt")


def extract(data: bytes, filename: str, max_bytes: int | None = None,
            limits: ExtractLimits | None = None, ocr: "OcrOptions | None" = None) -> RawDocument:
    """Extract the text blocks of a file. Raises UnsupportedFormat, FileTooLarge (over
    `max_bytes` when given, or over one of `limits`: the defaults when not given) or
    ExtractionError. `ocr`: how scanned PDF pages and images are OCR'd (None: they are not)."""
    limits = limits or ExtractLimits()
    fmt = file_format(filename)
    extractor = _entry(filename)[1]
    if max_bytes is not None and len(data) > max_bytes:
        raise FileTooLarge(
            filename, f"file is {len(data) / 2**20:.1f} MiB; the limit is {max_bytes / 2**20:.1f} MiB"
        )
    if not data or not data.strip():
        raise ExtractionError(filename, "file is empty")
    _sniff(data, fmt, filename)
    if fmt in _ZIP_FORMATS:
        check_zip(data, filename, fmt, limits)
    try:
        if fmt == "pdf":  # stops early once the pages read so far are over the limit
            raw = pdf.extract_pdf(data, filename, max_chars=limits.max_chars, ocr=ocr)
        elif fmt in IMAGE_FORMATS:
            raw = image.extract_image(data, filename, fmt, ocr=ocr)
        else:
            raw = extractor(data, filename)
    except IngestError:
        raise
    except Exception as exc:  # any library failure on a broken file
        log.debug("extraction of %s failed", filename, exc_info=True)
        raise ExtractionError(filename, f"could not read {fmt.upper()} file ({_describe(exc)})")
    if not any(b.text.strip() for b in raw.blocks):
        raise ExtractionError(filename, "no extractable text (the document has no text content)")
    check_chars(raw, filename, limits)
    raw.metadata.setdefault("format", fmt)
    return raw


def _sniff(data: bytes, fmt: str, filename: str) -> None:
    """Cheap content checks so a renamed or mislabelled file fails with a clear message."""
    head = data[:1024]
    if fmt == "pdf" and b"%PDF-" not in head:
        raise ExtractionError(filename, "not a valid PDF file (no %PDF header)")
    if fmt in ("docx", "odt") and not data.startswith(_ZIP_MAGIC):
        raise ExtractionError(filename, f"not a valid {fmt.upper()} file (not a ZIP archive)")
    if fmt in IMAGE_FORMATS:
        image.sniff_image(data, fmt, filename)
    if fmt in ("txt", "markdown", "html", "code", "rst", "asciidoc", "csv") \
            and data.startswith((b"%PDF-", _ZIP_MAGIC)):
        raise ExtractionError(filename, f"binary content in a .{fmt} file (a PDF or ZIP archive?)")


def _describe(exc: Exception) -> str:
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {msg}"[:200] if msg else type(exc).__name__
