"""Replayable ask jobs (issue 26, seed 004: "Statusabfrage, Event-IDs, Replay/Tailing und
Stale-Erkennung"). `start` validates a question like `/api/ask` does, stores a job and
answers it in a worker thread of this process (the chat's `ask_stream`, so the turn is
stored in the actor's session as with `/api/ask`). Every event the answer produces is
stored with a sequence number (its SSE id), so `stream` can replay what a client missed
and tail the rest from any API worker: the store, not this process, is the truth.

Events: `status` ({"phase": "retrieving" | "generating"}), `sources`, `delta` (text; the
pieces that arrive within DELTA_FLUSH_S are stored as one), `notice`, and last `answer` or
`error`. The worker beats the job's heartbeat every sixth of RAGSCOPE_ASK_JOB_STALE_S; a
running job whose heartbeat is older than that lost its worker (the process died): it is
marked `stale` and its stream ends with a `job_stale` error instead of waiting forever.

A job belongs to whoever started it (`chat_user`): for anyone else it does not exist (the
same 404 as an unknown id). Finished jobs are deleted RAGSCOPE_ASK_JOB_RETENTION_S after
they end (at the next `start`)."""
from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Callable, Iterator

from sqlalchemy import delete, func, select, update

from backend.errors import NotFound, RagscopeError
from backend.security.access import Actor
from backend.services import search as search_service
from backend.store.ask_job_models import AskJob, AskJobEvent

log = logging.getLogger("backend.services.ask_jobs")

# An encoder turns one chat event into (event name, JSON-able data), or None to skip it; the
# API passes its own (backend/api/ask_events.py), so this layer does not import the API.
Encoder = Callable[[object], "tuple[str, dict] | None"]
TERMINAL = ("answer", "error")
DELTA_FLUSH_S = 0.1  # deltas within this are one stored event (a write per token is wasteful)
POLL_S = 0.1  # how often a tailing stream looks for new events


@dataclass
class JobInfo:
    id: str
    status: str  # running | done | failed | stale
    question: str
    created_at: datetime
    heartbeat_at: datetime
    finished_at: datetime | None
    events: int  # the last event id so far
    error: str


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _aware(dt: datetime | None) -> datetime | None:
    """SQLite gives naive datetimes back; they were stored in UTC."""
    return dt if dt is None or dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def _not_found(job_id: str) -> NotFound:
    return NotFound(f"ask job {job_id!r} does not exist (any more), or was started by "
                    "someone else")


# ---- start: validate, store the job, answer in a thread ----------------------------------


def start(rs, actor: Actor, question: str, *, encode: Encoder, **ask) -> JobInfo:
    """Validate the question (errors raise here, as for `/api/ask`), store a running job and
    answer it in a worker thread. `ask`: `search.ask_stream`'s keywords (session,
    collections, policy, context_limit, context, provider_factory)."""
    events = search_service.ask_stream(rs, actor, question, **ask)
    return start_events(rs, actor, question, events, encode=encode)


def start_events(rs, actor, question: str, events: Iterator, *, encode: Encoder) -> JobInfo:
    """A job over chat events whose question was validated already: the dashboard's chat
    passes its session's `ChatService.ask_stream`. The job is `actor`'s (`chat_user`)."""
    purge(rs)
    job = AskJob(id=str(uuid.uuid4()), owner=search_service.chat_user(actor),
                 question=question.strip(), status="running",
                 worker=f"{socket.gethostname()}:{os.getpid()}", error="",
                 created_at=_now(), heartbeat_at=_now())
    with rs.store.session() as s:
        s.add(job)
    worker = _Worker(rs, job.id, events, encode)
    threading.Thread(target=worker.run, name=f"ask-job-{job.id[:8]}", daemon=True).start()
    return status(rs, actor, job.id)


class _Gone(Exception):
    """The job is no longer running (marked stale or purged): the worker stops."""


class _Worker:
    """Runs one job: stores its events in order, beats its heartbeat, records the end."""

    def __init__(self, rs, job_id: str, events: Iterator, encode: Encoder):
        self.rs, self.job_id, self.events, self.encode = rs, job_id, events, encode
        self.seq = 0
        self.pending: list[str] = []  # delta text not stored yet
        self.lock = threading.Lock()  # the event order: this thread's and the beat's writes
        self.done = threading.Event()

    def run(self) -> None:
        beat = threading.Thread(target=self._beat, daemon=True)
        beat.start()
        try:
            with self.lock:
                self._append("status", {"phase": "retrieving"})
            for ev in self.events:
                self._handle(ev)
            with self.lock:
                self._flush()
            self._finish("done", "")
        except _Gone:
            log.warning("ask job %s stopped: it is no longer running", self.job_id)
        except Exception as e:  # the job ends with an error event, as /api/ask's stream
            log.error("ask job %s failed", self.job_id, exc_info=e)
            self._fail(e)
        finally:
            self.done.set()

    def _handle(self, ev) -> None:
        encoded = self.encode(ev)
        if encoded is None:
            return
        name, data = encoded
        with self.lock:
            if name == "delta":  # stored by the beat thread within DELTA_FLUSH_S
                self.pending.append(data["text"])
                return
            self._flush()
            self._append(name, data)
            if name == "sources":
                self._append("status", {"phase": "generating"})

    def _flush(self) -> None:
        if self.pending:
            text, self.pending = "".join(self.pending), []
            self._append("delta", {"text": text})

    def _append(self, name: str, data: dict) -> None:
        with self.rs.store.session() as s:
            if s.scalar(select(AskJob.status).where(AskJob.id == self.job_id)) != "running":
                raise _Gone()
            self.seq += 1
            s.add(AskJobEvent(job_id=self.job_id, seq=self.seq, event=name,
                              data=json.dumps(data, ensure_ascii=False, default=str)))
            s.execute(update(AskJob).where(AskJob.id == self.job_id)
                      .values(heartbeat_at=_now()))

    def _finish(self, state: str, error: str) -> None:
        with self.rs.store.session() as s:
            s.execute(update(AskJob).where(AskJob.id == self.job_id,
                                           AskJob.status == "running")
                      .values(status=state, error=error, finished_at=_now(),
                              heartbeat_at=_now()))

    def _fail(self, e: Exception) -> None:
        """A RagscopeError's message is made for the user (a session gone, a provider
        refused); anything else is not shown."""
        error = {"code": "internal_error", "field": None,
                 "message": "the answer could not be completed"}
        if isinstance(e, RagscopeError):
            error.update(code="answer_failed", message=str(e))
        try:
            with self.lock:
                self._flush()
                self._append("error", {"error": error})
        except _Gone:
            return
        self._finish("failed", error["message"])

    def _beat(self) -> None:
        """Store the pending delta text every DELTA_FLUSH_S (a model that pauses does not
        hold back what it said) and beat the heartbeat every sixth of the stale time."""
        every, last = self.rs.settings.ask_job_stale_s / 6, time.monotonic()
        try:
            while not self.done.wait(DELTA_FLUSH_S):
                with self.lock:
                    self._flush()
                if time.monotonic() - last >= every:
                    last = time.monotonic()
                    with self.rs.store.session() as s:
                        s.execute(update(AskJob).where(AskJob.id == self.job_id,
                                                       AskJob.status == "running")
                                  .values(heartbeat_at=_now()))
        except _Gone:
            return
        except Exception as e:  # the worker goes on; without beats the job turns stale
            log.error("ask job %s: heartbeat failed", self.job_id, exc_info=e)


# ---- status, stale detection, replay ------------------------------------------------------


def _own_job(s, actor: Actor, job_id: str) -> AskJob:
    job = s.get(AskJob, job_id) if len(job_id) <= 36 else None
    if job is None or job.owner != search_service.chat_user(actor):
        raise _not_found(job_id)
    return job


def _mark_if_stale(rs, s, job: AskJob) -> None:
    """A running job without a heartbeat for RAGSCOPE_ASK_JOB_STALE_S lost its worker: mark
    it stale (only if it is still running: one API worker wins) and end its events."""
    cutoff = _now() - timedelta(seconds=rs.settings.ask_job_stale_s)
    if job.status != "running" or _aware(job.heartbeat_at) >= cutoff:
        return
    done = s.execute(update(AskJob).where(AskJob.id == job.id, AskJob.status == "running",
                                          AskJob.heartbeat_at < cutoff)
                     .values(status="stale", finished_at=_now(),
                             error=f"no heartbeat from its worker ({job.worker}) for "
                                   f"{rs.settings.ask_job_stale_s:g} s")
                     .execution_options(synchronize_session=False))  # refreshed below
    if done.rowcount:
        last = s.scalar(select(func.max(AskJobEvent.seq)).where(AskJobEvent.job_id == job.id))
        s.add(AskJobEvent(job_id=job.id, seq=(last or 0) + 1, event="error", data=json.dumps(
            {"error": {"code": "job_stale", "field": None,
                       "message": "the worker answering this job stopped (no heartbeat "
                                  f"for {rs.settings.ask_job_stale_s:g} s); ask again"}})))
    s.flush()
    s.refresh(job)


def status(rs, actor: Actor, job_id: str) -> JobInfo:
    """The actor's job `job_id` (NotFound for another's or an unknown one); a running job
    without a recent heartbeat comes back stale."""
    with rs.store.session() as s:
        job = _own_job(s, actor, job_id)
        _mark_if_stale(rs, s, job)
        last = s.scalar(select(func.max(AskJobEvent.seq)).where(AskJobEvent.job_id == job.id))
        return JobInfo(job.id, job.status, job.question, _aware(job.created_at),
                       _aware(job.heartbeat_at), _aware(job.finished_at), last or 0, job.error)


def stream(rs, actor: Actor, job_id: str, after: int = 0) -> Iterator[tuple[int, str, str]]:
    """The job's events after event id `after` as (id, name, JSON data): the stored ones at
    once, then the new ones as the worker stores them, until `answer` or `error`. The job
    is looked up here (NotFound before anything streams)."""
    info = status(rs, actor, job_id)
    return _tail(rs, actor, info.id, max(0, after))


def _tail(rs, actor: Actor, job_id: str, after: int) -> Iterator[tuple[int, str, str]]:
    while True:
        with rs.store.session() as s:
            rows = s.execute(select(AskJobEvent.seq, AskJobEvent.event, AskJobEvent.data)
                             .where(AskJobEvent.job_id == job_id, AskJobEvent.seq > after)
                             .order_by(AskJobEvent.seq)).all()
        for seq, name, data in rows:
            yield seq, name, data
            after = seq
            if name in TERMINAL:
                return
        if not rows:
            info = status(rs, actor, job_id)  # marks a job without heartbeat stale
            if info.status != "running" and info.events <= after:
                return  # ended (or purged) with nothing more to send
            if info.status == "running":
                time.sleep(POLL_S)


def purge(rs) -> int:
    """Delete jobs that ended more than RAGSCOPE_ASK_JOB_RETENTION_S ago, with their
    events; returns how many."""
    cutoff = _now() - timedelta(seconds=rs.settings.ask_job_retention_s)
    with rs.store.session() as s:
        ids = list(s.scalars(select(AskJob.id).where(AskJob.status != "running",
                                                     AskJob.finished_at < cutoff)))
        if ids:
            s.execute(delete(AskJobEvent).where(AskJobEvent.job_id.in_(ids)))
            s.execute(delete(AskJob).where(AskJob.id.in_(ids)))
    return len(ids)
