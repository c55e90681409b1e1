"""A process killed in the middle of an ingest batch leaves store and both indexes consistent
once `check --repair` (or the next ingest) has run: no chunk is orphaned in either index."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from sqlalchemy import create_engine, text

from tests.conftest import ROOT

pytestmark = pytest.mark.slow


def _cli(env, *args, timeout=300):
    return subprocess.run([sys.executable, "-m", "backend", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


FILES = 48  # three pipeline batches of 16: the kill lands while later ones are in flight


def test_killed_ingest_leaves_no_orphans(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    para = ("Die Druckerhöhungsanlage im Hochbehälter Nord wurde im Berichtsjahr geprüft. "
            "Messwerte und Wartungsintervalle sind im Anhang dokumentiert. ") * 5
    for i in range(FILES):
        (src / f"bericht_{i:02d}.md").write_text(
            "\n\n".join(f"## {j} Abschnitt {j} von Bericht {i}\n\n{para}" for j in range(1, 5)),
            encoding="utf-8")
    data = tmp_path / "var"
    env = {**os.environ, "RAGSCOPE_DATA_DIR": str(data)}
    proc = subprocess.Popen([sys.executable, "-m", "backend", "ingest", str(src), "-q"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    engine = create_engine(f"sqlite:///{data / 'ragscope.db'}")
    deadline = time.time() + 240
    try:
        while time.time() < deadline:  # wait until a few files are in, then kill mid-batch
            time.sleep(0.2)
            try:
                with engine.connect() as c:
                    n = c.execute(text("SELECT count(*) FROM document_versions "
                                       "WHERE status='indexed'")).scalar()
            except Exception:
                continue
            if n >= 2:
                break
        assert proc.poll() is None, "ingest finished before it could be killed"
        proc.send_signal(signal.SIGKILL)
        with engine.connect() as c:  # killed mid-ingest: stored versions not yet published
            n = c.execute(text("SELECT count(*) FROM document_versions "
                               "WHERE status='indexed'")).scalar()
        assert n < FILES
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    engine.dispose()

    r = _cli(env, "check", "--repair")
    assert r.returncode == 0, r.stderr
    r = _cli(env, "check")
    assert r.returncode == 0 and "agree" in r.stdout, r.stdout + r.stderr

    # the next ingest completes the batch; everything ends up indexed exactly once
    r = _cli(env, "ingest", str(src), "-q")
    assert r.returncode == 0, r.stderr
    r = _cli(env, "status")
    import json

    info = json.loads(r.stdout)
    assert info["counts"]["documents"] == FILES
    assert info["index_meta"]["vector"]["chunks"] == info["counts"]["active_chunks"]
    r = _cli(env, "check")
    assert r.returncode == 0, r.stdout
