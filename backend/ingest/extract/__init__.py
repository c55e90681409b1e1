"""File bytes -> RawDocument. One module per format; `extract` dispatches by extension,
checks the content a little (empty, wrong container) and turns every library failure into
an `ExtractionError` that names the file, never a raw traceback."""
from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import PurePath

from backend.errors import ExtractionError, FileTooLarge, IngestError, UnsupportedFormat
from backend.ingest.types import RawDocument

from . import docx, html, markdown, odt, pdf, text

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
}

SUPPORTED_EXTENSIONS: tuple[str, ...] = tuple(_EXTRACTORS)

_ZIP_MAGIC = b"PK\x03\x04"
log = logging.getLogger(__name__)


def file_format(filename: str) -> str:
    """Short format name for a file name ("pdf", "docx", "markdown", ...); raises
    UnsupportedFormat for an extension we cannot read."""
    ext = PurePath(filename).suffix.lower()
    if ext not in _EXTRACTORS:
        shown = f"'{ext}'" if ext else "(no extension)"
        raise UnsupportedFormat(
            filename, f"unsupported file type {shown}; supported: {', '.join(SUPPORTED_EXTENSIONS)}"
        )
    return _EXTRACTORS[ext][0]


def extract(data: bytes, filename: str, max_bytes: int | None = None) -> RawDocument:
    """Extract the text blocks of a file. Raises UnsupportedFormat, FileTooLarge (when
    `max_bytes` is given and exceeded) or ExtractionError."""
    fmt = file_format(filename)
    extractor = _EXTRACTORS[PurePath(filename).suffix.lower()][1]
    if max_bytes is not None and len(data) > max_bytes:
        raise FileTooLarge(
            filename, f"file is {len(data) / 2**20:.1f} MiB; the limit is {max_bytes / 2**20:.1f} MiB"
        )
    if not data or not data.strip():
        raise ExtractionError(filename, "file is empty")
    _sniff(data, fmt, filename)
    try:
        raw = extractor(data, filename)
    except IngestError:
        raise
    except Exception as exc:  # any library failure on a broken file
        log.debug("extraction of %s failed", filename, exc_info=True)
        raise ExtractionError(filename, f"could not read {fmt.upper()} file ({_describe(exc)})")
    if not any(b.text.strip() for b in raw.blocks):
        if fmt == "pdf":
            raise ExtractionError(filename, "no extractable text (scanned PDF? OCR is not supported)")
        raise ExtractionError(filename, "no extractable text (the document has no text content)")
    raw.metadata.setdefault("format", fmt)
    return raw


def _sniff(data: bytes, fmt: str, filename: str) -> None:
    """Cheap content checks so a renamed or mislabelled file fails with a clear message."""
    head = data[:1024]
    if fmt == "pdf" and b"%PDF-" not in head:
        raise ExtractionError(filename, "not a valid PDF file (no %PDF header)")
    if fmt in ("docx", "odt") and not data.startswith(_ZIP_MAGIC):
        raise ExtractionError(filename, f"not a valid {fmt.upper()} file (not a ZIP archive)")
    if fmt in ("txt", "markdown", "html") and data.startswith((b"%PDF-", _ZIP_MAGIC)):
        raise ExtractionError(filename, f"binary content in a .{fmt} file (a PDF or ZIP archive?)")


def _describe(exc: Exception) -> str:
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {msg}"[:200] if msg else type(exc).__name__
