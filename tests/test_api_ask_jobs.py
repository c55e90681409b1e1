"""Replayable ask jobs over the HTTP API (issue 26, seed 004): `POST /api/ask-jobs` starts a
job, `GET /api/ask-sse/{jobId}` streams its events with ids, a reconnect with
`Last-Event-ID` gets exactly what it missed, `GET /api/ask-jobs/{jobId}` is its status, a
job whose worker died is stale (not running forever), another token's job is 404, and
`POST /api/ask-sse` is the direct flow. The mid-stream test runs a real uvicorn server with
a model that stops after its first words until the test lets it go on, so the client
disconnects while the answer is still being made."""
from __future__ import annotations

import json
import threading
import uuid
from datetime import datetime, timedelta, timezone

import httpx
import pytest

from backend.llm.base import StreamEnd, TextDelta
from tests.api_support import LiveServer, api_env  # noqa: F401  (the fixture)
from tests.sse_support import parse_sse

QUESTION = "Wie lange dauert der Failover des Gateways?"
WORDS = "Der Failover des Gateways dauert laut Runbook etwa dreißig Sekunden [1]."



def _start(client, headers, question=QUESTION) -> dict:
    r = client.post("/api/ask-jobs", json={"question": question}, headers=headers)
    assert r.status_code == 202, r.text
    return r.json()


def _events(client, job_id, headers, **extra) -> list:
    with client.stream("GET", f"/api/ask-sse/{job_id}", headers={**headers, **extra},
                       timeout=240) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("text/event-stream")
        return parse_sse(r.iter_lines())


def test_a_job_streams_its_phases_sources_deltas_and_answer_with_ids(api_env):
    c, h = api_env.client, api_env.headers("ops-reader")
    job = _start(c, h)
    assert job["status"] == "running" and job["links"]["events"].endswith(job["job_id"])
    events = _events(c, job["job_id"], h)
    ids, names = [e[0] for e in events], [e[1] for e in events]
    assert ids == list(range(1, len(events) + 1))
    assert names[:3] == ["status", "sources", "status"]
    assert [events[0][2]["phase"], events[2][2]["phase"]] == ["retrieving", "generating"]
    assert "delta" in names and names[-1] == "answer"
    answer = events[-1][2]
    assert answer["text"].strip() == "".join(d["text"] for _, n, d in events
                                             if n == "delta").strip()
    assert {s["document_id"] for s in answer["sources"]} <= api_env.docs_in("ops")
    status = c.get(f"/api/ask-jobs/{job['job_id']}", headers=h).json()
    assert status["status"] == "done" and status["last_event_id"] == len(events)
    assert status["finished_at"] and status["question"] == QUESTION
    # the turn is in the principal's session, as with /api/ask
    r = c.post("/api/ask", json={"question": "Und danach?", "session": answer["session"]},
               headers=api_env.headers("public-reader"))
    assert r.status_code == 404


class GatedModel:
    """A model that says its first three words, then waits for `go` before the rest."""

    name, local, default_model = "anthropic", False, "claude-sonnet-4-5-20250929"

    def __init__(self):
        self.go = threading.Event()

    def stream(self, request):
        words = WORDS.split(" ")
        for i, w in enumerate(words):
            if i == 3:
                assert self.go.wait(120), "the test never let the model go on"
            yield TextDelta(w + " ")
        yield StreamEnd(self.default_model, 100, 20, "end_turn")


@pytest.fixture
def gated(api_env):
    from backend.api.http import create_app

    model = GatedModel()
    app = create_app(api_env.rs, provider_factory=lambda name: model)
    with LiveServer(app) as server:
        with httpx.Client(base_url=server.url, timeout=240) as client:
            yield model, client
    model.go.set()


def _read(client, job_id, headers, n: int) -> list:
    """The first `n` events, then the connection is closed (a reload mid-answer)."""
    got = []
    with client.stream("GET", f"/api/ask-sse/{job_id}", headers=headers) as r:
        lines = []
        for line in r.iter_lines():
            lines.append(line)
            got = parse_sse(lines)
            if len(got) == n:
                break
    return got


def test_a_reconnect_with_last_event_id_gets_exactly_the_missed_events(api_env, gated):
    model, c = gated
    h = api_env.headers("ops-reader")
    job = _start(c, h)["job_id"]
    first = _read(c, job, h, 4)  # status, sources, status, the first words
    assert [e[1] for e in first] == ["status", "sources", "status", "delta"]
    assert c.get(f"/api/ask-jobs/{job}", headers=h).json()["status"] == "running"
    model.go.set()  # the model goes on while nobody listens
    rest = _events(c, job, h, **{"Last-Event-ID": str(first[-1][0])})
    assert [e[0] for e in rest] == list(range(5, 5 + len(rest)))  # no duplicates, no gap
    assert rest[-1][1] == "answer"
    whole = _events(c, job, h)  # a fresh client replays everything
    assert whole == first + rest
    text = "".join(d["text"] for _, n, d in whole if n == "delta")
    assert text.split() == WORDS.split() and rest[-1][2]["text"].strip() == WORDS
    assert _events(c, job, h, **{"Last-Event-ID": str(whole[-1][0])}) == []


def test_a_job_is_its_starters_only_and_bad_ids_are_404(api_env):
    c = api_env.client
    job = _start(c, api_env.headers("ops-reader"))["job_id"]
    for other in ("public-reader", "root"):
        for path in (f"/api/ask-jobs/{job}", f"/api/ask-sse/{job}"):
            r = c.get(path, headers=api_env.headers(other))
            assert r.status_code == 404, (other, path)
            assert r.json()["error"]["code"] == "not_found"
    for bad in ("nope", str(uuid.uuid4()), "x" * 150):
        r = c.get(f"/api/ask-jobs/{bad}", headers=api_env.headers("ops-reader"))
        assert r.status_code == 404 and bad in r.json()["error"]["message"]
    r = c.post("/api/ask-jobs", json={"question": "   "}, headers=api_env.headers("ops-reader"))
    assert r.status_code == 422 and "empty" in r.json()["error"]["message"]
    _events(c, job, api_env.headers("ops-reader"))  # let it finish before the next test


def _dead_job(rs, owner: str, *, events: int, ago_s: float, status="running") -> str:
    """A job as a worker that died leaves it: running, `events` stored, old heartbeat."""
    from backend.store.ask_job_models import AskJob, AskJobEvent

    then = datetime.now(timezone.utc) - timedelta(seconds=ago_s)
    jid = str(uuid.uuid4())
    with rs.store.session() as s:
        s.add(AskJob(id=jid, owner=owner, question=QUESTION, status=status, error="",
                     worker="gone-host:4242", created_at=then, heartbeat_at=then,
                     finished_at=then if status != "running" else None))
        s.flush()
        s.add(AskJobEvent(job_id=jid, seq=1, event="status", data='{"phase": "retrieving"}'))
        for i in range(2, events + 1):
            s.add(AskJobEvent(job_id=jid, seq=i, event="delta", data='{"text": "Der "}'))
    return jid


def test_a_job_whose_worker_died_is_stale_and_its_stream_ends(api_env):
    c, h = api_env.client, api_env.headers("ops-reader")
    job = _dead_job(api_env.rs, "api:ops-reader", events=2,
                    ago_s=api_env.rs.settings.ask_job_stale_s + 5)
    status = c.get(f"/api/ask-jobs/{job}", headers=h).json()
    assert status["status"] == "stale" and "gone-host:4242" in status["error"]
    events = _events(c, job, h, **{"Last-Event-ID": "1"})
    assert [(e[0], e[1]) for e in events] == [(2, "delta"), (3, "error")]
    assert events[-1][2]["error"]["code"] == "job_stale"
    fresh = _dead_job(api_env.rs, "api:ops-reader", events=1, ago_s=1)  # beat 1 s ago
    assert c.get(f"/api/ask-jobs/{fresh}", headers=h).json()["status"] == "running"


def test_finished_jobs_are_deleted_after_the_retention_time(api_env):
    c, h = api_env.client, api_env.headers("ops-reader")
    keep = api_env.rs.settings.ask_job_retention_s
    old = _dead_job(api_env.rs, "api:ops-reader", events=2, ago_s=keep + 60, status="done")
    recent = _dead_job(api_env.rs, "api:ops-reader", events=2, ago_s=keep - 60, status="done")
    assert c.get(f"/api/ask-jobs/{old}", headers=h).status_code == 200
    _events(c, _start(c, h)["job_id"], h)  # starting a job purges the expired ones
    assert c.get(f"/api/ask-jobs/{old}", headers=h).status_code == 404
    assert c.get(f"/api/ask-jobs/{recent}", headers=h).json()["last_event_id"] == 2


def test_ask_sse_is_the_direct_flow_and_openapi_lists_the_job_routes(api_env):
    c, h = api_env.client, api_env.headers("ops-reader")
    with c.stream("POST", "/api/ask-sse", json={"question": QUESTION}, headers=h,
                  timeout=240) as r:
        assert r.status_code == 200
        events = parse_sse(r.iter_lines())
    assert events[0][1] == "sources" and events[-1][1] == "answer"
    assert all(e[0] is None for e in events)  # the direct flow is not replayable
    paths = c.get("/openapi.json").json()["paths"]
    for p in ("/api/ask-jobs", "/api/ask-jobs/{jobId}", "/api/ask-sse/{jobId}",
              "/api/ask-sse"):
        assert p in paths, p


class BrokenModel(GatedModel):
    """A model that breaks after its first words with an error no provider expects."""

    def stream(self, request):
        yield TextDelta("Der ")
        raise RuntimeError("segfault in the tokenizer (secret detail)")


def test_a_job_whose_answer_breaks_ends_failed_with_an_error_event(api_env):
    from fastapi.testclient import TestClient

    from backend.api.http import create_app

    app = create_app(api_env.rs, provider_factory=lambda name: BrokenModel())
    with TestClient(app, raise_server_exceptions=False) as c:
        h = api_env.headers("ops-reader")
        job = _start(c, h)["job_id"]
        events = _events(c, job, h)
        status = c.get(f"/api/ask-jobs/{job}", headers=h).json()
    assert events[-1][1] == "error" and events[-1][2]["error"]["code"] == "internal_error"
    assert "secret detail" not in json.dumps(events) + json.dumps(status)
    assert status["status"] == "failed" and status["finished_at"]
    assert [e[0] for e in events] == list(range(1, len(events) + 1))
