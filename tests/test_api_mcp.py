"""The MCP server through the official SDK's client over all three transports: streamable
HTTP (/mcp) and SSE (/mcp-sse/sse) against a real uvicorn server on 127.0.0.1 started and
stopped here, and stdio against `python -m backend mcp` spawned here. Same tokens and the
same ACL as the HTTP API."""
from __future__ import annotations

import asyncio
import json
import logging
import os
import sys

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from backend.api import tokens
from tests.api_support import LiveServer, api_env  # noqa: F401  (fixture)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = {"search_rag_context", "smart_search", "list_documents", "list_collections",
         "get_document_fulltext", "list_document_sections", "get_document_structure",
         "get_document_section", "get_original_document", "get_document_download_link",
         "analyze_document", "get_document_decisions", "summarize_document",
         "compare_document_versions", "compare_documents", "find_cross_references"}
SEED_TOOLS = {  # seed 002's list of MCP tools, every one by its name
    "search_rag_context", "smart_search", "list_documents", "get_document_context",
    "get_document_fulltext", "list_document_sections", "get_document_structure",
    "get_document_section", "get_original_document", "get_document_download_link",
    "extract_meeting_actions", "extract_decisions", "extract_deadlines",
    "extract_requirements", "extract_config_keys", "extract_setup_steps", "extract_risks",
    "extract_entities", "summarize_document", "summarize_document_section",
    "compare_documents", "compare_document_versions", "cross_reference"}


@pytest.fixture(scope="module")
def live(api_env):
    with LiveServer(api_env.app) as server:
        yield server


def _http(token: str) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"},
                              timeout=httpx2.Timeout(30, read=300))


def _run(coro):
    return asyncio.run(asyncio.wait_for(coro, 240))


def _streamable(live, token: str) -> Client:
    return Client(streamable_http_client(f"{live.url}/mcp", http_client=_http(token)))


def test_tools_are_listed_with_json_schemas(live, api_env):
    async def go():
        async with _streamable(live, api_env.tokens["ops-reader"]) as c:
            return (await c.list_tools()).tools

    tools = {t.name: t for t in _run(go())}
    assert TOOLS | SEED_TOOLS <= set(tools), SEED_TOOLS - set(tools)
    for t in tools.values():
        assert t.description and t.input_schema["type"] == "object"
    section = tools["get_document_section"].input_schema
    assert section["required"] == ["document_id"]
    assert {"section_id", "index", "query"} <= set(section["properties"])
    assert tools["smart_search"].input_schema["properties"]["limit"]["maximum"] == 50


def test_streamable_http_tools_apply_the_principals_acl(live, api_env):
    env = api_env
    board_doc = env.docs["protokoll_werkausschuss_2024-03-12.txt"]
    ops_doc = env.docs["runbook_gateway_failover.md"]

    async def go():
        async with _streamable(live, env.tokens["ops-reader"]) as c:
            found = await c.call_tool("smart_search", {"query": "Werkausschuss gateway"})
            listed = await c.call_tool("list_documents", {})
            hidden = await c.call_tool("get_document_fulltext", {"document_id": board_doc})
            section = await c.call_tool("get_document_section",
                                        {"document_id": ops_doc, "index": 1})
            link = await c.call_tool("get_document_download_link", {"document_id": ops_doc})
            original = await c.call_tool("get_original_document", {"document_id": ops_doc})
            bad = await c.call_tool("get_document_section", {"document_id": ops_doc})
            return found, listed, hidden, section, link, original, bad

    found, listed, hidden, section, link, original, bad = _run(go())
    assert not found.is_error
    assert {d["document_id"] for d in found.structured_content["documents"]} <= env.docs_in("ops")
    assert {d["id"] for d in listed.structured_content["items"]} == env.docs_in("ops")
    assert hidden.is_error and "not found" in hidden.content[0].text
    assert section.structured_content["section"]["index"] == 1
    assert link.structured_content["download_url"] == (
        f"{live.url}/api/documents/{ops_doc}/original?version=1")
    import base64

    from tests.api_support import SAMPLES

    assert base64.b64decode(original.structured_content["content_base64"]) == (
        SAMPLES / "runbook_gateway_failover.md").read_bytes()
    assert bad.is_error and "exactly one of" in bad.content[0].text
    # the download link works with the same token, and only with it
    r = httpx.get(link.structured_content["download_url"], headers=env.headers("ops-reader"))
    assert r.status_code == 200
    r = httpx.get(link.structured_content["download_url"], headers=env.headers("public-reader"))
    assert r.status_code == 404


def test_mcp_over_http_refuses_missing_invalid_and_revoked_tokens(live, api_env):
    r = httpx.post(f"{live.url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "token_missing"
    r = httpx.get(f"{live.url}/mcp-sse/sse", headers={"Authorization": "Bearer nope"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "token_malformed"
    info, tok = tokens.create_token(api_env.rs.store, "mcp-revoked", ["read"],
                                    created_by="tests")

    async def go():
        async with _streamable(live, tok) as c:
            before = await c.call_tool("list_collections", {})
            tokens.revoke_token(api_env.rs.store, info.id)
            try:
                after = await c.call_tool("list_collections", {})
            except Exception as e:  # the transport's POST is refused with 401
                after = e
            return before, after

    before, after = _run(go())
    assert not before.is_error
    assert isinstance(after, Exception) or after.is_error


def test_sse_transport_works_with_the_same_tokens_and_acl(live, api_env):
    async def go(who):
        headers = {"Authorization": f"Bearer {api_env.tokens[who]}"}
        async with Client(sse_client(f"{live.url}/mcp-sse/sse", headers=headers)) as c:
            return await c.call_tool("list_collections", {})

    async def names():
        headers = {"Authorization": f"Bearer {api_env.tokens['ops-reader']}"}
        async with Client(sse_client(f"{live.url}/mcp-sse/sse", headers=headers)) as c:
            return {t.name for t in (await c.list_tools()).tools}

    assert TOOLS | SEED_TOOLS <= _run(names())
    assert [c["name"] for c in _run(go("public-reader")).structured_content["items"]] == [
        "public"]
    assert {c["name"] for c in _run(go("root")).structured_content["items"]} >= {
        "ops", "public", "board"}


def test_stdio_server_spawned_as_python_m_backend_mcp(api_env):
    env = {"RAGSCOPE_DATA_DIR": str(api_env.rs.settings.data_dir),
           "RAGSCOPE_MCP_TOKEN": api_env.tokens["two-kbs"], "HF_HUB_OFFLINE": "1",
           "OPENBLAS_NUM_THREADS": "1", "PYTHONPATH": ROOT}
    params = StdioServerParameters(command=sys.executable, args=["-m", "backend", "mcp"],
                                   env=env, cwd=ROOT)

    async def go():
        async with Client(params) as c:
            tools = {t.name for t in (await c.list_tools()).tools}
            listed = await c.call_tool("list_documents", {"limit": 200})
            hidden = await c.call_tool("get_document_structure", {
                "document_id": api_env.docs["protokoll_werkausschuss_2024-03-12.txt"]})
            link = await c.call_tool("get_document_download_link", {
                "document_id": api_env.docs["kundenportal_faq.html"]})
            return tools, listed, hidden, link

    tools, listed, hidden, link = _run(go())
    assert TOOLS | SEED_TOOLS <= tools, SEED_TOOLS - tools
    assert {d["id"] for d in listed.structured_content["items"]} == api_env.docs_in("ops",
                                                                                    "public")
    assert hidden.is_error
    assert link.structured_content["download_url"].startswith("/api/documents/")


def test_stdio_server_without_a_valid_token_exits_with_a_message(api_env):
    import subprocess

    base = {**os.environ, "RAGSCOPE_DATA_DIR": str(api_env.rs.settings.data_dir),
            "PYTHONPATH": ROOT}
    base.pop("RAGSCOPE_MCP_TOKEN", None)
    r = subprocess.run([sys.executable, "-m", "backend", "mcp"], env=base, cwd=ROOT,
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert r.returncode == 2 and "RAGSCOPE_MCP_TOKEN" in r.stderr and r.stdout == ""
    r = subprocess.run([sys.executable, "-m", "backend", "mcp", "--token", "rgs_nope"],
                       env=base, cwd=ROOT, capture_output=True, text=True, timeout=120,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 2 and "not valid" in r.stderr and "rgs_nope" not in r.stderr


def test_server_logs_never_contain_tokens(live, api_env, caplog):
    with caplog.at_level(logging.INFO):
        httpx.post(f"{live.url}/api/search", json={"query": "Gateway"},
                   headers=api_env.headers("root"))
        httpx.get(f"{live.url}/api/collections?x=1", headers=api_env.headers("ops-reader"))
        httpx.post(f"{live.url}/mcp", json={}, headers={"Authorization": "Bearer rgs_wrong"})
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "/api/collections" in text  # the access log was captured
    for tok in api_env.tokens.values():
        assert tok not in text
    assert "rgs_wrong" not in text


def test_ask_streams_server_sent_events_with_citations_last(live, api_env):
    events = []
    with httpx.stream("POST", f"{live.url}/api/ask", timeout=240,
                      json={"question": "Wie lange dauert der Failover des Gateways?"},
                      headers=api_env.headers("ops-reader")) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        name = None
        for line in r.iter_lines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                events.append((name, json.loads(line[6:])))
    names = [n for n, _ in events]
    assert names[0] == "sources" and names[-1] == "answer" and "delta" in names
    answer = events[-1][1]
    assert answer["text"] and answer["session"]
    assert answer["text"].startswith("".join(d["text"] for n, d in events
                                             if n == "delta").strip()[:20])
    assert isinstance(answer["citations"], dict)
    assert {s["document_id"] for s in answer["sources"]} <= api_env.docs_in("ops")
    assert all("original_path" not in s for s in answer["sources"])
    # the session is the principal's: another principal cannot continue it
    r = httpx.post(f"{live.url}/api/ask", json={"question": "Und danach?",
                                                 "session": answer["session"]},
                   headers=api_env.headers("public-reader"), timeout=60)
    assert r.status_code == 404


# ---- the ACL matrix over every tool (in-process client, the principal's token) -------------

PRINCIPAL_SCOPES = [("ops-reader", ("ops",)), ("public-reader", ("public",)),
                    ("two-kbs", ("ops", "public")), ("nobody", ()),
                    ("root", ("ops", "public", "board"))]


def _doc_ids(data) -> set[int]:
    """Every document id anywhere in a tool's answer."""
    found = set()
    if isinstance(data, dict):
        for k, v in data.items():
            if k in ("document_id",) and isinstance(v, int):
                found.add(v)
            found |= _doc_ids(v)
        if "items" in data and isinstance(data["items"], list):
            found |= {i["id"] for i in data["items"] if isinstance(i, dict) and "id" in i
                      and "filename" in i}
    elif isinstance(data, list):
        for v in data:
            found |= _doc_ids(v)
    return found


@pytest.mark.parametrize("who,allowed", PRINCIPAL_SCOPES)
def test_every_tool_answers_only_within_the_principals_scope(api_env, who, allowed):
    from backend.api.mcp_server import build_mcp

    env = api_env
    visible = env.docs_in(*allowed)
    server = build_mcp(env.rs, stdio_token=env.tokens[who])
    searches = [("search_rag_context", {"query": q, "limit": 50}) for q in
                ("Gateway Failover", "Wasserpreis 2025", "Werkausschuss Beschluss")]
    searches += [("smart_search", {"query": q, "limit": 50}) for q in
                 ("Gateway Failover", "Wasserpreis", "welche Dokumente gibt es?")]
    per_doc = ["get_document_fulltext", "list_document_sections", "get_document_structure",
               "get_original_document", "get_document_download_link", "analyze_document",
               "get_document_decisions", "summarize_document", "get_document_context",
               "extract_meeting_actions", "extract_entities"]

    async def go():
        out = {}
        async with Client(server) as c:
            for name, args in searches + [("list_documents", {"limit": 200}),
                                          ("list_collections", {})]:
                out[(name, str(args))] = await c.call_tool(name, args)
            for doc in sorted(env.collection_of):
                for name in per_doc:
                    out[(name, doc)] = await c.call_tool(name, {"document_id": doc})
                out[("get_document_section", doc)] = await c.call_tool(
                    "get_document_section", {"document_id": doc, "index": 0})
        return out

    results = _run(go())
    for (name, arg), r in results.items():
        if isinstance(arg, int):  # one document's tool
            if arg in visible:
                assert not r.is_error, (who, name, arg, r.content)
                assert _doc_ids(r.structured_content) <= {arg}
            else:
                assert r.is_error and "not found" in r.content[0].text, (who, name, arg)
        else:
            assert not r.is_error, (who, name, r.content)
            assert _doc_ids(r.structured_content) <= visible, (who, name, arg)
    listed = results[("list_documents", str({"limit": 200}))].structured_content
    assert {d["id"] for d in listed["items"]} == visible and listed["total"] == len(visible)
    colls = results[("list_collections", str({}))].structured_content
    assert {c["name"] for c in colls["items"]} == set(allowed)


def test_tool_errors_use_the_http_apis_codes_and_refuse_unknown_arguments(live, api_env):
    """Unknown arguments were ignored and bad ones answered with pydantic's raw report."""
    async def go():
        async with _streamable(live, api_env.tokens["ops-reader"]) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            unknown = await c.call_tool("smart_search", {"query": "Gateway", "colections": ["x"]})
            bad = await c.call_tool("smart_search", {"query": "Gateway", "limit": 500})
            missing = await c.call_tool("get_document_fulltext", {"document_id": 999999})
            return tools, unknown, bad, missing

    tools, unknown, bad, missing = _run(go())
    assert tools["smart_search"].input_schema["additionalProperties"] is False
    assert unknown.is_error and unknown.content[0].text.endswith(
        "invalid_request: colections: unknown field")
    assert bad.is_error and bad.content[0].text.endswith(
        "invalid_request: limit: Input should be less than or equal to 50")
    assert "validation error" not in bad.content[0].text and "[type=" not in bad.content[0].text
    assert missing.is_error and missing.content[0].text.endswith(
        "not_found: document 999999 not found")
