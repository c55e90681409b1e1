"""What a user sees when an ingest's writes are not findable (issue 21, section 1): the
read-back after every ingest, `check` naming the documents, and the HNSW guardrails.

The fault is injected where it happened in the field: the vector is stored (Chroma has it,
`check` can read it) but vector search does not return it — here, the write does not reach
the exact-search log for the first chunk of every write."""
from __future__ import annotations

import json

import pytest

from backend.config import Settings
from backend.errors import IndexMismatch
from backend.index.chroma_index import ChromaVectorIndex
from backend.ingest.service import Ingestor
from backend.services.jobs import recent_jobs
from backend.services.container import Ragscope
from tests.page_support import app, bare, components, errors, open_page, shared_model  # noqa: F401
from backend.ui import state as K

PUMP = (b"# Pump manual\n\n## Intake\n\nThe intake pump runs daily and is checked weekly.\n\n"
        b"## Filters\n\nFilters are rinsed when the pressure drops below two bar.\n")
LOG = b"".join(b"Line %d: the clarifier basin was inspected, no findings.\n\n" % i
               for i in range(60))


@pytest.fixture
def lose_first_vector(monkeypatch):
    """Every vector write stores its vectors in Chroma but leaves the first chunk out of
    vector search."""
    real_add = ChromaVectorIndex.add
    lost: list[str] = []

    def add(self, chunks, embeddings):
        real_add(self, chunks, embeddings)
        if chunks and self.exact is not None:
            self.exact.delete([chunks[0].chunk_id])
            lost.append(chunks[0].chunk_id)
    monkeypatch.setattr(ChromaVectorIndex, "add", add)
    return lost


def test_ingest_reads_back_and_reports_unfindable_chunks(ingestor, tmp_path, lose_first_vector):
    (tmp_path / "pump.md").write_bytes(PUMP)
    (out,) = ingestor.ingest_paths([tmp_path / "pump.md"], collection="c")
    assert out.ok and out.read_back >= 1
    assert out.unretrievable == lose_first_vector
    assert any("cannot be found by vector search" in w and "check --full" in w
               for w in out.warnings)
    job = _last_ingest_job(ingestor)
    rb = job.result["read_back"]
    assert rb["unretrievable"] == 1
    assert rb["documents"] == [{"document_id": out.document_id, "filename": "pump.md",
                                "chunks": lose_first_vector}]


def test_a_clean_ingest_reads_back_without_warnings(ingestor, tmp_path):
    (tmp_path / "pump.md").write_bytes(PUMP)
    (tmp_path / "log.md").write_bytes(LOG)
    outs = ingestor.ingest_paths([tmp_path / "pump.md", tmp_path / "log.md"], collection="c")
    assert all(o.ok and o.read_back >= 1 and not o.unretrievable and not o.warnings
               for o in outs)
    job = _last_ingest_job(ingestor)
    assert job.result["read_back"]["unretrievable"] == 0
    assert job.result["read_back"]["chunks"] == sum(o.read_back for o in outs)


def _last_ingest_job(ing):
    return next(j for j in recent_jobs(ing.store) if j.kind == "ingest")


def _cli(monkeypatch, rs, *argv):
    import backend.cli.main as cli

    monkeypatch.setattr("backend.cli.common._rs", lambda: rs)
    return cli.main(list(argv))


def test_cli_ingest_warns_loudly_and_check_names_the_document(make_rs, tmp_path, monkeypatch,
                                                              capsys, lose_first_vector):
    rs = make_rs()
    (tmp_path / "pump.md").write_bytes(PUMP)
    rc = _cli(monkeypatch, rs, "ingest", str(tmp_path / "pump.md"), "-q")
    err = capsys.readouterr().err
    assert rc == 1
    assert "WARNING: 1 chunk(s) of 1 document(s) written by this ingest cannot be found" in err
    assert "(pump.md): 1 of" in err and "check --full" in err
    rc = _cli(monkeypatch, rs, "check", "--full", "-q")
    out = capsys.readouterr().out
    assert rc == 1 and "vector_unretrievable: 1" in out
    assert "document 1 'Pump manual' (pump.md): 1 chunk(s)" in out
    rc = _cli(monkeypatch, rs, "check", "--full", "-q", "--json")
    rep = json.loads(capsys.readouterr().out)
    assert rc == 1 and rep["ok"] is False
    assert rep["vector_unretrievable"] == lose_first_vector
    assert rep["documents"]["vector_unretrievable"] == [
        {"id": 1, "title": "Pump manual", "filename": "pump.md", "chunks": 1}]


def test_check_names_documents_of_missing_vectors(ingestor, tmp_path):
    (tmp_path / "pump.md").write_bytes(PUMP)
    (out,) = ingestor.ingest_paths([tmp_path / "pump.md"], collection="c")
    with ingestor.store.session() as s:
        from backend.store import repo

        ids = [c.id for c in repo.chunks_of(s, out.version_id)]
    ingestor.rs.vector_index.delete(ids[:1])
    rep = ingestor.check(full=True)
    assert rep.vector_missing == ids[:1]
    assert rep.documents["vector_missing"] == [
        {"id": out.document_id, "title": "Pump manual", "filename": "pump.md", "chunks": 1}]


def test_upload_page_shows_the_read_back_warning(app, bare, lose_first_vector):  # noqa: F811
    data = bare[0]
    at = open_page(app(data, "editor"), "upload")
    at.file_uploader[0].upload("pump_notes.md", PUMP, "text/markdown")
    at.run()
    at.button(key=K.UPLOAD_GO).click().run()
    assert not at.exception
    shown = errors(at)
    assert any("1 chunk(s) just written cannot be found by vector search" in e
               and "pump_notes.md (document" in e for e in shown), shown
    assert any("cannot be found by vector search" in w.value for w in at.warning)


# ---- guardrails ----------------------------------------------------------------------------

def test_index_built_with_other_hnsw_parameters_asks_for_reindex(make_rs, tmp_path):
    (tmp_path / "pump.md").write_bytes(PUMP)
    rs = make_rs()
    Ingestor(rs).ingest_paths([tmp_path / "pump.md"], collection="c")
    from backend.store import repo

    with rs.store.session() as s:
        params = repo.get_index_meta(s, "vector").params
    assert params["vector_search"] == "exact"
    assert (params["hnsw_m"], params["hnsw_ef_construction"], params["hnsw_ef_search"]) == (
        rs.settings.hnsw_m, rs.settings.hnsw_ef_construction, rs.settings.hnsw_ef_search)
    rs.close()
    for change, key in (({"hnsw_m": 16}, "hnsw_m"),
                        ({"hnsw_ef_construction": 100}, "hnsw_ef_construction"),
                        ({"vector_search": "hnsw"}, "vector_search")):
        other = make_rs(**change)
        with pytest.raises(IndexMismatch) as e:
            Ingestor(other).ingest_paths([tmp_path / "pump.md"], collection="c")
        assert key in str(e.value) and "python -m backend reindex" in str(e.value)
        other.close()
    # ef_search is applied to the existing index in place: no reindex
    same = make_rs(hnsw_ef_search=300)
    (out,) = Ingestor(same).ingest_paths([tmp_path / "pump.md"], collection="d")
    assert out.ok
    assert same.vector_index.configuration["ef_search"] == 300


def test_index_from_before_the_exact_log_asks_for_reindex_and_reindex_fixes_it(make_rs,
                                                                               tmp_path):
    """A data dir written before this change: no exact-search log and no recorded
    vector_search. It keeps answering (through HNSW) and the next ingest asks for reindex."""
    from backend.services import document_actions
    from backend.security.access import Actor
    from backend.store import repo

    (tmp_path / "pump.md").write_bytes(PUMP)
    rs = make_rs()
    (out,) = Ingestor(rs).ingest_paths([tmp_path / "pump.md"], collection="c")
    with rs.store.session() as s:
        meta = repo.get_index_meta(s, "vector")
        old = {k: v for k, v in meta.params.items()
               if k not in ("vector_search", "hnsw_m", "hnsw_ef_construction",
                            "hnsw_ef_search")}
        repo.put_index_meta(s, "vector", meta.backend, old, meta.chunk_count, rebuilt=False)
    path = rs.vector_index.exact.path
    rs.close()
    path.unlink()
    legacy, reader = make_rs(), make_rs()
    assert legacy.vector_index.search_mode == "hnsw"
    assert reader.vector_index.search_mode == "hnsw"
    with pytest.raises(IndexMismatch, match="vector_search: index has 'hnsw'"):
        Ingestor(legacy).ingest_paths([tmp_path / "pump.md"], collection="d")
    document_actions.reindex(legacy, Actor.system("test"))
    assert legacy.vector_index.search_mode == "exact" and path.exists()
    query = legacy.embedder.encode(["intake pump"])[0]
    assert reader.vector_index.search(query, 1)  # another process: switches at its next search
    assert reader.vector_index.search_mode == "exact"
    assert Ingestor(legacy).check(full=True).ok


def test_api_upload_job_result_names_the_unfindable_file(rs, lose_first_vector):
    """What `GET /api/jobs/{id}` returns for an upload (backend.services.library.job_info)."""
    from backend.services import library
    from backend.security.access import Actor

    op = Actor.system("test")
    job_id = library.start_upload(rs, op, [("pump.md", PUMP), ("log.md", LOG)], wait=True)
    info = library.job_info(rs, op, job_id)
    assert info.status == "done"
    rb = info.result["read_back"]
    assert rb["unretrievable"] == 1 and rb["chunks"] >= 2
    assert [d["filename"] for d in rb["documents"]] == ["pump.md"]
    assert rb["documents"][0]["chunks"] == lose_first_vector


def test_check_finds_a_vector_the_exact_search_holds_wrongly(ingestor, tmp_path):
    """`check` compares every stored vector with the one exact search scores (a damaged log
    entry makes the chunk unfindable by its own vector) without searching all of them."""
    from backend.store import repo

    (tmp_path / "log.md").write_bytes(LOG)
    (out,) = ingestor.ingest_paths([tmp_path / "log.md"], collection="c")
    with ingestor.store.session() as s:
        ids = [c.id for c in repo.chunks_of(s, out.version_id)]
    ix = ingestor.rs.vector_index
    far = -ix.get_embeddings(ids[-1:])[ids[-1]]  # the opposite direction: found by nothing
    ix.exact.add(ids[-1:], far[None, :])  # the log now holds another vector for that chunk
    assert ingestor.check(full=True).vector_unretrievable == ids[-1:]
    ix.exact.add(ids[-1:], -far[None, :])
    assert ingestor.check(full=True).ok
