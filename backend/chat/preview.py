"""A cited PDF page as a PNG with the quote highlighted (issue 23): the `preview_url` of a
citation (backend/chat/citations.py), served by `GET /api/documents/{id}/versions/{v}/
pages/{page}.png` and shown by the dashboard's "Open in document".

The page is rendered with pypdfium2 (in-process, as the OCR does). The quote is given as
`[quote_start, quote_end)` in the version's normalised text; that text was reflowed at
ingest (lines joined, hyphens kept, spaces collapsed), so its offsets do not index the
PDF's characters directly. The quote is therefore found again in the page's own text
layer by its letters and digits only (case-folded, NFKC: ligatures become their letters),
which maps every matched letter back to a PDF character; pdfium's text page gives the
boxes of those characters, line by line, which are drawn as translucent yellow boxes with
an orange outline. A page without a text layer (scanned, OCR'd at ingest) or a quote the
page does not hold is rendered without a box (`PagePreview.boxes == 0`).

ACL: the document is looked up within the actor's scope first (backend/services/navigation.py), so
a document outside it is "not found" exactly like a missing one."""
from __future__ import annotations

import io
import unicodedata
from dataclasses import dataclass

from backend.security import access
from backend.services import navigation
from backend.security.access import Actor
from backend.errors import NotFound
from backend.services.navigation import NavigationError

SCALE = 1.5  # 108 dpi: a 595 x 842 pt A4 page becomes 893 x 1263 px (readable, ~150 KB)
FILL = (255, 225, 0, 90)  # translucent yellow over the quote's lines
OUTLINE = (230, 110, 0, 255)  # the box edge the tests look for
PNG_LEVEL = 1  # zlib level: see docs/benchmarks.md "Citation preview"
PAD = 2  # px above and below each line box
PAD_X = 5  # px left and right: pdfium's tight glyph boxes left the last letter's edge out


@dataclass(frozen=True)
class PagePreview:
    png: bytes
    page: int
    pages: int
    boxes: int  # highlight boxes drawn (0: no quote given, or not found on the page)


def page_png(rs, actor: Actor, doc_id: int, version: int, page: int,
             quote_start: int | None = None, quote_end: int | None = None) -> PagePreview:
    """The PNG of page `page` (1-based) of version `version` of a PDF document, with the
    quote `[quote_start, quote_end)` of the version text highlighted when given."""
    text, file_type = _version_text(rs, actor, doc_id, version)
    if file_type != "pdf":
        raise NavigationError("page", f"document {doc_id} is a {file_type.upper() or 'non-PDF'}"
                                      " file: page images exist for PDF documents only; read "
                                      f"its text at /api/documents/{doc_id}/fulltext")
    quote = _quote(text, quote_start, quote_end)
    data = navigation.original(rs, actor, doc_id, version=version).data
    return render(data, page, quote, doc_id=doc_id)


def _version_text(rs, actor: Actor, doc_id: int, version: int) -> tuple[str, str]:
    scope = access.scope_of(rs, actor)
    with rs.store.session() as s:
        v = navigation._version(s, scope, doc_id, version)  # NotFound outside the scope
        return v.text or "", (v.document.file_type or "").lower()


def _quote(text: str, start: int | None, end: int | None) -> str:
    if start is None and end is None:
        return ""
    if start is None or end is None:
        raise NavigationError("quote_start" if start is None else "quote_end",
                              "give both quote_start and quote_end, or neither")
    if not 0 <= start < end <= len(text):
        raise NavigationError("quote_end", f"the quote [{start}, {end}) lies outside the "
                                           f"version's text of {len(text):,} characters")
    return text[start:end]


def render(data: bytes, page: int, quote: str = "", *, doc_id: int = 0) -> PagePreview:
    """Render page `page` of the PDF `data` with `quote` highlighted."""
    import pypdfium2 as pdfium
    from PIL import Image, ImageDraw

    pdf = pdfium.PdfDocument(data)
    try:
        n = len(pdf)
        if not 1 <= page <= n:
            raise NotFound(f"document {doc_id} has {n} page(s); there is no page {page}")
        p = pdf[page - 1]
        image = p.render(scale=SCALE).to_pil().convert("RGBA")
        boxes = quote_boxes(p, quote) if quote else []
        p.close()
    finally:
        pdf.close()
    if boxes:
        overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
        draw = ImageDraw.Draw(overlay)
        for box in boxes:
            draw.rectangle(box, fill=FILL, outline=OUTLINE, width=3)
        image = Image.alpha_composite(image, overlay)
    out = io.BytesIO()
    image.convert("RGB").save(out, format="PNG", compress_level=PNG_LEVEL)
    return PagePreview(out.getvalue(), page, n, len(boxes))


def quote_boxes(p, quote: str) -> list[tuple[int, int, int, int]]:
    """Pixel boxes (left, top, right, bottom) at SCALE of the lines of `quote` on the pdfium
    page `p`; empty when its text layer does not hold the quote."""
    tp = p.get_textpage()
    try:
        span = find_chars(tp.get_text_range(), quote)
        if span is None:
            return []
        left0, _, _, top0 = p.get_bbox()
        boxes = []
        for i in range(tp.count_rects(span[0], span[1] - span[0])):
            left, bottom, right, top = tp.get_rect(i)
            boxes.append((int((left - left0) * SCALE) - PAD_X, int((top0 - top) * SCALE) - PAD,
                          int((right - left0) * SCALE) + PAD_X,
                          int((top0 - bottom) * SCALE) + PAD))
        return boxes
    finally:
        tp.close()


def _letters(text: str) -> tuple[str, list[int]]:
    """The letters and digits of `text`, case-folded and NFKC-normalised, with the index
    in `text` each comes from."""
    out, where = [], []
    for i, ch in enumerate(text):
        for c in unicodedata.normalize("NFKC", ch).casefold():
            if c.isalnum():
                out.append(c)
                where.append(i)
    return "".join(out), where


def find_chars(page_text: str, quote: str) -> tuple[int, int] | None:
    """[start, end) of `quote` among the characters of `page_text` (pdfium's, one per
    character index), matched on letters and digits only; None when absent."""
    hay, where = _letters(page_text)
    needle, _ = _letters(quote)
    if not needle:
        return None
    at = hay.find(needle)
    if at < 0:
        return None
    return where[at], where[at + len(needle) - 1] + 1
