"""Guardrails, version activation, deletion and reindex: a collaborator of the Ingestor
(backend/ingest/service.py) that receives the index writer, the consistency checker (for
repairs and re-adding chunks) and the re-chunking step of reindex."""
from __future__ import annotations

from typing import Callable

from backend.services.deletion import forget_document
from backend.embed import same_vectors
from backend.errors import IndexMismatch, IngestError
from backend.ingest.consistency import Consistency
from backend.ingest.dedup import original_in_use
from backend.ingest.indexing import IndexWriter
from backend.services.jobs import finish_job, start_job, update_job
from backend.store import repo
from backend.store.models import Document, DocumentVersion

# Parameters recorded by indexes that did not record them yet: what they used (HNSW: the
# settings' defaults until 2026-12-01, searched through the graph).
LEGACY_PARAMS = {"embedding_backend": "torch", "int8_vectors": 1, "vector_search": "hnsw",
                 "hnsw_m": 32, "hnsw_ef_construction": 200, "hnsw_ef_search": 200}
# Applied to an existing index in place (ChromaVectorIndex sets ef_search when it opens the
# collection): recorded, never a reason to reindex.
IN_PLACE_PARAMS = frozenset({"hnsw_ef_search"})


class Maintenance:
    def __init__(self, rs, index: IndexWriter, consistency: Consistency,
                 rechunk: Callable[..., int]):
        """`rechunk`: re-chunks the versions whose profile cuts otherwise now
        (backend/ingest/reprocess.py `Reprocessor.rechunk_affected`), run by reindex first."""
        self.rs, self.store, self.settings = rs, rs.store, rs.settings
        self.index, self.consistency, self.rechunk = index, consistency, rechunk

    def check_guardrails(self) -> None:
        """Refuse to add to an index that was built with other structural parameters."""
        wanted = self.rs.index_params()
        with self.store.session() as s:
            for name, params in wanted.items():
                meta = repo.get_index_meta(s, name)
                if meta is None or meta.chunk_count == 0:
                    continue
                had = {**LEGACY_PARAMS, **meta.params}
                diff = {k: (had.get(k), v) for k, v in params.items()
                        if had.get(k) != v and k not in IN_PLACE_PARAMS}
                if "embedding_backend" in diff and same_vectors(*diff["embedding_backend"]):
                    del diff["embedding_backend"]  # vectors within tolerance (backend.embed)
                if diff:
                    detail = ", ".join(f"{k}: index has {a!r}, settings say {b!r}"
                                       for k, (a, b) in sorted(diff.items()))
                    raise IndexMismatch(
                        f"the {name} index was built with other parameters ({detail}); "
                        "run `python -m backend reindex` to rebuild it from the store")

    def activate(self, version_id: int) -> None:
        """Make another indexed version of a document the active (searchable) one."""
        with self.store.session() as s:
            v = repo.get_version(s, version_id)
            if v.status != "indexed":
                raise IngestError(v.filename, f"version {v.number} cannot be activated "
                                  f"(status {v.status}: {v.error or 'not indexed'})")
            doc = v.document
            old = doc.active_version_id
            if old == version_id:
                return
            chunks = repo.chunks_of(s, version_id)
            sec_titles = {x.id: x.title for x in repo.sections_of(s, version_id)}
            indexed = [self.index.indexed(c, doc, sec_titles.get(c.section_id, ""), v.language)
                       for c in chunks]
        embeddings = self.index.encode(indexed)  # the slow part, outside the write lock
        with self.rs.index_lock.hold("activate a version"):
            self.index.add(indexed, embeddings)
            if old:
                self.index.deactivate(old)
            with self.store.session() as s:
                v = s.get(DocumentVersion, version_id)
                v.is_active = True
                v.document.active_version_id = version_id
                v.document.status = "active"
            self.index.record_counts()

    def delete_document(self, ref: int | str, *, purge_answers: bool = False) -> int:
        """Remove a document, all its versions, chunks and original files it alone used, and
        take it out of stored traces and chat sources (`purge_answers`: also remove the text
        of chat answers that drew on it; backend/services/deletion.py)."""
        with self.store.session() as s:
            doc = repo.get_document(s, ref)
            doc_id = doc.id
            ids = [c.id for v in doc.versions for c in repo.chunks_of(s, v.id)]
            # a private copy of the same bytes (backend/ingest/dedup.py) shares the file
            originals = {v.original_path for v in doc.versions if v.original_path
                         and not original_in_use(s, v.original_path, doc_id)}
        with self.rs.index_lock.hold("delete a document"):
            self.index.delete(ids)
            with self.store.session() as s:
                doc = s.get(Document, doc_id)
                doc.active_version_id = None
                s.flush()
                for v in doc.versions:
                    repo.delete_version_content(s, v.id)
                s.delete(doc)
                forget_document(s, doc_id, purge_answers=purge_answers)
            self.index.record_counts()
        for rel in originals:
            (self.settings.originals_dir / rel).unlink(missing_ok=True)
        return doc_id

    def reindex(self, *, batch: int = 256,
                on_progress: Callable[[int, int], None] | None = None,
                own_job: bool = True) -> dict:
        """Rebuild both indexes from the store. Versions chunked otherwise than their
        processing profile cuts with the current settings are re-chunked first, from their
        stored text and layout (backend/ingest/reprocess.py).
        Holds the index write lock throughout: other writers wait (up to
        `index_lock_timeout_s`) instead of adding to an index that is being rebuilt.
        `own_job=False`: the caller's job row records the run (the dashboard's background
        job), so none is written here — the Home page listed two rows for one reindex."""
        with self.rs.index_lock.hold("reindex"):
            return self._reindex(batch, on_progress, own_job)

    def _reindex(self, batch: int, on_progress: Callable[[int, int], None] | None,
                 own_job: bool = True) -> dict:
        self.consistency.repair_interrupted()
        with self.store.session() as s:
            version_ids = [v.id for v in repo.active_versions(s)]
        job_id = start_job(self.store, "reindex", total=len(version_ids)) if own_job else None
        try:
            rechunked = self.rechunk(publish=False)
            self.rs.vector_index.reset()
            self.rs.keyword_index.reset()
            with self.store.session() as s:
                all_ids = sorted(repo.active_chunk_ids(s))
            total = len(all_ids)
            for i in range(0, total, batch):
                self.consistency.readd(all_ids[i:i + batch], set(all_ids[i:i + batch]),
                                       set(all_ids[i:i + batch]))
                done = min(i + batch, total)
                if job_id is not None:
                    update_job(self.store, job_id, message=f"{done}/{total} chunks")
                if on_progress:
                    on_progress(done, total)
            params = self.rs.index_params()
            with self.store.session() as s:
                for name in ("vector", "keyword"):
                    repo.put_index_meta(s, name, params[name]["backend"], params[name], total,
                                        rebuilt=True)
        except BaseException as e:
            if job_id is not None:
                finish_job(self.store, job_id, "failed", error=str(e))
            raise
        result = {"versions": len(version_ids), "chunks": total, "rechunked": rechunked}
        from backend.analysis.artifacts import purge_stale  # analyses of retired rules versions
        result["stale_analyses"] = purge_stale(self.store)
        if job_id is not None:
            finish_job(self.store, job_id, "done", result=result)
        return result
