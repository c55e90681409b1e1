"""`python -m backend api` as an operator runs it (backend/api/serving.py): half-sent requests
are cut off (head deadline: closed; body deadline: 408), no secret reaches its log, SIGTERM
removes its `run/api.json` like Ctrl-C, and the CLI ignores an announcement whose process
is dead. Raw sockets on 127.0.0.1 only, a bounded number of them."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from backend.api.serving import redact
from backend.cli import bridge as cli_bridge
from tests.api_support import free_port
from tests.conftest import ROOT

pytestmark = pytest.mark.slow
SECRET = "rgs_k3yid0000_Zebrafink-Tresorraum-Kennwort"


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    data = tmp_path_factory.mktemp("serving") / "var"
    log = data.parent / "api.log"
    env = {**os.environ, "RAGSCOPE_DATA_DIR": str(data), "OPENBLAS_NUM_THREADS": "1",
           "RAGSCOPE_API_HEADER_TIMEOUT_S": "1", "RAGSCOPE_API_BODY_TIMEOUT_S": "1"}
    port = free_port()
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "backend", "api", "--port", str(port),
                                 "--log-level", "debug"], cwd=ROOT, env=env, stdout=out,
                                stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while cli_bridge.find(data) is None:
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the API did not start: " + log.read_text()[-2000:])
        time.sleep(0.2)
    yield {"port": port, "data": data, "log": log, "proc": proc}
    if proc.poll() is None:
        proc.kill()
        proc.wait(30)


def _get(port, path, headers=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def _closed_within(sock, seconds) -> bytes:
    """What the server sent before closing the connection (fails if it stays open)."""
    sock.settimeout(seconds)
    got = b""
    while True:
        chunk = sock.recv(65536)  # socket.timeout: the server held the connection open
        if not chunk:
            return got
        got += chunk


def test_redact_covers_query_strings_headers_and_token_shapes():
    assert redact(f"GET /api/collections?token={SECRET}&limit=5") == \
        "GET /api/collections?token=[redacted]&limit=5"
    assert redact(f"/mcp?x=1&access_token=abc123&api_key=k9") == \
        "/mcp?x=1&access_token=[redacted]&api_key=[redacted]"
    assert SECRET not in redact(f"headers: {{'authorization': 'Bearer {SECRET}'}}")
    assert SECRET not in redact(f"login with {SECRET} failed")
    assert redact("GET /api/documents?title=Pumpe&limit=5") == \
        "GET /api/documents?title=Pumpe&limit=5"


def test_half_sent_heads_are_closed_and_stalled_bodies_get_408(api):
    port = api["port"]
    heads = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(30)]
    bodies = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(5)]
    try:
        for s in heads:
            s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        for s in bodies:
            s.sendall(b"POST /api/search HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"qu")
        t0 = time.monotonic()
        assert all(_closed_within(s, 10) == b"" for s in heads)  # 1 s deadline
        answers = [_closed_within(s, 10) for s in bodies]
        assert time.monotonic() - t0 < 10
        for a in answers:
            head, _, body = a.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 408"), a[:200]
            assert json.loads(body)["error"]["code"] == "request_timeout"
    finally:
        for s in heads + bodies:
            s.close()
    assert _get(port, "/api/health")[0] == 200  # the server still serves


def test_no_secret_reaches_the_log(api):
    port = api["port"]
    assert _get(port, f"/api/collections?token={SECRET}")[0] in (401, 422)  # refused
    assert _get(port, "/api/collections", {"Authorization": f"Bearer {SECRET}"})[0] == 401
    assert _get(port, f"/api/documents?access_token={SECRET}&limit=3")[0] in (401, 422)
    time.sleep(0.5)
    text = api["log"].read_text()
    assert "/api/collections?token=[redacted]" in text  # the access log still has the line
    assert SECRET not in text and "Zebrafink" not in text


def test_sigterm_removes_the_announcement_and_a_dead_pid_is_ignored(api):
    proc, data = api["proc"], api["data"]
    path = data / cli_bridge.RUN_FILE
    assert path.exists()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 143
    assert not path.exists()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    path.write_text(json.dumps({"pid": dead.pid, "url": "http://127.0.0.1:9", "secret": "x"}))
    assert cli_bridge.find(data) is None
    assert not path.exists()  # removed: the next command does not look again
