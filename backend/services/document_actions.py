"""What the upload, document and settings pages and the CLI call to change documents:
upload a batch, activate a version, delete, reindex, check. Every action takes the acting
`Actor` and checks its role and its writable scope here too, whatever the page did
(the reads are in backend/services/documents.py)."""
from __future__ import annotations

from typing import Callable, Sequence

from backend.security import access, auth
from backend.security.access import Actor
from backend.services.container import Ragscope
from backend.store import repo


def supported_extensions() -> tuple[str, ...]:
    from backend.ingest.extract import SUPPORTED_EXTENSIONS

    return tuple(SUPPORTED_EXTENSIONS)


def _ingestor(rs: Ragscope):
    from backend.ingest.service import Ingestor

    return Ingestor(rs)


def require_writable_document(rs: Ragscope, actor: Actor | None, doc_id: int,
                              action: str) -> Actor:
    """The actor may do `action` and change the document: its role allows the action and
    every collection the document is in is writable for it (a document shared with a
    collection the actor may only read stays as it is). NotFound when the actor cannot
    even read it."""
    actor = access.require(actor, action)
    scope = access.scope_of(rs, actor)
    with rs.store.session() as s:
        d = access.require_document(s, scope, doc_id)
        locked = [c for c in repo.document_collections(s, d.id) if not scope.can_write(c)]
    if locked:
        shown = scope.only_readable(locked)
        raise auth.PermissionDenied(
            f"{actor.username} may not change document {doc_id}: it is also in "
            f"collection(s) {', '.join(shown) or 'outside your access'} you may only read")
    return actor


def activate_version(rs: Ragscope, version_id: int, actor: Actor | None) -> None:
    with rs.store.session() as s:
        v = access.require_version(s, access.scope_of(rs, actor), version_id)
        doc_id = v.document_id
    require_writable_document(rs, actor, doc_id, "activate_version")
    _ingestor(rs).activate(version_id)


def delete_document(rs: Ragscope, doc_id: int, actor: Actor | None, *,
                    purge_answers: bool = False) -> int:
    """Delete a document (see Ingestor.delete_document); `purge_answers`: also remove the
    text of chat answers that drew on it."""
    require_writable_document(rs, actor, doc_id, "delete")
    return _ingestor(rs).delete_document(int(doc_id), purge_answers=purge_answers)


UPLOAD_IDENTITY = {
    "auto": "Same file name in the collection: becomes its new version (the rule)",
    "new_document": "Always a new document (never matched by name)",
    "version_of": "New version of a document I name",
}


def ingest_uploads(rs: Ragscope, files: Sequence[tuple[str, bytes]], actor: Actor | None, *,
                   collection: str | None = None, knowledge_base: str | None = None,
                   on_progress: Callable[[object], None] | None = None,
                   identity: str = "auto", version_of: str | None = None,
                   job_id: int | None = None) -> list:
    """Ingest uploaded files as one batch into `collection` (default:
    RAGSCOPE_DEFAULT_COLLECTION), which the actor must be allowed to write (a new one is
    made in `knowledge_base`, see backend/security/acl.py `writable_collection`); a failing file
    never stops the others. Returns one IngestOutcome per file, in order; `on_progress` gets
    an IngestProgress (files, chunks embedded, ETA) after every file and every embedded batch.
    `identity` forces either way of the same-name rule (docs/ingestion.md, "Identity"):
    `new_document`, or `version_of` the document `version_of` (id, title or file name; one
    the actor may read and change, checked before anything is stored).
    `job_id`: a job the caller started for this batch (the dashboard's background upload,
    backend/services/dashboard_jobs.py): the batch records its progress, cancel flag and
    every file's outcome there."""
    from backend.security.acl import version_target, writable_collection
    from backend.errors import ConfigError
    from backend.ingest.identity import AUTO, Identity
    from backend.ingest.records import IngestItem

    access.require(actor, "upload")
    if identity not in UPLOAD_IDENTITY:
        raise ConfigError(f"identity: unknown choice '{identity}'; one of "
                          f"{', '.join(UPLOAD_IDENTITY)}")
    how = AUTO
    if identity == "new_document":
        how = Identity.new_document()
    elif identity == "version_of":
        ref = (version_of or "").strip()
        if not ref:
            raise ConfigError("new version of: name the document (id, title or file name)")
        how = Identity.version_of(version_target(rs, actor, ref))  # NotFound names it
    target = writable_collection(rs, actor, (collection or "").strip() or None,
                                 knowledge_base, action="upload", strict=False, create=False)
    return _ingestor(rs).ingest_many(
        (IngestItem(name, data=data, source_kind="upload") for name, data in files),
        total=len(files), collection=target,
        source_kind="upload", on_progress=on_progress, identity=how,
        scope=access.scope_of(rs, actor), knowledge_base=knowledge_base, job_id=job_id,
        report_to_job=job_id is not None)


STATUS_LABELS = {"new": "ingested as a new document", "new_version": "ingested as a new version",
                 "duplicate": "already stored (same content)", "unchanged": "unchanged",
                 "failed": "failed", "refused": "refused"}


def outcome_label(o) -> str:
    """One line per uploaded file: what happened and to which document ("report.pdf —
    already stored (same content) as document 12 “Annual report”"), with the chunk count
    of what was ingested."""
    label = f"{o.filename} — {STATUS_LABELS.get(o.status, o.status)}"
    if o.status in ("duplicate", "unchanged") and o.document_id:
        label += f" as document {o.document_id:d}" + (f" “{o.title}”" if o.title else "")
    elif o.ok and o.document_id:
        label += f" (document {o.document_id:d})"
    if o.ok and o.chunks:
        label += f", {o.chunks:d} chunks"
    return label


def batch_message(outcomes: Sequence) -> tuple[str, bool]:
    """The line under an upload: how many files made new documents or versions, how many
    were stored already, how many failed; and whether anything failed."""
    from collections import Counter

    n = Counter("failed" if not o.ok else "stored" if o.status in ("duplicate", "unchanged")
                else "new" for o in outcomes)
    parts = [f"{n['new']} of {len(outcomes)} files ingested"]
    if n["stored"]:
        parts.append(f"{n['stored']} already stored (nothing new ingested)")
    if n["failed"]:
        parts.append(f"{n['failed']} failed")
    return ", ".join(parts) + ".", bool(n["failed"])


def unretrievable_message(outcomes: Sequence) -> str | None:
    """One sentence naming the files whose chunks the read-back after the write could not
    find by vector search (the upload page shows it as an error), or None."""
    lost = [o for o in outcomes if getattr(o, "unretrievable", None)]
    if not lost:
        return None
    n = sum(len(o.unretrievable) for o in lost)
    names = ", ".join(f"{o.filename} (document {o.document_id})" for o in lost[:10])
    more = f" and {len(lost) - 10} more" if len(lost) > 10 else ""
    return (f"{n} chunk(s) just written cannot be found by vector search with their own "
            f"vector: {names}{more}. Search will miss them; an administrator should run "
            "`python -m backend check --full`.")


def reindex(rs: Ragscope, actor: Actor | None,
            on_progress: Callable[[int, int], None] | None = None, *,
            own_job: bool = True) -> dict:
    access.require(actor, "reindex")
    return _ingestor(rs).reindex(on_progress=on_progress, own_job=own_job)


def check_consistency(rs: Ragscope, actor: Actor | None):
    """The consistency report (`backend.ingest.consistency.CheckReport`)."""
    access.require(actor, "reindex")
    return _ingestor(rs).check()
