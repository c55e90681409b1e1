"""Background jobs for the dashboard: long work (an evaluation run, reclassify, reindex, a
large upload) runs in a worker thread of the Streamlit server process while the page stays
usable. The job row (backend/store/models.py `Job`, backend/services/jobs.py) is the only
shared state: the worker records its progress, heartbeat and result there; any page, tab or
browser reload reads it back, shows the progress and lands on the result.

Why a thread and not a `python -m backend` subprocess (docs/dashboard.md, "Background jobs"):
the work needs what the server already holds — the loaded embedding model and indexes (a
subprocess loads them again: seconds and hundreds of MB per run on a 2-core machine), the
caller's access scope and an upload's bytes (a subprocess would need them serialised to
disk). A thread survives page reruns, navigation and browser reloads (it belongs to the
server, not to the browser session). It dies with the server: the job row still says
"running" with the server's dead pid, which `job_alive` detects, and the page shows the job
as interrupted instead of waiting forever.

At most one job of a kind per `key` (a collection, or "" for the whole data dir) runs at a
time: a second start raises `JobRunning`, which names the running job."""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select

from backend.errors import RagscopeError
from backend.services.jobs import finish_job, get_job, job_alive, request_cancel, start_job, \
    update_job
from backend.store.models import Job, utcnow

log = logging.getLogger(__name__)

RUNNER = "dashboard"
PROGRESS_EVERY_S = 0.5  # progress writes are throttled to this (one row update each)
_START_LOCK = threading.Lock()  # check-then-start of one kind and key is atomic in-process


class JobRunning(RagscopeError):
    """A job of this kind and key is running already; `job` is its view."""

    def __init__(self, job: "JobView"):
        self.job = job
        super().__init__(f"{job.title} is already running: {job.describe()}. Its progress is "
                         "shown on the page; wait for it or cancel it first.")


class Cancelled(Exception):
    """Raised inside the work from `Task.progress` after a cancel request (cancel="raise")."""

    def __str__(self) -> str:
        return "cancelled from the dashboard"


@dataclass(frozen=True)
class JobView:
    """What a page shows of a job (a plain copy: no session, no lazy loading)."""

    id: int
    kind: str
    status: str  # running | done | failed | cancelled | interrupted
    title: str
    done: int = 0
    failed: int = 0
    total: int = 0
    unit: str = ""
    message: str = ""
    error: str | None = None
    result: dict = field(default_factory=dict)
    by: str = ""
    started_at: datetime | None = None
    finished_at: datetime | None = None
    cancellable: bool = False
    cancel_requested: bool = False

    @property
    def running(self) -> bool:
        return self.status == "running"

    @property
    def fraction(self) -> float:
        return min(1.0, (self.done + self.failed) / self.total) if self.total else 0.0

    def progress_text(self) -> str:
        count = (f"{self.done + self.failed:d} of {self.total:d} {self.unit}".strip()
                 if self.total else "starting")
        return count + (f" · {self.message}" if self.message else "")

    def describe(self) -> str:
        who = f" by {self.by}" if self.by else ""
        at = f" at {self.started_at:%H:%M} UTC" if self.started_at else ""
        return f"job {self.id:d}, started{who}{at}, {self.progress_text()}"


@dataclass
class Task:
    """The worker's handle on its job: `progress` records how far it is (throttled) and,
    for cancel="raise", raises `Cancelled` once a cancel was requested."""

    store: object
    job_id: int
    raise_on_cancel: bool
    _last: float = 0.0

    def progress(self, done: int, total: int, message: str = "") -> None:
        now = time.monotonic()
        if done < total and now - self._last < PROGRESS_EVERY_S:
            return
        self._last = now
        if update_job(self.store, self.job_id, done=done, total=total, message=message) \
                and self.raise_on_cancel:
            raise Cancelled()

    def note(self, message: str) -> None:
        """Only a message and a heartbeat (the work counts done and failed itself)."""
        now = time.monotonic()
        if now - self._last >= PROGRESS_EVERY_S:
            self._last = now
            update_job(self.store, self.job_id, message=message)


def _view(job: Job) -> JobView:
    p = job.params or {}
    status = job.status
    error = job.error
    if status == "running" and not job_alive(job):
        status, error = "interrupted", ("the process running it stopped before it finished "
                                        "(was the dashboard server restarted?)")
    return JobView(id=job.id, kind=job.kind, status=status, title=p.get("title", job.kind),
                   done=job.done, failed=job.failed, total=job.total, unit=p.get("unit", ""),
                   message=job.message or "", error=error, result=dict(job.result or {}),
                   by=p.get("by", ""), started_at=job.started_at, finished_at=job.finished_at,
                   cancellable=p.get("cancel") in ("raise", "flag"),
                   cancel_requested=bool(job.cancel_requested))


def view(store, job_id: int) -> JobView:
    """The job `job_id` (NotFound if there is none); a dead worker's reads "interrupted"
    and is recorded as failed."""
    v = _view(get_job(store, job_id))
    if v.status == "interrupted":
        _mark_interrupted(store, job_id, v.error or "interrupted")
    return v


def latest(store, kind: str, key: str | None = "", *, by: str | None = None) -> JobView | None:
    """The newest dashboard job of `kind` for `key` (None: any key), started `by` someone
    (None: anyone), running or finished; None if there is none."""
    with store.session() as s:
        for job in s.scalars(select(Job).where(Job.kind == kind).order_by(Job.id.desc())
                             .limit(200)):
            p = job.params or {}
            if p.get("runner") == RUNNER and (key is None or p.get("key", "") == key) \
                    and (by is None or p.get("by") == by):
                return view(store, job.id)
    return None


def running(store, kind: str, key: str = "") -> JobView | None:
    v = latest(store, kind, key)
    return v if v is not None and v.running else None


def cancel(store, job_id: int) -> JobView:
    """Ask the job to stop (it stops at its next progress step); returns its view."""
    v = view(store, job_id)
    if v.running and v.cancellable:
        request_cancel(store, job_id)
    return view(store, job_id)


def start(store, kind: str, work: Callable[[Task], dict | None], *, title: str, key: str = "",
          by: str = "", unit: str = "", cancel: str | None = "raise",
          total: int = 0, params: dict | None = None, wait: bool = False) -> int:
    """Record a job and run `work(task)` in a daemon thread; returns the job id at once.
    `work` returns the result dict the page lands on. `cancel`: "raise" (the work stops at
    `task.progress`), "flag" (the work reads the job's cancel flag itself), None (cannot be
    stopped safely, e.g. a reindex that has reset the indexes). `wait`: run in this thread
    (scripts and tests). Raises JobRunning if a job of `kind` for `key` still runs."""
    with _START_LOCK:
        busy = running(store, kind, key)
        if busy is not None:
            raise JobRunning(busy)
        job_id = start_job(store, kind, total=total, params={
            **(params or {}), "runner": RUNNER, "key": key, "title": title, "by": by,
            "unit": unit, "cancel": cancel})
    task = Task(store, job_id, raise_on_cancel=cancel == "raise")
    if wait:
        _run(store, task, work)
    else:
        threading.Thread(target=_run, args=(store, task, work), daemon=True,
                         name=f"{kind}-job-{job_id}").start()
    return job_id


def _run(store, task: Task, work: Callable[[Task], dict | None]) -> None:
    """The worker: the result or the reason it failed goes into the job row; a traceback
    only into the server log."""
    try:
        result = work(task) or {}
    except Cancelled:
        _finish(store, task.job_id, "cancelled", error="cancelled from the dashboard")
    except RagscopeError as e:
        _finish(store, task.job_id, "failed", error=str(e))
    except Exception as e:  # noqa: BLE001 - the page shows the reason, the log the traceback
        log.exception("background job %s failed", task.job_id)
        _finish(store, task.job_id, "failed", error=f"{type(e).__name__}: {e}")
    else:
        _finish(store, task.job_id, "done", result=result)


def _finish(store, job_id: int, status: str, *, error: str | None = None,
            result: dict | None = None) -> None:
    """Finish the job unless the work has finished it itself (an upload's ingest batch
    records its outcomes and "cancelled" in the same row): then only add the result."""
    with store.session() as s:
        job = s.get(Job, job_id)
        if job is None:
            return
        if job.status != "running":
            job.result = {**(job.result or {}), **(result or {})}
            return
    finish_job(store, job_id, status, error=error, result=result)


def _mark_interrupted(store, job_id: int, reason: str) -> None:
    with store.session() as s:
        job = s.get(Job, job_id)
        if job is not None and job.status == "running":
            job.status, job.error, job.finished_at = "failed", f"interrupted: {reason}", utcnow()
