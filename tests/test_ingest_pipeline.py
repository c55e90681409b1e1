"""Batched, pipelined ingestion (`Ingestor.ingest_many`, backend/ingest/batches.py): items
with their own source, title and meta; bad items fail alone; extraction overlaps embedding;
progress with chunks embedded and an ETA; outcomes in input order; a failing source or a
cancel leaves store and indexes in agreement."""
from __future__ import annotations

import threading

import pytest

from backend.security.access import Scope
from backend.ingest import batches as pipeline_mod
from backend.ingest import records
from backend.ingest.indexing import IndexWriter
from backend.ingest.records import IngestItem
from backend.ingest.service import Ingestor
from backend.services.jobs import request_cancel
from backend.retrieval import RetrievalParams, Retriever
from backend.store.models import Document, Job


def _text(i: int, paragraphs: int = 3) -> bytes:
    para = (f"Bericht {i}: Die Pumpstation {i} im Ortsteil Nord wurde im Mai geprüft. "
            "Druck, Durchfluss und Wartungsintervalle sind dokumentiert. ") * 4
    return "\n\n".join(f"## Abschnitt {j}\n\n{para}" for j in range(paragraphs)).encode()


def _docs(rs) -> dict[str, Document]:
    with rs.store.session() as s:
        return {d.source_uri: d for d in s.query(Document).all()}


def test_items_carry_source_title_and_meta_into_store_and_indexes(ingestor):
    items = [IngestItem("a.txt", data=_text(1), source_uri="https://intranet/a",
                        source_kind="crawl", title="Jahresbericht Wasserwerk Süd",
                        meta={"url": "https://intranet/a", "tags": ["wasser"]}),
             IngestItem("b.md", data=_text(2), title="  Netzplan   Ost  ")]
    outs = ingestor.ingest_many(items, total=2, collection="werke")
    assert [o.status for o in outs] == ["new", "new"]
    docs = _docs(ingestor.rs)
    a, b = docs["https://intranet/a"], docs["file://b.md"]
    assert (a.title, a.source_kind, a.meta) == (
        "Jahresbericht Wasserwerk Süd", "crawl", {"url": "https://intranet/a", "tags": ["wasser"]})
    assert (b.title, b.source_kind) == ("Netzplan Ost", "file")  # whitespace collapsed
    # the title is in the keyword index from the start (a word found only in the title)
    res = Retriever(ingestor.rs).retrieve("Wasserwerk", RetrievalParams(policy="lexical_only"),
                                          scope=Scope.everything())
    assert {h.document_id for h in res.hits} == {a.id}
    # a new version of the same source updates what the caller says about it
    again = ingestor.ingest_many([IngestItem("a.txt", data=_text(1, 4),
                                             source_uri="https://intranet/a",
                                             meta={"url": "https://intranet/a", "etag": "x2"})])
    assert again[0].status == "new_version"
    assert _docs(ingestor.rs)["https://intranet/a"].meta == {
        "url": "https://intranet/a", "tags": ["wasser"], "etag": "x2"}


def test_bad_items_fail_alone_naming_the_field_and_store_nothing(ingestor):
    long_title = "T" * 600
    items = [
        IngestItem("ok1.txt", data=_text(1)),
        IngestItem("meta.txt", data=_text(2), meta={"when": object()}),
        IngestItem("both.txt", data=_text(3), path="/tmp/both.txt"),
        IngestItem("kind.txt", data=_text(4), source_kind="ftp"),
        IngestItem("str.txt", data="not bytes"),
        IngestItem("", data=_text(5)),
        IngestItem("dir/x.txt", data=_text(6)),
        IngestItem("uri.txt", data=_text(7), source_uri=""),
        IngestItem("list.txt", data=_text(8), meta=["a"]),
        IngestItem("long.txt", data=_text(9), title=long_title),
        ("ok2.txt", _text(10)),  # old-style pair
    ]
    outs = ingestor.ingest_many(items, total=len(items))
    by = {o.filename: o for o in outs}
    assert [o.filename for o in outs] == ["ok1.txt", "meta.txt", "both.txt", "kind.txt",
                                          "str.txt", "(unnamed item)", "dir/x.txt", "uri.txt",
                                          "list.txt", "long.txt", "ok2.txt"]
    assert by["ok1.txt"].status == by["ok2.txt"].status == "new"
    assert by["meta.txt"].error.startswith("meta.txt: meta: not storable as JSON")
    assert by["both.txt"].error == "both.txt: data/path: give exactly one of data (bytes) and path"
    assert by["kind.txt"].error.startswith("kind.txt: source_kind: 'ftp' is not one of file,")
    assert by["str.txt"].error == "str.txt: data: must be bytes, not str"
    assert by["(unnamed item)"].error == "(unnamed item): name: must be a non-empty file name"
    assert "name: must be a file name without '/'" in by["dir/x.txt"].error
    assert "source_uri: must be a non-empty string" in by["uri.txt"].error
    assert by["list.txt"].error == "list.txt: meta: must be a JSON object (a dict with string keys)"
    # a title that is too long is cut, with a warning, not refused
    assert by["long.txt"].status == "new"
    assert by["long.txt"].warnings[0] == "title cut to 500 characters (was 600)"
    assert {d.filename for d in _docs(ingestor.rs).values()} == {"ok1.txt", "ok2.txt", "long.txt"}
    assert ingestor.check().ok
    with pytest.raises(TypeError, match="IngestItem or \\(path, data\\) pairs"):
        ingestor.ingest_many(["just a string"])


def test_extraction_of_the_next_files_overlaps_embedding(ingestor, monkeypatch):
    """While the first batch is being embedded, files of the next batch are extracted: the
    first encode waits until a later file has been prepared (it never is, if the pipeline
    extracts and embeds one after the other)."""
    monkeypatch.setattr(pipeline_mod, "FLUSH_FILES", 2)
    monkeypatch.setattr(pipeline_mod, "FLUSH_CHUNKS", 10_000)
    third_prepared = threading.Event()
    prepared: list[str] = []
    real_prepare, real_encode = Ingestor._prepare, IndexWriter.encode
    overlapped: list[bool] = []

    def prepare(self, data, filename, ctx):
        out = real_prepare(self, data, filename, ctx)
        prepared.append(filename)
        if filename == "f2.txt":
            third_prepared.set()
        return out

    def encode(self, chunks):
        if not overlapped:  # the first batch (f0, f1)
            overlapped.append(third_prepared.wait(timeout=60))
            assert threading.current_thread() is not threading.main_thread()
        return real_encode(self, chunks)

    monkeypatch.setattr(Ingestor, "_prepare", prepare)
    monkeypatch.setattr(IndexWriter, "encode", encode)
    outs = ingestor.ingest_many([IngestItem(f"f{i}.txt", data=_text(i)) for i in range(5)],
                                total=5)
    assert overlapped == [True]
    assert [o.status for o in outs] == ["new"] * 5
    assert ingestor.check().ok


def test_progress_reports_chunks_embedded_and_an_eta_in_input_order(ingestor, monkeypatch):
    monkeypatch.setattr(pipeline_mod, "FLUSH_FILES", 3)
    seen = []
    items = [IngestItem(f"p{i}.txt", data=_text(i)) for i in range(7)]
    items.insert(2, IngestItem("bad.xyz", data=b"no extractor"))
    items.insert(5, IngestItem("p1-again.txt", data=_text(1)))  # same content: duplicate
    outs = ingestor.ingest_many(items, total=len(items), on_progress=seen.append)
    names = [i.name for i in items]
    assert [o.filename for o in outs] == names
    reported = [p for p in seen if p.outcome is not None]
    assert [p.item.name for p in reported] == names
    assert [p.files_done for p in reported] == list(range(1, len(items) + 1))
    assert reported[2].outcome.status == "failed" and reported[2].failed == 1
    assert reported[5].outcome.status == "duplicate"
    batches = [p for p in seen if p.outcome is None]  # one report per embedded batch
    assert len(batches) == 3
    total_chunks = sum(o.chunks for o in outs)
    assert total_chunks > 0 and seen[-1].chunks_embedded == total_chunks
    assert [p.chunks_embedded for p in batches] == sorted(p.chunks_embedded for p in batches)
    assert reported[0].chunks_embedded > 0  # a file is reported once its chunks are in
    mid = reported[3]
    assert mid.eta_s is not None and mid.eta_s >= 0
    assert "chunks embedded" in mid.summary() and "ETA" in mid.summary()
    assert "ETA" not in reported[-1].summary()
    with ingestor.store.session() as s:
        job = s.query(Job).filter(Job.kind == "ingest").order_by(Job.id.desc()).first()
        assert job.status == "done" and job.done == len(items) - 1 and job.failed == 1
        assert "chunks embedded" in job.message


def test_eta_and_summary():
    p = records.IngestProgress(files_done=10, files_total=40, failed=0, chunks_embedded=1234,
                               chunks_waiting=0, elapsed_s=20.0, embed_s=15.0)
    assert p.eta_s == 60.0
    assert p.summary() == "10/40 files, 1,234 chunks embedded (62/s), ETA 1 min 00 s"
    crawl = records.IngestProgress(3, None, 1, 50, 10, 5.0, 4.0)
    assert crawl.eta_s is None
    assert crawl.summary() == "3 files, 1 failed, 50 chunks embedded (10/s)"
    assert records.format_duration(7300) == "2 h 01 min"


def test_a_failing_source_publishes_what_was_stored_then_raises(ingestor, monkeypatch):
    monkeypatch.setattr(pipeline_mod, "FLUSH_FILES", 2)

    def source():
        for i in range(3):
            yield IngestItem(f"s{i}.txt", data=_text(i))
        raise RuntimeError("feed broke")

    with pytest.raises(RuntimeError, match="feed broke"):
        ingestor.ingest_many(source())
    with ingestor.store.session() as s:
        docs = s.query(Document).all()
        assert sorted((d.filename, d.status) for d in docs) == [
            ("s0.txt", "active"), ("s1.txt", "active"), ("s2.txt", "active")]
        job = s.query(Job).filter(Job.kind == "ingest").one()
        assert (job.status, job.error) == ("failed", "feed broke")
    assert ingestor.check().ok


def test_cancel_stops_the_batch_and_leaves_no_half_written_version(ingestor, monkeypatch):
    monkeypatch.setattr(pipeline_mod, "FLUSH_FILES", 2)

    def progress(p):
        if p.outcome is not None and p.files_done == 2:
            with ingestor.store.session() as s:
                job = s.query(Job).filter(Job.kind == "ingest").one()
            request_cancel(ingestor.store, job.id)

    outs = ingestor.ingest_many([IngestItem(f"c{i}.txt", data=_text(i)) for i in range(10)],
                                total=10, on_progress=progress)
    assert 3 <= len(outs) < 10
    with ingestor.store.session() as s:
        assert s.query(Job).filter(Job.kind == "ingest").one().status == "cancelled"
        statuses = {v.status for d in s.query(Document).all() for v in d.versions}
    assert statuses == {"indexed"}  # whatever was stored was also published
    assert ingestor.check().ok


def test_cli_ingest_shows_chunks_embedded(tmp_path, monkeypatch, capsys, shared_embedder):
    from backend.cli import main as cli
    from backend.services.container import Ragscope

    src = tmp_path / "in"
    src.mkdir()
    for i in range(3):
        (src / f"bericht_{i}.md").write_bytes(_text(i))
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.setattr(Ragscope, "embedder", shared_embedder)  # no second model load
    assert cli.main(["ingest", str(src)]) == 0
    out = capsys.readouterr()
    assert "3 files: 3 new;" in out.out
    chunks = int(out.out.split("; ")[1].split()[0])
    assert f"{chunks:,} chunks embedded" in out.err
