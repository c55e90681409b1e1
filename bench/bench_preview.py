"""Citation preview benchmark (issue 23): the time to render a cited PDF page as PNG with
the quote boxed (`backend.chat.preview.render`, what `GET /api/documents/{id}/versions/
{v}/pages/{p}.png` does after the ACL check and reading the original), per page of the
sample PDFs, the quote being the page's longest line of text.

    python bench/bench_preview.py               # 5 rounds over every page of the sample PDFs
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _quote(data: bytes, page: int) -> str:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(data)
    try:
        tp = pdf[page - 1].get_textpage()
        lines = [x.strip() for x in tp.get_text_range().splitlines()]
        return max(lines, key=len) if lines else ""
    finally:
        pdf.close()


def main() -> None:
    from backend.chat.preview import render

    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    times, sizes, boxed, pages = [], [], 0, 0
    for path in sorted((ROOT / "data" / "samples").glob("*.pdf")):
        data = path.read_bytes()
        n = render(data, 1).pages
        for page in range(1, n + 1):
            quote = _quote(data, page)
            pages += 1
            for _ in range(args.rounds):
                t0 = time.perf_counter()
                out = render(data, page, quote)
                times.append((time.perf_counter() - t0) * 1000)
            sizes.append(len(out.png))
            boxed += out.boxes > 0
    times.sort()
    print(f"{pages} pages of {len(list((ROOT / 'data' / 'samples').glob('*.pdf')))} PDFs, "
          f"{args.rounds} rounds; quote boxed on {boxed} of {pages} pages")
    print(f"render+highlight+PNG: median {statistics.median(times):.0f} ms, "
          f"p95 {times[int(0.95 * (len(times) - 1))]:.0f} ms, max {times[-1]:.0f} ms; "
          f"PNG median {statistics.median(sizes) / 1024:.0f} KiB; cores {os.cpu_count()}")


if __name__ == "__main__":
    main()
