"""Ingestion end to end on the embedded parts: batches with bad files, dedup across
collections, versions and activation, stable chunk ids, guardrails, originals, check/repair."""
from __future__ import annotations

import io

import pytest

from backend.errors import IndexMismatch, NotFound
from backend.ingest.service import Ingestor
from backend.retrieval import RetrievalParams, Retriever
from backend.store import repo
from backend.store.models import Document, DocumentVersion
from backend.security.access import Scope

EVERYTHING = Scope.everything()

MANUAL = """# Gateway Handbuch

## 1 Einleitung

Das Lumen Data Gateway verbindet Datenquellen mit Analysewerkzeugen der Fachabteilungen.

## 2 Konfiguration

Der Schlüssel `gateway.max_connections` begrenzt gleichzeitige Verbindungen auf 250.
"""

MINUTES = """Protokoll der Sitzung des Werksausschusses

TOP 1: Begrüßung
Die Vorsitzende begrüßt die Anwesenden und stellt die Beschlussfähigkeit fest.

TOP 2: Wirtschaftsplan
Beschluss: Der Wirtschaftsplan 2025 wird einstimmig angenommen.
"""


def _pdf_bytes(encrypted: bool = False) -> bytes:
    from fpdf import FPDF
    from pypdf import PdfReader, PdfWriter

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.multi_cell(0, 8, "Hello PDF. This page talks about water pressure in the network.")
    data = bytes(pdf.output())
    if not encrypted:
        return data
    w = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    w.encrypt("secret")
    out = io.BytesIO()
    w.write(out)
    return out.getvalue()


@pytest.fixture
def corpus(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    (d / "handbuch.md").write_text(MANUAL, encoding="utf-8")
    (d / "protokoll.txt").write_text(MINUTES, encoding="utf-8")
    return d


def _search_docs(rs, query, **kw):
    res = Retriever(rs).retrieve(query, RetrievalParams(k=10, **kw), scope=EVERYTHING)
    return {h.filename for h in res.hits}


def test_bad_files_fail_alone_and_are_recorded(ingestor, corpus):
    good = _pdf_bytes()
    bad = {
        "corrupt.pdf": good[: len(good) // 3],
        "secret.pdf": _pdf_bytes(encrypted=True),
        "empty.txt": b"",
        "notes.xyz": b"some text",
        "fake.docx": b"this is not a zip archive",
    }
    for name, data in bad.items():
        (corpus / name).write_bytes(data)
    (corpus / "big.txt").write_bytes(b"x " * (3 * 1024 * 1024))
    rs = ingestor.rs
    small = Ingestor(type(rs)(rs.settings.model_copy(update={"max_upload_mb": 1.0})))
    small.rs.__dict__["embedder"] = rs.embedder
    files = sorted(corpus.iterdir())
    outcomes = {o.filename: o for o in small.ingest_paths(files, collection="c")}
    assert outcomes["handbuch.md"].ok and outcomes["protokoll.txt"].ok
    reasons = {
        "corrupt.pdf": "pdf", "secret.pdf": "encrypted", "empty.txt": "empty",
        "notes.xyz": "unsupported", "fake.docx": "zip", "big.txt": "limit",
    }
    for name, word in reasons.items():
        o = outcomes[name]
        assert o.status == "failed", name
        assert name in o.error and word in o.error.lower(), (name, o.error)
    with small.store.session() as s:
        failed = s.query(DocumentVersion).filter(DocumentVersion.status == "failed").all()
        assert {v.filename for v in failed} == set(reasons)
        assert all(v.error for v in failed)
    assert "handbuch.md" in _search_docs(small.rs, "gateway.max_connections")


def test_every_rejected_file_keeps_its_own_record_and_message(ingestor, tmp_path):
    """Three empty files of three formats have one content hash; each is its own failed
    document naming itself (the second used to take over the first's record and message),
    and a readable file with the bytes of a rejected one is a document of its own."""
    for name in ("empty.txt", "empty.pdf", "empty.docx"):
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "notes.xyz").write_text("Die Schleuse bleibt im Januar geschlossen.\n")
    (tmp_path / "notes.txt").write_text("Die Schleuse bleibt im Januar geschlossen.\n")
    names = ["empty.txt", "empty.pdf", "empty.docx", "notes.xyz", "notes.txt"]
    outs = [o for n in names for o in ingestor.ingest_paths([tmp_path / n], collection="c")]
    assert [o.status for o in outs] == ["failed"] * 4 + ["new"]
    for o in outs[:3]:
        assert o.error.startswith(o.filename) and "empty" in o.error
    assert len({o.document_id for o in outs}) == 5
    with ingestor.store.session() as s:
        failed = {v.filename: v.error for v in s.query(DocumentVersion)
                  .filter(DocumentVersion.status == "failed")}
        docs = {d.filename: d.status for d in s.query(Document)}
    assert failed == {o.filename: o.error for o in outs[:4]}
    assert docs == {"empty.txt": "failed", "empty.pdf": "failed", "empty.docx": "failed",
                    "notes.xyz": "failed", "notes.txt": "active"}
    again = ingestor.ingest_paths([tmp_path / "empty.txt"], collection="c")[0]
    assert again.status == "failed" and again.document_id == outs[0].document_id


def test_latin1_text_is_decoded_with_a_warning(ingestor, tmp_path):
    f = tmp_path / "altbestand.txt"
    f.write_bytes("Prüfbericht für Wasserzähler in Müllheim, Größe und Maße.".encode("latin-1"))
    [out] = ingestor.ingest_paths([f])
    assert out.ok
    assert any("decoded" in w.lower() for w in out.warnings)
    with ingestor.store.session() as s:
        v = s.get(DocumentVersion, out.version_id)
        assert "Wasserzähler in Müllheim" in v.text


def test_same_content_twice_is_one_version_linked_to_both_collections(ingestor, corpus, tmp_path):
    [a] = ingestor.ingest_paths([corpus / "handbuch.md"], collection="alpha")
    copy = tmp_path / "copy_of_handbuch.md"
    copy.write_text(MANUAL, encoding="utf-8")
    [b] = ingestor.ingest_paths([copy], collection="beta")
    assert a.status == "new" and b.status == "duplicate"
    assert a.document_id == b.document_id and a.version_id == b.version_id
    [c] = ingestor.ingest_paths([corpus / "handbuch.md"], collection="alpha")
    assert c.status == "unchanged" and c.chunks == 0
    with ingestor.store.session() as s:
        assert repo.document_collections(s, a.document_id) == ["alpha", "beta"]
        assert repo.counts(s)["versions"] == 1
    assert ingestor.rs.vector_index.count() == a.chunks
    assert ingestor.rs.keyword_index.count() == a.chunks


def test_changed_file_becomes_new_version_and_only_active_is_searchable(ingestor, corpus):
    path = corpus / "handbuch.md"
    [v1] = ingestor.ingest_paths([path])
    assert "handbuch.md" in _search_docs(ingestor.rs, "250 Verbindungen", policy="lexical_only")
    path.write_text(MANUAL.replace("250", "900").replace("Einleitung", "Überblick"), "utf-8")
    [v2] = ingestor.ingest_paths([path])
    assert v2.status == "new_version" and v2.document_id == v1.document_id
    with ingestor.store.session() as s:
        doc = repo.get_document(s, v1.document_id)
        assert [v.number for v in doc.versions] == [1, 2]
        assert doc.active_version_id == v2.version_id
        assert [v.is_active for v in doc.versions] == [False, True]
    assert _search_docs(ingestor.rs, "Überblick", policy="lexical_only") == {"handbuch.md"}
    assert _search_docs(ingestor.rs, "Einleitung", policy="lexical_only") == set()
    # activating the old version swaps what is searchable, in both indexes
    ingestor.activate(v1.version_id)
    assert _search_docs(ingestor.rs, "Einleitung", policy="lexical_only") == {"handbuch.md"}
    assert _search_docs(ingestor.rs, "Überblick", policy="lexical_only") == set()
    with ingestor.store.session() as s:
        expected = repo.active_chunk_ids(s)
    assert ingestor.rs.vector_index.ids() == expected == ingestor.rs.keyword_index.ids()


def test_chunk_ids_are_stable_and_reingest_never_duplicates(make_rs, corpus, tmp_path):
    rs1 = make_rs(data_dir=tmp_path / "one")
    rs2 = make_rs(data_dir=tmp_path / "two")
    Ingestor(rs1).ingest_paths([corpus])
    Ingestor(rs2).ingest_paths([corpus])
    ids1, ids2 = rs1.vector_index.ids(), rs2.vector_index.ids()
    assert ids1 == ids2 and len(ids1) > 0
    Ingestor(rs1).reindex()
    assert rs1.vector_index.ids() == ids1
    assert rs1.vector_index.count() == len(ids1) == rs1.keyword_index.count()


def test_index_built_with_other_chunking_is_refused_until_reindex(make_rs, corpus, tmp_path):
    rs = make_rs()
    Ingestor(rs).ingest_paths([corpus / "handbuch.md"])
    before = rs.vector_index.ids()
    other = make_rs(chunk_size=300, chunk_overlap=40)
    with pytest.raises(IndexMismatch, match="reindex"):
        Ingestor(other).ingest_paths([corpus / "protokoll.txt"])
    res = Ingestor(other).reindex()
    assert res["rechunked"] == 1
    after = other.vector_index.ids()
    assert after and after != before  # new chunking, new ids
    outs = Ingestor(other).ingest_paths([corpus / "protokoll.txt"])
    assert outs[0].ok
    with other.store.session() as s:
        meta = repo.get_index_meta(s, "vector")
        assert meta.params["chunk_size"] == 300
        assert meta.chunk_count == len(repo.active_chunk_ids(s))


def test_original_file_is_stored_and_delete_removes_everything(ingestor, corpus):
    [out] = ingestor.ingest_paths([corpus / "protokoll.txt"], collection="x")
    with ingestor.store.session() as s:
        v = s.get(DocumentVersion, out.version_id)
        stored = ingestor.settings.originals_dir / v.original_path
    assert stored.read_bytes() == (corpus / "protokoll.txt").read_bytes()
    ingestor.delete_document(out.document_id)
    assert not stored.exists()
    assert ingestor.rs.vector_index.count() == 0 and ingestor.rs.keyword_index.count() == 0
    with pytest.raises(NotFound):
        with ingestor.store.session() as s:
            repo.get_document(s, out.document_id)


def test_check_finds_and_repairs_differences(ingestor, corpus):
    ingestor.ingest_paths([corpus])
    assert ingestor.check(full=True).ok
    some = sorted(ingestor.rs.vector_index.ids())[:2]
    ingestor.rs.vector_index.delete(some)  # an index lost entries
    from backend.index.base import IndexedChunk

    ingestor.rs.keyword_index.add([IndexedChunk("orphan-1", "verwaist", 999, 999)])
    report = ingestor.check()
    assert report.vector_missing == sorted(some)
    assert report.keyword_orphans == ["orphan-1"]
    rep = ingestor.repair()
    assert rep.vectors_readded == 2 and rep.orphans_removed == 1
    assert "re-added 2 vector(s)" in rep.summary() and rep.after.ok
    assert ingestor.check(full=True).ok


def test_zip_bombs_fail_alone_for_folders_uploads_and_crawls(ingestor, corpus):
    """A DOCX and an ODT of ~0.4 MB that expand to 100 MiB of XML fail with the limit named,
    whichever way they come in (folder, upload batch, crawl/watch bytes); normal DOCX/ODT
    files in the same batch are ingested and searchable."""
    from tests.fixtures.documents import make_docx, make_odt, zip_bomb

    bombs = {"bombe.docx": ("word/document.xml", zip_bomb("docx", 100)),
             "bombe.odt": ("content.xml", zip_bomb("odt", 100))}
    for name, (_, data) in bombs.items():
        (corpus / name).write_bytes(data)
    (corpus / "bericht.docx").write_bytes(make_docx(["Die Pegelmessung am Wehr ist stündlich."]))
    (corpus / "notiz.odt").write_bytes(make_odt(["Die Schleuse bleibt im Januar geschlossen."]))

    def check(outcomes):
        for name, (part, _) in bombs.items():
            o = outcomes[name]
            assert o.status == "failed", (name, o)
            assert o.error == (f"{name}: {part} expands to 100 MiB, over the limit of 64 MiB "
                               "per part (RAGSCOPE_MAX_UNCOMPRESSED_MB)")

    folder = {o.filename: o for o in ingestor.ingest_paths([corpus])}  # a folder
    check(folder)
    assert folder["bericht.docx"].status == folder["notiz.odt"].status == "new"
    uploads = ingestor.ingest_many(((n, d) for n, (_, d) in bombs.items()), total=2,
                                   source_kind="upload")  # the upload page's call
    check({o.filename: o for o in uploads})
    crawled = {n: ingestor.ingest_bytes(d, n, source_kind="crawl", source_uri=f"https://x/{n}")
               for n, (_, d) in bombs.items()}  # the crawler's and the watcher's call
    check(crawled)
    assert _search_docs(ingestor.rs, "Pegelmessung", policy="lexical_only") == {"bericht.docx"}
    assert _search_docs(ingestor.rs, "Schleuse", policy="lexical_only") == {"notiz.odt"}
    with ingestor.store.session() as s:
        failed = s.query(DocumentVersion).filter(DocumentVersion.status == "failed").all()
        assert {v.filename for v in failed} == set(bombs)
        assert all("RAGSCOPE_MAX_UNCOMPRESSED_MB" in v.error for v in failed)
