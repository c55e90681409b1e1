"""`python -m backend search-node start|stop|status`: a real OpenSearch node built from Maven
Central jars, started on a free 127.0.0.1 port and stopped by each test.

The Java build is shared by the session (conftest `search_node_build_dir`); needs `mvn`
and `java`."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import urllib.request

import pytest

from backend.config import Settings
from backend.index.search_node import SearchNode, free_port, http_json, port_free
from tests.conftest import ROOT

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not (shutil.which("mvn") and shutil.which("java")),
                                 reason="mvn and java are needed to build the search node")]


@pytest.fixture
def node_build_dir(search_node_build_dir):
    return search_node_build_dir


def cli(data_dir, build_dir, *args, timeout=240):
    env = {**os.environ, "RAGSCOPE_DATA_DIR": str(data_dir),
           "RAGSCOPE_SEARCH_NODE_BUILD_DIR": build_dir}
    return subprocess.run([sys.executable, "-m", "backend", "search-node", *args], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def node_port(tmp_path, node_build_dir):
    """A free port; whatever a test started there is stopped afterwards."""
    port = free_port()
    yield port
    SearchNode(Settings(data_dir=tmp_path / "data", search_node_build_dir=node_build_dir),
               port).stop()


def test_start_status_stop(tmp_path, node_build_dir, node_port):
    data = tmp_path / "data"
    r = cli(data, node_build_dir, "start", "--port", str(node_port))
    assert r.returncode == 0, r.stderr
    assert "opensearch 2.19." in r.stdout and "build reused" in r.stdout
    assert f"RAGSCOPE_OPENSEARCH_URL=http://127.0.0.1:{node_port}" in r.stdout
    url = f"http://127.0.0.1:{node_port}"
    assert http_json(f"{url}/_cluster/health")["status"] in ("green", "yellow")

    r = cli(data, node_build_dir, "status", "--port", str(node_port), "--json")
    st = json.loads(r.stdout)
    assert r.returncode == 0 and st["running"] and st["ours"]
    assert (st["engine"], st["version"][:5]) == ("opensearch", "2.19.")
    again = json.loads(cli(data, node_build_dir, "start", "--port", str(node_port), "--json").stdout)
    assert again["pid"] == st["pid"]  # a second start reports the running node

    nodes = http_json(f"{url}/_nodes/_local/http,jvm,settings")["nodes"]
    (node,) = nodes.values()
    assert {a.rsplit(":", 1)[0] for a in node["http"]["bound_address"]} == {"127.0.0.1"}
    # -Xmx512m (the JVM reports it less one survivor space)
    assert 480 * 2**20 < node["jvm"]["mem"]["heap_max_in_bytes"] <= 512 * 2**20
    assert node["settings"]["path"]["data"][0].startswith(str(data))
    assert node["settings"]["discovery"]["type"] == "single-node"

    r = cli(data, node_build_dir, "stop", "--port", str(node_port))
    assert r.returncode == 0 and "stopped" in r.stdout
    assert http_json(f"{url}/") is None and port_free(node_port)
    r = cli(data, node_build_dir, "status", "--port", str(node_port))
    assert r.returncode == 1 and "no search node" in r.stdout
    assert "no search node of ours" in cli(data, node_build_dir, "stop", "--port",
                                           str(node_port)).stdout


def test_node_keeps_its_data_across_a_restart(tmp_path, node_build_dir, node_port):
    settings = Settings(data_dir=tmp_path / "data", search_node_build_dir=node_build_dir,
                        keyword_backend="opensearch",
                        opensearch_url=f"http://127.0.0.1:{node_port}")
    from backend.index.base import IndexedChunk
    from backend.index.opensearch_index import OpenSearchKeywordIndex

    node = SearchNode(settings, node_port)
    node.start()
    ix = OpenSearchKeywordIndex(settings)
    ix.add([IndexedChunk("c1", "Die Wartung der Pumpen ist fällig.", 1, 1)])
    ix.close()
    node.stop()
    assert not node.status().running
    node.start()
    ix = OpenSearchKeywordIndex(settings)
    assert [h.chunk_id for h in ix.search("Pumpe", 5)] == ["c1"]
    ix.close()


def test_port_in_use_and_elasticsearch_are_clear_errors(tmp_path, node_build_dir, node_port):
    data = tmp_path / "data"
    with socket.socket() as s:
        s.bind(("127.0.0.1", node_port))
        s.listen()
        r = cli(data, node_build_dir, "start", "--port", str(node_port))
    assert r.returncode == 2 and f"port {node_port}" in r.stderr and "in use" in r.stderr
    r = cli(data, node_build_dir, "start", "--engine", "elasticsearch", "--port", str(node_port))
    assert r.returncode == 2
    assert "org.elasticsearch.plugin:analysis-common" in r.stderr and "Maven Central" in r.stderr


def test_a_node_that_cannot_start_names_its_log(tmp_path, node_build_dir, node_port):
    settings = Settings(data_dir=tmp_path / "data", search_node_build_dir=node_build_dir)
    from backend.index.search_node import SearchNodeError

    with pytest.raises(SearchNodeError, match="node.log"):
        SearchNode(settings, node_port).start(heap="1k")  # the JVM refuses that heap
    assert port_free(node_port)


def test_cli_ingest_search_check_reindex_on_opensearch(tmp_path, opensearch_url):
    """What a user does after `search-node start`: the whole CLI on the opensearch backend
    (a unique index prefix on the shared node, dropped afterwards)."""
    import uuid

    prefix = f"ragscope-cli-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "RAGSCOPE_DATA_DIR": str(tmp_path / "var"),
           "RAGSCOPE_KEYWORD_BACKEND": "opensearch", "RAGSCOPE_OPENSEARCH_URL": opensearch_url,
           "RAGSCOPE_OPENSEARCH_INDEX_PREFIX": prefix}

    def run(*args):
        r = subprocess.run([sys.executable, "-m", "backend", *args], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, (args, r.stdout, r.stderr)
        return r.stdout

    from tests.conftest import SAMPLES

    try:
        run("ingest", "-q", str(SAMPLES / "protokoll_werkausschuss_2024-03-12.txt"),
            str(SAMPLES / "runbook_gateway_failover.md"))
        for policy in ("lexical_only", "hybrid"):
            res = json.loads(run("search", "Beschluss 2024/17", "--policy", policy, "--json",
                                 "--local"))
            top = res["hits"][0]
            assert top["filename"] == "protokoll_werkausschuss_2024-03-12.txt", policy
            assert top["keyword_score"] is not None and "<b>" in " ".join(top["highlights"])
            stage = next(s for s in res["trace"]["stages"] if s["name"] == "keyword_search")
            assert stage["params"]["index"] == "opensearch" and not stage.get("error")
        assert "ok: store and both indexes agree" in run("check", "--full", "-q")
        run("reindex", "-q")
        assert "ok: store and both indexes agree" in run("check", "--full", "-q")
        status = json.loads(run("status"))
        assert status["index_meta"]["keyword"]["backend"] == "opensearch"
    finally:  # the node outlives the test: drop its index
        req = urllib.request.Request(f"{opensearch_url.split(',')[0]}/{prefix}-chunks",
                                     method="DELETE")
        with contextlib.suppress(OSError):
            urllib.request.urlopen(req, timeout=10).close()


def test_the_build_is_reused_until_the_sources_change(tmp_path, search_node_build_dir):
    from backend.index.search_node import build, source_hash

    shutil.copytree(search_node_build_dir, tmp_path / "build")  # the session's build
    settings = Settings(data_dir=tmp_path / "data", search_node_build_dir=tmp_path / "build")
    cp, seconds = build(settings)
    assert seconds is None and cp.startswith(str(tmp_path / "build"))  # reused
    stamp = tmp_path / "build" / "stamp.json"
    assert json.loads(stamp.read_text())["hash"] == source_hash()
    stamp.write_text(json.dumps({"hash": "older-sources"}))
    _, again = build(settings)
    assert again is not None and json.loads(stamp.read_text())["hash"] == source_hash()


def test_a_prober_connected_to_itself_is_not_an_answer():
    """Polling a port nobody listens on yet can connect the prober to itself (TCP
    self-connect in the ephemeral range): the request comes back as the status line. A CI run
    died on that BadStatusLine; it must read as "not healthy yet"."""
    import threading

    from backend.index.search_node import http_json

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)

    def echo():  # what a self-connected socket does: the request is what comes back
        conn, _ = srv.accept()
        with conn:
            conn.sendall(conn.recv(4096))

    t = threading.Thread(target=echo, daemon=True)
    t.start()
    try:
        port = srv.getsockname()[1]
        assert http_json(f"http://127.0.0.1:{port}/_cluster/health", timeout=5) is None
    finally:
        t.join(timeout=5)
        srv.close()
