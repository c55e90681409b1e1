"""Crawl runs: creation, live progress (run row + job row), events, saved frontier, finish,
and the read side the dashboard and CLI use (progress, history, what changed)."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import func, select

from backend.errors import CrawlError, NotFound
from backend.services.jobs import finish_job, job_alive, start_job, update_job
from backend.store import Store
from backend.store.crawl_models import CrawlEvent, CrawlRun, CrawlSource
from backend.store.models import Job, utcnow

OUTCOMES = ("new", "changed", "unchanged", "linked", "skipped", "refused", "failed",
            "archived", "gone", "restored")
RESUMABLE = ("cancelled", "failed", "interrupted")


@dataclass
class Progress:
    """Live state of a run, for progress bars and the dashboard."""

    run_id: int
    source_id: int
    status: str
    pages_done: int
    pages_total: int
    current_url: str
    counters: dict[str, int] = field(default_factory=dict)
    frontier_left: int = 0
    job_id: int | None = None
    error: str | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None

    @property
    def documents_created(self) -> int:
        return self.counters.get("new", 0)

    @property
    def documents_linked(self) -> int:
        return self.counters.get("linked", 0)

    @property
    def errors(self) -> int:
        return self.counters.get("failed", 0) + self.counters.get("refused", 0)


@dataclass
class Event:
    url: str
    outcome: str
    reason: str = ""
    http_status: int | None = None
    document_id: int | None = None
    size_bytes: int = 0


def new_run(store: Store, source_id: int, trigger: str, frontier: list[list],
            pages_total: int) -> int:
    with store.session() as s:
        run = CrawlRun(source_id=source_id, trigger=trigger, status="queued",
                       frontier=frontier, seen=[f[0] for f in frontier], counters={},
                       pages_total=pages_total)
        s.add(run)
        s.flush()
        return run.id


def begin(store: Store, run_id: int, kind: str) -> int:
    """Mark a run running under a new job (also for a resume); returns the job id."""
    with store.session() as s:
        run = _get(s, run_id)
        if run.status == "running" and run.job_id is not None:
            job = s.get(Job, run.job_id)
            if job is not None and job_alive(job):
                raise CrawlError(f"crawl run {run_id} is already running (job {run.job_id})")
        total, source_id = run.pages_total, run.source_id
    job_id = start_job(store, kind, total=total, params={"run_id": run_id,
                                                          "source_id": source_id})
    with store.session() as s:
        run = _get(s, run_id)
        run.status, run.job_id, run.error, run.finished_at = "running", job_id, None, None
    return job_id


def requeue(store: Store, run_id: int) -> None:
    """A run about to be resumed in a background thread reads as queued from now on (not as
    the cancelled or failed run it was until the thread begins it)."""
    with store.session() as s:
        run = _get(s, run_id)
        run.status, run.error, run.finished_at = "queued", None, None


def save(store: Store, run_id: int, *, events: list[Event], current_url: str,
         counters: dict[str, int], pages_total: int, frontier: list[list] | None = None,
         seen: list[str] | None = None) -> bool:
    """Persist events and progress (and the frontier and seen set when given); returns True
    when cancellation was requested."""
    with store.session() as s:
        run = _get(s, run_id)
        s.add_all(CrawlEvent(run_id=run_id, **e.__dict__) for e in events)
        run.current_url = current_url[:2000]
        run.counters, run.pages_total = dict(counters), pages_total
        if frontier is not None:
            run.frontier = frontier
        if seen is not None:
            run.seen = seen
        job_id = run.job_id
    if job_id is None:
        return False
    bad = counters.get("failed", 0) + counters.get("refused", 0)
    return update_job(store, job_id, done=counters.get("pages", 0) - bad, failed=bad,
                      total=pages_total, message=current_url)


def finish(store: Store, run_id: int, status: str, error: str | None = None) -> None:
    with store.session() as s:
        run = _get(s, run_id)
        run.status, run.error, run.finished_at = status, error, utcnow()
        run.current_url = ""
        job_id, counters = run.job_id, dict(run.counters)
    if job_id is not None:
        job_status = status if status in ("done", "cancelled", "failed") else "failed"
        finish_job(store, job_id, job_status, error=error,
                   result={**counters, "run_id": run_id})


def mark_interrupted(store: Store) -> int:
    """Runs left 'running' by a process that is gone become 'interrupted' (resumable)."""
    n = 0
    with store.session() as s:
        for run in s.scalars(select(CrawlRun).where(CrawlRun.status == "running")):
            job = s.get(Job, run.job_id) if run.job_id else None
            if job is None or not job_alive(job):
                run.status, run.error, run.finished_at = "interrupted", "process ended", utcnow()
                if job is not None and job.status == "running":
                    job.status, job.error, job.finished_at = "failed", "interrupted", utcnow()
                n += 1
    return n


def progress(store: Store, run_id: int) -> Progress:
    with store.session() as s:
        r = _get(s, run_id)
        return Progress(r.id, r.source_id, r.status, r.counters.get("pages", 0), r.pages_total,
                        r.current_url, dict(r.counters), len(r.frontier), r.job_id, r.error,
                        r.started_at, r.finished_at)


def history(store: Store, source_id: int | None = None, limit: int = 20) -> list[Progress]:
    with store.session() as s:
        q = select(CrawlRun.id).order_by(CrawlRun.id.desc()).limit(limit)
        if source_id is not None:
            q = q.where(CrawlRun.source_id == source_id)
        ids = list(s.scalars(q))
    return [progress(store, i) for i in ids]


def events(store: Store, run_id: int, outcomes: tuple[str, ...] | None = None) -> list[Event]:
    with store.session() as s:
        q = select(CrawlEvent).where(CrawlEvent.run_id == run_id).order_by(CrawlEvent.id)
        if outcomes:
            q = q.where(CrawlEvent.outcome.in_(outcomes))
        return [Event(e.url, e.outcome, e.reason, e.http_status, e.document_id, e.size_bytes)
                for e in s.scalars(q)]


def last_changes(store: Store, source_id: int) -> dict[str, list[str]]:
    """What the last finished run of a source changed: new, changed and removed URLs."""
    with store.session() as s:
        run_id = s.scalar(select(func.max(CrawlRun.id)).where(
            CrawlRun.source_id == source_id, CrawlRun.status.in_(("done", "cancelled"))))
    if run_id is None:
        return {"new": [], "changed": [], "removed": []}
    evs = events(store, run_id, ("new", "changed", "archived", "gone", "restored"))
    return {"new": [e.url for e in evs if e.outcome in ("new", "restored")],
            "changed": [e.url for e in evs if e.outcome == "changed"],
            "removed": [e.url for e in evs if e.outcome in ("archived", "gone")]}


def load(store: Store, run_id: int) -> tuple[CrawlRun, CrawlSource]:
    with store.session() as s:
        run = _get(s, run_id)
        src = s.get(CrawlSource, run.source_id)
        return run, src


def _get(s, run_id: int) -> CrawlRun:
    run = s.get(CrawlRun, run_id)
    if run is None:
        raise NotFound(f"crawl run {run_id} not found")
    return run
