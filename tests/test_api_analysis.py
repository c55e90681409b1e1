"""The analysis routes of the HTTP API and their MCP tools on the shared API corpus: extractor
results, summaries, version and document comparisons and cross-references, paged, within
each principal's scope (a document outside it answers 404 with the body of a missing one;
cross-references and comparisons never show another document), bad input refused with a
422 naming the field."""
from __future__ import annotations

import asyncio
import re

import pytest
from mcp import Client

from tests.api_support import SAMPLES, api_env

MINUTES = "protokoll_werkausschuss_2024-03-12.txt"
RUNBOOK = "runbook_gateway_failover.md"
COPY = "werkausschuss_kopie.txt"  # a board document with two versions (made here)
MISSING = 987654
PRINCIPAL_SCOPES = [("ops-reader", ("ops",)), ("public-reader", ("public",)),
                    ("two-kbs", ("ops", "public")), ("board-writer", ("board",)),
                    ("nobody", ()), ("root", ("ops", "public", "board"))]


@pytest.fixture(scope="module")
def env(api_env):
    """The shared corpus plus a board document with two versions (recorded in
    `collection_of`, so other modules' expectations stay exact)."""
    from backend.ingest.identity import Identity
    from backend.ingest.service import Ingestor

    if COPY not in api_env.docs:
        text = (SAMPLES / MINUTES).read_text(encoding="utf-8")
        v1 = text + "\nTOP 7: Termine\n\nDie nächste Sitzung ist am 14. Mai 2024.\n"
        v2 = v1 + ("\nTOP 8: Netzausbau\n\nBeschluss 2024/19: Der Werkausschuss beschließt den "
                   "Netzausbau im Gewerbegebiet Nord. Abstimmung: 5 Ja-Stimmen, 1 Enthaltung."
                   "\n")
        ing = Ingestor(api_env.rs)
        first = ing.ingest_bytes(v1.encode(), COPY, collection="board")
        assert first.ok, first.error
        second = ing.ingest_bytes(v2.encode(), COPY, collection="board",
                                  identity=Identity.version_of(first.document_id))
        assert second.ok and second.document_id == first.document_id, second
        api_env.docs[COPY] = first.document_id
        api_env.collection_of[first.document_id] = "board"
    return api_env


def _get(env, who: str, path: str, **params):
    return env.client.get(path, params=params, headers=env.headers(who))


def _ok(r) -> dict:
    assert r.status_code == 200, r.text
    return r.json()


# ---- happy paths ----------------------------------------------------------------------------


def test_decisions_of_the_minutes_with_sections_links_and_paging(env):
    doc = env.docs[MINUTES]
    body = _ok(_get(env, "root", f"/api/documents/{doc}/analysis", what="decisions"))
    assert body["document"]["document_id"] == doc
    [dec] = body["extractors"]
    assert dec["name"] == "decisions" and dec["total"] >= 3 and "vote" in dec["columns"]
    texts = [i["text"] for i in dec["items"]]
    assert any("2024/18" in t for t in texts), texts
    fulltext = _ok(_get(env, "root", f"/api/documents/{doc}/fulltext", limit=100_000))["text"]
    for i in dec["items"]:  # anchored: the passage is the text at its offsets
        assert fulltext[i["start"]:i["end"]] == i["text"]
        assert i["section"].startswith("TOP") and i["link"].endswith(f"={i['section_id']}")
    first = _ok(_get(env, "root", f"/api/documents/{doc}/analysis", what="decisions",
                     limit=1))["extractors"][0]
    second = _ok(_get(env, "root", f"/api/documents/{doc}/analysis", what="decisions",
                      limit=1, offset=1))["extractors"][0]
    assert first["next_offset"] == 1 and second["items"][0]["text"] == texts[1]
    assert first["items"][0]["text"] == texts[0] and first["total"] == dec["total"]
    both = _ok(_get(env, "root", f"/api/documents/{doc}/analysis",
                    what=["decisions", "meeting_actions"], section="TOP 4"))
    assert [e["name"] for e in both["extractors"]] == ["decisions", "meeting_actions"]
    assert all("TOP 4" in i["section"] for e in both["extractors"] for i in e["items"])
    every = _ok(_get(env, "board-writer", f"/api/documents/{doc}/analysis"))
    assert len(every["extractors"]) == 10


def test_summary_of_a_document_and_of_a_section(env):
    doc = env.docs[MINUTES]
    short = _ok(_get(env, "root", f"/api/documents/{doc}/summary", length="short"))
    long = _ok(_get(env, "root", f"/api/documents/{doc}/summary", length="long"))
    assert short["scope"] == "document" and 0 < len(short["sentences"]) < len(long["sentences"])
    assert all(s["section"] and s["link"] for s in short["sentences"])
    sec = _ok(_get(env, "root", f"/api/documents/{doc}/summary", section="TOP 3"))
    assert sec["scope"].startswith("TOP 3") and "Wasser" in sec["text"]


def test_two_versions_compared_changed_sections_first(env):
    doc = env.docs[COPY]
    body = _ok(_get(env, "board-writer", f"/api/documents/{doc}/compare"))
    assert (body["document_a"]["version_number"], body["document_b"]["version_number"]) == (1, 2)
    assert body["counts"]["added"] >= 1 and body["sections"][0]["status"] == "added"
    assert "Netzausbau" in body["sections"][0]["label"]
    assert any(i["status"] == "added" and "2024/19" in i["b"]["text"] for i in body["items"])
    explicit = _ok(_get(env, "board-writer", f"/api/documents/{doc}/compare", version_a=1,
                        version_b=2, limit=1, items_limit=1))
    assert len(explicit["sections"]) == 1 and explicit["next_offset"] == 1
    assert explicit["total"] == body["total"] and len(explicit["items"]) == 1


def test_two_documents_compared(env):
    a, b = env.docs[MINUTES], env.docs[COPY]
    body = _ok(_get(env, "root", f"/api/documents/{a}/compare-document/{b}", limit=2))
    assert body["topic_similarity"] > 0.5 and "werkausschuss" in body["shared_topics"]
    decisions = next(o for o in body["overlaps"] if o["extractor"] == "decisions")
    assert decisions["shared_total"] >= 3 and len(decisions["shared"]) == 2
    assert decisions["only_b_total"] >= 1


def test_cross_references_by_section_and_by_query(env):
    doc = env.docs[MINUTES]
    body = _ok(_get(env, "root", f"/api/documents/{doc}/cross-references", section="TOP 3"))
    assert body["hits"] and doc not in {h["document_id"] for h in body["hits"]}
    assert env.docs["pressemitteilung_wasserpreis_2025.txt"] in \
        {h["document_id"] for h in body["hits"]}
    q = _ok(_get(env, "root", "/api/cross-references", query="Gateway Failover", limit=2))
    assert len(q["hits"]) == 2 and q["next_offset"] == 2 and q["hits"][0]["reason"]
    more = _ok(_get(env, "root", "/api/cross-references", query="Gateway Failover", offset=2,
                    limit=2))
    assert {h["rank"] for h in more["hits"]}.isdisjoint({h["rank"] for h in q["hits"]})


# ---- ACL --------------------------------------------------------------------------------------


def _routes(doc: int, other: int) -> list[tuple[str, set[int]]]:
    """(path, the documents it reads)."""
    return [(f"/api/documents/{doc}/analysis", {doc}), (f"/api/documents/{doc}/summary", {doc}),
            (f"/api/documents/{doc}/compare", {doc}),
            (f"/api/documents/{doc}/compare-document/{other}", {doc, other}),
            (f"/api/documents/{other}/compare-document/{doc}", {doc, other}),
            (f"/api/documents/{doc}/cross-references", {doc})]


@pytest.mark.parametrize("who,allowed", PRINCIPAL_SCOPES)
def test_documents_outside_the_scope_are_not_found_and_never_shown(env, who, allowed):
    visible = env.docs_in(*allowed)
    hidden_names = [n for n, d in env.docs.items() if d not in visible]
    anchor = min(visible, default=None)
    shown = []
    for doc in sorted(env.collection_of):
        other = anchor if anchor not in (None, doc) else \
            next(d for d in sorted(env.collection_of) if d != doc)
        for path, reads in _routes(doc, other):
            r = _get(env, who, path)
            if reads <= visible:  # 422: a document with one version has nothing to compare
                assert r.status_code in (200, 422), (who, path, r.text)
                shown.append(r.text)
                continue
            assert r.status_code == 404, (who, path, r.text)
            hidden = min(reads - visible)
            body = _get(env, who, re.sub(rf"/{hidden}(?=/|$)", f"/{MISSING}", path)).json()
            body["error"]["message"] = body["error"]["message"].replace(str(MISSING),
                                                                        str(hidden))
            assert r.json() == body, (who, path)
    for q in ("Wasserpreis", "Gateway Failover", "Werkausschuss Beschluss"):
        r = _ok(_get(env, who, "/api/cross-references", query=q, limit=50))
        assert {h["document_id"] for h in r["hits"]} <= visible, (who, q)
        shown.append(str(r))
    text = "\n".join(shown)
    for name in hidden_names:
        assert name not in text, (who, name)


def test_a_collection_outside_the_scope_is_unknown_for_cross_references(env):
    r = _get(env, "ops-reader", "/api/cross-references", query="Wasserpreis",
             collection="board")
    assert r.status_code == 404 and "unknown collection" in r.json()["error"]["message"]
    assert "board" not in r.json()["error"]["message"].replace("'board'", "")


# ---- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize("path,params,field", [
    ("analysis", {"what": "minutes_of_doom"}, "what"),
    ("analysis", {"limit": 10**6}, "limit"),
    ("analysis", {"offset": -1}, "offset"),
    ("analysis", {"version": 0}, "version"),
    ("analysis", {"version": "latest"}, "version"),
    ("analysis", {"section": "x" * 501}, "section"),
    ("analysis", {"sektion": "TOP 3"}, "sektion"),
    ("summary", {"length": "extremely-long"}, "length"),
    ("summary", {"length": "9" * 50}, "length"),
    ("compare", {"version_a": 10**9}, "version_a"),
    ("compare", {"items_limit": 10**6}, "items_limit"),
    ("cross-references", {"limit": 51}, "limit"),
])
def test_bad_parameters_are_422_naming_the_field(env, path, params, field):
    doc = env.docs[MINUTES]
    r = _get(env, "root", f"/api/documents/{doc}/{path}", **params)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["field"] == field, r.json()


def test_analysis_errors_say_why(env):
    minutes, copy = env.docs[MINUTES], env.docs[COPY]
    cases = [
        (f"/api/documents/{minutes}/analysis", {"version": 7}, 404, "has no version 7"),
        (f"/api/documents/{minutes}/analysis", {"section": "TOP 99"}, 422, "no section"),
        (f"/api/documents/{minutes}/summary", {"section": "TOP"}, 422, "ambiguous"),
        (f"/api/documents/{minutes}/compare", {}, 422, "no earlier indexed version"),
        (f"/api/documents/{copy}/compare", {"version_a": 2, "version_b": 2}, 422,
         "compared with itself"),
        (f"/api/documents/{minutes}/compare-document/{minutes}", {}, 422, "itself"),
        ("/api/cross-references", {"query": "   "}, 422, "needs a query"),
        ("/api/cross-references", {}, 422, "query"),
    ]
    for path, params, status, words in cases:
        r = _get(env, "root", path, **params)
        assert r.status_code == status, (path, params, r.text)
        assert words in r.json()["error"]["message"], (path, r.json())
        assert "Traceback" not in r.text


def test_the_analysis_routes_are_in_the_openapi_spec(env):
    spec = env.client.get("/openapi.json").json()
    for path in ("/api/documents/{doc_id}/analysis", "/api/documents/{doc_id}/summary",
                 "/api/documents/{doc_id}/compare",
                 "/api/documents/{doc_id}/compare-document/{other_id}",
                 "/api/documents/{doc_id}/cross-references", "/api/cross-references"):
        op = spec["paths"][path]["get"]
        assert {"200", "404", "422"} <= set(op["responses"]), path
    what = next(p for p in spec["paths"]["/api/documents/{doc_id}/analysis"]["get"]
                ["parameters"] if p["name"] == "what")
    assert "decisions" in str(what["schema"])


# ---- MCP ----------------------------------------------------------------------------------


def _tools(env, who: str, calls: list[tuple[str, dict]]):
    from backend.api.mcp_server import build_mcp

    server = build_mcp(env.rs, stdio_token=env.tokens[who])

    async def go():
        async with Client(server) as c:
            listed = {t.name: t for t in (await c.list_tools()).tools}
            return listed, [await c.call_tool(n, a) for n, a in calls]

    return asyncio.run(asyncio.wait_for(go(), 240))


def test_mcp_analysis_tools_answer_like_the_api(env):
    minutes, copy, runbook = env.docs[MINUTES], env.docs[COPY], env.docs[RUNBOOK]
    listed, (dec, summ, cmp, docs, xref, hidden, hidden_cmp) = _tools(env, "board-writer", [
        ("get_document_decisions", {"document_id": minutes}),
        ("summarize_document", {"document_id": minutes, "length": "short"}),
        ("compare_document_versions", {"document_id": copy}),
        ("compare_documents", {"document_id": minutes, "other_document_id": copy}),
        ("find_cross_references", {"query": "Wasserpreis"}),
        ("analyze_document", {"document_id": runbook}),
        ("compare_documents", {"document_id": minutes, "other_document_id": runbook}),
    ])
    for name in ("analyze_document", "get_document_decisions", "summarize_document",
                 "compare_document_versions", "compare_documents", "find_cross_references"):
        assert listed[name].description and listed[name].input_schema["type"] == "object"
    assert "decisions" in str(listed["analyze_document"].input_schema["properties"]["what"])
    api = _ok(_get(env, "board-writer", f"/api/documents/{minutes}/analysis",
                   what="decisions"))
    assert dec.structured_content == api
    assert summ.structured_content["sentences"] and not cmp.is_error
    assert cmp.structured_content["counts"]["added"] >= 1 and not docs.is_error
    board = env.docs_in("board")
    assert {h["document_id"] for h in xref.structured_content["hits"]} <= board
    for r in (hidden, hidden_cmp):
        assert r.is_error and "not found" in r.content[0].text
        assert RUNBOOK not in r.content[0].text


def test_mcp_analysis_tools_refuse_bad_arguments(env):
    minutes = env.docs[MINUTES]
    _, results = _tools(env, "root", [
        ("analyze_document", {"document_id": minutes, "what": ["nonsense"]}),
        ("summarize_document", {"document_id": minutes, "length": "huge"}),
        ("find_cross_references", {}),
        ("find_cross_references", {"section": "TOP 3"}),
        ("compare_document_versions", {"document_id": minutes, "limit": 10**6}),
    ])
    for r in results:
        assert r.is_error, r.content
        assert "Traceback" not in r.content[0].text
    assert "query or a document_id" in results[2].content[0].text
