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
import contextlib
import datetime as dt
import hashlib
import json
import os
import platform
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from bench_api import _free_port, prepare, start_server  # noqa: E402  (the API bench's setup, reused)

DOC = ROOT / "docs" / "reliability.md"
MATRIX_HEADING = "## The fault matrix"
WORDS = ("pump valve pressure line service check filter tank sensor plant motor gauge relay "
         "switch cable panel meter water flow level alarm drive belt seal gasket bolt frame "
         "shaft bearing").split()
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "OPENBLAS_NUM_THREADS": "1",
       "TOKENIZERS_PARALLELISM": "false"}


@dataclass
class Outcome:
    scenario: str
    fault: str = ""
    detected: bool | None = None
    check_says: str = ""
    restored_by: str = ""
    restored: bool | None = None
    originals_kept: bool | None = None
    marker_found: bool | None = None
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    skipped: str = ""

    @property
    def passed(self) -> bool:
        return bool(self.skipped) or bool(self.detected is not False and self.restored
                                          and self.originals_kept and self.marker_found
                                          is not False)


def write_docs(dest: Path, n: int, seed: int, prefix: str = "doc", paras: int = 4) -> list[str]:
    """`n` small Markdown files of random words, each with one unique marker; the markers."""
    rng = random.Random(seed)
    dest.mkdir(parents=True, exist_ok=True)
    markers = []
    for i in range(n):
        marker = f"ZQ{seed:02d}{i:04d}X"
        body = [" ".join(rng.choice(WORDS) for _ in range(60)) + "." for _ in range(paras)]
        (dest / f"{prefix}{seed:02d}_{i:03d}.md").write_text(
            f"# {prefix.title()} {seed}-{i}\n\n" + "\n\n".join(body)
            + f"\n\nThe marker of this file is {marker}.\n", encoding="utf-8")
        markers.append(marker)
    return markers


def cli(data_dir: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {**ENV, "RAGSCOPE_DATA_DIR": str(data_dir)}
    return subprocess.run([sys.executable, "-m", "backend", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def originals(data_dir: Path) -> dict[str, str]:
    """Relative path → SHA-256 of every stored original."""
    base = data_dir / "originals"
    return {str(p.relative_to(base)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(base.rglob("*")) if p.is_file()}


def problem_lines(proc: subprocess.CompletedProcess) -> str:
    """The lines of `check` output that say what differs (progress bars left out)."""
    lines = [ln.strip() for ln in (proc.stdout + "\n" + proc.stderr).splitlines()
             if ln.strip() and "reading back" not in ln and "Loading" not in ln]
    text = " / ".join(lines[:4])
    return re.sub(r" \(e\.g\. [0-9a-f, ]+\)", "", text)[:400]  # ids say nothing here


def marker_found(data_dir: Path, marker: str) -> bool:
    proc = cli(data_dir, "search", marker, "--k", "5", "--local", "--json")
    return proc.returncode == 0 and marker in proc.stdout


def restore(out: Outcome, data_dir: Path, before: dict[str, str], marker: str,
            command: tuple[str, ...] = ("check", "--repair")) -> None:
    """Run the restoring command, then the full check; compare originals; search a marker."""
    fix = cli(data_dir, *command)
    out.restored_by = " ".join(command)
    if fix.returncode not in (0, 1):
        out.notes.append(f"{out.restored_by} exited {fix.returncode}: {problem_lines(fix)}")
    full = cli(data_dir, "check", "--full")
    out.restored = full.returncode == 0
    if not out.restored:
        out.notes.append(f"check --full after restore: {problem_lines(full)}")
    after = originals(data_dir)
    lost = [k for k, v in before.items() if after.get(k) != v]
    out.originals_kept = not lost
    if lost:
        out.notes.append(f"{len(lost)} stored originals lost or changed")
    out.marker_found = marker_found(data_dir, marker)


def detect(out: Outcome, data_dir: Path) -> None:
    proc = cli(data_dir, "check")
    out.detected = proc.returncode != 0
    out.check_says = problem_lines(proc)


# -- the API ---------------------------------------------------------------------------------

def start_api(data_dir: Path) -> tuple[subprocess.Popen, str]:
    """`python -m backend api` on a free port (bench_api's start_server), and its URL."""
    port = _free_port()
    return start_server(data_dir, port), f"http://127.0.0.1:{port}"


def kill9(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


def ask_ok(url: str, token: str, question: str) -> bool:
    """One whole `/api/ask` stream ends in an `answer` event."""
    import httpx

    with httpx.stream("POST", f"{url}/api/ask", json={"question": question},
                      headers={"Authorization": f"Bearer {token}"}, timeout=120) as r:
        return r.status_code == 200 and "event: answer" in r.read().decode("utf-8", "replace")


def scenario_api_kill_ask(out: Outcome, data_dir: Path, token: str, marker: str) -> None:
    import httpx

    out.fault = "kill -9 of the API while an /api/ask stream is open"
    before = originals(data_dir)
    proc, url = start_api(data_dir)
    try:
        with httpx.stream("POST", f"{url}/api/ask",
                          json={"question": "Welche Beschlüsse wurden gefasst?"},
                          headers={"Authorization": f"Bearer {token}"}, timeout=120) as r:
            for line in r.iter_lines():
                if line.startswith("event:"):
                    kill9(proc)  # the first event arrived: the answer is being written
                    break
    except httpx.HTTPError:
        pass
    finally:
        if proc.poll() is None:
            kill9(proc)
    detect(out, data_dir)
    out.detected = None if not out.detected else True  # nothing to detect is fine here
    cli_after = cli(data_dir, "search", marker, "--k", "3", "--json")  # may meet the dead run file
    if cli_after.returncode != 0:
        out.notes.append(f"CLI search after the kill exited {cli_after.returncode}: "
                         f"{problem_lines(cli_after)}")
    proc, url = start_api(data_dir)
    try:
        if not ask_ok(url, token, "Welche Beschlüsse wurden gefasst?"):
            out.notes.append("the restarted API did not answer")
            out.restored = False
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    restore(out, data_dir, before, marker, ("check",))
    out.restored_by = "restart (nothing to repair)"


def scenario_api_kill_upload(out: Outcome, data_dir: Path, token: str, marker: str,
                             write_token: str) -> None:
    import httpx

    out.fault = "kill -9 of the API while its job ingests an upload of 20 files"
    before = originals(data_dir)
    src = data_dir.parent / "upload_src"
    markers = write_docs(src, 20, seed=41, prefix="upload", paras=40)  # ~400 chunks
    proc, url = start_api(data_dir)
    headers = {"Authorization": f"Bearer {write_token}"}
    try:
        files = [("files", (p.name, p.read_bytes(), "text/markdown"))
                 for p in sorted(src.glob("*.md"))]
        r = httpx.post(f"{url}/api/ingest", files=files, data={"collection": "samples"},
                       headers=headers, timeout=120)
        r.raise_for_status()
        job = r.json()["job_id"]
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            st = httpx.get(f"{url}/api/jobs/{job}", headers=headers, timeout=30).json()
            if st.get("status") in ("done", "failed"):
                out.notes.append("the upload finished before the kill")
                break
            if (st.get("progress") or 0) > 0:
                break
            time.sleep(0.05)
        kill9(proc)
    finally:
        if proc.poll() is None:
            kill9(proc)
    detect(out, data_dir)
    proc, url = start_api(data_dir)  # the job of the killed process must not stay "running"
    try:
        st = httpx.get(f"{url}/api/jobs/{job}", headers=headers, timeout=30).json()
        out.notes.append(f"the job after the restart: {st.get('status')}"
                         f" ({(st.get('error') or st.get('message') or '')[:80]})")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    restore(out, data_dir, before, marker)
    if st.get("status") in ("running", "queued"):
        out.restored = False
    again = cli(data_dir, "ingest", str(src), "--collection", "samples")
    if again.returncode != 0:
        out.notes.append(f"ingest of the same files again exited {again.returncode}: "
                         f"{problem_lines(again)}")
    out.marker_found = out.marker_found and marker_found(data_dir, markers[-1])


def scenario_disk_full(out: Outcome, base: Path, work: Path, marker: str) -> None:
    out.fault = "data dir on a tmpfs that runs full during an ingest of 120 files"
    mnt = work / "small_fs"
    mnt.mkdir()
    size_mb = int(sum(p.stat().st_size for p in base.rglob("*") if p.is_file()) / 2**20) + 24
    if os.geteuid() != 0 or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size_mb}m", "tmpfs", str(mnt)],
            capture_output=True).returncode != 0:
        out.skipped = "needs root to mount a tmpfs"
        return
    try:
        data_dir = mnt / "data"
        shutil.copytree(base, data_dir, symlinks=True)
        before = originals(data_dir)
        filler = mnt / "filler"
        free = shutil.disk_usage(mnt).free
        with open(filler, "wb") as f:  # leave ~3 MiB: the ingest runs out on the way
            f.write(b"\0" * max(0, free - 3 * 2**20))
        src = work / "disk_src"
        markers = write_docs(src, 120, seed=51, prefix="full")
        ing = cli(data_dir, "ingest", str(src), "--collection", "samples")
        said = problem_lines(ing)
        out.notes.append(f"ingest exited {ing.returncode}: {said[:200]}")
        if "Traceback" in ing.stderr:
            out.notes.append("ingest printed a traceback")
        if "space" not in (ing.stdout + ing.stderr).lower():
            out.notes.append("ingest did not say that the disk is full")
        filler.unlink()  # the operator frees space
        detect(out, data_dir)
        out.detected = None if not out.detected else True  # ok if nothing was half-written
        restore(out, data_dir, before, marker)
        again = cli(data_dir, "ingest", str(src), "--collection", "samples")
        if again.returncode != 0:
            out.notes.append(f"ingest again after freeing space exited {again.returncode}: "
                             f"{problem_lines(again)}")
        out.marker_found = out.marker_found and marker_found(data_dir, markers[-1])
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def scenario_wal_truncated(out: Outcome, base: Path, work: Path, marker: str) -> None:
    out.fault = "the store's SQLite WAL cut in half after an ingest of 30 files"
    live = work / "wal_live"
    shutil.copytree(base, live, symlinks=True)
    src = work / "wal_src"
    write_docs(src, 30, seed=61, prefix="wal")
    reader = sqlite3.connect(live / "ragscope.db")
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM documents").fetchone()  # pins the log: no checkpoint
    ing = cli(live, "ingest", str(src), "--collection", "samples")
    if ing.returncode != 0:
        out.notes.append(f"setup ingest exited {ing.returncode}")
    data_dir = work / "wal_cut"
    shutil.copytree(live, data_dir, symlinks=True)  # as a crash would leave it
    reader.rollback()
    reader.close()
    before = originals(base)  # the originals stored before this ingest
    wal = data_dir / "ragscope.db-wal"
    if not wal.exists() or wal.stat().st_size == 0:
        out.skipped = "the ingest left no write-ahead log to cut"
        return
    size = wal.stat().st_size
    with open(wal, "r+b") as f:
        f.truncate(size // 2)
    (data_dir / "ragscope.db-shm").unlink(missing_ok=True)
    out.notes.append(f"WAL {size // 1024} KiB cut to {size // 2048} KiB")
    detect(out, data_dir)
    restore(out, data_dir, before, marker)


def scenario_chroma_deleted(out: Outcome, data_dir: Path, marker: str) -> None:
    out.fault = "Chroma's HNSW segment file data_level0.bin deleted"
    before = originals(data_dir)
    seg = sorted((data_dir / "chroma").glob("*/data_level0.bin"))
    if not seg:
        out.skipped = "Chroma wrote no HNSW segment file"
        return
    for p in seg:
        p.unlink()
    detect(out, data_dir)
    restore(out, data_dir, before, marker)


def scenario_tantivy_corrupted(out: Outcome, data_dir: Path, marker: str) -> None:
    out.fault = "bytes of tantivy's largest segment store file overwritten"
    before = originals(data_dir)
    store = max((data_dir / "keyword").glob("*.store"), key=lambda p: p.stat().st_size)
    data = bytearray(store.read_bytes())
    for i in range(64, min(len(data), 4096)):
        data[i] ^= 0xFF
    store.write_bytes(bytes(data))
    detect(out, data_dir)
    restore(out, data_dir, before, marker)


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
