"""The search routes' one-thread-hop handler (backend/api/one_hop.py): one worker-thread
hand-off per search, and the same answers as FastAPI's own handler for the same routes —
status, error body and headers — for good and bad requests, in FastAPI's order (JSON
decoding, unknown query parameters, the token, the body's fields)."""
from __future__ import annotations

import anyio.to_thread
import pytest
from fastapi import APIRouter, Depends, FastAPI
from fastapi.testclient import TestClient

from tests.api_support import api_env  # noqa: F401  (fixture)

GOOD = {"query": "gateway failover", "limit": 3}


@pytest.fixture(scope="module")
def reference(api_env):
    """The same endpoint functions behind FastAPI's standard route class."""
    from backend.api import errors, routes_search
    from backend.api.deps import known_query
    from backend.api.schemas import SearchResponse, SmartSearchResponse

    router = APIRouter(prefix="/api", dependencies=[Depends(known_query)])
    router.add_api_route("/search", routes_search.search, methods=["POST"],
                         response_model=SearchResponse)
    router.add_api_route("/smart-search", routes_search.smart_search, methods=["POST"],
                         response_model=SmartSearchResponse)
    app = FastAPI()
    app.state.rs = api_env.rs
    errors.install(app)
    app.include_router(router)
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def _cases(token: str) -> list[tuple[str, dict]]:
    auth = {"Authorization": f"Bearer {token}"}
    json_h = {"Content-Type": "application/json"}
    return [
        ("good", {"json": GOOD, "headers": auth}),
        ("no token", {"json": GOOD}),
        ("malformed token", {"json": GOOD, "headers": {"Authorization": "Bearer nope"}}),
        ("other scheme", {"json": GOOD, "headers": {"Authorization": "Basic eDp5"}}),
        ("bad JSON, no token", {"content": b"{not json", "headers": json_h}),
        ("bad JSON", {"content": b"{not json", "headers": {**json_h, **auth}}),
        ("not UTF-8", {"content": b'{"query": "\xff\xfe"}', "headers": {**json_h, **auth}}),
        ("unknown query parameter, no token", {"json": GOOD, "params": {"colection": "x"}}),
        ("unknown query parameter", {"json": GOOD, "params": {"x": "1"}, "headers": auth}),
        ("bad field, no token", {"json": {"query": "x", "limit": 0}}),
        ("bad field", {"json": {"query": "x", "limit": 0}, "headers": auth}),
        ("unknown field", {"json": {**GOOD, "colections": ["ops"]}, "headers": auth}),
        ("empty body", {"content": b"", "headers": {**json_h, **auth}}),
        ("a list", {"json": [1, 2], "headers": auth}),
        ("collection outside the scope", {"json": {**GOOD, "collections": ["board"]},
                                          "headers": auth}),
        ("offset past the window", {"json": {**GOOD, "offset": 500}, "headers": auth}),
    ]


@pytest.mark.parametrize("path", ["/api/search", "/api/smart-search"])
def test_answers_match_fastapis_own_handler(api_env, reference, path):
    for name, kw in _cases(api_env.tokens["ops-reader"]):
        ours, theirs = api_env.client.post(path, **kw), reference.post(path, **kw)
        assert ours.status_code == theirs.status_code, (name, ours.text, theirs.text)
        assert ours.headers.get("www-authenticate") == theirs.headers.get("www-authenticate")
        assert ours.headers["content-type"] == theirs.headers["content-type"], name
        assert ours.json() == theirs.json(), name


def test_the_answers_are_those_a_user_sees(api_env):
    """Spot checks of what the order means: no token beats a bad field, a bad field names
    itself, a good request gets its hits."""
    c, auth = api_env.client, api_env.headers("ops-reader")
    r = c.post("/api/search", json={"query": "x", "limit": 0})
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    r = c.post("/api/search", json={"query": "x", "limit": 0}, headers=auth)
    assert r.status_code == 422 and r.json()["error"]["field"] == "limit"
    r = c.post("/api/search", json=GOOD, headers=auth)
    assert r.status_code == 200 and r.json()["hits"]
    assert {h["document_id"] for h in r.json()["hits"]} <= api_env.docs_in("ops")


def test_a_search_hands_off_to_a_worker_thread_once(api_env, monkeypatch):
    """FastAPI's handler hands a search to the thread pool twice (the token check, then the
    route); this one once."""
    calls = []
    real = anyio.to_thread.run_sync

    async def counted(fn, *args, **kw):
        calls.append(getattr(fn, "__name__", repr(fn)))
        return await real(fn, *args, **kw)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counted)
    for path in ("/api/search", "/api/smart-search"):
        calls.clear()
        r = api_env.client.post(path, json=GOOD, headers=api_env.headers("ops-reader"))
        assert r.status_code == 200
        assert len(calls) == 1, (path, calls)
