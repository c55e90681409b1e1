"""Aligned-table detection (issue 22, item 6): what it costs at ingest.

1. PDF extraction of the sample PDFs with and without table detection (it reads every page a
   second time in pypdf's layout mode): milliseconds per page, best of `--repeat` runs of
   each, interleaved.
2. `split_tables` on generated text of 5,000 lines each: an aligned table, double-spaced
   prose (the worst case: every line is a candidate, bounded by MAX_FAILURES) and alternating
   gapped and plain lines; milliseconds per 1,000 lines.

    python bench/bench_tables.py [--repeat 3] [--record]
"""
from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import sys
import time
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from backend.ingest.extract import extract  # noqa: E402
from backend.ingest.extract.aligned import split_tables  # noqa: E402
from bench.docs_record import record_section  # noqa: E402

SECTION = "## Aligned tables at ingest (issue 22)"
LINES = 5000


def _pdf_once(paths: list[Path], tables: bool) -> tuple[float, int]:
    off = mock.patch("backend.ingest.extract.pdf.page_tables", lambda page, lines: [])
    pages = 0
    t0 = time.perf_counter()
    with contextlib.nullcontext() if tables else off:
        for p in paths:
            pages += extract(p.read_bytes(), p.name).page_count or 0
    return time.perf_counter() - t0, pages


def _pdf_ms(paths: list[Path], repeat: int) -> tuple[float, float, int]:
    """Best of `repeat` runs each without and with table detection, interleaved (after one
    warm-up of each) so the load of the shared machine hits both alike."""
    _pdf_once(paths, False), _pdf_once(paths, True)
    off, on = [], []
    for _ in range(repeat):
        off.append(_pdf_once(paths, False))
        on.append(_pdf_once(paths, True))
    pages = off[0][1]
    return (min(t for t, _ in off) * 1000 / pages, min(t for t, _ in on) * 1000 / pages, pages)


def _texts() -> dict[str, str]:
    return {
        "aligned table": "\n".join(f"Position {i:<10}      {i * 3:>10},00 EUR     Gewerk {i % 7}"
                                   for i in range(LINES)),
        "double-spaced prose": "\n".join(
            f"Die Pumpe {i} wurde am Montag geprüft.  Sie läuft ohne Befund und das Ventil"
            for i in range(LINES)),
        "alternating lines": "\n".join(f"x{i}  y{i}" if i % 2 else f"a b c d e f {i}"
                                       for i in range(LINES)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--record", action="store_true", help="write the figures to docs/benchmarks.md")
    args = ap.parse_args()
    pdfs = sorted((ROOT / "data" / "samples").glob("*.pdf"))
    off, on, pages = _pdf_ms(pdfs, args.repeat)
    rows = [f"| PDF extraction, {len(pdfs)} sample PDFs ({pages} pages) | {off:.1f} ms/page | "
            f"{on:.1f} ms/page |"]
    for name, text in _texts().items():
        t0 = time.perf_counter()
        found = sum(p.rows is not None for p in split_tables(text))
        ms = (time.perf_counter() - t0) * 1000 * 1000 / LINES
        rows.append(f"| `split_tables`, {name} ({LINES:,} lines, {found} tables) | – | "
                    f"{ms:.1f} ms per 1,000 lines |")
    load = os.getloadavg()[0]
    report = "\n".join([
        SECTION, "",
        f"{dt.date.today().isoformat()}, nproc {os.cpu_count()}, load average {load:.1f} "
        f"(shared machine); `python bench/bench_tables.py --repeat {args.repeat}`.", "",
        "| what | without table detection | with |", "|---|---|---|", *rows, ""])
    print(report)
    if args.record:
        record_section(SECTION, report + "\n")


if __name__ == "__main__":
    main()
