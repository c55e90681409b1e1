"""Collections, jobs and uploads for the HTTP API and the MCP tools, on behalf of an `Actor`.

- `collections_page`: the collections the actor may read, with knowledge base and counts.
- `job_info`: a job's progress; admins see every job, everyone else only the jobs they
  started (another's job id answers NotFound, like one that does not exist).
- `start_upload`: check the files (count, size), record a job and ingest them in a
  background thread; the job id comes back at once and `job_info` follows it, with the
  outcome of every file at the end."""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePath
from typing import Sequence

from backend.security import access, acl, auth
from backend.security.access import Actor
from backend.errors import FileTooLarge, IngestError, NotFound
from backend.services.jobs import finish_job, get_job, job_alive, start_job

log = logging.getLogger(__name__)


def collections_page(rs, actor: Actor, *, offset: int = 0,
                     limit: int = 100) -> tuple[list[acl.CollectionInfo], int]:
    """The collections the actor may read (with knowledge base and document count)."""
    rows = acl.collections(rs, access.scope_of(rs, actor))
    return rows[offset:offset + limit], len(rows)


@dataclass
class JobInfo:
    id: int
    kind: str
    status: str
    alive: bool
    total: int
    done: int
    failed: int
    progress: float
    message: str
    error: str | None
    result: dict
    created_at: datetime | None
    finished_at: datetime | None
    files: list[str] = field(default_factory=list)
    collection: str | None = None


def _started_by(params: dict, actor: Actor) -> bool:
    return (params.get("by") == actor.username
            and params.get("by_kind", "user") == getattr(actor, "kind", "user"))


def job_info(rs, actor: Actor, job_id: int) -> JobInfo:
    job = get_job(rs.store, job_id)
    params = dict(job.params or {})
    if not (auth.has_role(actor.role, "admin") or _started_by(params, actor)):
        raise NotFound(f"job {job_id} not found")
    return JobInfo(job.id, job.kind, job.status, job_alive(job), job.total, job.done,
                   job.failed, round(job.progress, 4), job.message or "", job.error,
                   dict(job.result or {}), job.created_at, job.finished_at,
                   list(params.get("files") or []), params.get("collection"))


def _safe_name(name: str) -> str:
    """The file name part of an uploaded name ("../../x.pdf" -> "x.pdf")."""
    base = PurePath(name.replace("\\", "/")).name.strip()
    return base if base not in ("", ".", "..") else ""


def check_upload(rs, files: Sequence[tuple[str, bytes]], max_files: int,
                 sizes: Sequence[int | None] = ()) -> list[tuple[str, bytes]]:
    """The files with clean names, or an IngestError naming the first bad one. `sizes`: each
    file's full size where the caller read only the first bytes over the limit (the API):
    the message says the real size, or "more than" the bytes seen when it is unknown."""
    if not files:
        raise IngestError("files", "no file was uploaded")
    if len(files) > max_files:
        raise IngestError("files", f"{len(files)} files in one upload; at most {max_files} "
                                   "(RAGSCOPE_API_MAX_UPLOAD_FILES)")
    limit = rs.settings.max_upload_bytes
    out = []
    for i, (name, data) in enumerate(files):
        clean = _safe_name(name or "")
        if not clean:
            raise IngestError(name or "(no name)", "the uploaded file has no file name")
        if len(data) > limit:
            size = sizes[i] if i < len(sizes) and sizes[i] else None
            said = (f"{size / 1048576:.1f} MiB" if size and size >= len(data)
                    else f"more than {rs.settings.max_upload_mb:g} MiB")
            raise FileTooLarge(clean, f"file is {said}, over the upload limit of "
                                      f"{rs.settings.max_upload_mb:g} MiB "
                                      "(RAGSCOPE_MAX_UPLOAD_MB)")
        out.append((clean, data))
    return out


def start_upload(rs, actor: Actor, files: Sequence[tuple[str, bytes]], *,
                 collection: str | None = None, knowledge_base: str | None = None,
                 max_files: int = 20, wait: bool = False,
                 sizes: Sequence[int | None] = ()) -> int:
    """Check the files and the target collection (writable for the actor; a new one is
    made in `knowledge_base`, see backend/security/acl.py `writable_collection`), record an ingest
    job and run it in a background thread (`wait`: in this thread, for tests and
    scripts). Returns the job id."""
    access.require(actor, "upload")
    files = check_upload(rs, files, max_files, sizes)
    kb = (knowledge_base or "").strip() or None
    collection = acl.writable_collection(rs, actor, (collection or "").strip() or None, kb,
                                         action="upload", create=False)
    scope = access.scope_of(rs, actor)  # deduplication stays inside it
    job_id = start_job(rs.store, "ingest", total=len(files), params={
        "collection": collection, "source_kind": "upload", "by": actor.username,
        "by_kind": getattr(actor, "kind", "user"), "files": [n for n, _ in files]})

    def run() -> None:
        from backend.ingest.service import Ingestor

        try:  # the job is finished with every file's outcome (one transaction)
            Ingestor(rs).ingest_many(iter(files), total=len(files), collection=collection,
                                     source_kind="upload", job_id=job_id, report_to_job=True,
                                     scope=scope, knowledge_base=kb)
        except Exception as e:  # recorded in the job; the API caller reads it there
            log.exception("upload job %s failed", job_id)
            finish_job(rs.store, job_id, "failed", error=str(e))

    if wait:
        run()
    else:
        threading.Thread(target=run, name=f"upload-job-{job_id}", daemon=True).start()
    return job_id
