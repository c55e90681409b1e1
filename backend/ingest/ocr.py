"""OCR fallback: page images -> text lines with geometry and a confidence, via Tesseract.

Used by the PDF extractor for pages without a usable text layer (a scanned PDF, or the
scanned pages of a mixed PDF) and by the image extractor (PNG, JPEG, TIFF). Each page image
goes to the `tesseract` command (Debian: tesseract-ocr, tesseract-ocr-deu,
tesseract-ocr-eng) as a PNG on stdin; its hOCR output gives lines with their box, baseline
and letter size and every word's confidence. The lines come back as `pdf_layout.Line`s in
PDF points, so OCR pages go through the same paragraph, heading and running-header logic
as text pages. Pages run in parallel (one single-threaded tesseract process per page).

Why the `tesseract` command directly, and PDF pages rendered with pypdfium2 (measured in
bench/bench_ocr.py, docs/benchmarks.md): ocrmypdf writes a new PDF with a text layer that
would then be parsed again and does not report per-page confidence; pytesseract writes
temp files and cannot limit the OpenMP threads of its child; pdftoppm is a separate process
per page that writes files, pypdfium2 renders in-process."""
from __future__ import annotations

import io
import logging
import os
import re
import shutil
import statistics
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache

from backend.errors import ExtractionError
from backend.ingest.extract.pdf_layout import Line

log = logging.getLogger(__name__)
_TITLE_FIELD = re.compile(r"(\w+) ([^;]+)")
_LANG_PACKAGES = {"deu": "tesseract-ocr-deu", "eng": "tesseract-ocr-eng"}
SIZE_TOLERANCE = 0.12  # letter sizes within this share of the page's body size are body text


@dataclass(frozen=True)
class OcrOptions:
    enabled: bool = True
    languages: str = "deu+eng"
    dpi: int = 300
    min_confidence: float = 70.0  # percent; a page below gets a warning and a trait
    min_page_chars: int = 20  # a PDF page whose text layer has fewer characters is OCR'd
    timeout_s: float = 120.0  # per page
    workers: int = 2
    max_pages: int = 300

    @classmethod
    def from_settings(cls, settings) -> "OcrOptions":
        return cls(enabled=settings.ocr_enabled, languages=settings.ocr_languages,
                   dpi=settings.ocr_dpi, min_confidence=settings.ocr_min_confidence,
                   min_page_chars=settings.ocr_min_page_chars, timeout_s=settings.ocr_timeout_s,
                   workers=settings.ocr_workers or max(1, os.cpu_count() or 1),
                   max_pages=settings.ocr_max_pages)


@dataclass
class OcrPage:
    number: int  # 1-based page number in the document
    lines: list[Line] = field(default_factory=list)
    confidence: float | None = None  # mean word confidence in percent (None: no words)
    words: int = 0


# ---- availability -------------------------------------------------------------------------


@lru_cache(maxsize=1)
def tesseract_info() -> tuple[str, frozenset[str]] | None:
    """(version, installed languages) of the tesseract command, or None when missing."""
    exe = shutil.which("tesseract")
    if exe is None:
        return None
    try:
        ver = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
        langs = subprocess.run([exe, "--list-langs"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    version = (ver.stdout or ver.stderr).split("\n", 1)[0].replace("tesseract", "").strip()
    names = frozenset(x.strip() for x in langs.stdout.splitlines()[1:] if x.strip())
    return version, names


def check_available(opts: OcrOptions, filename: str, why: str) -> str:
    """The tesseract version; raises ExtractionError naming what is missing otherwise."""
    if not opts.enabled:
        raise ExtractionError(filename, f"{why}; OCR is switched off (RAGSCOPE_OCR_ENABLED)")
    info = tesseract_info()
    if info is None:
        raise ExtractionError(filename, f"{why}; OCR needs the tesseract command (Debian: "
                              "apt-get install tesseract-ocr tesseract-ocr-deu tesseract-ocr-eng)")
    version, have = info
    missing = [x for x in opts.languages.split("+") if x and x not in have]
    if missing:
        pkgs = " ".join(_LANG_PACKAGES.get(x, f"tesseract-ocr-{x}") for x in missing)
        raise ExtractionError(filename, f"{why}; OCR language data {', '.join(missing)} is not "
                              f"installed (RAGSCOPE_OCR_LANGUAGES; Debian: apt-get install {pkgs})")
    return version


# ---- recognising pages ----------------------------------------------------------------------


def ocr_images(images, opts: OcrOptions, filename: str, numbers: list[int],
               dpis: list[int] | None = None) -> list[OcrPage]:
    """OCR page images (PIL) in parallel; `numbers` are their 1-based page numbers, `dpis`
    their resolutions (default: `opts.dpi`, the resolution PDF pages are rendered at)."""
    def one(item):
        number, img, dpi = item
        return _ocr_one(img, number, dpi, opts, filename)

    items = list(zip(numbers, images, dpis or [opts.dpi] * len(images)))
    if len(items) <= 1 or opts.workers <= 1:
        return [one(x) for x in items]
    with ThreadPoolExecutor(max_workers=min(opts.workers, len(items))) as pool:
        return list(pool.map(one, items))


def _ocr_one(img, number: int, dpi: int, opts: OcrOptions, filename: str) -> OcrPage:
    img = _prepared(img)
    buf = io.BytesIO()
    img.save(buf, "PNG")
    cmd = ["tesseract", "stdin", "stdout", "-l", opts.languages, "--dpi", str(dpi),
           "--psm", "3", "hocr"]
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}  # one core per page; pages run in parallel
    try:
        res = subprocess.run(cmd, input=buf.getvalue(), capture_output=True, env=env,
                             timeout=opts.timeout_s)
    except subprocess.TimeoutExpired:
        raise ExtractionError(filename, f"page {number}: OCR took longer than "
                              f"{opts.timeout_s:g} s (RAGSCOPE_OCR_TIMEOUT_S)") from None
    except OSError as e:
        raise ExtractionError(filename, f"page {number}: tesseract could not run ({e})") from None
    if res.returncode != 0:
        msg = " ".join(res.stderr.decode(errors="replace").split())[:200]
        raise ExtractionError(filename, f"page {number}: tesseract failed ({msg})")
    return parse_hocr(res.stdout, number, dpi, img.height)


def _prepared(img):
    """Greyscale (or 1-bit) image for tesseract; other modes (palette, CMYK, alpha) converted."""
    if img.mode in ("1", "L"):
        return img
    if img.mode in ("RGBA", "LA", "P"):
        from PIL import Image

        rgba = img.convert("RGBA")
        bg = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        img = Image.alpha_composite(bg, rgba)
    return img.convert("L")


def parse_hocr(data: bytes, number: int, dpi: int, height_px: int) -> OcrPage:
    """hOCR of one page -> lines in PDF points (y from the bottom, like pypdf) with a letter
    size snapped to the page's body size when close to it, plus the mean word confidence."""
    from lxml import html as lhtml

    page = OcrPage(number)
    if not data.strip():
        return page
    tree = lhtml.fromstring(data)
    scale = 72.0 / dpi
    conf_sum = weight = 0.0
    raw: list[tuple[str, float | None, float]] = []
    for line in tree.xpath("//*[contains(concat(' ', @class, ' '), ' ocr_line ') or "
                           "contains(@class, 'ocr_header') or contains(@class, 'ocr_caption') "
                           "or contains(@class, 'ocr_textfloat')]"):
        props = _title(line.get("title", ""))
        words = []
        for w in line.xpath(".//*[contains(@class, 'ocrx_word')]"):
            text = " ".join("".join(w.itertext()).split())
            if not text:
                continue
            words.append(text)
            conf = _float(_title(w.get("title", "")).get("x_wconf"))
            if conf is not None and conf >= 0:
                conf_sum += conf * len(text)
                weight += len(text)
        if not words:
            continue
        box = [float(x) for x in props.get("bbox", "0 0 0 0").split()]
        base = props.get("baseline", "0 0").split()
        y_px = box[3] + (float(base[1]) if len(base) == 2 else 0.0)
        size_px = _float(props.get("x_size")) or (box[3] - box[1])
        raw.append((" ".join(words), (height_px - y_px) * scale, size_px * scale))
    page.words = sum(len(t.split()) for t, _, _ in raw)
    page.confidence = round(conf_sum / weight, 1) if weight else None
    if raw:
        body = statistics.median(s for _, _, s in raw)
        page.lines = [Line(t, y, body if abs(s - body) <= SIZE_TOLERANCE * body else s)
                      for t, y, s in raw]
    return page


def _title(title: str) -> dict[str, str]:
    return {m.group(1): m.group(2).strip() for m in _TITLE_FIELD.finditer(title)}


def _float(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def record(meta: dict, warnings: list[str], pages: list[OcrPage], opts: OcrOptions,
           version: str) -> None:
    """Put the OCR facts into the extracted metadata (kept in the version's meta): engine,
    languages, resolution, each page's confidence; a warning per page below the minimum."""
    low = [p.number for p in pages if p.confidence is not None
           and p.confidence < opts.min_confidence]
    for p in pages:
        if p.number in low:
            warnings.append(f"page {p.number}: OCR confidence {p.confidence:.0f} % is below "
                            f"{opts.min_confidence:g} % (RAGSCOPE_OCR_MIN_CONFIDENCE); check the "
                            "text against the original")
        elif not p.words:
            warnings.append(f"page {p.number}: OCR found no text")
    confs = [(p.confidence, p.words) for p in pages if p.confidence is not None]
    meta["ocr"] = {
        "engine": f"tesseract {version}", "languages": opts.languages, "dpi": opts.dpi,
        "pages": {str(p.number): p.confidence for p in pages},
        "mean_confidence": round(sum(c * w for c, w in confs) / max(1, sum(w for _, w in confs)),
                                 1) if confs else None,
        "low_confidence_pages": low, "min_confidence": opts.min_confidence,
    }


# ---- rendering PDF pages ------------------------------------------------------------------


def render_pdf_pages(data: bytes, indices: list[int], dpis: list[int],
                     password: str | None = None):
    """PIL greyscale images of the given 0-based pages of a PDF (pypdfium2), each at its dpi."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(data, password=password)
    try:
        return [doc[i].render(scale=dpi / 72, grayscale=True).to_pil().convert("L")
                for i, dpi in zip(indices, dpis)]
    finally:
        doc.close()


# ---- quality --------------------------------------------------------------------------------


def character_error_rate(hypothesis: str, reference: str) -> float:
    """Levenshtein distance / reference length, on whitespace-collapsed text (the usual CER;
    line breaks and hyphenation at line ends do not count as errors)."""
    from rapidfuzz.distance import Levenshtein

    def norm(s: str) -> str:
        s = re.sub(r"(\w)-\s*\n\s*(\w)", r"\1\2", s)  # words hyphenated at a line end
        return " ".join(s.split())

    ref, hyp = norm(reference), norm(hypothesis)
    return Levenshtein.distance(hyp, ref) / max(1, len(ref))
