"""Version activation, deletion, consistency checks, repair and reindex. Mixed into
Ingestor (backend.ingest.service), whose helpers (_indexed, _add_to_indexes, ...) it uses."""
from __future__ import annotations

from typing import Callable

from backend.ingest.chunking import chunk_text
from backend.ingest.types import PageSpan, SectionNode, Text
from backend.errors import IngestError
from backend.jobs import finish_job, live_job_ids, mark_dead_jobs, start_job, update_job
from backend.store import repo
from backend.store.models import Chunk, Document, DocumentVersion, Section


class MaintenanceMixin:
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
        self._add_to_indexes(indexed)
        if old:
            self._deactivate(old)
        with self.store.session() as s:
            v = s.get(DocumentVersion, version_id)
            v.is_active = True
            v.document.active_version_id = version_id
            v.document.status = "active"
        self._record_index_counts()

    def delete_document(self, ref: int | str) -> int:
        """Remove a document, all its versions, chunks and original files it alone used."""
        with self.store.session() as s:
            doc = repo.get_document(s, ref)
            doc_id = doc.id
            ids = [c.id for v in doc.versions for c in repo.chunks_of(s, v.id)]
            originals = [v.original_path for v in doc.versions if v.original_path]
        self._delete_from_indexes(ids)
        with self.store.session() as s:
            doc = s.get(Document, doc_id)
            doc.active_version_id = None
            s.flush()
            for v in doc.versions:
                repo.delete_version_content(s, v.id)
            s.delete(doc)
        for rel in originals:
            (self.settings.originals_dir / rel).unlink(missing_ok=True)
        self._record_index_counts()
        return doc_id

    # ---- consistency ----------------------------------------------------------------------

    def _stuck_versions(self) -> list[int]:
        """Versions left in pending/indexing by a job that no longer runs."""
        live = live_job_ids(self.store)
        with self.store.session() as s:
            rows = s.query(DocumentVersion).filter(
                DocumentVersion.status.in_(["pending", "indexing"])).all()
            return [v.id for v in rows if (v.meta or {}).get("job_id") not in live]

    def check(self) -> dict:
        """Compare store and indexes. Returns the differences (empty lists when consistent)."""
        mark_dead_jobs(self.store)
        stuck = self._stuck_versions()
        with self.store.session() as s:
            expected = repo.active_chunk_ids(s)
            in_flight = {c.id for v in s.query(DocumentVersion).filter(
                DocumentVersion.status.in_(["pending", "indexing"])).all()
                if v.id not in stuck for c in repo.chunks_of(s, v.id)}
        report: dict = {"stuck_versions": stuck}
        for name, index in (("vector", self.rs.vector_index), ("keyword", self.rs.keyword_index)):
            have = index.ids()
            report[f"{name}_orphans"] = sorted(have - expected - in_flight)
            report[f"{name}_missing"] = sorted(expected - have)
        return report

    def repair_interrupted(self) -> int:
        """Cheap repair run before every ingest batch: chunks of versions whose ingest was
        interrupted are removed from both indexes and the versions are marked failed."""
        mark_dead_jobs(self.store)
        stuck = self._stuck_versions()
        for vid in stuck:
            with self.store.session() as s:
                ids = [c.id for c in repo.chunks_of(s, vid)]
            self._delete_from_indexes(ids)
            self._mark_failed(vid, "ingestion was interrupted; ingest the file again")
        return len(stuck)

    def repair(self) -> dict:
        """Make store and indexes agree: mark versions interrupted mid-ingest as failed,
        drop orphaned index entries, re-add missing active chunks."""
        self.repair_interrupted()
        report = self.check()
        if report["vector_orphans"]:
            self.rs.vector_index.delete(report["vector_orphans"])
        if report["keyword_orphans"]:
            self.rs.keyword_index.delete(report["keyword_orphans"])
        missing = sorted(set(report["vector_missing"]) | set(report["keyword_missing"]))
        if missing:
            self._readd(missing, set(report["vector_missing"]), set(report["keyword_missing"]))
        self._record_index_counts()
        return report

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
        vec = [c for c in chunks if c.chunk_id in vmiss]
        if vec:
            self.rs.vector_index.add(vec, self.rs.embedder.encode([c.text for c in vec]))
        kw = [c for c in chunks if c.chunk_id in kmiss]
        if kw:
            self.rs.keyword_index.add(kw)

    # ---- reindex ------------------------------------------------------------------------

    def reindex(self, *, batch: int = 256,
                on_progress: Callable[[int, int], None] | None = None) -> dict:
        """Rebuild both indexes from the store. Versions chunked with other parameters than
        the current settings are re-chunked from their stored text and section tree."""
        size, overlap = self.settings.chunk_size, self.settings.chunk_overlap
        self.repair_interrupted()
        with self.store.session() as s:
            version_ids = [v.id for v in repo.active_versions(s)]
        job_id = start_job(self.store, "reindex", total=len(version_ids))
        try:
            rechunked = 0
            for vid in version_ids:
                rechunked += self._rechunk_if_needed(vid, size, overlap)
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
        finish_job(self.store, job_id, "done", result=result)
        return result

    def _rechunk_if_needed(self, version_id: int, size: int, overlap: int) -> int:
        from backend.ingest.service import chunk_id

        with self.store.session() as s:
            v = s.get(DocumentVersion, version_id)
            if (v.meta or {}).get("chunking") == {"size": size, "overlap": overlap}:
                return 0
            rows = repo.sections_of(s, version_id)
            pos = {r.id: i for i, r in enumerate(rows)}
            nodes = [SectionNode(kind=r.kind, level=r.level, title=r.title, start=r.start,
                                 end=r.end, page_start=r.page_start, page_end=r.page_end,
                                 parent=pos.get(r.parent_id), number=r.number) for r in rows]
            pages = [PageSpan(n, a, b) for n, a, b in (v.meta or {}).get("pages", [])]
            specs = chunk_text(Text(v.text, pages, []), nodes, size, overlap)
            s.query(Chunk).filter(Chunk.version_id == version_id).delete()
            s.add_all(Chunk(id=chunk_id(v.sha256, size, overlap, c.ordinal),
                            version_id=version_id, document_id=v.document_id,
                            section_id=rows[c.section].id, ordinal=c.ordinal, start=c.start,
                            end=c.end, page=c.page, page_end=c.page_end, text=c.text)
                      for c in specs)
            v.meta = {**(v.meta or {}), "chunking": {"size": size, "overlap": overlap}}
        return 1
