"""Guardrails, version activation, deletion, consistency checks, repair and reindex. Mixed into
Ingestor (backend.ingest.service), whose helpers (_indexed, _add_to_indexes, ...) it uses."""
from __future__ import annotations

import logging
from typing import Callable

from backend.services.deletion import forget_document
from backend.embed import same_vectors
from backend.ingest import consistency, memberships
from backend.ingest.consistency import CheckReport, RepairReport
from backend.ingest.dedup import original_in_use
from backend.errors import IndexMismatch, IngestError
from backend.services.jobs import finish_job, live_job_ids, mark_dead_jobs, start_job, update_job
from backend.store import repo
from backend.store.models import Document, DocumentVersion, Section

log = logging.getLogger(__name__)


# Parameters recorded by indexes that did not record them yet: what they used (HNSW: the
# settings' defaults until 2026-12-01, searched through the graph).
LEGACY_PARAMS = {"embedding_backend": "torch", "int8_vectors": 1, "vector_search": "hnsw",
                 "hnsw_m": 32, "hnsw_ef_construction": 200, "hnsw_ef_search": 200}
# Applied to an existing index in place (ChromaVectorIndex sets ef_search when it opens the
# collection): recorded, never a reason to reindex.
IN_PLACE_PARAMS = frozenset({"hnsw_ef_search"})


class MaintenanceMixin:
    # ---- guardrails ---------------------------------------------------------------------

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

    def _record_index_counts(self) -> None:
        """Record how many chunks the indexes hold: counted from the store (active, indexed
        versions), so a crash between index writes and this update cannot leave it wrong."""
        params = self.rs.index_params()
        with self.store.session() as s:
            count = repo.active_chunk_count(s)
            for name in ("vector", "keyword"):
                repo.put_index_meta(s, name, params[name]["backend"], params[name], count,
                                    rebuilt=False)

    # ---- versions -----------------------------------------------------------------------

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
            indexed = [self._indexed(c, doc, sec_titles.get(c.section_id, ""), v.language)
                       for c in chunks]
        embeddings = self._encode(indexed)  # the slow part, outside the write lock
        with self.rs.index_lock.hold("activate a version"):
            self._add_to_indexes(indexed, embeddings)
            if old:
                self._deactivate(old)
            with self.store.session() as s:
                v = s.get(DocumentVersion, version_id)
                v.is_active = True
                v.document.active_version_id = version_id
                v.document.status = "active"
            self._record_index_counts()

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
            self._delete_from_indexes(ids)
            with self.store.session() as s:
                doc = s.get(Document, doc_id)
                doc.active_version_id = None
                s.flush()
                for v in doc.versions:
                    repo.delete_version_content(s, v.id)
                s.delete(doc)
                forget_document(s, doc_id, purge_answers=purge_answers)
            self._record_index_counts()
        for rel in originals:
            (self.settings.originals_dir / rel).unlink(missing_ok=True)
        return doc_id

    # ---- consistency ----------------------------------------------------------------------

    def _stuck_versions(self) -> list[int]:
        """Versions left in pending/indexing by a job that no longer runs."""
        live = live_job_ids(self.store)
        with self.store.session() as s:
            rows = s.query(DocumentVersion).filter(
                DocumentVersion.status.in_(["pending", "indexing"])).all()
            return [v.id for v in rows if (v.meta or {}).get("job_id") not in live]

    def check(self, *, full: bool = False, sample: int | None = None,
              on_progress: Callable[[int, int], None] | None = None) -> CheckReport:
        """Compare store and indexes and read entries back (a sample, or all with `full`);
        see backend/ingest/consistency.py."""
        return consistency.check(self, full=full, sample=sample, on_progress=on_progress)

    def repair_interrupted(self) -> int:
        """Cheap repair run before every ingest batch: chunks of versions whose ingest was
        interrupted are removed from both indexes and the versions are marked failed."""
        mark_dead_jobs(self.store)
        with self.rs.index_lock.hold("repair interrupted ingests"):
            stuck = self._stuck_versions()
            for vid in stuck:
                with self.store.session() as s:
                    ids = [c.id for c in repo.chunks_of(s, vid)]
                # an index that is down keeps them as orphans: removed by a later repair
                for problem in self._delete_from_indexes(ids, tolerant=True):
                    log.warning("repairing interrupted version %s: %s", vid, problem)
                self._mark_failed(vid, "ingestion was interrupted; ingest the file again")
        return len(stuck)

    def repair(self, *, full: bool = False,
               on_progress: Callable[[int, int], None] | None = None) -> RepairReport:
        """Make store and indexes agree and report what was repaired and the state after."""
        return consistency.repair(self, full=full, on_progress=on_progress)

    def _readd(self, missing: list[str], vmiss: set[str], kmiss: set[str]) -> None:
        with self.store.session() as s:
            rows = repo.chunks_by_ids(s, missing)
            docs = {d.id: d for d in s.query(Document).filter(
                Document.id.in_({c.document_id for c in rows.values()})).all()}
            secs = {x.id: x.title for x in s.query(Section).filter(
                Section.id.in_({c.section_id for c in rows.values() if c.section_id})).all()}
            langs = {v.id: v.language for v in s.query(DocumentVersion).filter(
                DocumentVersion.id.in_({c.version_id for c in rows.values()})).all()}
            chunks = [self._indexed(c, docs[c.document_id], secs.get(c.section_id, ""),
                                    langs[c.version_id]) for c in rows.values()]
        with self.rs.index_lock.hold("re-add chunks"):
            memberships.fill(self, chunks)
            self._readd_chunks(chunks, vmiss, kmiss)

    def _readd_chunks(self, chunks, vmiss: set[str], kmiss: set[str]) -> None:
        vec = [c for c in chunks if c.chunk_id in vmiss]
        if vec:
            self.rs.vector_index.add(vec, self.rs.embedder.encode([c.text for c in vec]))
        kw = [c for c in chunks if c.chunk_id in kmiss]
        if kw:
            self.rs.keyword_index.add(kw)

    # ---- reindex ------------------------------------------------------------------------

    def reindex(self, *, batch: int = 256,
                on_progress: Callable[[int, int], None] | None = None) -> dict:
        """Rebuild both indexes from the store. Versions chunked otherwise than their
        processing profile cuts with the current settings are re-chunked first, from their
        stored text and layout (backend/ingest/reprocess.py).
        Holds the index write lock throughout: other writers wait (up to
        `index_lock_timeout_s`) instead of adding to an index that is being rebuilt."""
        with self.rs.index_lock.hold("reindex"):
            return self._reindex(batch, on_progress)

    def _reindex(self, batch: int, on_progress: Callable[[int, int], None] | None) -> dict:
        self.repair_interrupted()
        with self.store.session() as s:
            version_ids = [v.id for v in repo.active_versions(s)]
        job_id = start_job(self.store, "reindex", total=len(version_ids))
        try:
            rechunked = self.rechunk_affected(publish=False)
            self.rs.vector_index.reset()
            self.rs.keyword_index.reset()
            with self.store.session() as s:
                all_ids = sorted(repo.active_chunk_ids(s))
            total = len(all_ids)
            for i in range(0, total, batch):
                self._readd(all_ids[i:i + batch], set(all_ids[i:i + batch]),
                            set(all_ids[i:i + batch]))
                done = min(i + batch, total)
                update_job(self.store, job_id, message=f"{done}/{total} chunks")
                if on_progress:
                    on_progress(done, total)
            params = self.rs.index_params()
            with self.store.session() as s:
                for name in ("vector", "keyword"):
                    repo.put_index_meta(s, name, params[name]["backend"], params[name], total,
                                        rebuilt=True)
        except BaseException as e:
            finish_job(self.store, job_id, "failed", error=str(e))
            raise
        result = {"versions": len(version_ids), "chunks": total, "rechunked": rechunked}
        from backend.analysis.artifacts import purge_stale  # analyses of retired rules versions
        result["stale_analyses"] = purge_stale(self.store)
        finish_job(self.store, job_id, "done", result=result)
        return result
