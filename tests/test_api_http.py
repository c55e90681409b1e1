"""The HTTP API on a small corpus with access groups: what each principal sees (nothing
outside its knowledge bases: no hit, title, count or id), document navigation, paging,
uploads and jobs. Bad input and tokens: tests/test_api_bad_input.py."""
from __future__ import annotations

import time

import pytest

from tests.api_support import SAMPLES, api_env  # noqa: F401  (fixture)

pytestmark = pytest.mark.usefixtures("api_env")

READ_ENDPOINTS = ["", "/fulltext", "/sections", "/structure", "/section?index=0",
                  "/original/meta", "/original"]


def _search(env, who, query, **body):
    r = env.client.post("/api/search", json={"query": query, **body}, headers=env.headers(who))
    assert r.status_code == 200, r.text
    return r.json()


def test_health_needs_no_token_and_tells_nothing(api_env):
    r = api_env.client.get("/api/health")
    assert r.status_code == 200
    assert r.json() == {"status": "ok", "version": r.json()["version"]}


def test_openapi_spec_is_served_with_every_endpoint_and_bearer_auth(api_env):
    spec = api_env.client.get("/openapi.json").json()
    for path in ("/api/search", "/api/smart-search", "/api/ask", "/api/documents",
                 "/api/documents/{doc_id}", "/api/documents/{doc_id}/fulltext",
                 "/api/documents/{doc_id}/sections", "/api/documents/{doc_id}/structure",
                 "/api/documents/{doc_id}/section", "/api/documents/{doc_id}/original/meta",
                 "/api/documents/{doc_id}/original", "/api/collections", "/api/jobs/{job_id}",
                 "/api/ingest", "/api/health"):
        assert path in spec["paths"], path
    assert spec["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"


@pytest.mark.parametrize("who,allowed", [("ops-reader", {"ops"}), ("public-reader", {"public"}),
                                         ("two-kbs", {"ops", "public"}),
                                         ("board-writer", {"board"}), ("nobody", set()),
                                         ("root", {"ops", "public", "board"})])
def test_each_principal_sees_only_its_knowledge_bases(api_env, who, allowed):
    env = api_env
    visible = env.docs_in(*allowed)
    # listing and its total
    r = env.client.get("/api/documents", headers=env.headers(who)).json()
    assert {d["id"] for d in r["items"]} == visible
    assert r["total"] == len(visible)
    # collections
    r = env.client.get("/api/collections", headers=env.headers(who)).json()
    assert {c["name"] for c in r["items"]} == allowed and r["total"] == len(allowed)
    # search, smart search and an inventory question over every collection
    for q in ("gateway failover restart", "Wasserpreis", "Werkausschuss Tagesordnung"):
        hits = _search(env, who, q, limit=50)["hits"]
        assert {h["document_id"] for h in hits} <= visible
        smart = env.client.post("/api/smart-search", json={"query": q, "limit": 50},
                                headers=env.headers(who)).json()
        assert {d["document_id"] for d in smart["documents"]} <= visible
        assert smart["total"] == len(smart["documents"])
    inv = env.client.post("/api/smart-search", json={"query": "which documents are there?"},
                          headers=env.headers(who)).json()
    assert {d["document_id"] for d in inv["documents"]} <= visible
    # every document endpoint: 200 inside the scope, 404 (never 403) outside
    for doc_id in env.collection_of:
        for suffix in READ_ENDPOINTS:
            r = env.client.get(f"/api/documents/{doc_id}{suffix}", headers=env.headers(who))
            expected = 200 if doc_id in visible else 404
            assert r.status_code == expected, (who, doc_id, suffix, r.text)
            if expected == 404:
                assert r.json()["error"]["code"] == "not_found"
                assert str(env.collection_of[doc_id]) not in r.text  # no title, no collection


def test_a_collection_outside_the_scope_is_unknown_not_forbidden(api_env):
    r = api_env.client.post("/api/search", json={"query": "Wasserpreis", "collections": ["board"]},
                            headers=api_env.headers("ops-reader"))
    assert r.status_code == 404
    assert "board" in r.json()["error"]["message"] and "known: ops" in r.json()["error"]["message"]
    r = api_env.client.get("/api/documents?collection=public",
                           headers=api_env.headers("ops-reader"))
    assert r.status_code == 404


def test_search_hits_carry_stage_scores_sections_and_links(api_env):
    res = _search(api_env, "root", "failover of the gateway nodes", limit=3, include_trace=True)
    hit = res["hits"][0]
    assert hit["document_id"] == api_env.docs["runbook_gateway_failover.md"]
    assert hit["breadcrumb"] and hit["section_path"]
    assert hit["vector_score"] is not None and hit["keyword_score"] is not None
    assert hit["links"]["document"] == f"/api/documents/{hit['document_id']}"
    assert "original_path" not in hit
    assert [s["name"] for s in res["trace"]["stages"]][:2] == ["query", "filter"]


def test_search_pages_do_not_overlap_and_add_up(api_env):
    whole = _search(api_env, "root", "Gateway", limit=6)
    first = _search(api_env, "root", "Gateway", limit=3)
    second = _search(api_env, "root", "Gateway", offset=3, limit=3)
    ids = [h["chunk_id"] for h in whole["hits"]]
    assert [h["chunk_id"] for h in first["hits"] + second["hits"]] == ids
    assert first["next_offset"] == 3 and second["offset"] == 3


def test_smart_search_gives_documents_with_passages_and_filters_by_type(api_env):
    r = api_env.client.post("/api/smart-search",
                            json={"query": "gateway failover", "passages": 2, "limit": 3},
                            headers=api_env.headers("root")).json()
    assert r["mode"] == "documents"
    top = r["documents"][0]
    assert top["document_id"] == api_env.docs["runbook_gateway_failover.md"]
    assert 1 <= len(top["passages"]) <= 2 and top["passages"][0]["text"]
    types = {d["doc_type"] for d in r["documents"]}
    one = sorted(types)[0]
    r2 = api_env.client.post("/api/smart-search",
                             json={"query": "gateway failover", "doc_types": [one]},
                             headers=api_env.headers("root")).json()
    assert r2["documents"] and {d["doc_type"] for d in r2["documents"]} == {one}


def test_fulltext_pages_put_together_give_the_whole_text(api_env):
    doc = api_env.docs["protokoll_werkausschuss_2024-03-12.txt"]
    h = api_env.headers("board-writer")
    whole = api_env.client.get(f"/api/documents/{doc}/fulltext?limit=200000", headers=h).json()
    parts, offset = [], 0
    while offset is not None:
        page = api_env.client.get(f"/api/documents/{doc}/fulltext?offset={offset}&limit=700",
                                  headers=h).json()
        parts.append(page["text"])
        offset = page["next_offset"]
    assert "".join(parts) == whole["text"] and len(whole["text"]) == whole["total_chars"] > 700


def test_sections_structure_and_one_section_by_id_index_and_title(api_env):
    doc = api_env.docs["protokoll_werkausschuss_2024-03-12.txt"]
    h = api_env.headers("board-writer")
    secs = api_env.client.get(f"/api/documents/{doc}/sections?limit=500", headers=h).json()
    assert secs["total"] == len(secs["items"]) > 3
    page = api_env.client.get(f"/api/documents/{doc}/sections?offset=1&limit=2", headers=h).json()
    assert [s["id"] for s in page["items"]] == [s["id"] for s in secs["items"][1:3]]
    tree = api_env.client.get(f"/api/documents/{doc}/structure", headers=h).json()["root"]
    assert tree["children"] and tree["subtree_chunks"] > 0
    flat = api_env.client.get(f"/api/documents/{doc}/structure?max_depth=0", headers=h).json()
    assert flat["root"]["children"] == []
    full = api_env.client.get(f"/api/documents/{doc}/fulltext?limit=200000", headers=h).json()
    target = next(s for s in secs["items"] if s["kind"] != "document" and s["number"])
    by_id = api_env.client.get(f"/api/documents/{doc}/section?section_id={target['id']}",
                               headers=h).json()
    assert by_id["text"] == full["text"][target["start"]:target["end"]]
    assert by_id["matched_by"] == "section_id" and by_id["breadcrumb"][-1] == target["title"]
    by_index = api_env.client.get(f"/api/documents/{doc}/section?index={target['index']}",
                                  headers=h).json()
    assert by_index["section"]["id"] == target["id"]
    by_title = api_env.client.get(f"/api/documents/{doc}/section",
                                  params={"query": target["title"]}, headers=h).json()
    assert by_title["section"]["id"] == target["id"] and by_title["matched_by"] == "title"
    both = api_env.client.get(f"/api/documents/{doc}/section?index=0&section_id=1", headers=h)
    assert both.status_code == 422 and both.json()["error"]["field"] in ("index", "section_id")


def test_original_download_is_the_ingested_file_with_its_metadata(api_env):
    name = "runbook_gateway_failover.md"
    doc = api_env.docs[name]
    h = api_env.headers("ops-reader")
    meta = api_env.client.get(f"/api/documents/{doc}/original/meta", headers=h).json()
    assert meta["filename"] == name and meta["available"]
    r = api_env.client.get(meta["download_url"], headers=h)
    assert r.status_code == 200 and r.content == (SAMPLES / name).read_bytes()
    assert f'filename="{name}"' in r.headers["content-disposition"]
    import hashlib

    assert hashlib.sha256(r.content).hexdigest() == meta["sha256"]


def _wait_job(env, who, job_id):
    for _ in range(600):
        job = env.client.get(f"/api/jobs/{job_id}", headers=env.headers(who)).json()
        if job["status"] != "running":
            return job
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} still running")


def test_upload_needs_write_scope_and_a_writable_collection(api_env):
    env = api_env
    files = {"files": ("beschluss.md", b"# Beschluss\n\nDer Werkausschuss beschliesst die "
                                       b"Sanierung des Hochbehaelters Lindenberg.\n")}
    r = env.client.post("/api/ingest", files=files, data={"collection": "board"},
                        headers=env.headers("ops-reader"))
    assert r.status_code == 403 and "'write' scope" in r.json()["error"]["message"]
    r = env.client.post("/api/ingest", files=files, data={"collection": "ops"},
                        headers=env.headers("board-writer"))
    assert r.status_code == 404  # a collection it cannot read is unknown to it
    r = env.client.post("/api/ingest", files=files, data={"collection": "board"},
                        headers=env.headers("board-writer"))
    assert r.status_code == 202, r.text
    acc = r.json()
    assert acc["files"] == ["beschluss.md"] and acc["status_url"] == f"/api/jobs/{acc['job_id']}"
    job = _wait_job(env, "board-writer", acc["job_id"])
    assert job["status"] == "done", job
    (outcome,) = job["result"]["outcomes"]
    assert outcome["status"] == "new" and outcome["document_id"]
    # the new document is the writer's to read, in "board"; others do not see job or document
    doc = env.client.get(f"/api/documents/{outcome['document_id']}",
                         headers=env.headers("board-writer")).json()
    assert doc["collections"] == ["board"]
    for who in ("ops-reader", "public-reader"):
        assert env.client.get(f"/api/jobs/{acc['job_id']}",
                              headers=env.headers(who)).status_code == 404
        assert env.client.get(f"/api/documents/{outcome['document_id']}",
                              headers=env.headers(who)).status_code == 404
    assert env.client.get(f"/api/jobs/{acc['job_id']}",
                          headers=env.headers("root")).status_code == 200
    env.collection_of[outcome["document_id"]] = "board"


def test_upload_names_are_stripped_of_folders(api_env):
    env = api_env
    r = env.client.post("/api/ingest", files={"files": ("../../etc/notiz.txt",
                                                        b"Notiz zur Sitzung: Hochbehaelter.")},
                        data={"collection": "board"}, headers=env.headers("board-writer"))
    assert r.status_code == 202 and r.json()["files"] == ["notiz.txt"]
    job = _wait_job(env, "board-writer", r.json()["job_id"])
    assert job["status"] == "done"
    env.collection_of[job["result"]["outcomes"][0]["document_id"]] = "board"


def test_an_uploaded_duplicate_names_the_stored_document_in_the_job(api_env):
    """An API uploader of a file whose content is stored already learns which document it
    is and whether it joined the collection (the dashboard says so; the job said only
    "duplicate" with an id)."""
    env = api_env
    body = b"Protokoll: Beschluss zur Sanierung des Hochbehaelters Nord, einstimmig."
    ids = []
    for name in ("sanierung.md", "sanierung-kopie.md"):
        r = env.client.post("/api/ingest", files={"files": (name, body)},
                            data={"collection": "board"}, headers=env.headers("board-writer"))
        assert r.status_code == 202, r.text
        job = _wait_job(env, "board-writer", r.json()["job_id"])
        (outcome,) = job["result"]["outcomes"]
        ids.append(outcome)
    first, second = ids
    env.collection_of[first["document_id"]] = "board"
    assert first["status"] == "new" and first["note"] is None
    assert second["status"] == "duplicate"
    assert second["document_id"] == first["document_id"]
    assert second["version_id"] == first["version_id"] and second["chunks"] == 0
    assert second["title"] and second["collection"] == "board"
    assert second["added_to_collection"] is False
    assert f"document {first['document_id']}" in second["note"]
    assert "in collection board already" in second["note"]
