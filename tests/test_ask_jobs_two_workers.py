"""Replayable ask jobs under two API workers (issue 26.3): uvicorn with `--workers 2` — the
way `python -m backend stack` runs the API (`backend.api.cli:worker_app`) — on a SQLite
data dir. A job started on one worker is replayed by the other: the client disconnects
after the first events and reconnects with `Last-Event-ID` on new connections until the
worker that did not run the job serves the replay (the access log names each request's
worker pid); every replay carries exactly the missed events, and the finished job replays
whole from either worker. The model holds its answer (tests/held_model_support.py) so the
job is still running while the other worker replays it."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from backend.deploy.stack import UVICORN_LOG_CONFIG
from tests.api_support import free_port
from tests.browser_support import ingested
from tests.conftest import ROOT
from tests.held_model_support import DOC, QUESTION, held, held_env  # noqa: F401
from tests.sse_support import parse_sse

RECONNECTS = 40  # new connections tried until the other worker answers one (each 50/50)



def _first_events(api: str, job_id: str, headers: dict, n: int) -> list:
    """Read `n` events of the job's stream, then disconnect."""
    got = []
    with httpx.Client(timeout=120) as c, c.stream("GET", f"{api}/api/ask-sse/{job_id}",
                                                   headers=headers) as r:
        assert r.status_code == 200
        lines = []
        for line in r.iter_lines():
            lines.append(line)
            got = parse_sse(lines)
            if len(got) >= n:
                break
    return got


def _replay_until(api, job_id, headers, after: int, log: Path, job_pid: int, until_end=False):
    """Reconnect with Last-Event-ID `after` (a new connection each time) until a worker
    other than `job_pid` served it; returns (events, pid). Without `until_end` only the
    events stored so far are read (the job still runs): the stream is read for 1 s."""
    for attempt in range(RECONNECTS):
        seen = _served(log)
        with httpx.Client(timeout=httpx.Timeout(120, read=None if until_end else 1.0)) as c:
            lines = []
            try:
                with c.stream("GET", f"{api}/api/ask-sse/{job_id}",
                              headers={**headers, "Last-Event-ID": str(after)}) as r:
                    assert r.status_code == 200
                    for line in r.iter_lines():
                        lines.append(line)
            except httpx.ReadTimeout:
                pass
        pid = _new_pid(log, seen, job_id)
        if pid != job_pid:
            return parse_sse(lines), pid
    raise AssertionError(f"{RECONNECTS} reconnects all served by the job's worker {job_pid}")


_LINE = re.compile(r'\[(\d+)\] INFO: .*"GET /api/ask-sse/(\S+) HTTP/1.1" 200')


def _served(log: Path) -> list[tuple[int, str]]:
    return [(int(m.group(1)), m.group(2)) for m in _LINE.finditer(log.read_text(
        errors="replace"))]


def _new_pid(log: Path, before: list, job_id: str, timeout: float = 10) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        new = [pid for pid, j in _served(log)[len(before):] if j == job_id]
        if new:
            return new[-1]
        time.sleep(0.05)
    raise AssertionError("the replay request is not in the access log")


def _wait_events(api: str, job_id: str, headers: dict, n: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = httpx.get(f"{api}/api/ask-jobs/{job_id}", headers=headers, timeout=30)
        assert r.status_code == 200, r.text
        if r.json()["last_event_id"] >= n:
            return
        time.sleep(0.1)
    raise AssertionError(f"the job has not stored {n} events: {r.json()}")


def _wait_up(api: str, proc, log: Path, workers: int = 2, timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text()[-3000:]
        started = set(re.findall(r"\[(\d+)\] INFO: +Application startup complete",
                                 log.read_text(errors="replace")))
        if len(started) >= workers:
            return
        time.sleep(0.3)
    raise AssertionError("the API workers did not start: " + log.read_text()[-3000:])


def test_a_job_started_on_one_worker_is_replayed_by_the_other(tmp_path, shared_embedder, held):
    from backend.api.tokens import create_token
    from backend.store.ask_job_models import AskJob
    from backend.store.store import Store

    data = tmp_path / "var"
    with ingested(data, shared_embedder) as ingestor:
        assert ingestor.ingest_bytes(DOC, "gateway.txt").ok
        token = create_token(ingestor.rs.store, "ops", ["admin"], created_by="tests")[1]
    headers = {"Authorization": f"Bearer {token}"}
    port, log = free_port(), tmp_path / "api.log"
    (tmp_path / "log.json").write_text(json.dumps(UVICORN_LOG_CONFIG))
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGSCOPE_")}
    env.update(RAGSCOPE_DATA_DIR=str(data), HF_HUB_OFFLINE="1", **held_env(held))
    if os.environ.get("RAGSCOPE_EMBEDDING_CACHE_DIR"):
        env["RAGSCOPE_EMBEDDING_CACHE_DIR"] = os.environ["RAGSCOPE_EMBEDDING_CACHE_DIR"]
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "--factory", "backend.api.cli:worker_app",
             "--host", "127.0.0.1", "--port", str(port), "--workers", "2",
             "--log-config", str(tmp_path / "log.json")],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    api = f"http://127.0.0.1:{port}"
    try:
        _wait_up(api, proc, log)
        r = httpx.post(f"{api}/api/ask-jobs", json={"question": QUESTION}, headers=headers,
                       timeout=120)
        assert r.status_code == 202, r.text
        job_id = r.json()["job_id"]
        store = Store(f"sqlite:///{data / 'ragscope.db'}", migrate=False)
        with store.session() as s:
            job_pid = int(s.get(AskJob, job_id).worker.rsplit(":", 1)[1])
        store.dispose()

        first = _first_events(api, job_id, headers, 3)  # status, sources, status
        assert [e[1] for e in first] == ["status", "sources", "status"], first
        _wait_events(api, job_id, headers, 4)  # the model's first words are stored
        events, other = _replay_until(api, job_id, headers, 3, log, job_pid)
        assert other != job_pid
        # only what was missed: the model's first words, stored while it holds the rest
        assert [(e[0], e[1]) for e in events] == [(4, "delta")], events
        assert not any(e[1] == "answer" for e in events)  # still running: the model holds

        held.go.set()
        rest, other = _replay_until(api, job_id, headers, 3, log, job_pid, until_end=True)
        assert [e[0] for e in rest] == list(range(4, 4 + len(rest)))
        assert rest[-1][1] == "answer" and "8443" in rest[-1][2]["text"]
        assert "".join(e[2]["text"] for e in rest if e[1] == "delta").strip() == \
            rest[-1][2]["text"].strip()
        whole, _ = _replay_until(api, job_id, headers, 0, log, job_pid, until_end=True)
        assert [e[0] for e in whole] == list(range(1, len(whole) + 1))
        assert whole[3:] == rest
        assert len(held.requests) == 1  # one answer, made once, by the job's worker
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
