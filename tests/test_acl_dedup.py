"""ACL matrix: deduplication never crosses a knowledge base (docs/security.md,
"Deduplication"). A beta writer sends the bytes of a document of alpha or gamma, which it
cannot read, through every way in — HTTP upload, the dashboard's upload page, a watched
folder, a crawl, the CLI with `--as` — and through MCP reads what it got. Each time:

* it gets a new document of its own (outcome `new`, its own id), never `duplicate` or the
  other document's id;
* the other document stays as it was: only in its own collection, same versions, same
  original, and none of its later versions become readable;
* a failed record of the other knowledge base (same bytes) is not reused either.

Before the fix the upload said `duplicate, document_id <alpha's>` and linked alpha's
document into beta's collection, readable from then on with every later version."""
from __future__ import annotations

import time

import pytest

from backend.security import access, acl
from backend.services import documents
from backend.services import document_actions
from backend.security.access import Actor
from backend.config import Settings
from backend.ingest.service import Ingestor
from backend.services.container import Ragscope
from backend.store import repo
from backend.store.models import DocumentVersion
from backend.ui import state as K
from tests import acl_fixtures as F
from tests.page_support import app, components, errors, shared_model  # noqa: F401  (fixtures)

WRITER = "u-b-ed"  # editor in g-beta (write on beta), reads nothing of alpha and gamma
LATER = "LATERVERSIONMARK"  # only in alpha's second version


@pytest.fixture(scope="module")
def matrix(tmp_path_factory, shared_embedder) -> F.Matrix:
    return F.build(tmp_path_factory.mktemp("acl_dedup") / "var", shared_embedder)


@pytest.fixture
def rs(matrix, shared_embedder, tmp_path):
    r = Ragscope(Settings(data_dir=matrix.data, ingest_roots=str(tmp_path),
                          crawl_allowed_hosts="127.0.0.1"))
    r.embedder = shared_embedder
    yield r
    r.close()


def victim(rs, kb: str, tag: str) -> tuple[int, bytes]:
    """A document of `kb` (its own bytes, so tests do not meet each other's copies)."""
    data = F.text(kb) + f"\nThis copy belongs to the {tag} test of the {kb} team.\n".encode()
    out = Ingestor(rs).ingest_bytes(data, f"{kb}_{tag}.md", collection=F.COLLECTION[kb])
    assert out.status == "new", out
    return out.document_id, data


def writer_scope(rs) -> access.Scope:
    return access.scope_of(rs, Actor(WRITER, "editor"))


def _state(rs, doc_id: int) -> tuple:
    """What the owner sees of its document: collections, versions (key, content, status,
    active, error) and active version."""
    with rs.store.session() as s:
        d = repo.get_document(s, doc_id)
        return (repo.document_collections(s, doc_id), d.active_version_id, d.source_uri,
                sorted((v.id, v.sha256, getattr(v, "content_sha256", None), v.status,
                        v.is_active, v.error, v.original_path) for v in d.versions))


def assert_private_copy(rs, matrix, victim: str, doc_id: int | None, before: tuple,
                        victim_doc: int | None = None) -> None:
    """The writer's upload of `victim`'s bytes became a document of its own, readable by
    the writer; the victim's document is unchanged and unreadable for the writer."""
    victim_doc = victim_doc or matrix.doc[victim]
    assert doc_id is not None and doc_id not in (*matrix.doc.values(), victim_doc)
    scope = writer_scope(rs)
    with rs.store.session() as s:
        assert access.visible_document_ids(s, scope, [victim_doc, doc_id]) == {doc_id}
        own = repo.get_document(s, doc_id)
        assert repo.document_collections(s, doc_id) == [F.COLLECTION["beta"]]
        assert own.active_version_id is not None and own.status == "active"
        assert F.MARK[victim] in s.get(DocumentVersion, own.active_version_id).text
    assert _state(rs, victim_doc) == before


def test_http_upload_of_another_kbs_bytes_is_a_document_of_its_own(rs, matrix):
    """Over HTTP (a principal with write on beta); then through MCP the principal reads its
    own document and nothing of alpha's."""
    import asyncio

    from fastapi.testclient import TestClient
    from mcp import Client

    from backend.api.http import create_app
    from backend.api.mcp_server import build_mcp
    from backend.api.tokens import create_token

    acl.add_member(rs, Actor.system("t"), F.GROUP["beta"], "principal", "bot-b")
    token = create_token(rs.store, "bot-b", ["write"], created_by="tests")[1]
    client = TestClient(create_app(rs), raise_server_exceptions=False)
    hdr = {"Authorization": f"Bearer {token}"}
    before = _state(rs, matrix.doc["alpha"])
    r = client.post("/api/ingest", headers=hdr, data={"collection": F.COLLECTION["beta"]},
                    files=[("files", ("renamed-copy.md", F.text("alpha"), "text/markdown"))])
    assert r.status_code == 202, r.text
    job = _wait_job(client, hdr, r.json()["job_id"])
    out = job["result"]["outcomes"]
    assert [o["status"] for o in out] == ["new"], job
    assert "duplicate" not in str(job) and f"'document_id': {matrix.doc['alpha']}," not in str(out)
    assert_private_copy(rs, matrix, "alpha", out[0]["document_id"], before)
    own = out[0]["document_id"]
    assert client.get(f"/api/documents/{matrix.doc['alpha']}", headers=hdr).status_code == 404
    assert client.get(f"/api/documents/{own}", headers=hdr).status_code == 200

    async def go():
        async with Client(build_mcp(rs, stdio_token=token)) as c:
            listed = await c.call_tool("list_documents", {"limit": 200})
            theirs = await c.call_tool("get_document_fulltext",
                                       {"document_id": matrix.doc["alpha"]})
            mine = await c.call_tool("get_document_fulltext", {"document_id": own})
            return listed, theirs, mine

    listed, theirs, mine = asyncio.run(asyncio.wait_for(go(), 120))
    assert own in {d["id"] for d in listed.structured_content["items"]}
    assert matrix.doc["alpha"] not in {d["id"] for d in listed.structured_content["items"]}
    assert theirs.is_error and "not found" in theirs.content[0].text
    assert not mine.is_error and F.MARK["alpha"] in str(mine.structured_content)

    # alpha's owner makes a second version: nothing of it reaches the writer
    ing = Ingestor(rs)
    v2 = F.text("alpha") + f"\n## Later\n\nThe {LATER} revision replaces the old plan.\n".encode()
    with rs.store.session() as s:
        source = repo.get_document(s, matrix.doc["alpha"]).source_uri
    o2 = ing.ingest_bytes(v2, F.FILENAME["alpha"], collection=F.COLLECTION["alpha"],
                          source_uri=source)
    assert o2.status == "new_version" and o2.document_id == matrix.doc["alpha"]
    hits = client.post("/api/search", headers=hdr, json={"query": LATER, "limit": 50}).json()
    assert hits["hits"] and LATER not in str(hits["hits"])  # the query is echoed
    assert matrix.doc["alpha"] not in {h["document_id"] for h in hits["hits"]}
    assert client.get(f"/api/documents/{own}/fulltext", headers=hdr).json()["text"].count(
        LATER) == 0

    # deleting the writer's copy leaves alpha's stored original alone
    document_actions.delete_document(rs, own, Actor(WRITER, "editor"))
    original = documents.original_file(rs, before[3][0][0], scope=access.Scope.everything())
    assert original.data == F.text("alpha")


def _wait_job(client, hdr, job_id: int) -> dict:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        job = client.get(f"/api/jobs/{job_id}", headers=hdr).json()
        if job["status"] not in ("running", "pending"):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish")


def test_dashboard_upload_of_another_kbs_bytes_is_a_document_of_its_own(app, matrix, rs,
                                                                         shared_model):
    theirs, data = victim(rs, "gamma", "dashboard")
    before = _state(rs, theirs)
    at = app(matrix.data, WRITER)
    at.run()
    at.switch_page("pages/upload.py").run()
    at.file_uploader[0].upload("looks-new.md", data, "text/markdown")
    at.text_input(key=K.UPLOAD_COLLECTION).input(F.COLLECTION["beta"])
    at.run()
    at.button(key=K.UPLOAD_GO).click().run()
    assert not at.exception, [e.value for e in at.exception]
    (row,) = at.session_state[K.UPLOAD_RESULTS]
    assert row["status"] == "new" and row["document"] != theirs, row
    shown = "\n".join(str(e.value) for e in at.main.children.values() if hasattr(e, "value"))
    assert "duplicate" not in shown.lower() and "Duplicate" not in str(at.session_state[
        K.UPLOAD_RESULTS])
    assert_private_copy(rs, matrix, "gamma", row["document"], before, theirs)


def test_watched_folder_with_another_kbs_file_makes_a_document_of_its_own(rs, matrix,
                                                                          tmp_path):
    from backend.crawl.service import CrawlService

    theirs, data = victim(rs, "alpha", "watch")
    before = _state(rs, theirs)
    folder = tmp_path / "inbox"
    folder.mkdir()
    (folder / "inbox_copy.md").write_bytes(data)
    svc = CrawlService(rs)
    p = svc.watch_folder(str(folder), F.COLLECTION["beta"])
    assert p.status == "done", p.error
    (ev,) = [e for e in svc.events(p.run_id) if e.url.endswith("inbox_copy.md")]
    assert ev.outcome == "new" and "same content" not in ev.reason, (ev.outcome, ev.reason)
    assert_private_copy(rs, matrix, "alpha", ev.document_id, before, theirs)
    p2 = svc.watch_folder(str(folder), F.COLLECTION["beta"])  # a second run: nothing new
    assert {e.outcome for e in svc.events(p2.run_id)} == {"unchanged"}


def test_crawl_of_another_kbs_page_makes_a_document_of_its_own(rs, matrix):
    """Bytes of a gamma document on a web page, and one URL crawled into both knowledge
    bases: beta's crawl gets documents of its own; alpha's crawled page stays alpha's."""
    from backend.crawl.guard import UrlGuard
    from backend.crawl.service import CrawlService
    from tests.crawl_site_support import FAST, Reply, Site

    theirs, secret = victim(rs, "gamma", "crawl")

    with Site() as site:
        site.routes["/"] = Reply(body=(b"<html><head><title>Start</title></head><body><p>"
                                       b"Start page of the site for the crawl test, "
                                       b"with enough words to be a page.</p><a href='/notes'>"
                                       b"notes</a></body></html>"))
        site.routes["/notes"] = Reply(body=secret, ctype="text/markdown")
        guard = UrlGuard(f"127.0.0.1:{site.port}")
        svc = CrawlService(rs, guard=guard, **FAST)
        first = svc.crawl_url(site.base + "/", F.COLLECTION["alpha"], max_pages=5,
                              max_depth=1, delay_s=0, concurrency=1)  # alpha's crawl
        assert first.status == "done", first.error
        alpha_pages = {e.url: e.document_id for e in svc.events(first.run_id)}
        start_doc = alpha_pages[site.base + "/"]
        before = _state(rs, theirs)
        before_start = _state(rs, start_doc)
        p = svc.crawl_url(site.base + "/", F.COLLECTION["beta"], max_pages=5, max_depth=1,
                          delay_s=0, concurrency=1)
        assert p.status == "done", p.error
    ev = {e.url: e for e in svc.events(p.run_id)}
    notes, start = ev[site.base + "/notes"], ev[site.base + "/"]
    assert notes.outcome == "new" and start.outcome == "new", (notes.reason, start.reason)
    assert start.document_id != start_doc
    assert notes.document_id != alpha_pages[site.base + "/notes"]
    assert_private_copy(rs, matrix, "gamma", notes.document_id, before, theirs)
    assert _state(rs, start_doc) == before_start  # alpha's page: not linked, not a version
    with rs.store.session() as s:
        assert access.visible_document_ids(s, writer_scope(rs), [start_doc]) == set()


def test_cli_ingest_as_a_user_makes_a_document_of_its_own(rs, matrix, tmp_path, monkeypatch,
                                                          capsys, shared_model):
    from backend.cli.main import main

    theirs, data = victim(rs, "gamma", "cli")
    before = _state(rs, theirs)
    f = tmp_path / "cli_copy.md"
    f.write_bytes(data)
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(matrix.data))
    rc = main(["--as", WRITER, "ingest", str(f), "--collection", F.COLLECTION["beta"]])
    out = capsys.readouterr().out
    assert rc == 0 and "1 new" in out and "duplicate" not in out, out
    with rs.store.session() as s:
        doc = repo.document_by_source(s, str(f.resolve()))
        assert doc is not None
    assert_private_copy(rs, matrix, "gamma", doc.id, before, theirs)


def test_a_failed_record_of_another_kb_is_not_reused(rs, matrix):
    """Failed records are merged by content hash too: not across knowledge bases."""
    ing = Ingestor(rs)
    bad = b"\x00\x01 not a text file at all \x02" * 20
    theirs = ing.ingest_bytes(bad, "alpha-broken.xyz", collection=F.COLLECTION["alpha"])
    assert theirs.status == "failed"
    before = _state(rs, theirs.document_id)
    (mine,) = document_actions.ingest_uploads(rs, [("mine.xyz", bad)], Actor(WRITER, "editor"),
                                       collection=F.COLLECTION["beta"])
    assert mine.status == "failed" and mine.document_id != theirs.document_id
    assert "mine.xyz" in mine.error and "alpha-broken" not in mine.error
    assert _state(rs, theirs.document_id) == before  # error not overwritten, not linked
    with rs.store.session() as s:
        assert access.visible_document_ids(s, writer_scope(rs), [theirs.document_id]) == set()
        assert repo.document_collections(s, mine.document_id) == [F.COLLECTION["beta"]]


def test_within_what_the_uploader_reads_identical_content_is_still_linked(rs, matrix):
    """An admin (or the writer within beta) still gets `duplicate`: the rule only stops
    crossing what the uploader may read."""
    ing = Ingestor(rs)
    out = ing.ingest_bytes(F.text("beta"), "beta-again.md", collection="beta-extra")
    assert out.status == "duplicate" and out.document_id == matrix.doc["beta"]
    (again,) = document_actions.ingest_uploads(rs, [("beta-third.md", F.text("beta"))],
                                        Actor(WRITER, "editor"),
                                        collection=F.COLLECTION["beta"])
    assert again.status == "unchanged" or again.status == "duplicate"
    assert again.document_id == matrix.doc["beta"]


def test_an_upload_named_like_another_kbs_document_is_not_its_new_version(rs, matrix):
    """Identity by source (`upload://name`) stays inside the scope too: the same upload name
    as alpha's document, other content, becomes the writer's own document (before: version 2
    of alpha's document, linked into beta, and alpha's readers saw beta's text)."""
    before = _state(rs, matrix.doc["alpha"])
    writer = Actor(WRITER, "editor")
    text = b"# Beta's own notes\n\nThe BETAOWN pump list is kept by the beta team.\n"
    (out,) = document_actions.ingest_uploads(rs, [(F.FILENAME["alpha"], text)], writer,
                                      collection=F.COLLECTION["beta"])
    assert out.status == "new" and out.document_id != matrix.doc["alpha"], out
    assert _state(rs, matrix.doc["alpha"]) == before
    detail = documents.document_detail(rs, out.document_id, scope=writer_scope(rs))
    assert detail.source_uri == f"upload://{F.FILENAME['alpha']}"  # as uploaded
    (again,) = document_actions.ingest_uploads(rs, [(F.FILENAME["alpha"], text + b"More.\n")], writer,
                                        collection=F.COLLECTION["beta"])
    assert again.status == "new_version" and again.document_id == out.document_id
