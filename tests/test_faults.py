"""Faults of the machine, not of a file (issue 21, section 5; the whole campaign is
bench/bench_faults.py): a full disk stops an ingest with one named error, nothing is
half-written that `check --repair` cannot restore, and the same files go in afterwards."""
from __future__ import annotations

import errno
import json
import os
import shutil
import sqlite3
import subprocess
import sys

import pytest
from sqlalchemy.exc import OperationalError

from backend.errors import StorageFull, storage_full
from backend.ingest.service import Ingestor
from tests.conftest import ROOT
from tests.page_support import shared_model  # noqa: F401  (fixture)


def _write(src, n):
    src.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (src / f"note_{i:02d}.md").write_text(
            f"# Note {i}\n\nPump station {i} was inspected; marker QX{i:03d}Z.\n",
            encoding="utf-8")


def test_storage_full_is_read_from_every_layer():
    sqlite_full = OperationalError("COMMIT", {}, sqlite3.OperationalError(
        "database or disk is full"))
    assert "disk is full" in str(storage_full(sqlite_full, "storing a.md"))
    try:
        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError as inner:
            raise RuntimeError("index write failed") from inner
    except RuntimeError as outer:
        found = storage_full(outer, "storing b.md")
    assert isinstance(found, StorageFull) and "storing b.md" in str(found)
    assert "check --repair" in str(found)
    assert storage_full(ValueError("bad value"), "x") is None
    assert storage_full(OSError(errno.EACCES, "Permission denied"), "x") is None


def test_full_disk_stops_the_batch_with_one_named_error(rs, tmp_path, monkeypatch):
    src = tmp_path / "in"
    _write(src, 5)
    real = Ingestor._store_original
    calls = {"n": 0}

    def fill_up(self, sha, ext, data):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, sha, ext, data)

    monkeypatch.setattr(Ingestor, "_store_original", fill_up)
    with pytest.raises(StorageFull) as err:
        Ingestor(rs).ingest_paths([src], collection="notes")
    assert "note_02.md" in str(err.value) and "disk is full" in str(err.value)
    monkeypatch.setattr(Ingestor, "_store_original", real)
    ing = Ingestor(rs)
    ing.repair()
    assert ing.check(full=True).ok
    outs = ing.ingest_paths([src], collection="notes")  # the operator freed space
    assert all(o.ok for o in outs), [o.error for o in outs]
    assert ing.check(full=True).ok


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("mount"),
                    reason="mounting a small tmpfs needs root")
def test_ingest_on_a_really_full_tmpfs(tmp_path):
    mnt = tmp_path / "small"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mnt)],
                      capture_output=True).returncode != 0:
        pytest.skip("this machine refuses a tmpfs mount")
    try:
        data, src = mnt / "var", tmp_path / "in"
        _write(src, 40)
        env = {**os.environ, "RAGSCOPE_DATA_DIR": str(data)}
        run = lambda *a: subprocess.run([sys.executable, "-m", "backend", *a], cwd=ROOT,  # noqa: E731
                                        env=env, capture_output=True, text=True, timeout=300)
        assert run("ingest", str(src / "note_00.md"), "-q").returncode == 0
        free = shutil.disk_usage(mnt).free
        (mnt / "filler").write_bytes(b"\0" * max(0, free - 200 * 1024))
        full = run("ingest", str(src), "-q")
        assert full.returncode == 2, full.stderr[-2000:]
        assert "disk is full" in full.stderr and "Traceback" not in full.stderr
        (mnt / "filler").unlink()
        run("check", "--repair")
        assert run("check", "--full").returncode == 0
        again = run("ingest", str(src), "-q")
        assert again.returncode == 0, again.stderr[-2000:]
        found = run("search", "QX039Z", "--k", "3", "--local")
        assert "Note 39" in found.stdout
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_repair_rebuilds_a_keyword_index_whose_segment_store_is_corrupted(
        tmp_path, monkeypatch, capsys, shared_model):
    """bench/bench_faults.py's `tantivy-segment-corrupted` on a small data dir: tantivy
    answers but cannot read its documents; `check --repair` rebuilds the keyword index from
    the store (it took the index for an unreachable server and left it missing), after which
    `check --full` is clean and a keyword-only search finds the documents again."""
    from backend.cli.main import main

    data = tmp_path / "var"
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(data))
    src = tmp_path / "src"
    for i in range(4):  # enough text that tantivy's doc store spans several blocks
        (src / f"note_{i:02d}.md").parent.mkdir(exist_ok=True)
        (src / f"note_{i:02d}.md").write_text(
            f"# Note {i}\n\n" + "\n\n".join(
                f"Pump station {i} section {j}: the valve was inspected and the seal "
                f"replaced; pressure {j} bar." for j in range(40))
            + f"\n\nThe marker of this note is QX{i:03d}Z.\n", encoding="utf-8")
    assert main(["ingest", str(src), "--collection", "c", "-q"]) == 0
    store = max((data / "keyword").glob("*.store"), key=lambda p: p.stat().st_size)
    raw = bytearray(store.read_bytes())
    for i in range(64, min(len(raw), 4096)):  # as the campaign does
        raw[i] ^= 0xFF
    store.write_bytes(bytes(raw))
    capsys.readouterr()
    assert main(["check"]) != 0
    assert "keyword" in capsys.readouterr().out

    main(["check", "--repair"])
    said = capsys.readouterr().out
    assert "rebuilt the keyword index" in said, said
    assert main(["check", "--full"]) == 0, capsys.readouterr().out
    capsys.readouterr()
    for i in (0, 3):
        assert main(["search", f"QX{i:03d}Z", "--policy", "lexical_only", "--k", "3",
                     "--local", "--json"]) == 0
        hits = json.loads(capsys.readouterr().out)
        assert any(f"QX{i:03d}Z" in json.dumps(h) for h in hits["hits"][:3]), hits
