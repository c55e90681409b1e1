"""Images (PNG, JPEG, TIFF): every frame is a page, read by OCR (backend/ingest/ocr.py).

Pillow opens the image lazily; its size is checked against MAX_PIXELS before any pixel is
decoded (a small PNG can declare a gigapixel canvas), and a file that is not the image it
claims to be, or is cut off, fails with the reason."""
from __future__ import annotations

import io
from typing import TYPE_CHECKING

from backend.errors import ExtractionError, FileTooLarge
from backend.ingest.types import Block, RawDocument

from .pdf_layout import group_blocks, layout_stats

if TYPE_CHECKING:
    from backend.ingest.ocr import OcrOptions

MAX_PIXELS = 120_000_000  # per frame: an A3 page at 600 dpi is 70 MP
MAX_FRAMES = 500
_MAGIC = {"png": (b"\x89PNG\r\n\x1a\n",), "jpeg": (b"\xff\xd8\xff",),
          "tiff": (b"II*\x00", b"MM\x00*")}
_NAMES = {"png": "PNG", "jpeg": "JPEG", "tiff": "TIFF"}


def sniff_image(data: bytes, fmt: str, filename: str) -> None:
    if not data.startswith(_MAGIC[fmt]):
        raise ExtractionError(filename, f"not a valid {_NAMES[fmt]} image (the content does "
                              f"not start like a {_NAMES[fmt]} file)")


def extract_image(data: bytes, filename: str, fmt: str,
                  ocr: "OcrOptions | None" = None) -> RawDocument:
    from PIL import Image, ImageSequence, UnidentifiedImageError

    from backend.ingest.ocr import OcrOptions, check_available, ocr_images, record

    opts = ocr or OcrOptions(enabled=False)
    version = check_available(opts, filename, "an image has text only through OCR")
    try:
        img = Image.open(io.BytesIO(data))
        frames = []
        for i, frame in enumerate(ImageSequence.Iterator(img)):
            if i >= MAX_FRAMES:
                raise FileTooLarge(filename, f"the image has more than {MAX_FRAMES} frames")
            w, h = frame.size
            if w * h > MAX_PIXELS:
                raise FileTooLarge(filename, f"frame {i + 1} is {w}x{h} pixels, over the limit "
                                   f"of {MAX_PIXELS // 1_000_000} megapixels")
            frame.load()  # decodes now: a truncated file fails here, with the reason
            dpi = _dpi(frame, opts.dpi)
            frames.append((frame.copy(), dpi))
    except (ExtractionError, FileTooLarge):
        raise
    except Image.DecompressionBombError as exc:  # Pillow's own guard (> 2 x its pixel limit)
        raise FileTooLarge(filename, f"the image is too large to decode ({exc})"[:300]) from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError) as exc:
        msg = " ".join(str(exc).split())
        if isinstance(exc, UnidentifiedImageError):  # Pillow names its buffer object here
            msg = "Pillow cannot identify the image data; damaged or not an image"
        raise ExtractionError(filename, f"not a readable {_NAMES[fmt]} image "
                              f"({msg[:200] or type(exc).__name__})") from None
    if len(frames) > opts.max_pages:
        raise FileTooLarge(filename, f"the image has {len(frames)} pages, over the OCR limit of "
                           f"{opts.max_pages} (RAGSCOPE_OCR_MAX_PAGES)")
    pages = ocr_images([f for f, _ in frames], opts, filename,
                       list(range(1, len(frames) + 1)), [d for _, d in frames])
    warnings: list[str] = []
    meta: dict = {}
    record(meta, warnings, pages, opts, version)
    stats = layout_stats([p.lines for p in pages])
    blocks = [Block(text, page=p.number, heading_level=level)
              for p in pages if p.lines
              for text, level in group_blocks(p.lines, stats, _width(p.lines), headings=True)]
    if warnings:
        meta["warnings"] = warnings
    if not blocks:
        raise ExtractionError(filename, "no extractable text (OCR found no text in the image)")
    return RawDocument(blocks=blocks, metadata=meta, page_count=len(frames))


def _dpi(frame, default: int) -> int:
    """The resolution the image declares (150-600 dpi), else the OCR default."""
    dpi = frame.info.get("dpi")
    try:
        x = float(dpi[0]) if dpi else 0.0
    except (TypeError, ValueError, IndexError):
        x = 0.0
    return int(x) if 150 <= x <= 600 else default


def _width(lines) -> int:
    lengths = sorted(len(x.text) for x in lines)
    return lengths[min(len(lengths) - 1, int(len(lengths) * 0.9))] if lengths else 0
