"""Several processes on one data dir (dashboard, scheduler, watcher, CLI): exactly one writes
the embedded indexes at a time, readers see committed writes within seconds, and `check`
finds every chunk whose vector or keyword entry is missing or unreadable.

These tests start real processes (`python -m backend ingest`, a long-running reader) and read
back every chunk's vector afterwards."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow

WORDS = ("Pumpe Ventil Druck Leitung Wartung Prüfung Filter Behälter Messung Sensor Anlage "
         "Störung Schieber Hydrant Zähler Netz Speicher Reinigung Protokoll Abnahme").split()


def _cli(env, *args, timeout=600):
    return subprocess.run([sys.executable, "-m", "backend", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def _write_docs(folder: Path, tag: str, n: int) -> None:
    """n small Markdown files with distinct text (one or two chunks each)."""
    folder.mkdir(parents=True)
    rng = np.random.default_rng(sum(map(ord, tag)))
    for i in range(n):
        words = " ".join(rng.choice(WORDS, size=60))
        (folder / f"{tag}_{i:03d}.md").write_text(
            f"# Bericht {tag} {i}\n\nKennung {tag}-{i}-{rng.integers(1 << 30)}. {words}.\n",
            encoding="utf-8")


def _env(data: Path) -> dict:
    return {**os.environ, "RAGSCOPE_DATA_DIR": str(data)}


def _read_back(data: Path) -> dict:
    """Every active chunk: is its vector stored, and does a search with that vector find it?
    Also which chunks the keyword index lacks. Run in a fresh Ragscope (fresh clients)."""
    from backend.config import Settings
    from backend.services.container import Ragscope
    from backend.store import repo

    rs = Ragscope(Settings(data_dir=data))
    try:
        with rs.store.session() as s:
            expected = sorted(repo.active_chunk_ids(s))
        vecs = rs.vector_index.get_embeddings(expected)
        unreadable = [c for c in expected if c not in vecs]
        unfound = []
        for cid, vec in vecs.items():
            hits = rs.vector_index.search(vec, 10)
            if not any(h.chunk_id == cid or h.score > 0.99999 for h in hits):
                unfound.append(cid)
        keyword_missing = sorted(set(expected) - rs.keyword_index.ids())
        return {"expected": len(expected), "unreadable": unreadable, "unfound": unfound,
                "keyword_missing": keyword_missing}
    finally:
        rs.close()


def _small_sync_threshold(data: Path) -> None:
    """Chroma keeps new vectors in its log and persists the HNSW graph every `sync_threshold`
    (default 1000) records; lost vectors show up once a process persists a graph built from a
    stale view. A small threshold shows at test scale what 3,000 chunks showed at the default."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    from backend.config import Settings

    s = Settings(data_dir=data)
    client = chromadb.PersistentClient(path=str(s.chroma_dir),
                                       settings=ChromaSettings(anonymized_telemetry=False))
    client.get_or_create_collection(s.chroma_collection, embedding_function=None, configuration={
        "hnsw": {"space": "cosine", "ef_construction": s.hnsw_ef_construction,
                 "ef_search": s.hnsw_ef_search, "max_neighbors": s.hnsw_m,
                 "sync_threshold": 20, "batch_size": 20}})
    client.close()


def test_two_ingest_processes_lose_no_vectors(tmp_path):
    data = tmp_path / "var"
    env = _env(data)
    _small_sync_threshold(data)
    base = tmp_path / "base"
    _write_docs(base, "base", 12)
    r = _cli(env, "ingest", str(base), "-q")
    assert r.returncode == 0, r.stderr
    a, b = tmp_path / "a", tmp_path / "b"
    _write_docs(a, "alpha", 48)
    _write_docs(b, "beta", 48)
    procs = [subprocess.Popen([sys.executable, "-m", "backend", "ingest", str(d), "-q"],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for d in (a, b)]
    for p in procs:
        out, err = p.communicate(timeout=900)
        assert p.returncode == 0, err
    result = _read_back(data)
    assert result["expected"] >= 108
    assert result["unreadable"] == [] and result["unfound"] == [], \
        f"{len(result['unreadable'])} unreadable, {len(result['unfound'])} not retrievable " \
        f"of {result['expected']} chunks"
    assert result["keyword_missing"] == []
    r = _cli(env, "check", "--full")
    assert r.returncode == 0 and "agree" in r.stdout, r.stdout + r.stderr


READER = r"""
import sys, time, json
import backend
from backend.config import Settings
from backend.services.container import Ragscope

rs = Ragscope(Settings(data_dir=sys.argv[1]))
phrase = sys.argv[2]
vec = rs.embedder.encode([phrase])[0]
print("ready", flush=True)
deadline = time.time() + float(sys.argv[3])
while time.time() < deadline:
    hits = rs.vector_index.search(vec, 3)
    texts = []
    if hits:
        from backend.store import repo
        with rs.store.session() as s:
            rows = repo.chunks_by_ids(s, [h.chunk_id for h in hits])
            texts = [rows[h.chunk_id].text for h in hits if h.chunk_id in rows]
    if any(phrase in t for t in texts):
        print("found", flush=True)
        sys.exit(0)
    time.sleep(0.2)
print("not found", flush=True)
sys.exit(1)
"""


def test_running_reader_sees_documents_ingested_by_another_process(tmp_path):
    data = tmp_path / "var"
    env = _env(data)
    base = tmp_path / "base"
    _write_docs(base, "base", 4)
    assert _cli(env, "ingest", str(base), "-q").returncode == 0
    phrase = "Der Flamingo-Koordinator prüft jeden Donnerstag die Quarzsand-Filterbetten."
    reader = subprocess.Popen([sys.executable, "-c", READER, str(data), phrase, "120"], cwd=ROOT,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert reader.stdout.readline().strip() == "ready", reader.stderr.read()
        new = tmp_path / "new"
        new.mkdir()
        (new / "flamingo.md").write_text(f"# Filter\n\n{phrase}\n", encoding="utf-8")
        r = _cli(env, "ingest", str(new), "-q")
        assert r.returncode == 0, r.stderr
        # the reader polls; with a stale client it never finds the new chunk
        out, err = reader.communicate(timeout=240)
        assert "found" in out.splitlines(), out + err
    finally:
        if reader.poll() is None:
            reader.kill()


STALE_WRITER = r"""
import sys
import numpy as np
import chromadb
from chromadb.config import Settings as ChromaSettings

# A writer that bypasses the write lock with a client opened before others' writes: what
# every second process did before the lock existed.
client = chromadb.PersistentClient(path=sys.argv[1], settings=ChromaSettings(anonymized_telemetry=False))
col = client.get_collection(sys.argv[2], embedding_function=None)
dim = len(col.get(limit=1, include=["embeddings"])["embeddings"][0])
col.query(query_embeddings=np.zeros((1, dim), dtype=np.float32) + 0.1, n_results=1)  # load the graph
print("ready", flush=True)
sys.stdin.readline()
rng = np.random.default_rng(7)
for b in range(3):
    col.upsert(ids=[f"intruder-{b}-{i}" for i in range(20)],
               embeddings=rng.standard_normal((20, dim)).astype(np.float32))
print("done", flush=True)
"""


def test_check_finds_vectors_lost_by_a_stale_writer_and_repair_heals_them(tmp_path):
    data = tmp_path / "var"
    env = _env(data)
    _small_sync_threshold(data)
    base = tmp_path / "base"
    _write_docs(base, "base", 12)
    assert _cli(env, "ingest", str(base), "-q").returncode == 0
    from backend.config import Settings

    s = Settings(data_dir=data)
    stale = subprocess.Popen([sys.executable, "-c", STALE_WRITER, str(s.chroma_dir),
                              s.chroma_collection], cwd=ROOT, env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert stale.stdout.readline().strip() == "ready", stale.stderr.read()
        more = tmp_path / "more"
        _write_docs(more, "more", 30)
        assert _cli(env, "ingest", str(more), "-q").returncode == 0
        out, err = stale.communicate("go\n", timeout=120)
        assert "done" in out, err
    finally:
        if stale.poll() is None:
            stale.kill()
    r = _cli(env, "check", "-q")
    assert r.returncode == 1, r.stdout + r.stderr
    # damage beyond the intruders' orphaned ids: vectors that cannot be read or found
    assert any(k in r.stdout for k in ("vector_unreadable", "vector_unretrievable",
                                       "vector index:")), r.stdout
    r = _cli(env, "check", "--repair", "-q")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "repaired:" in r.stdout and "after repair: ok" in r.stdout, r.stdout
    result = _read_back(data)
    assert result["expected"] >= 42
    assert result["unreadable"] == [] and result["unfound"] == [] \
        and result["keyword_missing"] == [], result
