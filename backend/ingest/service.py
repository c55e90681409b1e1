"""Ingestion: file -> stored original + version -> text, sections, chunks -> both indexes.

Concurrency: several processes may ingest into one data dir (dashboard, scheduler, watcher,
CLI). Embedding runs in parallel; publishing (both index writes + activation in the store)
holds the data dir's index write lock (`rs.index_lock`), so exactly one process writes the
indexes at a time and the store never says "active" for chunks another writer has not seen.

Order of writes (crash safety): the version and its chunks are committed with status
"indexing" before the indexes are touched; the version becomes "indexed" and active only
after both indexes have its chunks. A process killed in between leaves a version in
"indexing" whose job is dead; `repair()` (run by `check --repair` and at the start of every
ingest batch) removes such chunks from both indexes and marks the version failed, and removes
any index entry that does not belong to an active version."""
from __future__ import annotations

import contextlib
import hashlib
import logging
import os
from pathlib import Path
from typing import Callable, Iterable, Sequence

from backend.security.access import Scope
from backend.errors import FileTooLarge, IngestError, PathRefused, storage_full
from backend.ingest.extract import is_supported, unsupported
from backend.ingest.language import detect_language
from backend.ingest import consistency
from backend.ingest.batches import Pipeline
from backend.ingest.dedup import (base_source, dedup_scope, own_source, readable_versions,
                                  reusable, version_key)
from backend.ingest.identity import AUTO, Identity, confirm_name_match, same_name
from backend.ingest.indexing import IndexingMixin
from backend.ingest.maintenance import LEGACY_PARAMS, MaintenanceMixin  # noqa: F401
from backend.ingest.reprocess import ReprocessMixin
from backend.ingest.pipeline import Context, Prepared, prepare, stored_layout
from backend.ingest.paths import FoundFile, open_file
from backend.ingest.records import (  # noqa: F401  (re-exported for callers)
    FLUSH_CHUNKS,
    FLUSH_FILES,
    IngestItem,
    IngestOutcome,
    IngestProgress,
    _first_line_title,
    _Pending,
    chunk_id,
    sha256_bytes,
    write_sections,
)
from backend.services.jobs import finish_job, start_job, update_job
from backend.security.private_files import write_private
from backend.services.container import Ragscope
from backend.store import repo
from backend.store.models import Chunk, Document, DocumentVersion

log = logging.getLogger(__name__)
# Files are matched to a same-named document by name; web pages (index.html on every site)
# and repository files (README.md in every folder) are identified by their URL or path only.
NAME_MATCH_KINDS = ("file", "upload", "sync")


def readback_result(outcomes: Sequence[IngestOutcome]) -> dict:
    """The job result's account of the read-back: chunks searched for, and every file whose
    chunks could not be found by their own vector (document id, file name, chunk ids)."""
    return {"chunks": sum(o.read_back for o in outcomes),
            "unretrievable": sum(len(o.unretrievable) for o in outcomes),
            "documents": [{"document_id": o.document_id, "filename": o.filename,
                           "chunks": o.unretrievable} for o in outcomes if o.unretrievable]}


class Ingestor(IndexingMixin, MaintenanceMixin, ReprocessMixin):
    def __init__(self, rs: Ragscope):
        self.rs = rs
        self.settings = rs.settings
        self.store = rs.store

    # ---- batches ------------------------------------------------------------------------

    def ingest_paths(self, paths: Sequence[str | Path], *, collection: str | None = None,
                     source_kind: str = "file",
                     on_progress: Callable[[IngestProgress], None] | None = None,
                     identity: Identity = AUTO, scope: Scope | None = None,
                     knowledge_base: str | None = None) -> list[IngestOutcome]:
        files = self.rs.path_policy.find(paths)  # symlinks, data dir, system paths refused
        return self.ingest_many(
            (IngestItem(f.name, path=f) for f in files), total=len(files),
            collection=collection, source_kind=source_kind, on_progress=on_progress,
            identity=identity, scope=scope, knowledge_base=knowledge_base)

    def ingest_many(self, items: Iterable[IngestItem | tuple[Path | str, bytes | None] | None],
                    *, total: int | None = None, collection: str | None = None,
                    source_kind: str = "file",
                    on_progress: Callable[[IngestProgress], None] | None = None,
                    job_id: int | None = None, report_to_job: bool = False,
                    identity: Identity = AUTO, scope: Scope | None = None,
                    knowledge_base: str | None = None) -> list[IngestOutcome]:
        """Ingest items (`IngestItem`, or `(path, data)` pairs: data None means read the path)
        through the pipeline of backend/ingest/batches.py: files are extracted while the
        previous batch is embedded. One failure never stops the batch; a bad item (see
        `IngestItem.problem`) fails alone, naming the field. Outcomes come back in input
        order; `on_progress` gets an `IngestProgress` (files, chunks embedded, ETA) after each.
        `None` in `items` means "nothing yet" (a crawler waiting for pages): finished
        embeddings are published meanwhile. `job_id`: a job the caller owns (a crawl run);
        otherwise the batch records its own "ingest" job, whose cancel flag stops it.
        `report_to_job`: the caller's job is this batch's (the API's upload, which returns the
        job id at once): the batch records its progress there and finishes it, with every
        file's outcome in its result.
        `identity`: how items without their own find their document (backend/ingest/identity.py).
        `scope`: what the uploader may read; stored content is reused only within it
        (backend/ingest/dedup.py; None: the operator, everything).
        `knowledge_base`: where `collection` is created if it does not exist yet (when the
        first file is stored: a refused or empty batch creates nothing; default
        RAGSCOPE_DEFAULT_KNOWLEDGE_BASE)."""
        self.check_guardrails()
        self.repair_interrupted()
        own_job = job_id is None or report_to_job
        if job_id is None:
            job_id = start_job(self.store, "ingest", total=total or 0,
                               params={"collection": collection, "source_kind": source_kind})

        def report(item: IngestItem, out: IngestOutcome) -> bool:
            if not own_job:
                return False
            return update_job(self.store, job_id, done=len(pipe.outcomes) - pipe.failed,
                              failed=pipe.failed,
                              message=f"{out.filename}: {out.status}; {pipe.progress().summary()}")

        pipe = Pipeline(self, total=total, report=report, on_progress=on_progress)
        status = "done"
        self._links_waiting, self._new_collection_kb = [], knowledge_base
        writing = "writing the batch"
        try:
            it = iter(items)
            while True:
                try:
                    raw = next(it)
                except StopIteration:
                    break
                except BaseException:  # the caller's source failed: publish what is stored
                    pipe.finish()
                    raise
                if raw is None:
                    pipe.advance()
                    continue
                item = IngestItem.of(raw)
                writing = f"storing {item.name}"
                if pipe.put(item, self._ingest_item(item, collection=collection,
                                                    source_kind=source_kind, job_id=job_id,
                                                    identity=identity, scope=scope)):
                    status = "cancelled"
                    break
            pipe.finish()
        except BaseException as e:
            full = storage_full(e, writing)
            if own_job:
                with contextlib.suppress(Exception):  # a full disk may refuse this write too
                    finish_job(self.store, job_id, "failed", error=str(full or e))
            if full is not None and full is not e:
                raise full from e
            raise
        finally:
            pipe.close()
            try:  # also after an error: the links are in the store already
                self.sync_links()
            except Exception:  # noqa: BLE001 - stale tokens are found and fixed by check
                log.exception("rewriting collection tokens after an ingest failed")
            self._links_waiting, self._new_collection_kb = None, None
        outcomes = pipe.outcomes
        if own_job:  # status and outcomes in one transaction: a reader of the job never
            # sees "done" without them
            finish_job(self.store, job_id, status, result={
                "files": len(outcomes), "failed": sum(not o.ok for o in outcomes),
                "chunks": sum(o.chunks for o in outcomes),
                "read_back": readback_result(outcomes),
                **({"outcomes": [o.for_job() for o in outcomes]} if report_to_job else {})})
        return outcomes

    def _ingest_item(self, item: IngestItem, *, collection: str | None, source_kind: str,
                     job_id: int, identity: Identity,
                     scope: Scope | None = None) -> IngestOutcome | _Pending:
        """Store one item (deferred: its chunks wait for the pipeline's embedding)."""
        problem = item.problem()
        if problem:
            name = item.name if isinstance(item.name, str) and item.name else "(unnamed item)"
            return IngestOutcome(name, "failed", error=f"{name}: {problem}")
        kind = item.source_kind or source_kind
        title, warns = item.clean_title()
        ident = item.identity if item.identity is not None else identity
        if item.data is None:
            res = self.ingest_file(item.path, collection=collection, source_kind=kind,
                                   job_id=job_id, defer=True, title=title, meta=item.meta,
                                   source_uri=item.source_uri, identity=ident, scope=scope)
        else:
            res = self._ingest_bytes(bytes(item.data), item.name, collection=collection,
                                     source_kind=kind, source_uri=item.source_uri, title=title,
                                     meta=item.meta, job_id=job_id, defer=True, identity=ident,
                                     scope=scope)
        (res.outcome if isinstance(res, _Pending) else res).warnings[:0] = warns
        return res

    # ---- one file -----------------------------------------------------------------------

    def ingest_file(self, path: Path | FoundFile, *, collection: str | None = None,
                    source_kind: str = "file", job_id: int | None = None,
                    defer: bool = False, title: str | None = None, meta: dict | None = None,
                    source_uri: str | None = None, identity: Identity = AUTO,
                    scope: Scope | None = None) -> IngestOutcome | _Pending:
        found = path if isinstance(path, FoundFile) else self.rs.path_policy.named(path)
        name = found.name
        identity = identity.within(found.root)  # files of one folder tree keep their paths
        if not found.readable:  # refused or skipped path: never read, nothing stored
            return IngestOutcome(name, found.status, error=found.message)
        source_uri = source_uri or str(found.target)
        try:
            data = self.read_found(found)
        except PathRefused as e:
            return IngestOutcome(name, "refused", error=e.reason)
        except IngestError as e:
            return self._record_failure(name, source_uri, source_kind, collection, e,
                                        data=None, path=found, scope=scope)
        except OSError as e:
            return IngestOutcome(name, "failed", error=f"{name}: cannot read file ({e.strerror})")
        if job_id is None:
            return self.ingest_bytes(data, name, collection=collection,
                                     source_kind=source_kind, source_uri=source_uri,
                                     title=title, meta=meta, identity=identity, scope=scope)
        return self._ingest_bytes(data, name, collection=collection, source_kind=source_kind,
                                  source_uri=source_uri, title=title, meta=meta, job_id=job_id,
                                  defer=defer, identity=identity, scope=scope)

    def read_found(self, found: FoundFile) -> bytes:
        """The bytes of a found file (opened without following symlinks), or FileTooLarge."""
        limit = self.settings.max_upload_bytes
        with open_file(found) as fh:
            size = os.fstat(fh.fileno()).st_size
            data = fh.read(limit + 1) if size <= limit else b""
        if size > limit or len(data) > limit:
            raise FileTooLarge(found.name, self._too_large(max(size, len(data))))
        return data

    def _too_large(self, size: int) -> str:
        return (f"file is {size / 1048576:.1f} MiB, over the upload limit of "
                f"{self.settings.max_upload_mb:g} MiB (RAGSCOPE_MAX_UPLOAD_MB)")

    def ingest_bytes(self, data: bytes, filename: str, *, collection: str | None = None,
                     source_kind: str = "upload", source_uri: str | None = None,
                     title: str | None = None, meta: dict | None = None,
                     job_id: int | None = None, identity: Identity = AUTO,
                     scope: Scope | None = None) -> IngestOutcome:
        """Ingest one file's bytes. Every version being written belongs to a job, so that a
        concurrent repair can tell a running ingest from an interrupted one. `title`: the
        document's title (a repository path), instead of one found in the file."""
        if job_id is not None:
            return self._ingest_bytes(data, filename, collection=collection,
                                      source_kind=source_kind, source_uri=source_uri,
                                      title=title, meta=meta, job_id=job_id, defer=False,
                                      identity=identity, scope=scope)
        job_id = start_job(self.store, "ingest", total=1, params={"collection": collection})
        status = "failed"
        try:
            out = self._ingest_bytes(data, filename, collection=collection,
                                     source_kind=source_kind, source_uri=source_uri,
                                     title=title, meta=meta, job_id=job_id, defer=False,
                                     identity=identity, scope=scope)
            status = "done"
            return out
        finally:
            finish_job(self.store, job_id, status)

    def _ingest_bytes(self, data: bytes, filename: str, *, collection: str | None,
                      source_kind: str, source_uri: str | None, title: str | None,
                      meta: dict | None, job_id: int, defer: bool = False,
                      identity: Identity = AUTO,
                      scope: Scope | None = None) -> IngestOutcome | _Pending:
        collection = collection or self.settings.default_collection  # every doc in one
        source_uri = source_uri or f"{source_kind}://{filename}"
        ext = Path(filename).suffix.lower()
        try:
            if len(data) > self.settings.max_upload_bytes:
                raise FileTooLarge(filename, self._too_large(len(data)))
            if not is_supported(filename):
                raise unsupported(filename)
        except IngestError as e:
            return self._record_failure(filename, source_uri, source_kind, collection, e,
                                        data=data, scope=scope)

        sha = sha256_bytes(data)
        scope = dedup_scope(scope, collection)
        linked: list[int] = []  # documents with indexed chunks that joined the collection
        early: IngestOutcome | None = None
        with self.store.session() as s:
            # only content the scope may read is reused (backend/ingest/dedup.py)
            readable, held = readable_versions(s, sha, scope)
            source_uri = own_source(s, source_uri, collection, scope)
            existing = reusable(readable, job_id, source_uri)
            if existing is not None and existing.status == "indexed":
                doc = existing.document
                self._link(s, collection, doc, linked)
                same_source = doc.source_uri == source_uri
                early = IngestOutcome(filename, "unchanged" if same_source else "duplicate",
                                      doc.id, existing.id, 0)
            elif (existing is not None and existing.status in ("pending", "indexing")
                    and (existing.meta or {}).get("job_id") == job_id):  # twice in one batch
                self._link(s, collection, existing.document, linked)
                early = IngestOutcome(filename, "duplicate", existing.document_id, existing.id,
                                      0)
            else:
                doc = repo.document_by_source(s, source_uri)
                note, matched = None, None
                if existing is not None:  # failed or interrupted earlier: try again in place
                    version = existing
                    doc = existing.document
                    repo.delete_version_content(s, version.id)
                    version.status, version.error = "pending", None
                else:
                    if identity.mode == "version_of":
                        doc = repo.get_document(s, identity.document)
                        note = f"made a version of document {doc.id} ({doc.filename}) as asked"
                    elif doc is None and identity.mode == "auto" and collection \
                            and source_kind in NAME_MATCH_KINDS \
                            and self.settings.version_match != "off":
                        doc = same_name(s, filename, collection, source_uri, identity.tree)
                        matched = doc.id if doc is not None else None
                    if doc is None:
                        doc = Document(title=Path(filename).stem, filename=filename,
                                       source_kind=source_kind, source_uri=source_uri,
                                       file_type=ext.lstrip("."), status="pending",
                                       meta=meta or {})
                        s.add(doc)
                        s.flush()
                    elif meta and doc.source_uri == source_uri:  # a new version: what
                        # the caller knows now about the source
                        doc.meta = {**(doc.meta or {}), **meta}
                    version = DocumentVersion(
                        document_id=doc.id, number=repo.next_version_number(s, doc.id),
                        sha256=version_key(s, sha, doc.id, held), content_sha256=sha,
                        size_bytes=len(data), filename=filename, status="pending")
                    s.add(version)
                    s.flush()
                status = "new_version" if doc.active_version_id else "new"
                self._link(s, collection, doc, linked)  # its new chunks get it when published
                version.original_path = self._store_original(sha, ext, data)
                version.meta = {**(version.meta or {}), "job_id": job_id,
                                "source_uri": source_uri}
                doc_id, version_id, key = doc.id, version.id, version.sha256
                ctx = Context(source_kind=source_kind,
                              path=(meta or {}).get("path") or base_source(source_uri),
                              versions=len(doc.versions), title=title,
                              profile_override=(doc.meta or {}).get("profile_override"),
                              title_locked=(doc.meta or {}).get("title_source") == "user")
                doc_filename = doc.filename
        self._linked(linked, defer)  # the active version's chunks meanwhile
        if early is not None:
            return early

        try:
            prepared = self._prepare(data, filename, ctx)
            if matched is not None:
                doc_id, status, note = confirm_name_match(
                    self.store, self.settings, doc_id, version_id, prepared.text.text,
                    filename=filename, source_uri=source_uri, source_kind=source_kind,
                    meta=meta, collection=collection, status=status, doc_filename=doc_filename)
        except IngestError as e:
            self._mark_failed(version_id, str(e))
            return IngestOutcome(filename, "failed", doc_id, version_id, error=str(e))
        except Exception as e:  # an extractor bug must not abort the batch either
            log.exception("unexpected error while extracting %s", filename)
            msg = f"{filename}: could not be read ({type(e).__name__}: {e})"
            self._mark_failed(version_id, msg)
            return IngestOutcome(filename, "failed", doc_id, version_id, error=msg)

        out = IngestOutcome(filename, status, doc_id, version_id, note=note,
                            warnings=prepared.text.metadata.get("warnings", [])
                            + prepared.warnings)
        pend = self._store(out, key, prepared)  # chunk ids follow the version key
        return pend if defer else self._index_pending([pend])[0]

    # ---- stages -------------------------------------------------------------------------

    def _store_original(self, sha: str, ext: str, data: bytes) -> str:
        """Write the original once per content and extension (0600, atomically); a private
        copy of another knowledge base's bytes (backend/ingest/dedup.py) shares the file."""
        rel = Path(sha[:2]) / f"{sha}{ext}"
        dest = self.settings.originals_dir / rel
        if not dest.exists():
            dest.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            write_private(dest, data)  # 0600, atomically
        return str(rel)

    def _prepare(self, data: bytes, filename: str, ctx: Context) -> Prepared:
        return prepare(self.settings, self.store, data, filename, ctx)

    def _store(self, out: IngestOutcome, sha: str, p: Prepared) -> _Pending:
        """Write text, classification, sections and chunks with status "indexing" (committed).
        `sha`: the version's key (backend/ingest/dedup.py), which chunk ids are made of."""
        doc_id, version_id = out.document_id, out.version_id
        text, nodes, specs = p.text, p.sections, p.chunks
        variant = p.profile.variant()
        lang = detect_language(text.text[:20000])
        c = p.classification
        with self.store.session() as s:
            doc = s.get(Document, doc_id)
            version = s.get(DocumentVersion, version_id)
            version.text = text.text
            version.page_count = p.raw.page_count if p.raw else text.metadata.get("page_count")
            version.language = lang
            version.meta = {**(version.meta or {}), **text.metadata,
                            "pages": [[pg.number, pg.start, pg.end] for pg in text.pages],
                            **stored_layout(text), "chunking": p.chunking,
                            "profile": {"name": p.profile.name, "params": p.profile.params()},
                            "title": {"text": p.title, "source": p.title_source}}
            version.primary_type, version.processing_profile = c.primary_type, p.profile.name
            version.classification = c.to_json()
            version.status = "indexing"
            if not (doc.meta or {}).get("title_source") == "user":
                doc.title = p.title or doc.title
            doc.doc_type = c.primary_type
            section_rows = write_sections(s, version_id, nodes)
            chunk_rows = [
                Chunk(id=chunk_id(sha, p.size, p.overlap, x.ordinal, variant),
                      version_id=version_id, document_id=doc_id,
                      section_id=section_rows[x.section].id, ordinal=x.ordinal, start=x.start,
                      end=x.end, page=x.page, page_end=x.page_end, text=x.text)
                for x in specs
            ]
            s.add_all(chunk_rows)
            old_active = doc.active_version_id if doc.active_version_id != version_id else None
            indexed = [self._indexed(ch, doc, nodes[spec.section].title, lang)
                       for ch, spec in zip(chunk_rows, specs)]
        out.chunks = len(indexed)
        return _Pending(out, old_active, indexed)

    def _index_pending(self, pending: list[_Pending], embeddings=None) -> list[IngestOutcome]:
        """Embed the chunks of several stored versions in one call (outside the index write
        lock: it is the slow part; the pipeline passes `embeddings` made in its embedding
        thread), then, holding the lock, add them to both indexes and activate each version
        (taking its predecessor out of the indexes)."""
        if not pending:
            return []
        chunks = [c for p in pending for c in p.chunks]
        if embeddings is None:
            embeddings = self._encode(chunks)
        with self.rs.index_lock.hold("publish an ingest batch"):
            try:
                self._add_to_indexes(chunks, embeddings)
            except Exception as e:  # noqa: BLE001 - an index refused: write neither
                return self._roll_back(pending, chunks, e)
            for p in pending:
                if p.old_active:
                    self._deactivate(p.old_active)
                with self.store.session() as s:
                    version = s.get(DocumentVersion, p.outcome.version_id)
                    version.status, version.is_active = "indexed", True
                    doc = s.get(Document, p.outcome.document_id)
                    doc.active_version_id, doc.status = version.id, "active"
            self._record_index_counts()
        self._read_back(pending, chunks, embeddings)
        return [p.outcome for p in pending]

    def _roll_back(self, pending: list[_Pending], chunks, err: Exception) -> list[IngestOutcome]:
        """Both indexes or neither: a batch that one index refused (Elasticsearch or a
        Chroma server unreachable) is taken out of the other again, and its versions are
        marked failed with the reason; a predecessor stays active. What cannot be taken out
        now (the index is down) is an orphan that `check --repair` removes later. The batch
        goes on with the next files."""
        log.warning("ingest batch of %d file(s) not indexed: %s", len(pending), err)
        left = self._delete_from_indexes([c.chunk_id for c in chunks], tolerant=True)
        reason = f"not indexed, nothing of it is searchable ({err}); ingest it again"
        if left:
            log.warning("could not roll back: %s; `check --repair` removes the entries",
                        "; ".join(left))
        for p in pending:
            o = p.outcome
            o.status, o.chunks, o.error = "failed", 0, f"{o.filename}: {reason}"
            self._mark_failed(o.version_id, o.error, drop_content=True)
        return [p.outcome for p in pending]

    def _read_back(self, pending: list[_Pending], chunks, embeddings) -> None:
        """Search a sample of what was just written by its own vector (one chunk of every
        file, READBACK_SAMPLE in all); a chunk not among the nearest ten becomes a warning
        on its file's outcome, which the CLI, the job result and the upload page show."""
        vec_of = dict(zip((c.chunk_id for c in chunks), embeddings))
        files = [[c.chunk_id for c in p.chunks] for p in pending]
        sample = consistency.readback_sample(files)
        lost, error = consistency.unretrievable(self.rs.vector_index,
                                                {c: vec_of[c] for c in sample})
        lost_set = set(lost)
        for p, ids in zip(pending, files):
            mine = [c for c in sample if c in set(ids)]
            p.outcome.read_back = len(mine)
            gone = [c for c in mine if c in lost_set]
            if not gone:
                continue
            p.outcome.unretrievable = gone
            p.outcome.warnings.append(
                f"{len(gone)} of {len(mine)} chunk(s) read back after the write cannot be "
                "found by vector search with their own vector (not among the nearest 10)"
                + (f": {error}" if error else "")
                + "; search will miss them — run `python -m backend check --full`")
            log.warning("ingest read-back: %s: %d of %d chunk(s) cannot be found by vector "
                        "search (%s)", p.outcome.filename, len(gone), len(mine),
                        ", ".join(gone[:3]))

    def _mark_failed(self, version_id: int, error: str, *, drop_content: bool = False) -> None:
        with self.store.session() as s:
            if drop_content:  # chunks and sections of a version that was never published
                repo.delete_version_content(s, version_id)
            v = s.get(DocumentVersion, version_id)
            v.status, v.error, v.is_active = "failed", error, False
            doc = v.document
            if doc.active_version_id is None:
                doc.status = "failed"

    _new_collection_kb: str | None = None  # a batch's `knowledge_base`

    def _collection(self, s, name: str):
        """The collection to link into, created with the first file stored into it (so a
        refused request creates nothing): in the batch's `knowledge_base` (checked by the
        service layer, backend/security/acl.py `writable_collection`), else
        RAGSCOPE_DEFAULT_KNOWLEDGE_BASE."""
        return repo.get_or_create_collection(
            s, name, knowledge_base=self._new_collection_kb
            or self.settings.default_knowledge_base)

    def _record_failure(self, filename: str, source_uri: str, source_kind: str,
                        collection: str | None, err: IngestError, *, data: bytes | None,
                        path: FoundFile | None = None,
                        scope: Scope | None = None) -> IngestOutcome:
        """A file rejected before extraction is still recorded as a failed version (reusing
        one with the same bytes only when the scope may read it: backend/ingest/dedup.py)."""
        collection = collection or self.settings.default_collection
        if data is not None:
            sha = sha256_bytes(data)
            size = len(data)
        else:  # too large to read whole: hash it streaming
            h = hashlib.sha256()
            try:
                with open_file(path) as f:
                    for block in iter(lambda: f.read(1 << 20), b""):
                        h.update(block)
                    size = os.fstat(f.fileno()).st_size
            except (OSError, PathRefused):  # gone or swapped meanwhile: report, keep going
                return IngestOutcome(filename, "failed", error=str(err))
            sha = h.hexdigest()
        scope = dedup_scope(scope, collection)
        with self.store.session() as s:
            readable, held = readable_versions(s, sha, scope)
            source_uri = own_source(s, source_uri, collection, scope)
            # every rejected file keeps a record and message of its own: only this source's
            # failed record is reused (three different empty files are three failed
            # documents), and a stored version of other content is never marked failed
            v = next((x for x in readable
                      if x.status == "failed" and x.document.source_uri == source_uri), None)
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
                                    sha256=version_key(s, sha, doc.id, held),
                                    content_sha256=sha, size_bytes=size, filename=filename)
                s.add(v)
            v.status, v.error = "failed", str(err)
            s.flush()
            linked: list[int] = []
            self._link(s, collection, v.document, linked)
            out = IngestOutcome(filename, "failed", v.document_id, v.id, error=str(err))
        self._linked(linked, defer=self._links_waiting is not None)
        return out

