"""Every stored chunk stays findable by vector search (issue 21, section 1).

The reproduction: a small topical corpus first, then a page log of near-identical chunks and a
family of notes from one small vocabulary, then more documents, with deletes, re-ingests and
new versions in between (tests/vector_corpus.py). Chroma's HNSW graph, built in that order,
lost 21 of 5,031 chunks (M=32, ef 200; 1 at M=64/ef_construction=800) — they were stored,
but a search with their own vector no longer returned them. The exact search of the embedded
index must find every one, and match numpy's brute force."""
from __future__ import annotations

import numpy as np

from backend.config import Settings
from backend.index.chroma_index import ChromaVectorIndex
from tests import vector_corpus as vc

N = 5000  # ~5k chunks: ~30 s on 2 shared cores


def test_every_chunk_found_by_its_own_vector_after_ingests_deletes_and_reingests(tmp_path):
    ix = ChromaVectorIndex(Settings(data_dir=tmp_path))
    try:
        assert ix.search_mode == "exact"
        docs = vc.hostile(N)
        assert sum(d.kind == "log" for d in docs) >= 1  # thousands of near-duplicates
        active = vc.run_sequence(ix, docs)
        assert len(active) > 0.9 * N
        assert vc.self_retrieval_misses(ix, active) == []
        queries = vc.queries_near(active, 200)
        assert vc.recall_at_k(ix, active, queries) >= 0.99
        assert ix.ids() == set(active)
    finally:
        ix.close()


def test_a_second_process_sees_every_write(tmp_path):
    """Readers of the same data dir (the dashboard while the CLI ingests) catch up with the
    exact-search log: adds, deletes and re-adds written by another index object."""
    settings = Settings(data_dir=tmp_path)
    writer, reader = ChromaVectorIndex(settings), None
    try:
        docs = vc.hostile(1500, seed=3)
        reader = ChromaVectorIndex(settings)
        active = vc.run_sequence(writer, docs)
        assert vc.self_retrieval_misses(reader, active) == []
        assert reader.exact.ids() == set(active)
    finally:
        writer.close()
        if reader is not None:
            reader.close()


def test_reset_and_reopen_keep_exact_search(tmp_path):
    settings = Settings(data_dir=tmp_path)
    ix = ChromaVectorIndex(settings)
    try:
        active = vc.run_sequence(ix, vc.hostile(800, seed=4))
        ix.reset()
        assert ix.ids() == set() and ix.search(next(iter(active.values())), 3) == []
        vc.run_sequence(ix, vc.hostile(800, seed=4))
    finally:
        ix.close()
    again = ChromaVectorIndex(settings)
    try:
        assert again.search_mode == "exact"
        assert vc.self_retrieval_misses(again, active) == []
    finally:
        again.close()


def test_a_torn_record_is_ignored_and_cut_off(tmp_path):
    """A writer killed mid-append leaves part of a record: readers skip it, the next writer
    cuts it off, and nothing written before is lost."""
    settings = Settings(data_dir=tmp_path)
    ix = ChromaVectorIndex(settings)
    try:
        active = vc.run_sequence(ix, vc.hostile(600, seed=6))
        with open(ix.exact.path, "ab") as fh:
            fh.write(b"A" + b"x" * 100)
        fresh = ChromaVectorIndex(settings)
        try:
            assert vc.self_retrieval_misses(fresh, active) == []
            extra = vc.Generator(seed=8).topical()
            fresh.add([vc_chunk(c, extra.doc_id) for c in vc.chunk_ids(extra)], extra.vectors)
            active.update(zip(vc.chunk_ids(extra), extra.vectors))
        finally:
            fresh.close()
        assert vc.self_retrieval_misses(ix, active) == []
    finally:
        ix.close()


def vc_chunk(cid: str, doc: int):
    from backend.index.base import IndexedChunk

    return IndexedChunk(chunk_id=cid, text="", document_id=doc, version_id=doc)


def test_hnsw_mode_is_still_available(tmp_path):
    """`vector_search=hnsw` asks Chroma's graph (as a Chroma server always does)."""
    ix = ChromaVectorIndex(Settings(data_dir=tmp_path, vector_search="hnsw"))
    try:
        assert ix.search_mode == "hnsw" and ix.exact is None
        rng = np.random.default_rng(1)
        vecs = rng.standard_normal((50, 16)).astype(np.float32)
        ix.add([vc_chunk(f"h{i}", 1) for i in range(50)], vecs)
        assert ix.search(vecs[7], 1)[0].chunk_id == "h7"
    finally:
        ix.close()


def test_the_log_is_compacted_without_losing_a_vector(tmp_path, monkeypatch):
    """Deletes and re-adds grow the log; past twice the live vectors it is rewritten (renamed
    into place: readers see the old or the new one), and every live vector is still found."""
    from backend.index import exact_vectors

    monkeypatch.setattr(exact_vectors, "COMPACT_MIN_RECORDS", 500)
    settings = Settings(data_dir=tmp_path)
    ix, reader = ChromaVectorIndex(settings), ChromaVectorIndex(settings)
    try:
        active = vc.run_sequence(ix, vc.hostile(600, seed=2))
        ids = sorted(active)
        inode = ix.exact.path.stat().st_ino
        for _ in range(6):  # the same chunks deleted and added again
            ix.delete(ids[:300])
            ix.add([vc_chunk(c, 1) for c in ids[:300]], np.stack([active[c] for c in ids[:300]]))
        size = ix.exact.path.stat().st_size
        records = (size - exact_vectors.HEADER.size) // ix.exact.record_size
        assert ix.exact.path.stat().st_ino != inode  # rewritten at least once
        # a vector and a fields record per chunk: below twice that plus one round
        assert records < 2 * 2 * len(active) + 3 * 300
        assert vc.self_retrieval_misses(reader, active) == []
        assert reader.exact.ids() == set(active)
    finally:
        ix.close()
        reader.close()
