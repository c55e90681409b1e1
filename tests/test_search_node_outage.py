"""The OpenSearch node stopped and restarted under a running ragscope: hybrid search degrades
to vectors with a note in the trace while it is down, and works again after the restart.
A node of the test's own (conftest `own_search_node`), never the shared one of .ci/run."""
from __future__ import annotations

import time

import pytest

from backend.security.access import Scope
from backend.retrieval import RetrievalParams, Retriever
from tests.conftest import SAMPLES

pytestmark = pytest.mark.integration

EVERYTHING = Scope.everything()
QUERY = "Beschluss 2024/17"
MINUTES = "protokoll_werkausschuss_2024-03-12.txt"


def _ingest(rs, *names):
    from backend.ingest.service import Ingestor

    outs = Ingestor(rs).ingest_paths([SAMPLES / n for n in names], collection="samples")
    assert all(o.ok for o in outs), [o.error for o in outs if not o.ok]


def _keyword_works(retriever) -> bool:
    res = retriever.retrieve(QUERY, scope=EVERYTHING)
    return bool(res.hits) and res.hits[0].keyword_score is not None


def test_hybrid_degrades_while_the_node_is_down_and_recovers(make_rs, own_search_node):
    from backend.ingest.service import Ingestor

    node = own_search_node
    rs = make_rs(keyword_backend="opensearch", opensearch_url=node.url)
    _ingest(rs, MINUTES, "runbook_gateway_failover.md", "lumen_release_notes.md")
    retriever = Retriever(rs)
    up = retriever.retrieve(QUERY, scope=EVERYTHING)
    assert up.hits[0].filename == MINUTES and up.hits[0].keyword_score is not None
    assert not up.trace.stage("keyword_search").error

    node.stop()
    down = retriever.retrieve(QUERY, scope=EVERYTHING)
    assert down.hits and all(h.keyword_score is None for h in down.hits)
    assert down.hits[0].filename == MINUTES  # the vectors still find it
    error = down.trace.stage("keyword_search").error
    assert "BackendUnavailable" in error and f"OpenSearch at {node.url}" in error
    assert any("keyword search failed" in w for w in down.warnings)
    lexical = retriever.retrieve(QUERY, RetrievalParams(policy="lexical_only"), scope=EVERYTHING)
    assert lexical.hits == [] and any("keyword search failed" in w for w in lexical.warnings)
    # an ingest while the node is down writes both indexes or neither (issue 21, section 3)
    late = "chargectl_setup_guide.md"
    outs = Ingestor(rs).ingest_paths([SAMPLES / late], collection="samples")
    assert [o.status for o in outs] == ["failed"] and "not indexed" in outs[0].error
    report = Ingestor(rs).check(full=True)  # the keyword index cannot be read: only vectors
    assert not report.vector_orphans and not report.stuck_versions, report.problems()

    node.start()  # same data folder: the index and its chunks are still there
    deadline = time.monotonic() + 30  # the backend asks again once its fail-fast window ends
    while not _keyword_works(retriever):
        assert time.monotonic() < deadline, "keyword search did not come back after the restart"
        time.sleep(0.5)
    again = retriever.retrieve(QUERY, scope=EVERYTHING)
    assert [h.chunk_id for h in again.hits] == [h.chunk_id for h in up.hits]
    assert again.hits[0].keyword_score == pytest.approx(up.hits[0].keyword_score)
    report = Ingestor(rs).check(full=True)
    assert report.ok, report.summary()
    outs = Ingestor(rs).ingest_paths([SAMPLES / late], collection="samples")  # again: it goes in
    assert all(o.ok for o in outs), [o.error for o in outs]
    found = retriever.retrieve("chargectl", RetrievalParams(policy="lexical_only"),
                               scope=EVERYTHING)
    assert found.hits and found.hits[0].filename == late
    assert Ingestor(rs).check(full=True).ok
