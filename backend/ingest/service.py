"""Ingestion: file -> stored original + version -> text, sections, chunks -> both indexes.

Order of writes (crash safety): the version and its chunks are committed with status
"indexing" before the indexes are touched; the version becomes "indexed" and active only
after both indexes have its chunks. A process killed in between leaves a version in
"indexing" whose job is dead; `repair()` (run by `check --repair` and at the start of every
ingest batch) removes such chunks from both indexes and marks the version failed, and removes
any index entry that does not belong to an active version."""
from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path
from typing import Callable, Iterable, Sequence

from backend.errors import FileTooLarge, IndexMismatch, IngestError, UnsupportedFormat
from backend.index.base import IndexedChunk
from backend.ingest import classify
from backend.ingest.chunking import chunk_text
from backend.ingest.extract import SUPPORTED_EXTENSIONS, extract
from backend.ingest.language import detect_language
from backend.ingest.maintenance import MaintenanceMixin
from backend.ingest.records import (  # noqa: F401  (re-exported for callers)
    FLUSH_CHUNKS,
    FLUSH_FILES,
    IngestOutcome,
    _first_line_title,
    _Pending,
    chunk_id,
    iter_files,
    sha256_bytes,
)
from backend.ingest.normalise import normalise
from backend.ingest.structure import build_sections
from backend.jobs import finish_job, start_job, update_job
from backend.services import Ragscope
from backend.store import repo
from backend.store.models import Chunk, Document, DocumentVersion, Section

log = logging.getLogger(__name__)


class Ingestor(MaintenanceMixin):
    def __init__(self, rs: Ragscope):
        self.rs = rs
        self.settings = rs.settings
        self.store = rs.store

    # ---- guardrails ---------------------------------------------------------------------

    def check_guardrails(self) -> None:
        """Refuse to add to an index that was built with other structural parameters."""
        wanted = self.rs.index_params()
        with self.store.session() as s:
            for name, params in wanted.items():
                meta = repo.get_index_meta(s, name)
                if meta is None or meta.chunk_count == 0:
                    continue
                diff = {k: (meta.params.get(k), v) for k, v in params.items()
                        if meta.params.get(k) != v}
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

    # ---- batches ------------------------------------------------------------------------

    def ingest_paths(self, paths: Sequence[str | Path], *, collection: str | None = None,
                     source_kind: str = "file",
                     on_progress: Callable[[int, int, IngestOutcome], None] | None = None,
                     ) -> list[IngestOutcome]:
        files = iter_files(paths)
        return self.ingest_many(
            ((f, None) for f in files), total=len(files), collection=collection,
            source_kind=source_kind, on_progress=on_progress)

    def ingest_many(self, items: Iterable[tuple[Path | str, bytes | None]], *, total: int,
                    collection: str | None = None, source_kind: str = "file",
                    on_progress: Callable[[int, int, IngestOutcome], None] | None = None,
                    ) -> list[IngestOutcome]:
        """Ingest (path, data) pairs; data None means read the path. One failure never
        stops the batch. Progress is reported per file and recorded in a job."""
        self.check_guardrails()
        self.repair_interrupted()
        job_id = start_job(self.store, "ingest", total=total,
                           params={"collection": collection, "source_kind": source_kind})
        outcomes: list[IngestOutcome] = []
        pending: list[_Pending] = []
        status = "done"

        failed = 0

        def report(out: IngestOutcome) -> bool:
            nonlocal failed
            outcomes.append(out)
            failed += not out.ok
            cancel = update_job(self.store, job_id, done=len(outcomes) - failed, failed=failed,
                                message=f"{out.filename}: {out.status}")
            if on_progress:
                on_progress(len(outcomes), total, out)
            return cancel

        queue: list[IngestOutcome | _Pending] = []  # reported in input order

        def flush() -> bool:
            self._index_pending(pending)
            cancel = False
            for item in queue:
                cancel = report(item.outcome if isinstance(item, _Pending) else item) or cancel
            pending.clear()
            queue.clear()
            return cancel

        try:
            for path, data in items:
                if data is None:
                    res = self.ingest_file(Path(path), collection=collection,
                                           source_kind=source_kind, job_id=job_id, defer=True)
                else:
                    name = Path(path).name
                    res = self._ingest_bytes(data, name, collection=collection,
                                             source_kind=source_kind,
                                             source_uri=f"{source_kind}://{name}", title=None,
                                             meta=None, job_id=job_id, defer=True)
                cancel = False
                if isinstance(res, _Pending):
                    pending.append(res)
                    queue.append(res)
                    if (len(pending) >= FLUSH_FILES
                            or sum(len(p.chunks) for p in pending) >= FLUSH_CHUNKS):
                        cancel = flush()
                elif queue:
                    queue.append(res)
                else:
                    cancel = report(res)
                if cancel:
                    status = "cancelled"
                    break
            flush()
        except BaseException as e:
            finish_job(self.store, job_id, "failed", error=str(e))
            raise
        finish_job(self.store, job_id, status, result={
            "files": len(outcomes), "failed": sum(not o.ok for o in outcomes),
            "chunks": sum(o.chunks for o in outcomes)})
        return outcomes

    # ---- one file -----------------------------------------------------------------------

    def ingest_file(self, path: Path, *, collection: str | None = None,
                    source_kind: str = "file", job_id: int | None = None,
                    defer: bool = False) -> IngestOutcome | _Pending:
        name = path.name
        source_uri = str(path.resolve())
        try:
            size = path.stat().st_size
            if size > self.settings.max_upload_bytes:
                raise FileTooLarge(name, self._too_large(size))
            data = path.read_bytes()
        except IngestError as e:
            return self._record_failure(name, source_uri, source_kind, collection, e,
                                        data=None, path=path)
        except OSError as e:
            return IngestOutcome(name, "failed", error=f"{name}: cannot read file ({e.strerror})")
        if job_id is None:
            return self.ingest_bytes(data, name, collection=collection,
                                     source_kind=source_kind, source_uri=source_uri)
        return self._ingest_bytes(data, name, collection=collection, source_kind=source_kind,
                                  source_uri=source_uri, title=None, meta=None, job_id=job_id,
                                  defer=defer)

    def _too_large(self, size: int) -> str:
        return (f"file is {size / 1048576:.1f} MiB, over the upload limit of "
                f"{self.settings.max_upload_mb:g} MiB (RAGSCOPE_MAX_UPLOAD_MB)")

    def ingest_bytes(self, data: bytes, filename: str, *, collection: str | None = None,
                     source_kind: str = "upload", source_uri: str | None = None,
                     title: str | None = None, meta: dict | None = None,
                     job_id: int | None = None) -> IngestOutcome:
        """Ingest one file's bytes. Every version being written belongs to a job, so that a
        concurrent repair can tell a running ingest from an interrupted one."""
        if job_id is not None:
            return self._ingest_bytes(data, filename, collection=collection,
                                      source_kind=source_kind, source_uri=source_uri,
                                      title=title, meta=meta, job_id=job_id, defer=False)
        job_id = start_job(self.store, "ingest", total=1, params={"collection": collection})
        status = "failed"
        try:
            out = self._ingest_bytes(data, filename, collection=collection,
                                     source_kind=source_kind, source_uri=source_uri,
                                     title=title, meta=meta, job_id=job_id, defer=False)
            status = "done"
            return out
        finally:
            finish_job(self.store, job_id, status)

    def _ingest_bytes(self, data: bytes, filename: str, *, collection: str | None,
                      source_kind: str, source_uri: str | None, title: str | None,
                      meta: dict | None, job_id: int,
                      defer: bool = False) -> IngestOutcome | _Pending:
        source_uri = source_uri or f"{source_kind}://{filename}"
        ext = Path(filename).suffix.lower()
        try:
            if len(data) > self.settings.max_upload_bytes:
                raise FileTooLarge(filename, self._too_large(len(data)))
            if ext not in SUPPORTED_EXTENSIONS:
                raise UnsupportedFormat(filename, f"unsupported file type '{ext or '(none)'}'; "
                                        f"supported: {', '.join(sorted(SUPPORTED_EXTENSIONS))}")
        except IngestError as e:
            return self._record_failure(filename, source_uri, source_kind, collection, e, data=data)

        sha = sha256_bytes(data)
        with self.store.session() as s:
            existing = repo.version_by_sha(s, sha)
            if existing is not None and existing.status == "indexed":
                doc = existing.document
                if collection:
                    repo.link(s, repo.get_or_create_collection(s, collection), doc.id)
                same_source = doc.source_uri == source_uri
                return IngestOutcome(filename, "unchanged" if same_source else "duplicate",
                                     doc.id, existing.id, 0)
            if (existing is not None and existing.status in ("pending", "indexing")
                    and (existing.meta or {}).get("job_id") == job_id):  # twice in one batch
                if collection:
                    repo.link(s, repo.get_or_create_collection(s, collection),
                              existing.document_id)
                return IngestOutcome(filename, "duplicate", existing.document_id, existing.id, 0)
            doc = repo.document_by_source(s, source_uri)
            if existing is not None:  # failed or interrupted earlier: try again in place
                version = existing
                doc = existing.document
                repo.delete_version_content(s, version.id)
                version.status, version.error = "pending", None
            else:
                status = "new_version" if doc is not None else "new"
                if doc is None:
                    doc = Document(title=Path(filename).stem, filename=filename,
                                   source_kind=source_kind, source_uri=source_uri,
                                   file_type=ext.lstrip("."), status="pending", meta=meta or {})
                    s.add(doc)
                    s.flush()
                version = DocumentVersion(
                    document_id=doc.id, number=repo.next_version_number(s, doc.id), sha256=sha,
                    size_bytes=len(data), filename=filename, status="pending")
                s.add(version)
                s.flush()
            status = "new_version" if doc.active_version_id else "new"
            if collection:
                repo.link(s, repo.get_or_create_collection(s, collection), doc.id)
            version.original_path = self._store_original(sha, ext, data)
            version.meta = {**(version.meta or {}), "job_id": job_id}
            doc_id, version_id = doc.id, version.id

        try:
            prepared = self._prepare(data, filename)
        except IngestError as e:
            self._mark_failed(version_id, str(e))
            return IngestOutcome(filename, "failed", doc_id, version_id, error=str(e))
        except Exception as e:  # an extractor bug must not abort the batch either
            log.exception("unexpected error while extracting %s", filename)
            msg = f"{filename}: could not be read ({type(e).__name__}: {e})"
            self._mark_failed(version_id, msg)
            return IngestOutcome(filename, "failed", doc_id, version_id, error=msg)

        out = IngestOutcome(filename, status, doc_id, version_id,
                            warnings=prepared["text"].metadata.get("warnings", []))
        pend = self._store(out, sha, prepared, title)
        return pend if defer else self._index_pending([pend])[0]

    # ---- stages -------------------------------------------------------------------------

    def _store_original(self, sha: str, ext: str, data: bytes) -> str:
        rel = Path(sha[:2]) / f"{sha}{ext}"
        dest = self.settings.originals_dir / rel
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            tmp = dest.with_suffix(dest.suffix + ".tmp")
            tmp.write_bytes(data)
            os.replace(tmp, dest)
        return str(rel)

    def _prepare(self, data: bytes, filename: str) -> dict:
        raw = extract(data, filename)
        text = normalise(raw)
        if not text.text.strip():
            from backend.errors import ExtractionError

            raise ExtractionError(filename, "no text could be extracted")
        sections = build_sections(text)
        chunks = chunk_text(text, sections, self.settings.chunk_size, self.settings.chunk_overlap)
        return {"raw": raw, "text": text, "sections": sections, "chunks": chunks}

    def _store(self, out: IngestOutcome, sha: str, p: dict, title: str | None) -> _Pending:
        """Write text, sections and chunks with status "indexing" (committed)."""
        doc_id, version_id = out.document_id, out.version_id
        text, nodes, specs = p["text"], p["sections"], p["chunks"]
        size, overlap = self.settings.chunk_size, self.settings.chunk_overlap
        lang = detect_language(text.text[:20000])
        with self.store.session() as s:
            doc = s.get(Document, doc_id)
            version = s.get(DocumentVersion, version_id)
            version.text = text.text
            version.page_count = p["raw"].page_count
            version.language = lang
            version.meta = {**(version.meta or {}), **text.metadata,
                            "pages": [[pg.number, pg.start, pg.end] for pg in text.pages],
                            "chunking": {"size": size, "overlap": overlap}}
            version.status = "indexing"
            doc.title = title or text.title or _first_line_title(text.text) or doc.title
            doc.doc_type = classify.doc_type(doc.file_type, nodes, text.text, doc.title)
            section_rows: list[Section] = []
            for i, n in enumerate(nodes):
                row = Section(version_id=version_id, ordinal=i, level=n.level, kind=n.kind,
                              title=n.title[:1000], number=n.number, start=n.start, end=n.end,
                              page_start=n.page_start, page_end=n.page_end)
                if n.parent is not None:
                    row.parent_id = section_rows[n.parent].id
                s.add(row)
                s.flush()
                section_rows.append(row)
            chunk_rows = [
                Chunk(id=chunk_id(sha, size, overlap, c.ordinal), version_id=version_id,
                      document_id=doc_id, section_id=section_rows[c.section].id,
                      ordinal=c.ordinal, start=c.start, end=c.end, page=c.page,
                      page_end=c.page_end, text=c.text)
                for c in specs
            ]
            s.add_all(chunk_rows)
            old_active = doc.active_version_id if doc.active_version_id != version_id else None
            indexed = [self._indexed(c, doc, nodes[spec.section].title, lang)
                       for c, spec in zip(chunk_rows, specs)]
        out.chunks = len(indexed)
        return _Pending(out, old_active, indexed)

    def _index_pending(self, pending: list[_Pending]) -> list[IngestOutcome]:
        """Embed the chunks of several stored versions in one call, add them to both
        indexes, then activate each version (taking its predecessor out of the indexes)."""
        if not pending:
            return []
        self._add_to_indexes([c for p in pending for c in p.chunks])
        for p in pending:
            if p.old_active:
                self._deactivate(p.old_active)
            with self.store.session() as s:
                version = s.get(DocumentVersion, p.outcome.version_id)
                version.status, version.is_active = "indexed", True
                doc = s.get(Document, p.outcome.document_id)
                doc.active_version_id, doc.status = version.id, "active"
        self._record_index_counts()
        return [p.outcome for p in pending]

    @staticmethod
    def _indexed(c: Chunk, doc: Document, section_title: str, lang: str) -> IndexedChunk:
        return IndexedChunk(chunk_id=c.id, text=c.text, document_id=doc.id,
                            version_id=c.version_id, doc_type=doc.doc_type, title=doc.title,
                            filename=doc.filename, section_title=section_title, language=lang)

    def _add_to_indexes(self, chunks: list[IndexedChunk]) -> None:
        if not chunks:
            return
        emb = self.rs.embedder.encode([c.text for c in chunks])
        self.rs.vector_index.add(chunks, emb)
        self.rs.keyword_index.add(chunks)

    def _deactivate(self, version_id: int) -> int:
        """Take a version out of the indexes (it stays in the store, inactive)."""
        with self.store.session() as s:
            ids = [c.id for c in repo.chunks_of(s, version_id)]
            v = s.get(DocumentVersion, version_id)
            v.is_active = False
        self._delete_from_indexes(ids)
        return len(ids)

    def _delete_from_indexes(self, ids: list[str]) -> None:
        if ids:
            self.rs.vector_index.delete(ids)
            self.rs.keyword_index.delete(ids)

    def _mark_failed(self, version_id: int, error: str) -> None:
        with self.store.session() as s:
            v = s.get(DocumentVersion, version_id)
            v.status, v.error, v.is_active = "failed", error, False
            doc = v.document
            if doc.active_version_id is None:
                doc.status = "failed"

    def _record_failure(self, filename: str, source_uri: str, source_kind: str,
                        collection: str | None, err: IngestError, *, data: bytes | None,
                        path: Path | None = None) -> IngestOutcome:
        """A file rejected before extraction is still recorded as a failed version."""
        if data is not None:
            sha = sha256_bytes(data)
            size = len(data)
        else:  # too large to read whole: hash it streaming
            h = hashlib.sha256()
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
            sha, size = h.hexdigest(), path.stat().st_size
        with self.store.session() as s:
            v = repo.version_by_sha(s, sha)
            if v is None:
                doc = repo.document_by_source(s, source_uri)
                if doc is None:
                    doc = Document(title=Path(filename).stem, filename=filename,
                                   source_kind=source_kind, source_uri=source_uri,
                                   file_type=Path(filename).suffix.lower().lstrip("."),
                                   status="failed")
                    s.add(doc)
                    s.flush()
                v = DocumentVersion(document_id=doc.id, number=repo.next_version_number(s, doc.id),
                                    sha256=sha, size_bytes=size, filename=filename)
                s.add(v)
            v.status, v.error = "failed", str(err)
            s.flush()
            if collection:
                repo.link(s, repo.get_or_create_collection(s, collection), v.document_id)
            return IngestOutcome(filename, "failed", v.document_id, v.id, error=str(err))
