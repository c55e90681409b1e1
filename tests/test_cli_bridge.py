"""`search` and `ask` through a running `python -m backend api` (issue 15, instant CLI): the
CLI finds the process through the data dir, prints what it would print in-process, loads no
model itself, falls back when the process is gone; the bridge routes accept only the
announced secret from loopback and are not part of the public API."""
from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
import urllib.request

import pytest
from fastapi.testclient import TestClient

from backend.cli import bridge as cli_bridge
from backend.ingest.records import IngestItem
from tests.api_support import free_port
from tests.conftest import ROOT
from tests.test_cli_startup import HEAVY, SCRIPT

pytestmark = pytest.mark.slow
NO_SESSION = "00000000-0000-4000-8000-000000000000"

DOCS = {
    "pumpwerk.md": "# Pumpwerk Nord\n\nDas Pumpwerk Nord wird jedes Jahr im Mai gewartet. "
                   "Die Wartung dauert drei Tage.",
    "gateway.md": "# Gateway\n\nThe default value of gateway.max_connections is 512. "
                  "Raise it only when the broker allows more sessions.",
}


@pytest.fixture(scope="module")
def served(tmp_path_factory, shared_embedder):
    """A data dir with two documents and `python -m backend api` serving it."""
    from backend.config import Settings
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope

    data = tmp_path_factory.mktemp("bridge") / "var"
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = shared_embedder
    Ingestor(rs).ingest_many([IngestItem(n, data=t.encode()) for n, t in DOCS.items()],
                             collection="netz")
    rs.close()
    env = {**os.environ, "RAGSCOPE_DATA_DIR": str(data), "OPENBLAS_NUM_THREADS": "1"}
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "backend", "api", "--port", str(port),
                             "--log-level", "warning"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while cli_bridge.find(data) is None:
        if proc.poll() is not None:
            pytest.fail("the API process ended: " + proc.stderr.read().decode()[-2000:])
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the API process did not announce itself within 120 s")
        time.sleep(0.2)
    yield data, env, proc
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()


def _cli(env, *args):
    return subprocess.run([sys.executable, "-m", "backend", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_search_through_the_running_process_matches_the_local_search(served):
    data, env, proc = served
    remote = _cli(env, "search", "Wann wird das Pumpwerk gewartet?", "--json")
    local = _cli(env, "search", "Wann wird das Pumpwerk gewartet?", "--json", "--local")
    assert remote.returncode == 0 and local.returncode == 0, remote.stderr + local.stderr
    r, l_ = json.loads(remote.stdout), json.loads(local.stdout)
    assert [h["filename"] for h in r["hits"]] == [h["filename"] for h in l_["hits"]]
    assert r["hits"][0]["filename"] == "pumpwerk.md"
    assert [h["chunk_id"] for h in r["hits"]] == [h["chunk_id"] for h in l_["hits"]]

    table = _cli(env, "search", "gateway.max_connections default")
    assert table.returncode == 0, table.stderr
    assert f"(by the running process {proc.pid})" in table.stdout
    assert "Gateway" in table.stdout.splitlines()[1]


def test_search_through_the_running_process_loads_no_model(served):
    data, env, proc = served
    r = subprocess.run([sys.executable, "-c", SCRIPT,
                        json.dumps([["search", "Pumpwerk Wartung"]]), json.dumps(HEAVY)],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out == {"codes": [0], "heavy": []}
    assert "pumpwerk" in r.stdout.lower()


def test_ask_through_the_running_process(served):
    data, env, proc = served
    r = _cli(env, "ask", "What is the default value of gateway.max_connections?",
             "--provider", "extractive")
    assert r.returncode == 0, r.stderr
    assert "512" in r.stdout and "[1]" in r.stdout
    assert f"(answered by the running process {proc.pid})" in r.stdout
    assert "cited sources:" in r.stdout and "Gateway" in r.stdout
    session = r.stdout.strip().splitlines()[-1].split()[1]
    # the session lives in the shared store: continuing it in-process finds it
    again = _cli(env, "ask", "How many sessions?", "--session", session, "--local", "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["session"] == session


def test_errors_from_the_running_process_read_like_local_ones(served):
    data, env, proc = served
    errors = []
    for extra in ([], ["--local"]):
        r = _cli(env, "--as", "nobody", "search", "Pumpwerk", *extra)
        assert r.returncode == 2, r.stdout + r.stderr
        assert "--as nobody: no such enabled dashboard user" in r.stderr
        r = _cli(env, "ask", "Pumpwerk?", "--session", NO_SESSION, *extra)
        assert r.returncode == 2 and NO_SESSION in r.stderr, r.stdout + r.stderr
        errors.append(r.stderr.strip().splitlines()[-1])
    assert errors[0] == errors[1]  # the same message either way


def test_the_announcement_is_private_and_the_routes_need_its_secret(served):
    data, env, proc = served
    path = data / cli_bridge.RUN_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    link = cli_bridge.find(data)

    def post(headers):
        req = urllib.request.Request(link.url + "/api/_local/search", method="POST",
                                     data=json.dumps({"query": "Pumpwerk", "k": 3,
                                                      "policy": "hybrid"}).encode(),
                                     headers={"Content-Type": "application/json", **headers})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code

    assert post({}) == 404
    assert post({cli_bridge.SECRET_HEADER: "x" * 43}) == 404
    assert post({"Authorization": "Bearer " + link.secret}) == 404
    with urllib.request.urlopen(link.url + "/openapi.json", timeout=30) as r:
        assert "_local" not in r.read().decode()


def test_the_routes_refuse_non_loopback_clients_and_unknown_arguments(make_rs):
    from backend.api.http import create_app

    app = create_app(make_rs())
    app.state.local_secret = "s3cret"
    body = {"query": "Pumpwerk", "policy": "hybrid", "k": 3, "collection": None,
            "fusion": None, "expand": "none", "save_trace": False, "as_user": None}
    far = TestClient(app, client=("10.0.0.7", 40000))
    assert far.post("/api/_local/search", json=body,
                    headers={cli_bridge.SECRET_HEADER: "s3cret"}).status_code == 404
    near = TestClient(app, client=("127.0.0.1", 40000))
    ok = near.post("/api/_local/search", json=body, headers={cli_bridge.SECRET_HEADER: "s3cret"})
    assert ok.status_code == 200 and ok.json()["hits"] == []
    bad = near.post("/api/_local/search", json={**body, "shell": "rm"},
                    headers={cli_bridge.SECRET_HEADER: "s3cret"})
    assert bad.status_code == 422 and "shell" in bad.json()["error"]["message"]
    app.state.local_secret = None  # a process that announced nothing accepts nothing
    assert near.post("/api/_local/search", json=body,
                     headers={cli_bridge.SECRET_HEADER: "s3cret"}).status_code == 404


def test_a_stale_announcement_falls_back_to_the_local_search(tmp_path):
    data = tmp_path / "var"
    (data / "run").mkdir(parents=True)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (data / cli_bridge.RUN_FILE).write_text(json.dumps(
        {"pid": dead.pid, "url": f"http://127.0.0.1:{free_port()}", "secret": "x"}))
    assert cli_bridge.find(data) is None
    (data / cli_bridge.RUN_FILE).write_text(json.dumps(  # alive, but nothing listens
        {"pid": os.getpid(), "url": f"http://127.0.0.1:{free_port()}", "secret": "x"}))
    assert cli_bridge.find(data) is None
    (data / cli_bridge.RUN_FILE).write_text("{not json")
    assert cli_bridge.find(data) is None


def test_the_announcement_is_withdrawn_when_the_process_stops(tmp_path, shared_embedder):
    env = {**os.environ, "RAGSCOPE_DATA_DIR": str(tmp_path / "var"),
           "OPENBLAS_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "backend", "api", "--port",
                             str(free_port()), "--log-level", "warning"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    path = tmp_path / "var" / cli_bridge.RUN_FILE
    deadline = time.monotonic() + 120
    while cli_bridge.find(tmp_path / "var") is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert path.exists()
    proc.send_signal(signal.SIGINT)
    proc.wait(30)
    assert not path.exists()
