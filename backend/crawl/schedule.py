"""Scheduled re-crawls and folder syncs with APScheduler, and exactly one scheduler process.

Schedules are part of the crawl sources (`schedule_kind` none|interval|cron, `schedule_value`
minutes or a crontab), so any process — a dashboard, the CLI — may edit them. The process
that holds the scheduler lease runs an APScheduler `BackgroundScheduler` whose job store is
`SQLAlchemyJobStore` on the same database (table `apscheduler_jobs`, migration 0003): next run
times survive restarts, missed runs are coalesced into one. Every `sync_s` seconds the leader
reconciles the job store with the sources (adds, changes, removes jobs).

One scheduler only: the lease is the row `scheduler_lock(name='scheduler')`, taken and renewed
with an atomic compare-and-set UPDATE (`WHERE owner = me OR expires_at < now`), so it works on
SQLite and PostgreSQL and across hosts. The holder renews it every lease/3 seconds; a process
that cannot renew stops its scheduler at once. A second dashboard finds the lease held, stays
on standby and retries; it takes over when the holder releases the lease on exit, when the
lease expires (holder crashed elsewhere), or at once when the holder is a dead process on the
same host."""
from __future__ import annotations

import atexit
import logging
import os
import socket
import threading
import time
import uuid
from datetime import datetime, timedelta, timezone

from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError

from backend.store import Store
from backend.store.crawl_models import CrawlSource, SchedulerLock
from backend.store.models import utcnow

log = logging.getLogger(__name__)
LOCK_NAME = "scheduler"
JOB_PREFIX = "crawl-source-"
HOST = socket.gethostname()
_NO_SYNC = {"synchronize_session": False}  # plain SQL compare-and-set, no ORM evaluation
_active: "CrawlScheduler | None" = None  # the leader in this process, used by the job function


def run_scheduled_source(source_id: int) -> None:
    """The APScheduler job (stored by reference): run one source in the leader process."""
    sched = _active
    if sched is None or not sched.is_leader:
        log.warning("scheduled run of source %s skipped: this process is not the leader",
                    source_id)
        return
    try:
        run_id = sched.service.prepare(source_id, trigger="schedule")
    except Exception:
        log.exception("scheduled run of source %s could not start", source_id)
        return
    with sched._running_guard:
        sched._running.add(run_id)
    try:
        sched.service.execute(run_id)
    except Exception:
        log.exception("scheduled run of source %s failed", source_id)
    finally:
        with sched._running_guard:
            sched._running.discard(run_id)


def make_trigger(kind: str, value: str) -> IntervalTrigger | CronTrigger | None:
    if kind == "interval":
        return IntervalTrigger(minutes=int(value), timezone=timezone.utc)
    if kind == "cron":
        return CronTrigger.from_crontab(value, timezone=timezone.utc)
    return None


class SchedulerLease:
    def __init__(self, store: Store, lease_s: float, owner: str | None = None):
        self.store = store
        self.lease = timedelta(seconds=lease_s)
        self.owner = owner or f"{HOST}:{os.getpid()}:{uuid.uuid4().hex[:8]}"

    def acquire(self) -> bool:
        """Take or renew the lease; True when this owner holds it now."""
        now = utcnow()
        values = dict(owner=self.owner, expires_at=now + self.lease)
        with self.store.session() as s:
            row = s.get(SchedulerLock, LOCK_NAME)
            if row is None:
                return self._insert(now)
            stale = row.owner if self._dead_here(row.owner) else None
            q = update(SchedulerLock).where(SchedulerLock.name == LOCK_NAME)
            cond = ((SchedulerLock.owner == self.owner) | (SchedulerLock.expires_at < now))
            if stale:
                cond = cond | (SchedulerLock.owner == stale)
            if row.owner != self.owner:
                values["acquired_at"] = now
            return s.execute(q.where(cond).values(**values),
                             execution_options=_NO_SYNC).rowcount == 1

    def renew(self) -> bool:
        """Extend the lease only if this owner still holds it."""
        with self.store.session() as s:
            q = (update(SchedulerLock).where(SchedulerLock.name == LOCK_NAME,
                                             SchedulerLock.owner == self.owner)
                 .values(expires_at=utcnow() + self.lease))
            return s.execute(q, execution_options=_NO_SYNC).rowcount == 1

    def release(self) -> None:
        with self.store.session() as s:
            s.execute(delete(SchedulerLock).where(SchedulerLock.name == LOCK_NAME,
                                                  SchedulerLock.owner == self.owner),
                      execution_options=_NO_SYNC)

    def holder(self) -> tuple[str, datetime] | None:
        with self.store.session() as s:
            row = s.get(SchedulerLock, LOCK_NAME)
            return (row.owner, row.expires_at) if row else None

    def _insert(self, now: datetime) -> bool:
        try:
            with self.store.session() as s:
                s.add(SchedulerLock(name=LOCK_NAME, owner=self.owner, acquired_at=now,
                                    expires_at=now + self.lease))
            return True
        except IntegrityError:  # another process inserted first
            return False

    @staticmethod
    def _dead_here(owner: str) -> bool:
        host, _, rest = owner.partition(":")
        pid = rest.partition(":")[0]
        if host != HOST or not pid.isdigit() or int(pid) == os.getpid():
            return False
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False


class CrawlScheduler:
    """Start one per process (the dashboard's st.cache_resource, or `crawl-scheduler`);
    only the lease holder runs jobs."""

    def __init__(self, service, *, lease_s: float | None = None, sync_s: float = 30.0,
                 owner: str | None = None):
        self.service = service
        self.store: Store = service.store
        lease_s = lease_s or service.rs.settings.scheduler_lease_s
        self.lease = SchedulerLease(self.store, lease_s, owner)
        self.renew_s = lease_s / 3
        self.sync_s = sync_s
        self.aps: BackgroundScheduler | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_sync = 0.0
        self._running: set[int] = set()  # crawl runs this process executes now
        self._running_guard = threading.Lock()

    @property
    def is_leader(self) -> bool:
        return self.aps is not None

    def start(self) -> bool:
        """Try to become the leader now and keep trying in the background; True if leader."""
        self._tick()
        self._thread = threading.Thread(target=self._loop, name="crawl-scheduler-lease",
                                        daemon=True)
        self._thread.start()
        atexit.register(self.lease.release)  # a clean exit hands over at once
        return self.is_leader

    def stop(self, wait_s: float = 120.0) -> None:
        """Stop scheduling; running crawls are cancelled (they end as `cancelled`, resumable,
        with the pages fetched so far ingested) and waited for up to `wait_s`."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._cancel_running(wait_s)
        self._step_down()
        self.lease.release()
        atexit.unregister(self.lease.release)

    def _cancel_running(self, wait_s: float) -> None:
        with self._running_guard:
            running = sorted(self._running)
        for run_id in running:
            try:
                self.service.cancel(run_id)
            except Exception as exc:  # finished meanwhile, or not started yet
                log.info("crawl run %s not cancelled: %s", run_id, exc)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            with self._running_guard:
                if not self._running:
                    return
            time.sleep(0.1)
        log.warning("crawl runs %s still running after %.0f s; leaving them", running, wait_s)

    def _loop(self) -> None:
        while not self._stop.wait(min(self.renew_s, self.sync_s)):
            try:
                self._tick()
            except Exception:
                log.exception("scheduler lease check failed")

    def _tick(self) -> None:
        if self.is_leader:
            if not self.lease.renew():
                log.warning("scheduler lease lost to %s; stopping scheduled jobs here",
                            (self.lease.holder() or ("nobody",))[0])
                self._step_down()
                return
        elif self.lease.acquire():
            self._lead()
        if self.is_leader and (utcnow().timestamp() - self._last_sync >= self.sync_s):
            self.sync()

    def _lead(self) -> None:
        global _active
        store = SQLAlchemyJobStore(engine=self.store.engine, tablename="apscheduler_jobs")
        self.aps = BackgroundScheduler(
            jobstores={"default": store}, timezone=timezone.utc,
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": 3600})
        self.aps.start()
        _active = self
        log.info("this process (%s) runs the crawl scheduler", self.lease.owner)
        self.sync()

    def _step_down(self) -> None:
        global _active
        if self.aps is not None:
            self.aps.shutdown(wait=False)
            self.aps = None
        if _active is self:
            _active = None

    def sync(self) -> dict[str, int]:
        """Make the job store match the sources' schedules. Leader only; keeps the next run
        time of a job whose trigger did not change."""
        if self.aps is None:
            return {}
        self._last_sync = utcnow().timestamp()
        with self.store.session() as s:
            sources = list(s.scalars(select(CrawlSource)))
        wanted = {f"{JOB_PREFIX}{src.id}": src for src in sources
                  if src.enabled and src.schedule_kind != "none"}
        counts = {"added": 0, "changed": 0, "removed": 0}
        for job in self.aps.get_jobs():
            if job.id.startswith(JOB_PREFIX) and job.id not in wanted:
                job.remove()
                counts["removed"] += 1
        for job_id, src in wanted.items():
            trigger = make_trigger(src.schedule_kind, src.schedule_value)
            job = self.aps.get_job(job_id)
            if job is not None and str(job.trigger) == str(trigger):
                continue
            counts["changed" if job else "added"] += 1
            self.aps.add_job(run_scheduled_source, trigger, args=[src.id], id=job_id,
                             name=f"crawl {src.name}", replace_existing=True)
        return counts

    def next_runs(self) -> dict[int, datetime | None]:
        """Source id -> next scheduled run, read from the job store (works on standby too)."""
        store = SQLAlchemyJobStore(engine=self.store.engine, tablename="apscheduler_jobs")
        with self.store.engine.connect() as conn:
            rows = conn.execute(select(store.jobs_t.c.id, store.jobs_t.c.next_run_time)).all()
        return {int(i[len(JOB_PREFIX):]): (datetime.fromtimestamp(t, timezone.utc) if t else None)
                for i, t in rows if i.startswith(JOB_PREFIX)}
