"""Jobs: long work (ingest batches, reindex, crawls, evaluations) recorded in the store with
progress, heartbeat and a cancel flag, so the dashboard can show it and a crashed process
can be told apart from a running one."""
from __future__ import annotations

import os
import socket
from datetime import timedelta

from sqlalchemy import select

from backend.store import Store
from backend.store.models import Job, utcnow

STALE_AFTER = timedelta(minutes=2)
HOST = socket.gethostname()


def start_job(store: Store, kind: str, total: int = 0, params: dict | None = None) -> int:
    with store.session() as s:
        job = Job(kind=kind, status="running", total=total,
                  params={**(params or {}), "pid": os.getpid(), "host": HOST},
                  started_at=utcnow(), heartbeat_at=utcnow())
        s.add(job)
        s.flush()
        return job.id


def update_job(store: Store, job_id: int, *, done: int | None = None, failed: int | None = None,
               total: int | None = None, message: str | None = None) -> bool:
    """Record progress and a heartbeat. Returns True when cancellation was requested."""
    with store.session() as s:
        job = s.get(Job, job_id)
        if job is None:
            return False
        if done is not None:
            job.done = done
        if failed is not None:
            job.failed = failed
        if total is not None:
            job.total = total
        if message is not None:
            job.message = message[:2000]
        job.heartbeat_at = utcnow()
        return job.cancel_requested


def finish_job(store: Store, job_id: int, status: str = "done", *, error: str | None = None,
               result: dict | None = None) -> None:
    with store.session() as s:
        job = s.get(Job, job_id)
        if job is None:
            return
        job.status, job.error = status, error
        job.result = result or {}
        job.finished_at = utcnow()


def request_cancel(store: Store, job_id: int) -> None:
    with store.session() as s:
        job = s.get(Job, job_id)
        if job is not None:
            job.cancel_requested = True


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def job_alive(job: Job) -> bool:
    """Running and its process still exists (same host) or its heartbeat is recent."""
    if job.status != "running":
        return False
    pid, host = job.params.get("pid"), job.params.get("host")
    if host == HOST and isinstance(pid, int):
        return _pid_alive(pid)
    hb = job.heartbeat_at
    if hb is None:
        return False
    if hb.tzinfo is None:  # SQLite returns naive datetimes
        from datetime import timezone

        hb = hb.replace(tzinfo=timezone.utc)
    return utcnow() - hb < STALE_AFTER


def live_job_ids(store: Store) -> set[int]:
    with store.session() as s:
        jobs = s.scalars(select(Job).where(Job.status == "running")).all()
        return {j.id for j in jobs if job_alive(j)}


def mark_dead_jobs(store: Store) -> int:
    """Running jobs whose process is gone become 'failed' (interrupted)."""
    n = 0
    with store.session() as s:
        for job in s.scalars(select(Job).where(Job.status == "running")):
            if not job_alive(job):
                job.status, job.error, job.finished_at = "failed", "interrupted", utcnow()
                n += 1
    return n


def recent_jobs(store: Store, limit: int = 20) -> list[Job]:
    with store.session() as s:
        return list(s.scalars(select(Job).order_by(Job.id.desc()).limit(limit)))


def add_job_result(store: Store, job_id: int, **values) -> None:
    """Add entries to a finished job's result (e.g. the per-file outcomes of an upload)."""
    with store.session() as s:
        job = s.get(Job, job_id)
        if job is not None:
            job.result = {**(job.result or {}), **values}


def get_job(store: Store, job_id: int) -> Job:
    from backend.errors import NotFound

    with store.session() as s:
        job = s.get(Job, int(job_id))
        if job is None:
            raise NotFound(f"job {job_id} not found")
        return job
