"""OCR throughput and accuracy (issue 14): pages/s and character error rate (CER) of three
ways to OCR a scanned PDF, on the generated scan data/ocr/scan_merkblatt.pdf (2 German pages,
greyscale JPEG at 200 dpi; data/make_ocr_fixtures.py), repeated to `--pages` pages:

  ragscope    the OCR step of backend.ingest.extract.pdf: pypdfium2 renders each page
              in-process at the scan's own resolution (at most 300 dpi), the `tesseract`
              command reads it from stdin and writes hOCR (one single-threaded process per
              page, `--workers` pages at a time);
  pytesseract pdftoppm renders the pages to PNG files at 300 dpi, pytesseract.image_to_string
              per page (same parallelism, OMP_THREAD_LIMIT=1);
  ocrmypdf    `ocrmypdf --jobs N` writes a PDF with a text layer, read back with pypdf.

CER: Levenshtein distance / reference length on whitespace-collapsed text, against the text
layer of the original sample pages (data/ocr/scan_merkblatt.truth.txt).

    python bench/bench_ocr.py [--pages 8] [--workers 2] [--record]
"""
from __future__ import annotations

import argparse
import datetime as dt
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import backend  # noqa: E402,F401

SCAN = ROOT / "data" / "ocr" / "scan_merkblatt.pdf"
TRUTH = ROOT / "data" / "ocr" / "scan_merkblatt.truth.txt"
SECTION = "## OCR throughput and accuracy (issue 14)"
DOC = ROOT / "docs" / "benchmarks.md"


def repeated_scan(pages: int) -> tuple[bytes, str]:
    from pypdf import PdfReader, PdfWriter

    src = PdfReader(str(SCAN))
    truth = TRUTH.read_text().split("\f")
    w = PdfWriter()
    ref = []
    for i in range(pages):
        w.add_page(src.pages[i % len(src.pages)])
        ref.append(truth[i % len(truth)])
    buf = io.BytesIO()
    w.write(buf)
    return buf.getvalue(), "\n".join(ref)


def run_ragscope(pdf: bytes, workers: int) -> str:
    """The OCR step of the PDF extractor (render at the scan's resolution, tesseract hOCR),
    without the layout step: a repeated page would otherwise be dropped as a running header."""
    from pypdf import PdfReader

    from backend.ingest.extract.pdf import _render_dpi
    from backend.ingest.ocr import OcrOptions, ocr_images, render_pdf_pages

    opts = OcrOptions(workers=workers)
    pages = PdfReader(io.BytesIO(pdf)).pages
    out = []
    for start in range(0, len(pages), workers):
        idx = list(range(start, min(len(pages), start + workers)))
        dpis = [_render_dpi(pages[i], opts) for i in idx]
        images = render_pdf_pages(pdf, idx, dpis)
        out += ocr_images(images, opts, "scan.pdf", [i + 1 for i in idx], dpis)
    return "\n".join(x.text for p in out for x in p.lines)


def run_pytesseract(pdf: bytes, workers: int) -> str:
    import pytesseract
    from PIL import Image

    os.environ["OMP_THREAD_LIMIT"] = "1"  # as for ragscope: one core per page, pages in parallel
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "in.pdf"
        src.write_bytes(pdf)
        subprocess.run(["pdftoppm", "-r", "300", "-gray", "-png", str(src), f"{d}/p"], check=True)
        files = sorted(Path(d).glob("p-*.png"))

        def one(p: Path) -> str:
            with Image.open(p) as img:
                return pytesseract.image_to_string(img, lang="deu+eng")

        with ThreadPoolExecutor(workers) as pool:
            return "\n".join(pool.map(one, files))


def run_ocrmypdf(pdf: bytes, workers: int) -> str:
    from pypdf import PdfReader

    with tempfile.TemporaryDirectory() as d:
        src, out = Path(d) / "in.pdf", Path(d) / "out.pdf"
        src.write_bytes(pdf)
        subprocess.run(["ocrmypdf", "-q", "-l", "deu+eng", "--jobs", str(workers),
                        "--output-type", "pdf", "--optimize", "0", str(src), str(out)],
                       check=True)
        return "\n".join(p.extract_text() or "" for p in PdfReader(str(out)).pages)


MODES = {"ragscope": run_ragscope, "pytesseract": run_pytesseract, "ocrmypdf": run_ocrmypdf}


def available(mode: str) -> bool:
    if mode == "pytesseract":
        try:
            import pytesseract  # noqa: F401
        except ImportError:
            return False
        return shutil.which("pdftoppm") is not None
    if mode == "ocrmypdf":
        return shutil.which("ocrmypdf") is not None
    return True


def main() -> None:
    from backend.ingest.ocr import character_error_rate, tesseract_info

    ap = argparse.ArgumentParser()
    ap.add_argument("--pages", type=int, default=8)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--record", action="store_true")
    a = ap.parse_args()
    pdf, truth = repeated_scan(a.pages)
    rows = []
    for mode, fn in MODES.items():
        if not available(mode):
            print(f"{mode}: not installed, skipped")
            continue
        t = time.perf_counter()
        text = fn(pdf, a.workers)
        secs = time.perf_counter() - t
        cer = character_error_rate(text, truth)
        rows.append((mode, secs, a.pages / secs, cer))
        print(f"{mode:12} {secs:7.1f} s  {a.pages / secs:5.2f} pages/s  CER {cer:.2%}")
    load = os.getloadavg()
    info = tesseract_info()
    lines = [SECTION, "",
             f"Measured {dt.date.today().isoformat()} on {os.cpu_count()} cores (`nproc`), "
             f"load average at the end {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (shared "
             f"machine); tesseract {info[0] if info else '?'}, languages deu+eng, 300 dpi. "
             f"Input: data/ocr/scan_merkblatt.pdf repeated to {a.pages} pages; "
             f"{a.workers} pages in parallel. Reproduce: `python bench/bench_ocr.py --pages "
             f"{a.pages} --record`.", "",
             "| way | seconds | pages/s | CER |", "|---|---:|---:|---:|"]
    lines += [f"| {m} | {s:.1f} | {r:.2f} | {c:.2%} |" for m, s, r, c in rows]
    print("\n".join(lines))
    if a.record:
        _record("\n".join(lines) + "\n")


def _record(section: str) -> None:
    text = DOC.read_text()
    if SECTION in text:
        head, _, rest = text.partition(SECTION)
        nxt = rest.find("\n## ")
        text = head + section + (rest[nxt + 1:] if nxt >= 0 else "")
        if nxt >= 0:
            text = text.replace(section, section + "\n", 1)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    DOC.write_text(text)


if __name__ == "__main__":
    main()
