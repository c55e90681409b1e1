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
    return env.client.get(path, params=params or None, headers=env.headers(who))


def _post_xref(env, who: str, **body):
    return env.client.post("/api/cross-reference", json=body, headers=env.headers(who))


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
    body = _ok(_get(env, "board-writer", f"/api/documents/{doc}/compare-version"))
    assert (body["document_a"]["version_number"], body["document_b"]["version_number"]) == (1, 2)
    assert body["counts"]["added"] >= 1 and body["sections"][0]["status"] == "added"
    assert "Netzausbau" in body["sections"][0]["label"]
    assert any(i["status"] == "added" and "2024/19" in i["b"]["text"] for i in body["items"])
    explicit = _ok(_get(env, "board-writer", f"/api/documents/{doc}/compare-version", version_a=1,
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


# ---- the seed's names: thin aliases answering like the originals ----------------------------


SEED_EXTRACTORS = {"actions": "meeting_actions", "decisions": "decisions",
                   "deadlines": "deadlines", "requirements": "requirements",
                   "config-keys": "config_keys", "setup-steps": "setup_steps",
                   "api-surface": "api_surface", "operational-notes": "operational_notes",
                   "risks": "risks", "entities": "entities"}


@pytest.mark.parametrize("path,name", sorted(SEED_EXTRACTORS.items()))
def test_seed_extractor_paths_answer_like_the_analysis_route(env, path, name):
    doc = env.docs[MINUTES]
    alias = _ok(_get(env, "root", f"/api/documents/{doc}/analysis/{path}", limit=3))
    assert [e["name"] for e in alias["extractors"]] == [name]
    assert alias == _ok(_get(env, "root", f"/api/documents/{doc}/analysis", what=name,
                             limit=3))


def test_seed_decisions_path_finds_the_minutes_decisions(env):
    doc = env.docs[MINUTES]
    [dec] = _ok(_get(env, "root", f"/api/documents/{doc}/analysis/decisions"))["extractors"]
    assert dec["total"] >= 3 and "vote" in dec["columns"]
    assert any("2024/18" in i["text"] for i in dec["items"])


def test_seed_section_summary_compare_and_cross_reference(env):
    minutes, copy = env.docs[MINUTES], env.docs[COPY]
    sec = _ok(_get(env, "root", f"/api/documents/{minutes}/section-summary", section="TOP 3"))
    assert sec == _ok(_get(env, "root", f"/api/documents/{minutes}/summary", section="TOP 3"))
    assert sec["scope"].startswith("TOP 3")
    cmp = _ok(_get(env, "root", f"/api/documents/{minutes}/compare", other_id=copy, limit=2))
    assert cmp == _ok(_get(env, "root", f"/api/documents/{minutes}/compare-document/{copy}",
                           limit=2))
    assert cmp["document_b"]["document_id"] == copy
    by_query = _ok(_post_xref(env, "root", query="Gateway Failover", limit=2))
    assert by_query == _ok(_get(env, "root", "/api/cross-references", query="Gateway Failover",
                                limit=2))
    by_section = _ok(_post_xref(env, "root", document_id=minutes, section="TOP 3"))
    assert by_section == _ok(_get(env, "root", f"/api/documents/{minutes}/cross-references",
                                  section="TOP 3"))


@pytest.mark.parametrize("body,status,words", [
    ({}, 422, "query or a document_id"),
    ({"query": "Wasser", "section": "TOP 3"}, 422, "section needs the document_id"),
    ({"query": "Gateway", "limit": 51}, 422, "limit"),
    ({"query": "Gateway", "colections": ["ops"]}, 422, "colections"),
    ({"query": 5}, 422, "query"),
])
def test_seed_cross_reference_post_refuses_bad_bodies(env, body, status, words):
    r = _post_xref(env, "root", **body)
    assert r.status_code == status, r.text
    assert words in r.text and "Traceback" not in r.text


# ---- ACL --------------------------------------------------------------------------------------


def _routes(doc: int, other: int) -> list[tuple[str, set[int]]]:
    """(path, the documents it reads)."""
    return [(f"/api/documents/{doc}/analysis", {doc}), (f"/api/documents/{doc}/summary", {doc}),
            (f"/api/documents/{doc}/compare-version", {doc}),
            (f"/api/documents/{doc}/compare-document/{other}", {doc, other}),
            (f"/api/documents/{other}/compare-document/{doc}", {doc, other}),
            (f"/api/documents/{doc}/cross-references", {doc}),
            # the seed's names (thin aliases)
            (f"/api/documents/{doc}/analysis/actions", {doc}),
            (f"/api/documents/{doc}/analysis/config-keys", {doc}),
            (f"/api/documents/{doc}/analysis/entities", {doc}),
            (f"/api/documents/{doc}/section-summary?section=1", {doc}),
            (f"/api/documents/{doc}/compare?other_id={other}", {doc, other}),
            (f"/api/documents/{other}/compare?other_id={doc}", {doc, other})]


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
            body = _get(env, who, re.sub(rf"(?<=[/=]){hidden}(?=[/?&]|$)", str(MISSING),
                                         path)).json()
            body["error"]["message"] = body["error"]["message"].replace(str(MISSING),
                                                                        str(hidden))
            assert r.json() == body, (who, path)
        r = _post_xref(env, who, document_id=doc)
        if doc in visible:
            assert {h["document_id"] for h in _ok(r)["hits"]} <= visible, (who, doc)
            shown.append(r.text)
        else:
            missing = _post_xref(env, who, document_id=MISSING).json()
            assert r.status_code == 404 and r.json()["error"]["message"] == \
                missing["error"]["message"].replace(str(MISSING), str(doc)), (who, r.text)
    for q in ("Wasserpreis", "Gateway Failover", "Werkausschuss Beschluss"):
        r = _ok(_get(env, who, "/api/cross-references", query=q, limit=50))
        assert {h["document_id"] for h in r["hits"]} <= visible, (who, q)
        shown.append(str(r))
        r = _ok(_post_xref(env, who, query=q, limit=50))
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
    ("compare-version", {"version_a": 10**9}, "version_a"),
    ("compare-version", {"items_limit": 10**6}, "items_limit"),
    ("compare", {"other_id": 0}, "other_id"),
    ("compare", {}, "other_id"),
    ("section-summary", {}, "section"),
    ("analysis/actions", {"limit": 10**6}, "limit"),
    ("analysis/config-keys", {"what": "decisions"}, "what"),
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
        (f"/api/documents/{minutes}/compare-version", {}, 422, "no earlier indexed version"),
        (f"/api/documents/{copy}/compare-version", {"version_a": 2, "version_b": 2}, 422,
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
    seed = [f"/api/documents/{{doc_id}}/analysis/{p}" for p in SEED_EXTRACTORS] + [
        "/api/documents/{doc_id}/section-summary", "/api/documents/{doc_id}/compare-version"]
    for path in ["/api/documents/{doc_id}/analysis", "/api/documents/{doc_id}/summary",
                 "/api/documents/{doc_id}/compare",
                 "/api/documents/{doc_id}/compare-document/{other_id}",
                 "/api/documents/{doc_id}/cross-references", "/api/cross-references"] + seed:
        op = spec["paths"][path]["get"]
        assert {"200", "404", "422"} <= set(op["responses"]), path
    assert {"200", "404", "422"} <= set(spec["paths"]["/api/cross-reference"]["post"]
                                        ["responses"])
    other = next(p for p in spec["paths"]["/api/documents/{doc_id}/compare"]["get"]
                 ["parameters"] if p["name"] == "other_id")
    assert other["required"] and other["in"] == "query"
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


SEED_TOOLS = ["extract_meeting_actions", "extract_decisions", "extract_deadlines",
              "extract_requirements", "extract_config_keys", "extract_setup_steps",
              "extract_api_surface", "extract_operational_notes", "extract_risks",
              "extract_entities"]


def test_mcp_seed_tools_answer_like_todays_tools(env):
    minutes, runbook = env.docs[MINUTES], env.docs[RUNBOOK]
    calls = [(n, {"document_id": minutes, "limit": 3}) for n in SEED_TOOLS]
    calls += [("analyze_document", {"document_id": minutes, "what": [n[len("extract_"):]],
                                    "limit": 3}) for n in SEED_TOOLS]
    calls += [("summarize_document_section", {"document_id": minutes, "section": "TOP 3"}),
              ("summarize_document", {"document_id": minutes, "section": "TOP 3"}),
              ("cross_reference", {"document_id": minutes, "section": "TOP 3"}),
              ("find_cross_references", {"document_id": minutes, "section": "TOP 3"}),
              ("get_document_context", {"document_id": minutes}),
              ("extract_decisions", {"document_id": runbook}),
              ("get_document_context", {"document_id": runbook}),
              ("summarize_document_section", {"document_id": minutes}),
              ("cross_reference", {})]
    listed, results = _tools(env, "board-writer", calls)
    n = len(SEED_TOOLS)
    for name, alias, original in zip(SEED_TOOLS, results[:n], results[n:2 * n]):
        assert not alias.is_error, (name, alias.content)
        assert alias.structured_content == original.structured_content, name
        assert listed[name].description
    summ, summ_orig, xref, xref_orig, ctx, hidden, hidden_ctx, no_section, empty = \
        results[2 * n:]
    assert summ.structured_content == summ_orig.structured_content
    assert summ.structured_content["scope"].startswith("TOP 3")
    assert xref.structured_content == xref_orig.structured_content
    api = _ok(_get(env, "board-writer", f"/api/documents/{minutes}"))
    assert ctx.structured_content["document"] == api
    assert ctx.structured_content["structure"] == _ok(_get(
        env, "board-writer", f"/api/documents/{minutes}/structure", max_depth=2))
    for r in (hidden, hidden_ctx):
        assert r.is_error and "not found" in r.content[0].text
        assert RUNBOOK not in r.content[0].text
    assert no_section.is_error and "section" in no_section.content[0].text
    assert empty.is_error and "query or a document_id" in empty.content[0].text
