"""A 2-node OpenSearch cluster on loopback (one replica): one node is killed (SIGKILL, a
crash) while searches and an ingest run; nothing goes wrong beyond the degradation note,
and after it rejoins `check --full` agrees and every chunk is found."""
from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from backend.security.access import Scope
from backend.config import Settings
from backend.index.search_node import SearchCluster, http_json, port_free
from tests.conftest import SAMPLES

pytestmark = pytest.mark.integration

EVERYTHING = Scope.everything()
QUERY = "Beschluss 2024/17"
MINUTES = "protokoll_werkausschuss_2024-03-12.txt"


def _free_block(n: int) -> int:
    """A base port with base … base+n-1 and their transport ports (+100) free."""
    for base in range(41000 + os.getpid() % 2000 * 7, 64000, 37):
        if all(port_free(p) and port_free(p + 100) for p in range(base, base + n)):
            return base
    raise RuntimeError("no free port block")


@pytest.fixture
def cluster(tmp_path, search_node_build_dir):
    c = SearchCluster(Settings(data_dir=tmp_path / "search-node",
                               search_node_build_dir=search_node_build_dir), _free_block(2), 2)
    c.start()
    yield c
    c.stop()


def _ingest(rs, name: str):
    from backend.ingest.service import Ingestor

    return Ingestor(rs).ingest_paths([SAMPLES / name], collection="samples")


def _non_manager(cluster: SearchCluster) -> int:
    """Index of a node that is not the elected cluster manager (with two nodes, losing the
    manager leaves no quorum: see docs/elasticsearch.md)."""
    rows = http_json(f"{cluster.nodes[0].url}/_cat/nodes?format=json&h=name,cluster_manager")
    manager = next(r["name"] for r in rows if r["cluster_manager"] == "*")
    return next(i for i, n in enumerate(cluster.nodes) if f"ragscope-{n.port}" != manager)


def _green(url: str) -> bool:
    health = http_json(f"{url}/_cluster/health?wait_for_status=green&timeout=20s", timeout=25)
    return bool(health) and health["status"] == "green"


def test_a_node_killed_during_searches_and_ingest(make_rs, cluster):
    from backend.ingest.service import Ingestor
    from backend.retrieval import Retriever

    rs = make_rs(keyword_backend="opensearch", opensearch_url=cluster.url)
    assert all(o.ok for o in _ingest(rs, MINUTES))
    assert _green(cluster.nodes[0].url)  # the replica is on the other node
    retriever = Retriever(rs)
    results, errors, stop = [], [], threading.Event()

    def search_loop():
        for _ in range(400):  # bounded: at most 400 searches, ends with the test
            if stop.is_set():
                return
            try:
                results.append(retriever.retrieve(QUERY, scope=EVERYTHING))
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

    searcher = threading.Thread(target=search_loop)
    searcher.start()
    try:
        time.sleep(1.0)
        victim = cluster.nodes[_non_manager(cluster)]
        os.kill(victim.status().pid, signal.SIGKILL)
        outs = _ingest(rs, "runbook_gateway_failover.md")  # while the node is gone
        time.sleep(2.0)
    finally:
        stop.set()
        searcher.join(timeout=120)
    assert not errors
    assert outs and all(o.ok for o in outs), [o.error for o in outs]
    assert len(results) > 5
    for res in results:  # every search answered; a keyword failure only as the note
        assert res.hits and res.hits[0].filename == MINUTES
        if any(h.keyword_score is None for h in res.hits[:1]):
            assert any("keyword search failed" in w for w in res.warnings)
    degraded = sum(1 for r in results if r.trace.stage("keyword_search").error)
    print(f"{len(results)} searches, {degraded} degraded to vectors")

    survivor = next(n for n in cluster.nodes if n is not victim)
    assert _keyword_hits(retriever, "Failover")  # the chunks written with one node left
    cluster.start_node(cluster.nodes.index(victim))  # rejoins with the data it kept
    assert _green(survivor.url)
    report = Ingestor(rs).check(full=True)
    assert report.ok, report.summary()
    victim_only = make_rs(data_dir=rs.settings.data_dir, keyword_backend="opensearch",
                          opensearch_url=victim.url)
    assert _keyword_hits(Retriever(victim_only), "Failover")
    assert _keyword_hits(Retriever(victim_only), QUERY)


def _keyword_hits(retriever, query: str) -> bool:
    deadline = time.monotonic() + 15  # past a fail-fast window left by the kill
    while True:
        res = retriever.retrieve(query, scope=EVERYTHING)
        if res.hits and res.hits[0].keyword_score is not None:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)
