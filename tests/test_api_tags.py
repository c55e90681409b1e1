"""Tags through the HTTP API and MCP (docs/tags.md, docs/api.md): the tag routes with their
token scopes and ACL (404 outside the scope, like a missing document), validation errors
naming the field, and the `tags` / `categories` filters of search, smart search, ask and
the MCP search tools."""
from __future__ import annotations

import asyncio
import json

import pytest

from tests.api_support import api_env  # noqa: F401  (fixture)

BOARD = "protokoll_werkausschuss_2024-03-12.txt"
RUNBOOK = "runbook_gateway_failover.md"
NOTES = "lumen_release_notes.md"


@pytest.fixture
def env(api_env):
    """The shared corpus; every tag set here is removed again (other modules search it)."""
    yield api_env
    from backend.security.access import Actor
    from backend.services import tags

    for doc in api_env.docs.values():
        tags.replace(api_env.rs, Actor.system("tests"), doc, [])


def _tag(env, who, doc, method="post", **body):
    c = env.client
    url = f"/api/documents/{env.docs[doc]}/tags"
    return getattr(c, method)(url, headers=env.headers(who), **({"json": body} if body else {}))


def test_openapi_lists_the_tag_routes_and_filters(env):
    spec = env.client.get("/openapi.json").json()
    paths = spec["paths"]
    assert {"get", "put", "post"} <= set(paths["/api/documents/{doc_id}/tags"])
    assert "delete" in paths["/api/documents/{doc_id}/tags/{tag}"]
    assert "/api/tags" in paths
    for model in ("SearchRequest", "SmartSearchRequest"):
        props = spec["components"]["schemas"][model]["properties"]
        assert {"tags", "categories"} <= set(props), model
    assert "tags" in spec["components"]["schemas"]["AskRequest"]["properties"]


def test_a_writer_adds_replaces_and_removes_tags_of_its_documents(env):
    r = _tag(env, "board-writer", BOARD, tags=["  Werkausschuss ", "Beschlüsse"])
    assert r.status_code == 200, r.text
    body = r.json()
    assert [t["name"] for t in body["tags"]] == ["Beschlüsse", "Werkausschuss"]
    assert body["tags"][0]["created_by"] == "board-writer" and body["tags"][0]["source"] == "user"
    assert "Meeting minutes" in body["suggestions"]
    r = _tag(env, "board-writer", BOARD, tags=["Meeting minutes"], source="suggestion")
    assert "Meeting minutes" not in r.json()["suggestions"]
    r = _tag(env, "board-writer", BOARD, "put", tags=["werkausschuss", "Wasser"])
    assert [t["name"] for t in r.json()["tags"]] == ["Wasser", "Werkausschuss"]
    r = env.client.delete(f"/api/documents/{env.docs[BOARD]}/tags/WASSER",
                          headers=env.headers("board-writer"))
    assert r.status_code == 200 and r.json()["changed"] == ["Wasser"]
    got = env.client.get(f"/api/documents/{env.docs[BOARD]}/tags",
                         headers=env.headers("board-writer")).json()
    assert [t["name"] for t in got["tags"]] == ["Werkausschuss"]
    vocab = env.client.get("/api/tags", headers=env.headers("board-writer")).json()["tags"]
    assert {"name": "Werkausschuss", "documents": 1} in vocab


def test_documents_outside_the_scope_are_404_and_read_tokens_403(env):
    for method, body in (("get", {}), ("post", {"tags": ["x"]}), ("put", {"tags": ["x"]})):
        r = _tag(env, "board-writer", RUNBOOK, method, **body)
        assert r.status_code == 404, (method, r.text)
        assert r.json()["error"]["message"] == f"document {env.docs[RUNBOOK]} not found"
    r = env.client.delete(f"/api/documents/{env.docs[RUNBOOK]}/tags/x",
                          headers=env.headers("board-writer"))
    assert r.status_code == 404
    assert _tag(env, "ops-reader", BOARD, "get").status_code == 404
    assert _tag(env, "ops-reader", RUNBOOK, "get").status_code == 200
    r = _tag(env, "ops-reader", RUNBOOK, tags=["x"])
    assert r.status_code == 403 and "write" in r.json()["error"]["message"]
    vocab = env.client.get("/api/tags", headers=env.headers("ops-reader")).json()["tags"]
    _tag(env, "root", BOARD, tags=["geheim"])
    assert "geheim" not in str(env.client.get("/api/tags", headers=env.headers("ops-reader")).json())
    assert vocab == []


@pytest.mark.parametrize("tags, says", [(["a;b"], "contains ';'"), ([""], "must not be empty"),
                                        (["x" * 51], "at most 50")])
def test_invalid_tags_are_422_naming_the_field(env, tags, says):
    r = _tag(env, "board-writer", BOARD, tags=tags)
    assert r.status_code == 422
    err = r.json()["error"]
    assert err["field"] == "tags" and says in err["message"]
    assert _tag(env, "board-writer", BOARD, "get").json()["tags"] == []


def _search(env, who, path="/api/search", **body):
    r = env.client.post(path, json=body, headers=env.headers(who))
    return r


def test_search_and_smart_search_filter_by_tag(env):
    _tag(env, "root", NOTES, tags=["Releases"])
    r = _search(env, "ops-reader", query="Gateway Failover Version", tags=["releases"],
                limit=50)
    assert r.status_code == 200, r.text
    assert {h["filename"] for h in r.json()["hits"]} == {NOTES}
    r = _search(env, "ops-reader", "/api/smart-search", query="Gateway Failover Version",
                tags=["RELEASES"])
    assert [d["filename"] for d in r.json()["documents"]] == [NOTES]
    unfiltered = _search(env, "ops-reader", query="Gateway Failover", limit=50).json()
    assert RUNBOOK in {h["filename"] for h in unfiltered["hits"]}
    r = _search(env, "ops-reader", query="Gateway", tags=["a;b"])
    assert r.status_code == 422 and r.json()["error"]["field"] == "tags"


def test_categories_are_a_filter_and_an_unknown_one_is_named(env):
    r = _search(env, "root", query="Werkausschuss Gateway", categories=["operations"],
                limit=50)
    assert r.status_code == 200, r.text
    from backend.ingest import doctypes

    ops = {t.name for t in doctypes.load(env.rs.store) if t.category == "operations"}
    hits = r.json()["hits"]
    assert hits and {h["doc_type"] for h in hits} <= ops
    every = _search(env, "root", query="Werkausschuss Gateway", limit=50).json()["hits"]
    assert {h["doc_type"] for h in every} - ops  # the filter left some out
    r = _search(env, "root", query="Gateway", categories=["nonsense"])
    assert r.status_code == 422
    assert r.json()["error"]["field"] == "categories" and "operations" in r.text


def test_tag_routing_shows_in_the_trace(env):
    _tag(env, "root", NOTES, tags=["Failover"])
    body = _search(env, "ops-reader", query="Failover des Gateways", include_trace=True).json()
    stage = next(s for s in body["trace"]["stages"] if s["name"] == "tags")
    assert stage["params"]["matched_tags"] == ["Failover"]
    assert stage["params"]["documents"] == [env.docs[NOTES]]
    off = _search(env, "ops-reader", query="Failover des Gateways", include_trace=True,
                  tag_routing=False).json()
    assert "tags" not in {s["name"] for s in off["trace"]["stages"]}


def test_ask_answers_only_from_tagged_documents_and_keeps_the_filter(env):
    _tag(env, "root", NOTES, tags=["Releases"])
    r = env.client.post("/api/ask", json={"question": "Wie lange dauert der Failover?",
                                          "tags": ["releases"]},
                        headers=env.headers("ops-reader"))
    assert r.status_code == 200, r.text
    frames = [json.loads(line[6:]) for line in r.text.splitlines() if line.startswith("data: ")]
    answer = frames[-1]
    assert answer["sources"] and {s["document_id"] for s in answer["sources"]} == {env.docs[NOTES]}
    from backend.chat.service import ChatService

    session = ChatService(env.rs).get_session(answer["session"])
    assert session.settings.tags == ["releases"]


def test_mcp_search_tools_take_tags_and_categories(env):
    from mcp import Client

    from backend.api.mcp_server import build_mcp

    _tag(env, "root", NOTES, tags=["Releases"])
    server = build_mcp(env.rs, stdio_token=env.tokens["ops-reader"])

    async def go():
        async with Client(server) as c:
            a = await c.call_tool("search_rag_context", {"query": "Gateway", "limit": 50,
                                                         "tags": ["releases"]})
            b = await c.call_tool("smart_search", {"query": "Gateway", "tags": ["Releases"]})
            bad = await c.call_tool("search_rag_context", {"query": "Gateway",
                                                           "categories": ["nonsense"]})
            return a, b, bad

    a, b, bad = asyncio.run(asyncio.wait_for(go(), 120))
    assert {h["filename"] for h in a.structured_content["hits"]} == {NOTES}
    assert [d["filename"] for d in b.structured_content["documents"]] == [NOTES]
    assert bad.is_error and "categories" in bad.content[0].text
