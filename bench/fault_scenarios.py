"""The faults of the campaign (bench/bench_faults.py), one function a scenario: each breaks
its copy of the prepared data dir the way operators and machines do (`kill -9` of the API
mid-stream or mid-upload, a full disk, a truncated SQLite WAL, a deleted Chroma segment, a
corrupted tantivy segment) and records in its `Outcome` what `check` and the restoring
command make of it (bench/fault_checks.py)."""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from bench_api import _free_port, start_server  # noqa: E402  (the API bench's setup, reused)
from fault_checks import (
    Outcome,
    cli,
    detect,
    marker_found,
    originals,
    problem_lines,
    restore,
    write_docs,
)


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
