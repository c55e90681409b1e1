"""Rate limits per API token and per client address (backend/api/ratelimit.py): a client over
its limit gets 429 with Retry-After and the API's error body, on the HTTP API and the MCP
endpoints alike; another token keeps working. Limits are tiny here; the bucket's refill is
tested with a fake clock (no timing)."""
from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from backend.api.ratelimit import TokenBucket
from tests.api_support import grant_and_issue


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    from backend.api.http import create_app
    from backend.config import Settings
    from backend.services.container import Ragscope

    rs = Ragscope(Settings(data_dir=tmp_path_factory.mktemp("rate") / "var",
                           api_rate_per_token=3, api_rate_per_address=8))
    tokens = grant_and_issue(rs, {}, {"user-a": ([], ["read"]), "user-b": ([], ["read"])})
    yield create_app(rs), tokens  # one app: its buckets are shared by the clients below
    rs.close()


def _client(app, address: str) -> TestClient:
    return TestClient(app, client=(address, 50000), raise_server_exceptions=False)


def test_a_token_over_its_limit_gets_429_with_retry_after_and_others_keep_going(limited):
    rs, tokens = limited
    c = _client(rs, "10.0.0.1")
    a = {"Authorization": f"Bearer {tokens['user-a']}"}
    codes = [c.get("/api/collections", headers=a).status_code for _ in range(3)]
    assert codes == [200, 200, 200]
    r = c.get("/api/collections", headers=a)
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
    assert r.json()["error"]["code"] == "rate_limited"
    assert "RAGSCOPE_API_RATE_PER_TOKEN" in r.json()["error"]["message"]
    assert tokens["user-a"] not in r.text
    mcp = c.post("/mcp", headers={**a, "Content-Type": "application/json",
                                  "Accept": "application/json, text/event-stream"},
                 json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert mcp.status_code == 429  # the MCP endpoint counts against the same token
    b = {"Authorization": f"Bearer {tokens['user-b']}"}
    assert c.get("/api/collections", headers=b).status_code == 200


def test_an_address_over_its_limit_gets_429_with_or_without_a_token(limited):
    rs, tokens = limited
    c = _client(rs, "10.0.0.2")
    codes = [c.get("/api/collections").status_code for _ in range(8)]
    assert codes == [401] * 8  # refused for the missing token, but counted
    r = c.get("/api/collections", headers={"Authorization": f"Bearer {tokens['user-b']}"})
    assert r.status_code == 429 and "RAGSCOPE_API_RATE_PER_ADDRESS" in r.text
    assert r.headers["retry-after"] == "8"  # 8 a minute: one every 7.5 s
    other = _client(rs, "10.0.0.3")
    assert other.get("/api/collections").status_code == 401  # another address: its own


def test_the_bucket_refills_at_its_rate():
    now = [100.0]
    bucket = TokenBucket(2, window_s=60, clock=lambda: now[0])
    assert [bucket.take("k") for _ in range(2)] == [0.0, 0.0]
    assert bucket.take("k") == pytest.approx(30.0)  # 2 a minute: the next in 30 s
    now[0] += 29
    assert bucket.take("k") == pytest.approx(1.0)
    now[0] += 1
    assert bucket.take("k") == 0.0 and bucket.take("other") == 0.0
    now[0] += 3600  # idle for long: a full bucket, never more
    assert [bucket.take("k") for _ in range(3)][2] > 0
