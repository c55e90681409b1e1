"""Index handles are given back: a process that opens and closes many data dirs (the test
session opens hundreds) keeps a constant number of open file descriptors, and closing one
Ragscope leaves another on the same data dir working (the embedded Chroma client of a
directory is shared in the process and closed by its last user)."""
from __future__ import annotations

import gc
import os

import pytest

from backend.security.access import Scope
from backend.config import Settings
from backend.errors import BackendUnavailable
from backend.ingest.service import Ingestor
from backend.retrieval import Retriever
from backend.services.container import Ragscope

EVERYTHING = Scope.everything()
ROUNDS = 20
SLACK = 5  # descriptors a lazily started helper (a log file, a pipe) may keep open


def _open_fds() -> int:
    gc.collect()  # objects in reference cycles hold nothing once they are collected
    return len(os.listdir("/proc/self/fd"))


def _ragscope(data_dir, embedder) -> Ragscope:
    rs = Ragscope(Settings(data_dir=data_dir))
    rs.embedder = embedder
    return rs


def _ingest(rs: Ragscope, name: str, text: str) -> None:
    out = Ingestor(rs).ingest_bytes(text.encode("utf-8"), name)
    assert out.ok, out.error


def _found(rs: Ragscope, query: str) -> list:
    """Hits of a hybrid search that both indexes answered."""
    res = Retriever(rs).retrieve(query, scope=EVERYTHING)
    assert not res.warnings, res.warnings
    return res.hits


def _use(rs: Ragscope, i: int) -> None:
    """Really open both indexes: ingest a small text into every other data dir."""
    if i % 2 == 0:
        _ingest(rs, f"notiz-{i}.txt", f"Druckprüfung der Pumpe {i} im Wasserwerk bestanden.")
        assert _found(rs, "Druckprüfung Pumpe")
    else:
        assert rs.vector_index.count() == 0 and rs.keyword_index.count() == 0


def test_closed_ragscopes_give_their_file_descriptors_back(tmp_path, shared_embedder):
    warm = _ragscope(tmp_path / "warm" / "var", shared_embedder)  # lazy imports, model
    _use(warm, 0)
    warm.close()
    before = _open_fds()
    for i in range(ROUNDS):
        rs = _ragscope(tmp_path / f"d{i}" / "var", shared_embedder)
        _use(rs, i)
        rs.close()
    after = _open_fds()
    assert after - before <= SLACK, (
        f"{after - before} file descriptors still open after {ROUNDS} Ragscopes were closed")


def test_closing_twice_is_harmless_and_a_closed_index_says_so(tmp_path, shared_embedder):
    rs = _ragscope(tmp_path / "var", shared_embedder)
    _ingest(rs, "a.txt", "Der Hydrant am Marktplatz wurde gespült.")
    vector, keyword = rs.vector_index, rs.keyword_index
    rs.close()
    rs.close()
    with pytest.raises(BackendUnavailable, match="closed"):
        vector.count()
    with pytest.raises(BackendUnavailable, match="closed"):
        keyword.search("Hydrant", 5)


def test_closing_one_ragscope_leaves_another_on_the_same_dir_working(tmp_path, shared_embedder):
    data = tmp_path / "var"
    first = _ragscope(data, shared_embedder)
    second = _ragscope(data, shared_embedder)
    _ingest(first, "hydrant.txt", "Der Hydrant am Marktplatz wurde im März gespült.")
    assert _found(second, "Hydrant Marktplatz")

    first.close()
    first.close()

    hits = _found(second, "Hydrant Marktplatz")
    assert hits and hits[0].vector_score is not None and hits[0].keyword_score is not None
    _ingest(second, "schieber.txt", "Der Schieber in der Bahnhofstraße klemmt seit Montag.")
    hits = _found(second, "Schieber Bahnhofstraße")
    assert hits and hits[0].filename == "schieber.txt"
    assert hits[0].vector_score is not None and hits[0].keyword_score is not None
    second.close()

    # the last one closed the shared client: a new Ragscope opens a fresh one and sees both
    third = _ragscope(data, shared_embedder)
    try:
        assert third.vector_index.count() == third.keyword_index.count() == 2
        assert {h.filename for h in _found(third, "Hydrant Schieber")} == {
            "hydrant.txt", "schieber.txt"}
    finally:
        third.close()


def test_an_index_lent_to_another_ragscope_stays_open_until_its_owner_closes(
        tmp_path, shared_embedder):
    """As the `answer_rs` fixture does: the borrower's close() leaves the lender's indexes."""
    owner = _ragscope(tmp_path / "owner" / "var", shared_embedder)
    _ingest(owner, "zaehler.txt", "Der Wasserzähler im Keller wurde getauscht.")
    borrower = _ragscope(tmp_path / "borrower" / "var", shared_embedder)
    borrower.vector_index = owner.vector_index
    borrower.keyword_index = owner.keyword_index
    borrower.close()
    try:
        assert _found(owner, "Wasserzähler Keller")
    finally:
        owner.close()
