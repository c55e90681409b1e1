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
import logging
from pathlib import Path
from typing import Callable, Iterable, Sequence

from backend.security.access import Scope
from backend.errors import FileTooLarge, IngestError, PathRefused, storage_full
from backend.ingest.batches import Pipeline
from backend.ingest.consistency import CheckReport, Consistency, RepairReport
from backend.ingest.dedup import base_source, dedup_scope, own_source, readable_versions, reusable
from backend.ingest.extract import is_supported, unsupported
from backend.ingest.identity import AUTO, Identity, confirm_name_match
from backend.ingest.indexing import IndexWriter, Links
from backend.ingest.maintenance import LEGACY_PARAMS, Maintenance  # noqa: F401
from backend.ingest.paths import FoundFile, read_found, too_large
from backend.ingest.pipeline import Context, Prepared, prepare
from backend.ingest.publish import Publisher, readback_result  # noqa: F401
from backend.ingest.records import (  # noqa: F401  (re-exported for callers)
    FLUSH_CHUNKS,
    FLUSH_FILES,
    IngestItem,
    IngestOutcome,
    IngestProgress,
    _first_line_title,
    _Pending,
    chunk_id,
    linked_outcome,
    mark_failed,
    sha256_bytes,
    write_sections,
)
from backend.ingest.reprocess import ReclassifyReport, Reprocessor
from backend.ingest.writing import VersionWriter
from backend.services.jobs import finish_job, start_job, update_job
from backend.security.private_files import write_private
from backend.services.container import Ragscope

log = logging.getLogger(__name__)


class Ingestor:
    """Ingestion of one `Ragscope`: batches and single files here; the stages and the upkeep
    are collaborators built once and handed what they need (`index`: entries in both
    indexes; `links`: collection tokens; `writer`: a version's rows; `publisher`: index and
    activate; `consistency`: check and repair; `reprocess`: reclassify, titles, re-chunking;
    `maintenance`: guardrails, activation, deletion, reindex). Their public methods are
    offered here under the names callers use (`ing.check()`, `ing.reindex()`, ...)."""

    def __init__(self, rs: Ragscope):
        self.rs = rs
        self.settings = rs.settings
        self.store = rs.store
        self.index = IndexWriter(rs)
        self.links = Links(rs)
        self.writer = VersionWriter(rs, self.index, self.links)
        self.publisher = Publisher(rs, self.index)
        self.consistency = Consistency(rs, self.index)
        self.reprocess = Reprocessor(rs, self.index)
        self.maintenance = Maintenance(rs, self.index, self.consistency,
                                       self.reprocess.rechunk_affected)

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

        pipe = Pipeline(self.index.encode, self.publisher.publish, self.links, total=total,
                        report=report, on_progress=on_progress)
        status = "done"
        self.links.start(knowledge_base)
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
                self.links.sync()
            except Exception:  # noqa: BLE001 - stale tokens are found and fixed by check
                log.exception("rewriting collection tokens after an ingest failed")
            self.links.stop()
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
            return self.writer.record_failure(name, source_uri, source_kind, collection, e,
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
        return read_found(found, self.settings)

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
                raise FileTooLarge(filename, too_large(len(data), self.settings))
            if not is_supported(filename):
                raise unsupported(filename)
        except IngestError as e:
            return self.writer.record_failure(filename, source_uri, source_kind, collection, e,
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
                added = self.links.link(s, collection, doc, linked)
                same_source = doc.source_uri == source_uri
                early = linked_outcome(filename, "unchanged" if same_source else "duplicate",
                                       doc, existing, collection, added)
            elif (existing is not None and existing.status in ("pending", "indexing")
                    and (existing.meta or {}).get("job_id") == job_id):  # twice in one batch
                added = self.links.link(s, collection, existing.document, linked)
                early = linked_outcome(filename, "duplicate", existing.document, existing,
                                       collection, added)
            else:
                doc, version, note, matched = self.writer.pending_version(
                    s, existing, sha, held, len(data), filename=filename,
                    source_uri=source_uri, source_kind=source_kind, collection=collection,
                    meta=meta, identity=identity)
                status = "new_version" if doc.active_version_id else "new"
                self.links.link(s, collection, doc, linked)  # its chunks get it when published
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
        self.links.linked(linked, defer)  # the active version's chunks meanwhile
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
            mark_failed(self.store, version_id, str(e))
            return IngestOutcome(filename, "failed", doc_id, version_id, error=str(e))
        except Exception as e:  # an extractor bug must not abort the batch either
            log.exception("unexpected error while extracting %s", filename)
            msg = f"{filename}: could not be read ({type(e).__name__}: {e})"
            mark_failed(self.store, version_id, msg)
            return IngestOutcome(filename, "failed", doc_id, version_id, error=msg)

        out = IngestOutcome(filename, status, doc_id, version_id, note=note,
                            warnings=prepared.text.metadata.get("warnings", [])
                            + prepared.warnings)
        pend = self.writer.write(out, key, prepared)  # chunk ids follow the version key
        return pend if defer else self.publisher.publish([pend])[0]

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

    # ---- the parts' methods, under the names callers use ----------------------------------

    def check_guardrails(self) -> None:
        self.maintenance.check_guardrails()

    def activate(self, version_id: int) -> None:
        self.maintenance.activate(version_id)

    def delete_document(self, ref: int | str, *, purge_answers: bool = False) -> int:
        return self.maintenance.delete_document(ref, purge_answers=purge_answers)

    def reindex(self, **kw) -> dict:
        return self.maintenance.reindex(**kw)

    def check(self, **kw) -> CheckReport:
        return self.consistency.check(**kw)

    def repair(self, **kw) -> RepairReport:
        return self.consistency.repair(**kw)

    def repair_interrupted(self) -> int:
        return self.consistency.repair_interrupted()

    def sync_links(self) -> None:
        self.links.sync()

    def reclassify(self, *a, **kw) -> ReclassifyReport:
        return self.reprocess.reclassify(*a, **kw)

    def set_profile(self, ref: int | str, profile: str | None) -> ReclassifyReport:
        return self.reprocess.set_profile(ref, profile)

    def set_title(self, ref: int | str, title: str) -> int:
        return self.reprocess.set_title(ref, title)

    def reset_title(self, ref: int | str) -> int:
        return self.reprocess.reset_title(ref)

    def rechunk_affected(self, *a, **kw) -> int:
        return self.reprocess.rechunk_affected(*a, **kw)
