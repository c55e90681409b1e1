"""The dashboard's long actions as background jobs (backend/services/background.py): reindex
(pages/settings.py), reclassify (pages/document_types.py) and an upload batch
(pages/upload.py). Each checks the caller's rights before it starts (a refusal is an error
on the page, not a failed job), runs the same service call the CLI uses, and stores the
summary the page lands on in the job's result. The evaluation run is in eval/jobs.py."""
from __future__ import annotations

from collections.abc import Sequence

from backend.security import access, auth
from backend.security.access import Actor
from backend.services import background
from backend.services.container import Ragscope

REINDEX, RECLASSIFY, UPLOAD = "reindex", "reclassify", "upload"


def start_reindex(rs: Ragscope, actor: Actor | None, *, wait: bool = False) -> int:
    """Rebuild both indexes in the background. Not cancellable: the indexes are reset
    first, and a stop half-way would leave them partial until the next reindex."""
    from backend.services import document_actions

    actor = access.require(actor, "reindex")

    def work(task: background.Task) -> dict:
        res = document_actions.reindex(
            rs, actor, on_progress=lambda done, total: task.progress(done, total),
            own_job=False)  # this background job is the run's one row
        res["summary"] = (f"Reindexed {res.get('chunks', 0)} chunks of "
                          f"{res.get('versions', 0)} versions ({res.get('rechunked', 0)} "
                          "re-chunked).")
        return res

    return background.start(rs.store, REINDEX, work, title="A reindex", by=actor.username,
                            unit="chunks", cancel=None, wait=wait)


def start_reclassify(rs: Ragscope, actor: Actor | None, *, dry_run: bool = False,
                     wait: bool = False) -> int:
    """Reclassify every document in the background. A cancel stops after the document in
    hand: the ones done so far keep their new type (each is its own transaction)."""
    from backend.services import classification

    auth.require(actor.role if actor else None, "reindex")

    def work(task: background.Task) -> dict:
        summary = classification.reclassify_all(
            rs, actor.role, dry_run=dry_run,
            on_progress=lambda done, total, _label: task.progress(done, total),
            own_job=False)
        return {"summary": summary, "dry_run": dry_run}

    return background.start(rs.store, RECLASSIFY, work, title="A reclassification",
                            by=actor.username, unit="documents", wait=wait,
                            params={"dry_run": dry_run})


# Uploads above either limit run in the background (docs/dashboard.md, "Background jobs").
# Measured (docs/benchmarks.md, "Upload batches"): 10 sample files take 6 s in the page,
# 15 take 9 s; time follows the chunks, and dense text makes ~1,800 chunks per MiB (1 MiB:
# 110 s), sample-like documents ~480 — 256 KiB is ~7 s of the latter, ~30 s of the former.
BACKGROUND_UPLOAD_FILES = 10
BACKGROUND_UPLOAD_BYTES = 256 * 1024


def upload_in_background(files: Sequence[tuple[str, bytes]]) -> bool:
    """A large batch (more than BACKGROUND_UPLOAD_FILES files or BACKGROUND_UPLOAD_BYTES
    in all) runs as a job; a small one in the page, which shows each file as it lands."""
    return len(files) > BACKGROUND_UPLOAD_FILES or \
        sum(len(d) for _, d in files) > BACKGROUND_UPLOAD_BYTES


def latest_upload(rs: Ragscope, username: str) -> background.JobView | None:
    """The newest background upload this user started (into any collection)."""
    return background.latest(rs.store, UPLOAD, None, by=username)


def upload_rows(job: background.JobView) -> list[dict]:
    """One row per file of a finished upload job, as the upload page lists them."""
    warns = job.result.get("warnings") or {}
    from backend.security.display import safe_text

    return [{"file": safe_text(o.get("filename") or ""), "status": o.get("status"),
             "document": o.get("document_id"), "chunks": o.get("chunks"),
             "error": safe_text(o.get("error") or ""),
             "warnings": safe_text("; ".join(warns.get(o.get("filename"), [])))}
            for o in job.result.get("outcomes") or []]


def upload_message(job: background.JobView) -> tuple[str, bool]:
    """("n of m files ingested[, k failed].", whether any failed) for a finished upload."""
    outcomes = job.result.get("outcomes") or []
    failed = sum(o.get("status") in ("failed", "refused") for o in outcomes)
    return (f"{len(outcomes) - failed} of {len(outcomes)} files ingested"
            + (f", {failed} failed." if failed else "."), failed > 0)


def upload_key(rs: Ragscope, collection: str | None) -> str:
    """One upload at a time per target collection."""
    return (collection or "").strip() or rs.settings.default_collection


def start_upload(rs: Ragscope, files: Sequence[tuple[str, bytes]], actor: Actor | None, *,
                 collection: str | None = None, knowledge_base: str | None = None,
                 identity: str = "auto", version_of: str | None = None,
                 wait: bool = False) -> int:
    """Ingest an upload batch in the background (document_actions.ingest_uploads, which
    records every file's outcome in the job). A cancel stops the batch at its next
    embedded group of files (at most FLUSH_FILES = 16 files, or 2 s of a slow file: see
    backend/ingest/records.py); the files stored so far stay."""
    from backend.services import document_actions

    actor = access.require(actor, "upload")
    files = list(files)
    names = [n for n, _ in files]

    def work(task: background.Task) -> dict:
        outcomes = document_actions.ingest_uploads(
            rs, files, actor, collection=collection, knowledge_base=knowledge_base,
            identity=identity, version_of=version_of, job_id=task.job_id,
            on_progress=lambda p: task.note(p.summary()))
        return {"unretrievable": document_actions.unretrievable_message(outcomes),
                "warnings": {o.filename: list(o.warnings) for o in outcomes if o.warnings},
                "notes": {o.filename: o.note for o in outcomes if o.note}}

    return background.start(rs.store, UPLOAD, work, title="An upload",
                            key=upload_key(rs, collection), by=actor.username, unit="files",
                            cancel="flag", total=len(files), wait=wait,
                            params={"files": names[:200]})


def latest(rs: Ragscope, kind: str, key: str = "") -> background.JobView | None:
    """The newest job of `kind` (REINDEX, RECLASSIFY, UPLOAD with its collection) that the
    page follows or lands on."""
    return background.latest(rs.store, kind, key)
