"""Bad input and bad tokens get clear 4xx errors in one shape, `{"error": {"code",
"message", "field"}}`, never a stack trace; the body size limits hold for declared and
chunked bodies; tokens are hashed at rest, expire, can be revoked, and are never logged."""
from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from backend.api import tokens
from backend.store.models import utcnow
from backend.store.token_models import ApiToken
from tests.api_support import api_env  # noqa: F401  (fixture)

PROTECTED = [("post", "/api/search", {"json": {"query": "x"}}),
             ("post", "/api/smart-search", {"json": {"query": "x"}}),
             ("post", "/api/ask", {"json": {"question": "x"}}),
             ("get", "/api/documents", {}), ("get", "/api/documents/1", {}),
             ("get", "/api/documents/1/fulltext", {}), ("get", "/api/documents/1/sections", {}),
             ("get", "/api/documents/1/structure", {}),
             ("get", "/api/documents/1/section?index=0", {}),
             ("get", "/api/documents/1/original/meta", {}),
             ("get", "/api/documents/1/original", {}), ("get", "/api/collections", {}),
             ("get", "/api/jobs/1", {}),
             ("post", "/api/ingest", {"files": {"files": ("a.txt", b"x")}})]


def _error(r, status, code=None):
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "field"}
    assert body["error"]["message"]
    if code:
        assert body["error"]["code"] == code, body
    assert "Traceback" not in r.text and 'File "' not in r.text
    return body["error"]


@pytest.mark.parametrize("method,path,kw", PROTECTED)
def test_every_endpoint_refuses_missing_malformed_and_invalid_tokens(api_env, method, path, kw):
    call = getattr(api_env.client, method)
    r = call(path, **kw)
    _error(r, 401, "token_missing")
    assert r.headers["www-authenticate"] == "Bearer"
    _error(call(path, headers={"Authorization": "Basic dXNlcjpwYXNz"}, **kw), 401,
           "token_malformed")
    _error(call(path, headers={"Authorization": "Bearer not-a-token"}, **kw), 401,
           "token_malformed")
    forged = "rgs_" + api_env.tokens["root"][4:-4] + "AAAA"  # right key id, wrong secret
    _error(call(path, headers={"Authorization": f"Bearer {forged}"}, **kw), 401,
           "token_invalid")


def test_expired_and_revoked_tokens_stop_working_at_once(api_env):
    rs = api_env.rs
    info, tok = tokens.create_token(rs.store, "short-lived", ["read"], created_by="tests")
    h = {"Authorization": f"Bearer {tok}"}
    assert api_env.client.get("/api/collections", headers=h).status_code == 200
    with rs.store.session() as s:
        s.execute(update(ApiToken).where(ApiToken.id == info.id)
                  .values(expires_at=utcnow() - timedelta(seconds=1)))
    _error(api_env.client.get("/api/collections", headers=h), 401, "token_expired")
    info, tok = tokens.create_token(rs.store, "to-revoke", ["read"], created_by="tests")
    h = {"Authorization": f"Bearer {tok}"}
    assert api_env.client.get("/api/collections", headers=h).status_code == 200
    tokens.revoke_token(rs.store, info.key_id)
    _error(api_env.client.get("/api/collections", headers=h), 401, "token_revoked")


def test_tokens_are_stored_as_hashes_and_record_their_last_use(api_env):
    rs = api_env.rs
    info, tok = tokens.create_token(rs.store, "hash-check", ["read"], created_by="tests",
                                    expires_days=1)
    with rs.store.session() as s:
        row = s.scalar(select(ApiToken).where(ApiToken.id == info.id))
        stored = " ".join(str(getattr(row, c.name)) for c in ApiToken.__table__.columns)
    secret = tok.split("_", 2)[2]  # rgs_<key id>_<secret>; the secret may hold "_" itself
    assert tok not in stored and secret not in stored
    assert row.last_used_at is None
    api_env.client.get("/api/collections", headers={"Authorization": f"Bearer {tok}"})
    (listed,) = [t for t in tokens.list_tokens(rs.store, "hash-check")]
    assert listed.last_used_at is not None and listed.status == "active"
    assert listed.expires_at - listed.created_at == timedelta(days=1)


def test_token_management_refuses_bad_input(api_env):
    store = api_env.rs.store
    for principal, scopes, msg in [("Bad Name!", ["read"], "principal"),
                                   ("ok-name", ["root"], "unknown scope"),
                                   ("ok-name", [], "at least one scope")]:
        with pytest.raises(tokens.TokenError, match=msg):
            tokens.create_token(store, principal, scopes, created_by="tests")
    with pytest.raises(tokens.TokenError, match="3650"):
        tokens.create_token(store, "ok-name", ["read"], created_by="tests", expires_days=0)
    from backend.errors import NotFound

    with pytest.raises(NotFound):
        tokens.revoke_token(store, "ffffffffffff")


def test_read_scope_cannot_upload_and_write_scope_cannot_read_other_jobs(api_env):
    r = api_env.client.post("/api/ingest", files={"files": ("a.txt", b"x")},
                            headers=api_env.headers("public-reader"))
    _error(r, 403, "forbidden")


def test_malformed_json_unknown_fields_and_bad_values_name_the_field(api_env):
    h = {**api_env.headers("root"), "content-type": "application/json"}
    c = api_env.client
    _error(c.post("/api/search", content=b'{"query": "x",', headers=h), 400, "malformed_json")
    _error(c.post("/api/search", content=b"\xff\xfe", headers=h), 400, "malformed_json")
    e = _error(c.post("/api/search", json={"query": "x", "colections": ["a"]},
                      headers=api_env.headers("root")), 422, "invalid_request")
    assert e["field"] == "colections" and "unknown field" in e["message"]
    e = _error(c.post("/api/search", json={"query": ""}, headers=api_env.headers("root")), 422)
    assert e["field"] == "query"
    e = _error(c.post("/api/search", json={"query": "x", "limit": 10_000},
                      headers=api_env.headers("root")), 422)
    assert e["field"] == "limit"
    e = _error(c.post("/api/search", json={"query": "x", "offset": 150, "limit": 100},
                      headers=api_env.headers("root")), 422)
    assert e["field"] == "offset"
    e = _error(c.post("/api/search", json=["query"], headers=api_env.headers("root")), 422)
    e = _error(c.get("/api/documents?limit=0", headers=api_env.headers("root")), 422)
    assert e["field"] == "limit"
    e = _error(c.get("/api/documents/1/section?index=0&query=x",
                     headers=api_env.headers("root")), 422)
    _error(c.post("/api/ask", json={"question": "   "}, headers=api_env.headers("root")), 422)


@pytest.mark.parametrize("doc_id", ["..%2F..%2Fetc%2Fpasswd", "1%2F..%2F2", "-1", "0", "1.5",
                                    "99999999999999999999", "%00", "1;DROP TABLE documents"])
def test_ids_that_are_not_ids_get_4xx_never_a_file_or_500(api_env, doc_id):
    for suffix in ("", "/fulltext", "/original"):
        r = api_env.client.get(f"/api/documents/{doc_id}{suffix}",
                               headers=api_env.headers("root"))
        assert r.status_code in (404, 422), (doc_id, suffix, r.status_code)
        _error(r, r.status_code)
    r = api_env.client.get("/api/jobs/..%2F1", headers=api_env.headers("root"))
    assert r.status_code in (404, 422)


def test_unknown_paths_and_methods_get_the_error_body(api_env):
    _error(api_env.client.get("/api/nothing-here"), 404, "not_found")
    _error(api_env.client.delete("/api/documents", headers=api_env.headers("root")), 405,
           "method_not_allowed")


def test_huge_bodies_are_refused_declared_or_chunked(api_env):
    h = {**api_env.headers("root"), "content-type": "application/json"}
    big = b'{"query": "' + b"x" * (1100 * 1024) + b'"}'
    e = _error(api_env.client.post("/api/search", content=big, headers=h), 413, "too_large")
    assert "MiB" in e["message"]

    def chunks():
        yield b'{"query": "'
        for _ in range(1100):
            yield b"x" * 1024
        yield b'"}'

    _error(api_env.client.post("/api/search", content=chunks(), headers=h), 413, "too_large")


def test_an_upload_over_the_file_limit_is_refused_before_anything_is_stored(make_rs):
    from fastapi.testclient import TestClient

    from backend.api.http import create_app
    from backend.services.jobs import recent_jobs

    rs = make_rs(max_upload_mb=0.01)  # 10 KiB
    tok = tokens.create_token(rs.store, "uploader", ["admin"], created_by="tests")[1]
    client = TestClient(create_app(rs), raise_server_exceptions=False)
    files = [("files", ("small.txt", b"fine")), ("files", ("big.txt", b"y" * 20_000))]
    e = _error(client.post("/api/ingest", files=files,
                           headers={"Authorization": f"Bearer {tok}"}), 413, "too_large")
    assert "big.txt" in e["message"] and "RAGSCOPE_MAX_UPLOAD_MB" in e["message"]
    assert recent_jobs(rs.store) == []


def test_an_unexpected_error_is_a_500_with_an_id_and_no_details(api_env, monkeypatch, caplog):
    from backend.services import navigation

    def boom(*a, **k):
        raise RuntimeError("secret internal detail /var/lib/x")

    monkeypatch.setattr(navigation, "fulltext", boom)
    with caplog.at_level(logging.ERROR, logger="backend.api"):
        r = api_env.client.get("/api/documents/1/fulltext", headers=api_env.headers("root"))
    e = _error(r, 500, "internal_error")
    assert "secret" not in r.text and "request id" in e["message"]
    assert any("secret internal detail" in (rec.exc_text or "") or rec.exc_info
               for rec in caplog.records)  # the details are in the server log


def test_tokens_never_reach_the_log(api_env, caplog):
    with caplog.at_level(logging.DEBUG):
        for who in ("root", "ops-reader"):
            api_env.client.post("/api/search", json={"query": "Gateway"},
                                headers=api_env.headers(who))
        api_env.client.get("/api/collections", headers={"Authorization": "Bearer rgs_bad"})
    text = "\n".join(r.getMessage() + (r.exc_text or "") for r in caplog.records)
    for tok in api_env.tokens.values():
        assert tok not in text
    assert "rgs_bad" not in text


def _private_api(make_rs, **settings):
    from fastapi.testclient import TestClient

    from backend.api.http import create_app

    rs = make_rs(**settings)
    tok = tokens.create_token(rs.store, "uploader", ["admin"], created_by="tests")[1]
    client = TestClient(create_app(rs), raise_server_exceptions=False)
    return rs, client, {"Authorization": f"Bearer {tok}"}


def test_an_over_limit_upload_names_its_real_size(make_rs):
    """A 3 MiB file over a 1 MiB limit said `file is 1.0 MiB` (the bytes read to refuse it)."""
    rs, client, h = _private_api(make_rs, max_upload_mb=1.0)
    files = [("files", ("gross.pdf", b"%PDF-1.4\n" + b"y" * (3 * 1048576)))]
    e = _error(client.post("/api/ingest", files=files, headers=h), 413, "too_large")
    assert e["message"] == ("gross.pdf: file is 3.0 MiB, over the upload limit of 1 MiB "
                            "(RAGSCOPE_MAX_UPLOAD_MB)")


def test_title_filter_matches_percent_and_underscore_literally(make_rs):
    from backend.ingest.service import Ingestor

    rs, client, h = _private_api(make_rs)
    for name in ("rabatt_100%.txt", "plan.txt", "a_b.txt"):
        Ingestor(rs).ingest_bytes(f"Text von {name} über Pumpen.".encode(), name)
    found = {q: sorted(d["filename"] for d in client.get(
        "/api/documents", params={"title": q}, headers=h).json()["items"])
        for q in ("%", "_", "plan", "t_1")}
    assert found == {"%": ["rabatt_100%.txt"], "_": ["a_b.txt", "rabatt_100%.txt"],
                     "plan": ["plan.txt"], "t_1": ["rabatt_100%.txt"]}


def test_documents_offer_a_display_safe_name_beside_the_exact_one(make_rs):
    from backend.ingest.service import Ingestor

    rs, client, h = _private_api(make_rs)
    name = "bericht\u202etxt.md"
    out = Ingestor(rs).ingest_bytes(b"# Bericht\n\nDie Pumpe P3 wurde getauscht.\n", name)
    [row] = client.get("/api/documents", headers=h).json()["items"]
    assert row["filename"] == name and row["display_name"] == "bericht\\u202etxt.md"
    doc = client.get(f"/api/documents/{out.document_id}", headers=h).json()
    assert doc["filename"] == name and doc["display_name"] == "bericht\\u202etxt.md"


def test_every_bad_body_gets_a_documented_code_and_reason(api_env):
    """docs/api.md's table: these were 400 `bad_request` "There was an error parsing the
    body", 422 "Input should be a valid dictionary" and an undocumented `bad_request`."""
    h = {**api_env.headers("root"), "content-type": "application/json"}
    c = api_env.client
    e = _error(c.post("/api/search", content=b'{"query": "\xff\xfe"}', headers=h), 400,
               "malformed_json")
    assert e["message"] == "the request body is not valid JSON (not UTF-8 text)"
    deep = b'{"query": "x", "collections": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    e = _error(c.post("/api/search", content=deep, headers=h), 400, "malformed_json")
    assert "nested too deeply" in e["message"]
    as_text = {**api_env.headers("root"), "content-type": "text/plain"}
    e = _error(c.post("/api/search", content=b'{"query": "x"}', headers=as_text), 415,
               "unsupported_media_type")
    assert e["message"] == ("the request body must be JSON sent as Content-Type: "
                            "application/json (it was sent as text/plain)")
    files = [("files", (f"a{i}.txt", b"x")) for i in range(21)]
    e = _error(c.post("/api/ingest", files=files, headers=api_env.headers("board-writer")),
               422, "invalid_request")
    assert e["field"] == "files" and e["message"].startswith("files: 21 files in one upload")
    e = _error(c.post("/api/ingest", files=[("files", ("", b"x"))],
                      headers=api_env.headers("board-writer")), 422, "invalid_request")
    assert e == {"code": "invalid_request", "field": "files",
                 "message": "files: must be files (parts with a file name)"}
    assert c.post("/api/search", json={"query": "Gateway"},
                  headers=api_env.headers("root")).status_code == 200
