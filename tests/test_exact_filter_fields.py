"""Filter fields in the exact-search log (backend/index/exact_vectors.py): a filtered vector
search decides which of the nearest chunks pass from the log's memory, without reading
Chroma's metadata, and every membership change (a document joining or leaving a collection,
a re-ingest, a delete) reaches every reader of the log — another index object and another
process — in the order it was written."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from backend.config import Settings
from backend.index import exact_vectors
from backend.index.base import IndexedChunk, IndexFilter
from backend.index.chroma_index import ChromaVectorIndex
from backend.index.exact_vectors import ExactVectors

DIM = 16
N = 40


def _vecs(n: int = N, seed: int = 1) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


VECS = _vecs()


def _chunk(i: int, colls: tuple[int, ...]) -> IndexedChunk:
    return IndexedChunk(f"v-{i}", f"text {i}", i % 4, i % 4, "ab"[i % 2], "", "", "", "",
                        memberships={"collection": colls} if colls else {})


def _colls(i: int) -> tuple[int, ...]:
    return (1,) if i % 4 == 0 else (1, 2) if i % 4 == 1 else ()


def _no_chroma_metadata(ix: ChromaVectorIndex, monkeypatch) -> None:
    def refuse(ids):
        raise AssertionError(f"filtered search read Chroma's metadata of {len(ids)} chunks")
    monkeypatch.setattr(ix, "get_metadata", refuse)


def _ranked(ix, qi: int, flt: IndexFilter, k: int = N) -> list[str]:
    return [h.chunk_id for h in ix.search(VECS[qi], k, flt)]


def _exact(qi: int, passes, k: int = N) -> list[str]:
    allowed = [i for i in range(N) if passes(i)]
    return [f"v-{i}" for i in sorted(allowed, key=lambda i: -float(VECS[i] @ VECS[qi]))[:k]]


def test_a_filtered_search_decides_from_memory_and_ranks_like_exact_search(tmp_path,
                                                                          monkeypatch):
    ix = ChromaVectorIndex(Settings(data_dir=tmp_path))
    try:
        ix.add([_chunk(i, _colls(i)) for i in range(N)], VECS)
        _no_chroma_metadata(ix, monkeypatch)  # without the log's fields this raises
        for qi in (0, 5, 17):
            for k in (1, 3, 12):
                assert _ranked(ix, qi, IndexFilter(memberships={"collection": [2]}), k) == \
                    _exact(qi, lambda i: i % 4 == 1, k)
                assert _ranked(ix, qi, IndexFilter(memberships={"collection": [1]},
                                                   doc_types=["b"]), k) == \
                    _exact(qi, lambda i: i % 4 == 1, k)
                assert _ranked(ix, qi, IndexFilter(document_ids=[2, 3]), k) == \
                    _exact(qi, lambda i: i % 4 in (2, 3), k)
    finally:
        ix.close()


def test_another_index_object_sees_joins_leaves_reingests_and_deletes(tmp_path, monkeypatch):
    settings = Settings(data_dir=tmp_path)
    writer, reader = ChromaVectorIndex(settings), ChromaVectorIndex(settings)
    try:
        writer.add([_chunk(i, _colls(i)) for i in range(N)], VECS)
        _no_chroma_metadata(reader, monkeypatch)
        in2 = IndexFilter(memberships={"collection": [2]})
        assert set(_ranked(reader, 0, in2)) == {f"v-{i}" for i in range(1, N, 4)}
        writer.set_memberships({"v-2": ["collection:2"], "v-1": []})  # join, leave
        got = set(_ranked(reader, 0, in2))
        assert "v-2" in got and "v-1" not in got
        writer.add([_chunk(5, (3,))], [VECS[5]])  # re-ingested into another collection
        assert "v-5" not in _ranked(reader, 0, in2)
        assert _ranked(reader, 5, IndexFilter(memberships={"collection": [3]})) == ["v-5"]
        writer.delete(["v-9"])
        assert "v-9" not in _ranked(reader, 9, in2)
        assert reader.memberships_in_log(["v-2", "v-1", "v-9"]) == {
            "v-2": {"collection:2"}, "v-1": set()}
    finally:
        writer.close()
        reader.close()


READER = textwrap.dedent("""
    import json, sys
    import numpy as np
    from backend.config import Settings
    from backend.index.base import IndexFilter
    from backend.index.chroma_index import ChromaVectorIndex

    ix = ChromaVectorIndex(Settings(data_dir=sys.argv[1]))
    def refuse(ids):
        raise RuntimeError("read Chroma's metadata")
    ix.get_metadata = refuse  # only the log may answer
    print("ready", flush=True)
    for line in sys.stdin:
        ask = json.loads(line)
        flt = IndexFilter(memberships={"collection": [ask["collection"]]})
        hits = ix.search(np.asarray(ask["q"], dtype=np.float32), 100, flt)
        print(json.dumps(sorted(h.chunk_id for h in hits)), flush=True)
    ix.close()
""")


def test_a_second_process_sees_every_membership_change(tmp_path):
    """The contract: a change written (and returned) in one process is what the next filtered
    search of a long-running reader process (API worker, dashboard) sees."""
    settings = Settings(data_dir=tmp_path)
    writer = ChromaVectorIndex(settings)
    writer.add([_chunk(i, _colls(i)) for i in range(N)], VECS)
    proc = subprocess.Popen([sys.executable, "-c", READER, str(tmp_path)], text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=str(exact_vectors.Path(
                                __file__).resolve().parents[1]))
    try:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()

        def ask(collection: int) -> set[str]:
            proc.stdin.write(json.dumps({"q": VECS[0].tolist(), "collection": collection})
                             + "\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            return set(json.loads(line))

        assert ask(2) == {f"v-{i}" for i in range(1, N, 4)}
        writer.set_memberships({"v-2": ["collection:2"], "v-1": ["collection:1"]})
        assert ask(2) == {f"v-{i}" for i in range(5, N, 4)} | {"v-2"}
        writer.add([_chunk(6, (2, 7))], [VECS[6]])  # re-ingest with new tokens
        assert "v-6" in ask(7) and "v-6" in ask(2)
        writer.delete(["v-6", "v-5"])
        assert ask(7) == set() and not {"v-5", "v-6"} & ask(2)
        writer.reset()  # reindex: a new log
        writer.add([_chunk(i, (4,)) for i in range(3)], VECS[:3])
        assert ask(4) == {"v-0", "v-1", "v-2"} and ask(2) == set()
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
        writer.close()


# ---- the log itself ---------------------------------------------------------------------

def _fields(tokens: list[str], doc: int = 1) -> dict:
    return {"document_id": doc, "doc_type": "note", "memberships": tokens}


def test_fields_longer_than_one_record_compaction_and_a_torn_chain(tmp_path, monkeypatch):
    path = tmp_path / "v.log"
    log = ExactVectors(path)
    many = [f"collection:{i}" for i in range(40)]  # ~600 bytes; dim 4 leaves 14 per record
    log.add(["a", "b"], np.eye(4, dtype=np.float32)[:2], [_fields(many), _fields([])])
    reader = ExactVectors(path)
    assert reader.fields(["a", "b", "x"]) == {"a": _fields(many), "b": _fields([])}
    # a writer killed in the middle of a chain: its parts are dropped, the next chain counts
    recs = exact_vectors._field_records(4, [("b", exact_vectors._encode(_fields(many)))])
    log._write(recs[:3 * log.record_size])
    log.set_fields({"b": _fields(["collection:9"]), "gone": _fields(["collection:9"])})
    assert reader.fields(["b"]) == {"b": _fields(["collection:9"])}
    assert ExactVectors(path).fields(["a", "b"]) == reader.fields(["a", "b"])
    # an add forgets the fields until its fields record follows (then Chroma answers)
    log.add(["a"], np.eye(4, dtype=np.float32)[2:3])
    assert reader.fields(["a"]) == {}
    log.set_fields({"a": _fields(["collection:5"])})
    monkeypatch.setattr(exact_vectors, "COMPACT_MIN_RECORDS", 1)
    log.delete(["b"])  # compacted: only live vectors and their fields remain
    assert reader.fields(["a", "b"]) == {"a": _fields(["collection:5"])}
    assert reader.ids() == {"a"}


def test_a_log_of_format_1_is_read_and_upgraded_when_rewritten(tmp_path, monkeypatch):
    path = tmp_path / "v.log"
    rec = np.zeros(2, dtype=exact_vectors._record(4))
    rec["op"], rec["id"], rec["v"] = b"A", [b"a", b"b"], np.eye(4, dtype=np.float32)[:2]
    path.write_bytes(exact_vectors.HEADER.pack(exact_vectors.MAGIC_V1, 4) + rec.tobytes())
    log = ExactVectors(path)
    assert log.ids() == {"a", "b"} and log.version == 1
    log.add(["c"], np.eye(4, dtype=np.float32)[2:3], [_fields(["collection:1"])])
    assert log.set_fields({"a": _fields([])}) == 0 and log.fields(["a", "c"]) == {}
    assert path.read_bytes()[:8] == exact_vectors.MAGIC_V1  # old readers still read it
    monkeypatch.setattr(exact_vectors, "COMPACT_MIN_RECORDS", 1)
    log.delete(["b"])
    assert log.version == 2 and path.read_bytes()[:8] == exact_vectors.MAGIC
    assert log.set_fields({"a": _fields(["collection:2"])}) == 1
    assert ExactVectors(path).fields(["a", "c"]) == {"a": _fields(["collection:2"])}


def test_an_unknown_record_is_an_error_naming_the_log(tmp_path):
    path = tmp_path / "v.log"
    log = ExactVectors(path)
    log.add(["a"], np.eye(4, dtype=np.float32)[:1])
    with open(path, "ab") as fh:
        fh.write(b"Z" + bytes(log.record_size - 1))
    with pytest.raises(ValueError, match=r"v\.log: unknown record b'Z'"):
        ExactVectors(path).ids()


def test_fields_records_alone_do_not_trigger_a_rewrite(tmp_path, monkeypatch):
    """Each chunk has two records (vector, fields): compaction counts both as live."""
    monkeypatch.setattr(exact_vectors, "COMPACT_MIN_RECORDS", 1)
    log = ExactVectors(tmp_path / "v.log")
    log.add([f"c{i}" for i in range(30)], _vecs(30)[:, :16], [_fields(["collection:1"])] * 30)
    inode = log.path.stat().st_ino
    log.delete(["c0"])
    assert log.path.stat().st_ino == inode and len(log) == 29
    log.delete([f"c{i}" for i in range(1, 20)])  # now most records are dead: rewritten
    assert log.path.stat().st_ino != inode and len(log) == 10
    assert ExactVectors(log.path).fields(["c25"]) == {"c25": _fields(["collection:1"])}


def test_repeated_membership_changes_are_compacted(tmp_path, monkeypatch):
    monkeypatch.setattr(exact_vectors, "COMPACT_MIN_RECORDS", 1)
    log = ExactVectors(tmp_path / "v.log")
    log.add(["a", "b"], _vecs(2)[:, :16], [_fields(["collection:1"])] * 2)
    for i in range(5):  # a document moved between collections again and again
        log.set_fields({"a": _fields([f"collection:{i}"]), "b": _fields([f"collection:{i}"])})
    records = (log.path.stat().st_size - exact_vectors.HEADER.size) // log.record_size
    assert records < 2 * 4 and ExactVectors(log.path).fields(["a"]) == {
        "a": _fields(["collection:4"])}
