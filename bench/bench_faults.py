"""Fault campaign (issue 21, section 5): break a data dir the ways operators and machines do,
then ask `check` whether it notices and `check --repair` (or `reindex`) whether it restores,
without losing a stored original.

    python bench/bench_faults.py                   # every scenario, print the matrix
    python bench/bench_faults.py --only wal,disk   # some of them (names below, prefixes work)
    python bench/bench_faults.py --record          # also write the matrix into docs/reliability.md

Scenarios, each on its own copy of one prepared data dir (the sample corpus plus 300 generated
Markdown files, about 1,100 chunks, so that Chroma has written its HNSW segment to disk):
- `api-kill-ask`: `kill -9` of `python -m backend api` while an `/api/ask` stream is open;
- `api-kill-upload`: `kill -9` of the API while its background job ingests an upload of 20 files;
- `disk-full`: the data dir on a small tmpfs that runs full during an ingest (root only; the
  scenario says "skipped" elsewhere);
- `wal-truncated`: the store's SQLite write-ahead log cut in half after an ingest whose commits
  were still only in the log (a reader held them there, as the dashboard does);
- `chroma-segment-deleted`: Chroma's HNSW segment file `data_level0.bin` deleted;
- `tantivy-segment-corrupted`: bytes of tantivy's largest segment store file overwritten.
After the fault: `check` must fail with a message naming what is wrong; the restoring command
must end in `check --full` reporting ok; every original file stored before the fault must still
be there with its SHA-256; a search for a marker sentence must find its document.

Loopback only; every wait is bounded (the whole campaign takes a few minutes on 2 cores)."""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from bench_api import prepare  # noqa: E402  (the API bench's setup, reused)
from fault_checks import Outcome, cli, problem_lines, write_docs  # noqa: E402
from fault_scenarios import (  # noqa: E402
    scenario_api_kill_ask,
    scenario_api_kill_upload,
    scenario_chroma_deleted,
    scenario_disk_full,
    scenario_tantivy_corrupted,
    scenario_wal_truncated,
)

DOC = ROOT / "docs" / "reliability.md"
MATRIX_HEADING = "## The fault matrix"


# -- the campaign ------------------------------------------------------------------------------

def prepare_base(base: Path) -> tuple[str, str, str]:
    """Samples + 300 generated files; a read token, a write token, a marker to search for."""
    token = prepare(base)
    from backend.api.tokens import create_token
    from backend.security import acl
    from backend.security.access import Actor
    from backend.config import Settings
    from backend.services.container import Ragscope

    rs = Ragscope(Settings(data_dir=base))
    system = Actor.system("bench")
    acl.create_group(rs, system, "bench-writers")
    acl.grant(rs, system, "bench-writers", rs.settings.default_knowledge_base, "write")
    acl.add_member(rs, system, "bench-writers", "principal", "bench-writer")
    write_token = create_token(rs.store, "bench-writer", ["read", "write"],
                               created_by="bench", expires_days=1)[1]
    rs.close()
    markers = write_docs(base.parent / "gen", 300, seed=1)
    ing = cli(base, "ingest", str(base.parent / "gen"), "--collection", "samples")
    if ing.returncode != 0:
        raise RuntimeError(f"preparing the base data dir failed: {problem_lines(ing)}")
    return token, write_token, markers[7]


SCENARIOS = ("api-kill-ask", "api-kill-upload", "disk-full", "wal-truncated",
             "chroma-segment-deleted", "tantivy-segment-corrupted")


def run(names: list[str]) -> list[Outcome]:
    work = Path(tempfile.mkdtemp(prefix="ragscope-faults-"))
    try:
        base = work / "base"
        t0 = time.perf_counter()
        token, write_token, marker = prepare_base(base)
        print(f"prepared the base data dir in {time.perf_counter() - t0:.0f} s", flush=True)
        results = []
        for name in names:
            out = Outcome(name)
            t0 = time.perf_counter()
            copy = work / name / "data"
            shutil.copytree(base, copy, symlinks=True)
            calls: dict[str, Callable[[], None]] = {
                "api-kill-ask": lambda: scenario_api_kill_ask(out, copy, token, marker),
                "api-kill-upload": lambda: scenario_api_kill_upload(out, copy, token, marker,
                                                                    write_token),
                "disk-full": lambda: scenario_disk_full(out, base, work / name, marker),
                "wal-truncated": lambda: scenario_wal_truncated(out, base, work / name, marker),
                "chroma-segment-deleted": lambda: scenario_chroma_deleted(out, copy, marker),
                "tantivy-segment-corrupted": lambda: scenario_tantivy_corrupted(out, copy,
                                                                                marker),
            }
            try:
                calls[name]()
            except Exception as exc:  # a scenario that breaks is a finding, not the end
                out.notes.append(f"the scenario raised {type(exc).__name__}: {exc}"[:300])
                out.restored = False
            out.seconds = round(time.perf_counter() - t0, 1)
            print(json.dumps(asdict(out), ensure_ascii=False), flush=True)
            results.append(out)
        return results
    finally:
        shutil.rmtree(work, ignore_errors=True)


def matrix(results: list[Outcome]) -> str:
    def mark(v: bool | None) -> str:
        return {True: "yes", False: "**no**", None: "–"}[v]

    rows = []
    for o in results:
        if o.skipped:
            rows.append(f"| `{o.scenario}` | {o.fault} | skipped: {o.skipped} | | | | |")
            continue
        says = o.check_says.replace("|", "\\|") or "ok (nothing half-written)"
        notes = "; ".join(o.notes).replace("|", "\\|")
        rows.append(f"| `{o.scenario}` | {o.fault} | {mark(o.detected)}: {says} | "
                    f"{o.restored_by}: {mark(o.restored)} | {mark(o.originals_kept)} | "
                    f"{mark(o.marker_found)} | {o.seconds} s. {notes} |")
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    return (f"{MATRIX_HEADING}\n\nMeasured {dt.date.today().isoformat()} on {os.cpu_count()} "
            f"cores, Python {platform.python_version()}, load average at the end {load}. "
            "Reproduce: `python bench/bench_faults.py --record`.\n\n"
            "| scenario | fault | `check` notices | restored by: `check --full` ok after | "
            "originals kept | marker found | time, notes |\n"
            "|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n")


def record(results: list[Outcome]) -> None:
    text = DOC.read_text(encoding="utf-8") if DOC.exists() else "# Reliability\n"
    start = text.find(MATRIX_HEADING)
    section = matrix(results)
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        nxt = text.find("\n## ", start + len(MATRIX_HEADING))
        text = text[:start] + section + (text[nxt:] if nxt >= 0 else "")
    DOC.write_text(text, encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="comma-separated scenario names or prefixes")
    ap.add_argument("--record", action="store_true", help="write the matrix to docs/reliability.md")
    args = ap.parse_args()
    wanted = [w.strip() for w in args.only.split(",") if w.strip()]
    names = [n for n in SCENARIOS if not wanted or any(n.startswith(w) for w in wanted)]
    results = run(names)
    print(matrix(results))
    if args.record:
        record(results)
    return 0 if all(o.passed for o in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
