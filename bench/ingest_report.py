"""The tables of bench/bench_ingest.py's report (rates, machine load per phase, ingest
stages) and its section in docs/benchmarks.md."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from docs_record import record_section

if TYPE_CHECKING:
    from bench_ingest import Result

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## Ingestion throughput (issue 2)"
DOC = ROOT / "docs" / "benchmarks.md"


def table(results: list[Result]) -> str:
    head = ("| corpus | files | chunks | ingest s | ingest chunks/s | bare encode s "
            "| bare encode chunks/s | ratio | peak RSS after ingest |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    lines = []
    for r in results:
        files = f"{r.files}" + (f" ({r.failed} failed)" if r.failed else "")
        lines.append(f"| {r.name} | {files} | {r.chunks:,} | {r.ingest.wall:.1f} | {r.rate:.1f} "
                     f"| {r.bare.wall:.1f} | {r.bare_rate:.1f} | **{r.ratio:.2f}** "
                     f"| {r.rss_after_ingest:,.0f} MiB |")
    return head + "\n".join(lines) + "\n"


def load_table(results: list[Result]) -> str:
    head = ("| phase | wall s | process CPU s | other processes (avg cores) | load 1-min start→end |\n"
            "|---|---:|---:|---:|---|\n")
    lines = []
    for r in results:
        phases = [("ingest", r.ingest), ("bare encode", r.bare)]
        if r.grouped:
            phases.append(("bare encode, one call per document", r.grouped))
        for label, p in phases:
            others = f"{p.others_cores:.2f}" if p is not r.grouped else "–"
            lines.append(f"| {r.name}: {label} | {p.wall:.1f} | {p.cpu:.1f} | {others} "
                         f"| {p.load[0]:.2f} → {p.load[1]:.2f} |")
    return head + "\n".join(lines) + "\n"


def stage_table(r: Result) -> str:
    total = r.ingest.wall
    head = (f"| stage ({r.name}, {r.chunks:,} chunks) | wall s | share | CPU s | ms/chunk |\n"
            "|---|---:|---:|---:|---:|\n")
    lines = [f"| {label} | {w:.2f} | {100 * w / total:.1f} % | {c:.2f} | "
             f"{1000 * w / max(1, r.chunks):.2f} |" for label, w, c in r.stages]
    lines.append(f"| **total** | {total:.2f} | 100 % | {r.ingest.cpu:.2f} | "
                 f"{1000 * total / max(1, r.chunks):.2f} |")
    return head + "\n".join(lines) + "\n"


def record(section: str) -> None:
    record_section(SECTION, section, DOC)
    print(f"recorded in {DOC.relative_to(ROOT)}", file=sys.stderr)
