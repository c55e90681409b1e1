"""The HTTP API of the run-time configuration (issue 26, item 7): system prompt versions,
the safe settings, the audit log and the domain rules, for admin tokens only."""
from __future__ import annotations

import pytest

from backend.store import runtime_settings as rt
from tests.api_support import api_env  # noqa: F401  (the shared corpus and tokens)


@pytest.fixture
def env(api_env):  # noqa: F811
    """The shared app; what a test changes is undone (other modules share the store)."""
    yield api_env
    from backend.store.admin_config_models import ConfigAudit, RuntimeSetting, SystemPromptVersion

    with api_env.rs.store.session() as s:
        for model in (ConfigAudit, RuntimeSetting, SystemPromptVersion):
            s.query(model).delete()
    api_env.rs.settings_overlay.invalidate()


def test_prompt_versions_over_http(env):
    c, h = env.client, env.headers("root")
    r = c.post("/api/admin/prompts/chat", json={"text": "Antworte knapp.", "note": "short"},
               headers=h)
    assert r.status_code == 201 and r.json()["version"] == 1 and not r.json()["active"]
    assert c.post("/api/admin/prompts/chat/1/activate", headers=h).json()["active"]
    active = c.get("/api/admin/prompts/chat/active", headers=h).json()
    assert active["version"] == 1 and active["system_block"].endswith("4. Antworte knapp.")
    assert active["system_block"].startswith("You are the document assistant of ragscope.")
    c.post("/api/admin/prompts/chat", json={"text": "Answer briefly."}, headers=h)
    listed = c.get("/api/admin/prompts/chat", headers=h).json()["versions"]
    assert [(v["version"], v["active"], v["created_by"]) for v in listed] == [
        (2, False, "root"), (1, True, "root"), (0, False, "ragscope")]
    diff = c.get("/api/admin/prompts/chat/diff", params={"a": 1, "b": 2}, headers=h).json()
    assert "-Antworte knapp." in diff["diff"] and "+Answer briefly." in diff["diff"]
    r = c.post("/api/admin/prompts/chat/9/activate", headers=h)
    assert r.status_code == 404 and "version 9 does not exist" in r.json()["error"]["message"]
    r = c.post("/api/admin/prompts/chat", json={"text": " "}, headers=h)
    assert r.status_code == 422 and "text: the house rules are empty" in r.json()["error"]["message"]
    r = c.get("/api/admin/prompts/bots", headers=h)
    assert r.status_code == 422


def test_runtime_settings_and_the_audit_log_over_http(env, monkeypatch):
    monkeypatch.setattr(rt, "CHECK_S", 0.0)  # env.rs re-reads the store (stack mode: another process wrote)
    c, h = env.client, env.headers("root")
    rows = {r["name"]: r for r in c.get("/api/admin/settings", headers=h).json()["settings"]}
    assert set(rows) == set(rt.SAFE) and rows["chat_source_chars"]["value"] == 2000
    r = c.put("/api/admin/settings/chat_source_chars", json={"value": 3000}, headers=h)
    assert r.status_code == 200 and r.json() == {"name": "chat_source_chars", "value": 3000}
    assert env.rs.settings.chat_source_chars == 3000  # applied to the services
    r = c.put("/api/admin/settings/chat_source_chars", json={"value": 5}, headers=h)
    assert r.status_code == 422
    assert "chat_source_chars: Input should be greater than or equal to 200" in \
        r.json()["error"]["message"]
    r = c.put("/api/admin/settings/db_url", json={"value": "sqlite://"}, headers=h)
    assert r.status_code == 422 and "db_url" in r.json()["error"]["message"]
    assert c.delete("/api/admin/settings/chat_source_chars", headers=h).json()["reset"]
    assert env.rs.settings.chat_source_chars == 2000
    entries = c.get("/api/admin/audit", params={"kind": "setting"}, headers=h).json()["entries"]
    assert [(e["name"], e["action"], e["old"], e["new"], e["actor"]) for e in entries] == [
        ("chat_source_chars", "reset", 3000, 2000, "root"),
        ("chat_source_chars", "set", 2000, 3000, "root")]
    st = c.get("/api/admin/domain-rules", headers=h).json()
    assert st["ok"] and st["counts"]["repairs"] > 0


@pytest.mark.parametrize("method,path,body", [
    ("get", "/api/admin/prompts/chat", None),
    ("post", "/api/admin/prompts/chat", {"text": "x"}),
    ("post", "/api/admin/prompts/chat/0/activate", None),
    ("get", "/api/admin/settings", None),
    ("put", "/api/admin/settings/chat_source_chars", {"value": 3000}),
    ("delete", "/api/admin/settings/chat_source_chars", None),
    ("get", "/api/admin/audit", None),
    ("get", "/api/admin/domain-rules", None),
])
def test_tokens_without_the_admin_scope_are_refused(env, method, path, body):
    call = getattr(env.client, method)
    kw = {"json": body} if body is not None else {}
    for who in ("ops-reader", "board-writer"):
        r = call(path, headers=env.headers(who), **kw)
        assert r.status_code == 403, (who, r.text)
    assert call(path, **kw).status_code == 401
    assert rt.overrides(env.rs.store) == {} and env.client.get(
        "/api/admin/audit", headers=env.headers("root")).json()["entries"] == []
