"""Faults leave nothing half-written (issue 21, section 3):

* an index that refuses a batch (Elasticsearch down: a closed port on 127.0.0.1) gets
  neither index written: the vectors are rolled back, the version is failed with the
  reason, a previous version stays active; `check --repair` runs with the server still
  down and says what it could not reach;
* a refused request creates nothing: no empty collection from an ingest refused by the
  guardrails or with every file refused, nor from a crawl source the page or CLI rejects;
* a job read as `done` already has every file's outcome (one transaction)."""
from __future__ import annotations

import socket
import threading
import time

import pytest

from backend.security.access import Actor
from backend.errors import BackendUnavailable, InvalidCrawlSource
from backend.ingest.service import Ingestor
from backend.store import repo
from backend.store.models import Collection, DocumentVersion
from tests.page_support import shared_model  # noqa: F401  (fixture)

TEXT = (b"# Pumps\n\nThe pump P4 was replaced on Monday; the motor protection was set anew.\n\n"
        b"## Valves\n\nValve V2 leaks at the flange and is due for a new gasket.\n")


def closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound once, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _collections(rs) -> set[str]:
    from sqlalchemy import select

    with rs.store.session() as s:
        return set(s.scalars(select(Collection.name)))


def test_keyword_server_down_writes_neither_index_and_repair_says_so(tmp_path, monkeypatch,
                                                                      capsys, shared_model):
    from backend.cli.main import main

    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("RAGSCOPE_KEYWORD_BACKEND", "elasticsearch")
    monkeypatch.setenv("RAGSCOPE_ELASTICSEARCH_URL", f"http://127.0.0.1:{closed_port()}")
    f = tmp_path / "x.txt"
    f.write_bytes(TEXT)
    assert main(["ingest", str(f), "--collection", "c", "-q"]) == 1
    cap = capsys.readouterr()
    assert "FAILED x.txt: not indexed" in cap.err and "127.0.0.1" in cap.err, cap.err
    assert "1 failed" in cap.out

    from backend.config import Settings
    from backend.services.container import Ragscope

    rs = Ragscope(Settings())
    try:
        assert rs.vector_index.ids() == set()  # the vectors were rolled back
        with rs.store.session() as s:
            (v,) = s.query(DocumentVersion).all()
            assert v.status == "failed" and "not indexed" in v.error and not v.is_active
            assert repo.chunks_of(s, v.id) == []
        assert Ingestor(rs).check().stuck_versions == []
    finally:
        rs.close()
    assert main(["check", "--repair"]) == 1  # the server is still down: no crash
    cap = capsys.readouterr()
    assert "could not repair now: keyword index" in cap.out and "127.0.0.1" in cap.out
    assert "vector_orphans" not in cap.out and "stuck_versions" not in cap.out
    assert "Traceback" not in cap.err


def test_a_refused_publish_keeps_the_previous_version(ingestor, monkeypatch):
    rs = ingestor.rs
    v1 = ingestor.ingest_bytes(TEXT, "pumps.md", collection="c")
    assert v1.status == "new" and v1.chunks
    with rs.store.session() as s:
        v1_chunks = {c.id for c in repo.chunks_of(s, v1.version_id)}
    assert rs.vector_index.ids() == v1_chunks

    def refuse(chunks):
        raise BackendUnavailable("Elasticsearch at http://127.0.0.1:9 is unreachable: refused")

    monkeypatch.setattr(rs.keyword_index, "add", refuse)
    out = ingestor.ingest_bytes(TEXT + b"\nA new paragraph about the PUMPNEW schedule.\n",
                                "pumps.md", collection="c")
    assert out.status == "failed" and "unreachable" in out.error and out.chunks == 0
    assert rs.vector_index.ids() == v1_chunks and rs.keyword_index.ids() == v1_chunks
    with rs.store.session() as s:
        doc = repo.get_document(s, v1.document_id)
        assert doc.active_version_id == v1.version_id and doc.status == "active"
        assert s.get(DocumentVersion, out.version_id).status == "failed"
    monkeypatch.undo()
    assert ingestor.check().ok


def test_an_ingest_refused_by_the_guardrails_creates_no_collection(tmp_path, monkeypatch,
                                                                    capsys, shared_model):
    from backend.cli.main import main

    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(tmp_path / "var"))
    f = tmp_path / "x.txt"
    f.write_bytes(TEXT)
    assert main(["ingest", str(f), "--collection", "first", "-q"]) == 0
    capsys.readouterr()
    monkeypatch.setenv("RAGSCOPE_CHUNK_SIZE", "600")
    assert main(["ingest", str(f), "--collection", "guard2", "-q"]) == 2
    assert "reindex" in capsys.readouterr().err
    monkeypatch.delenv("RAGSCOPE_CHUNK_SIZE")
    assert main(["ingest", str(tmp_path / "missing.txt"), "--collection", "guard3"]) == 1
    assert main(["collections"]) == 0
    out = capsys.readouterr().out
    assert "first" in out and "guard2" not in out and "guard3" not in out, out


def test_an_upload_refused_by_the_guardrails_creates_no_collection(make_rs):
    from backend.services import document_actions
    from backend.errors import IndexMismatch

    rs = make_rs()
    assert Ingestor(rs).ingest_bytes(TEXT, "a.md", collection="first").ok
    other = make_rs(chunk_size=600)
    with pytest.raises(IndexMismatch):
        document_actions.ingest_uploads(other, [("b.md", TEXT)], Actor.system("t"),
                                 collection="upload-new", knowledge_base="default")
    assert "upload-new" not in _collections(other)
    outs = document_actions.ingest_uploads(rs, [("b.md", TEXT)], Actor.system("t"),
                                    collection="upload-new")  # made with its first file
    assert outs[0].ok and "upload-new" in _collections(rs)


def test_a_rejected_crawl_source_creates_no_collection(make_rs, monkeypatch, capsys):
    from backend.crawl.service import CrawlService
    from backend.ui import crawl as crawl_ui

    rs = make_rs(crawl_allowed_hosts="127.0.0.1:8123")  # validated, never fetched here
    console = crawl_ui.CrawlConsole(CrawlService(rs))
    values = {**crawl_ui.form_values(None), "name": "intranet", "collection": "intranet",
              "start_url": "ftp://intranet.example/", "max_pages": 10}
    with pytest.raises(InvalidCrawlSource):
        crawl_ui.save_source(console, Actor.system("t"), None, values)
    assert "intranet" not in _collections(rs)
    ok = crawl_ui.save_source(console, Actor.system("t"), None,
                              {**values, "start_url": "http://127.0.0.1:8123/"})
    assert ok.collection == "intranet" and "intranet" in _collections(rs)

    from backend.cli.main import main

    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(rs.settings.data_dir))
    monkeypatch.setenv("RAGSCOPE_CRAWL_ALLOWED_HOSTS", "127.0.0.1:8123")
    assert main(["crawl", "http://127.0.0.1:8123/", "-c", "cli-new", "--max-pages", "501"]) == 2
    assert "at most 500 pages" in capsys.readouterr().err
    assert "cli-new" not in _collections(rs)


def test_a_job_read_as_done_has_every_outcome(make_rs, monkeypatch):
    """Poll an upload job while it runs; whatever delays the writer after the status is
    committed, a `done` job always carries its outcomes."""
    from backend.services import library
    from backend.ingest import service

    rs = make_rs()
    real = service.finish_job

    def slow_finish(*args, **kwargs):  # a busy machine between two commits
        real(*args, **kwargs)
        time.sleep(0.3)

    monkeypatch.setattr(service, "finish_job", slow_finish)
    seen: list[dict] = []
    files = [(f"f{i}.md", TEXT + f"\nFile number {i}.\n".encode()) for i in range(3)]
    job = library.start_upload(rs, Actor.system("t"), files, collection="jobs")
    stop = time.monotonic() + 120
    while time.monotonic() < stop:
        info = library.job_info(rs, Actor.system("t"), job)
        if info.status == "done":
            seen.append(dict(info.result or {}))
            if len(seen) >= 5:
                break
        time.sleep(0.005)
    assert seen, "the job did not finish"
    for result in seen:
        assert [o["status"] for o in result.get("outcomes", [])] == ["new"] * 3, result
    for t in threading.enumerate():
        if t.name == f"upload-job-{job}":
            t.join(10)
