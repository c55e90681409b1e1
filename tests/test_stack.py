"""`python -m backend stack`: the whole scale-out stack on 127.0.0.1 (PostgreSQL, Chroma
server, OpenSearch node, 2 API workers, dashboard, crawl scheduler), used the way a user
would: through the CLI with stack.env and through the HTTP API and MCP; stopped, nothing is
left running. Needs PostgreSQL's binaries, Java and Maven (.ci/run installs them)."""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from backend.deploy.postgres import pg_bin
from backend.deploy.processes import alive
from backend.index.search_node import free_port, port_free
from tests.conftest import ROOT, SAMPLES

pytestmark = [pytest.mark.integration, pytest.mark.slow]


@pytest.fixture
def stack_dir():
    """A folder under /tmp the postgres user can enter (pytest's tmp_path is root-only)."""
    try:
        pg_bin()
    except Exception as exc:  # noqa: BLE001
        pytest.skip(str(exc))
    d = Path(tempfile.mkdtemp(prefix="ragscope-stack-test."))
    d.chmod(0o755)
    yield d / "stack"
    shutil.rmtree(d, ignore_errors=True)


def distinct_ports(n: int) -> list[int]:
    ports: list[int] = []
    while len(ports) < n:
        p = free_port()
        if p not in ports:
            ports.append(p)
    return ports


def cli(env: dict, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "backend", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def stack_args(d: Path, ports: list[int]) -> list[str]:
    names = ("postgres", "chroma", "search", "api", "dashboard")
    return ["--dir", str(d), *(x for n, p in zip(names, ports) for x in (f"--{n}-port", str(p)))]


def read_env_file(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        if line.startswith("export "):
            key, _, value = line.removeprefix("export ").partition("=")
            out[key] = shlex.split(value)[0]
    return out


def post(url: str, token: str, body: dict, accept: str = "application/json") -> str:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json",
        "Accept": accept})
    with urllib.request.urlopen(req, timeout=60) as resp:
        assert resp.status == 200
        return resp.read().decode()


def serving_pids(api_log: Path, path: str) -> set[int]:
    """Worker pids that answered POST `path` with 200 (the stack's uvicorn log names them)."""
    pat = re.compile(rf'\[(\d+)\] INFO: .*"POST {re.escape(path)} HTTP/1.1" 200')
    return {int(m.group(1)) for m in pat.finditer(api_log.read_text(errors="replace"))}


def test_the_stack_serves_search_ask_and_mcp_from_two_workers_and_stops_cleanly(
        stack_dir, search_node_build_dir):
    ports = distinct_ports(5)
    env = {**os.environ, "RAGSCOPE_SEARCH_NODE_BUILD_DIR": search_node_build_dir}
    args = stack_args(stack_dir, ports)
    started = cli(env, "stack", "start", "--api-workers", "2", *args, timeout=400)
    pids: set[int] = set()
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        status = json.loads(cli(env, "stack", "status", "--json", *args).stdout)
        assert [p["name"] for p in status] == ["postgres", "chroma", "search", "api",
                                               "dashboard", "scheduler"]
        assert all(p["healthy"] for p in status), status
        pids = {p["pid"] for p in status}
        # the CLI pointed at the stack by stack.env alone
        stack_env = read_env_file(stack_dir / "stack.env")
        assert stack_env["RAGSCOPE_KEYWORD_BACKEND"] == "opensearch"
        user = {**os.environ, **stack_env}
        r = cli(user, "ingest", "-q", str(SAMPLES), "-c", "samples")
        assert r.returncode == 0 and "17 new" in r.stdout, r.stdout + r.stderr
        token = cli(user, "token", "create", "stack-test", "--scopes", "admin").stdout.strip()
        api = f"http://127.0.0.1:{ports[3]}"

        def search(_):
            res = json.loads(post(f"{api}/api/search", token, {"query": "Beschluss 2024/17"}))
            return res["hits"][0]["filename"]

        def ask(_):
            return post(f"{api}/api/ask", token, {"question": "Was entscheidet der Beschluss "
                                                              "2024/17?"}, "text/event-stream")

        def mcp(_):
            return post(f"{api}/mcp", token, {
                "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "search_rag_context",
                           "arguments": {"query": "Beschluss 2024/17"}}},
                "application/json, text/event-stream")

        with ThreadPoolExecutor(4) as pool:
            tops = list(pool.map(search, range(16)))
            answers = list(pool.map(ask, range(4)))
            calls = list(pool.map(mcp, range(8)))
        assert set(tops) == {"protokoll_werkausschuss_2024-03-12.txt"}, tops
        assert all("event: answer" in a and "protokoll_werkausschuss" in a
                   for a in answers), answers[0][-800:]
        # MCP without sessions: every call stands alone, whichever worker takes it
        assert all('"isError":false' in c.replace(" ", "") and "protokoll_werkausschuss" in c
                   for c in calls), calls[0][:500]
        api_log = stack_dir / "logs" / "api.log"
        workers = serving_pids(api_log, "/api/search")
        assert len(workers) == 2, f"search answered by workers {workers}"
        pids |= workers | serving_pids(api_log, "/mcp")
        r = cli(user, "check", "--full", "-q")
        assert r.returncode == 0 and "ok: store and both indexes agree" in r.stdout, r.stdout
    finally:
        stopped = cli(env, "stack", "stop", *args, timeout=120)
    assert stopped.returncode == 0, stopped.stderr
    assert "postgres" in stopped.stdout and "api" in stopped.stdout
    assert [p for p in pids if alive(p)] == []
    assert all(port_free(p) for p in ports), ports
    assert cli(env, "stack", "status", *args).returncode == 1


def test_a_part_that_fails_stops_the_parts_already_started(stack_dir):
    """Chroma cannot use a file as its folder: the error names chroma and quotes its log,
    and PostgreSQL (started before it) is stopped again."""
    stack_dir.mkdir()
    (stack_dir / "chroma").write_text("not a folder")
    ports = distinct_ports(5)
    args = stack_args(stack_dir, ports)
    r = cli(dict(os.environ), "stack", "start", *args, timeout=200)
    assert r.returncode != 0
    assert "the stack's chroma failed to start" in r.stderr, r.stderr
    assert "chroma.log" in r.stderr and "stopped again: postgres" in r.stderr, r.stderr
    assert port_free(ports[0])
    assert not (stack_dir / "pg" / "data" / "postmaster.pid").exists()


def test_start_refuses_taken_ports_naming_the_part_and_starts_nothing(tmp_path):
    import socket

    ports = distinct_ports(5)
    with socket.socket() as s:
        s.bind(("127.0.0.1", ports[3]))
        s.listen()
        r = cli(dict(os.environ), "stack", "start", *stack_args(tmp_path / "s", ports))
    assert r.returncode == 2 and f"api port {ports[3]}" in r.stderr, r.stderr
    assert not (tmp_path / "s" / "stack.json").exists()
