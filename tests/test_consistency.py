"""`check` reads entries back and `check --repair` says what it repaired; the index write
lock is exclusive across threads and processes, re-entrant, and names its holder."""
from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from backend.errors import BackendUnavailable
from backend.index.writelock import IndexWriteLock
from tests.conftest import ROOT


@pytest.fixture
def corpus(tmp_path):
    d = tmp_path / "docs"
    d.mkdir()
    for i in range(3):
        (d / f"n{i}.md").write_text(f"# Notiz {i}\n\n" + " ".join(
            f"Absatz {i}-{j}: Die Pumpe {j} im Werk {i} läuft seit Montag ohne Störung."
            for j in range(30)), encoding="utf-8")
    return d


def test_check_reads_vectors_back_and_repair_re_adds_lost_ones(ingestor, corpus, monkeypatch):
    ingestor.ingest_paths([corpus])
    full = ingestor.check(full=True)
    assert full.ok and full.read_back == full.active_chunks > 3
    index = ingestor.rs.vector_index
    lost = sorted(index.ids())[:2]
    real = index.search_many
    healed: set[str] = set()
    real_add = index.add

    def add(chunks, embeddings):  # re-adding a chunk heals its graph node
        healed.update(c.chunk_id for c in chunks)
        real_add(chunks, embeddings)

    def search_many(vectors, k, flt=None):  # a graph that lost two nodes: ids still listed
        return [[h for h in hits if h.chunk_id not in set(lost) - healed]
                for hits in real(vectors, k, flt)]

    monkeypatch.setattr(index, "search_many", search_many)
    monkeypatch.setattr(index, "add", add)
    report = ingestor.check(full=True)
    assert report.vector_unretrievable == lost and not report.vector_missing
    rep = ingestor.repair()
    assert rep.vectors_readded == 2 and not rep.vector_index_rebuilt
    assert rep.found.vector_unretrievable == lost
    assert rep.after.ok and rep.summary() == "repaired: re-added 2 vector(s)"


def test_check_finds_keyword_entries_with_wrong_text(ingestor, corpus):
    from backend.index.base import IndexedChunk

    ingestor.ingest_paths([corpus])
    victim = sorted(ingestor.rs.keyword_index.ids())[0]
    ingestor.rs.keyword_index.add([IndexedChunk(victim, "verstümmelt", 1, 1)])
    report = ingestor.check(full=True)
    assert report.keyword_unreadable == [victim]
    rep = ingestor.repair()
    assert rep.keyword_readded == 1 and rep.after.ok
    assert "verstümmelt" not in ingestor.rs.keyword_index.texts([victim])[victim]


def test_repair_reports_interrupted_versions(ingestor, corpus):
    """`check --repair` used to print "ok" after marking interrupted versions failed."""
    from backend.store.models import DocumentVersion

    ingestor.ingest_paths([corpus])
    with ingestor.store.session() as s:
        v = s.query(DocumentVersion).first()
        v.status, v.meta = "indexing", {**(v.meta or {}), "job_id": 999999}  # a dead job
    rep = ingestor.repair()
    assert rep.interrupted_versions == 1
    assert "marked 1 interrupted version(s) failed" in rep.summary()


# ---- the lock ----------------------------------------------------------------------------

def test_lock_is_reentrant_and_bumps_the_generation_only_after_writes(tmp_path):
    lock = IndexWriteLock(tmp_path / "locks", timeout_s=5)
    seen = []
    listener = seen.append
    lock.on_commit(listener)
    assert lock.generation() == ""
    with lock.hold("read only"):
        with lock.hold("nested"):
            assert lock.held
    assert lock.generation() == "" and seen == []
    with lock.hold("write"):
        lock.mark_written()
    g1 = lock.generation()
    assert g1 and seen == [g1]
    with lock.hold("write again"):
        lock.mark_written()
    assert lock.generation() not in ("", g1)
    assert not lock.held


def test_lock_is_exclusive_between_threads(tmp_path):
    lock = IndexWriteLock(tmp_path / "locks", timeout_s=5)
    inside, overlaps = [], []

    def work():
        for _ in range(20):
            with lock.hold("thread"):
                inside.append(1)
                if len(inside) > 1:
                    overlaps.append(1)
                time.sleep(0.001)
                inside.pop()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert overlaps == []


HOLDER = r"""
import sys, time
from pathlib import Path
from backend.index.writelock import IndexWriteLock
lock = IndexWriteLock(Path(sys.argv[1]), timeout_s=5)
with lock.hold("reindex"):
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_lock_excludes_other_processes_and_names_the_holder(tmp_path):
    root = tmp_path / "locks"
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(root)], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        lock = IndexWriteLock(root, timeout_s=0.5)
        with pytest.raises(BackendUnavailable) as e:
            with lock.hold("add chunks"):
                pass
        msg = str(e.value)
        assert f"pid {proc.pid}" in msg and "'reindex'" in msg and "cannot add chunks" in msg
        with lock.try_shared() as free:
            assert not free  # a reader does not reload while a writer holds the lock
    finally:
        proc.communicate("\n", timeout=30)
    with lock.hold("add chunks"):  # released when the holder ended
        pass
