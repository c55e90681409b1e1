"""Ask jobs (migration 0024; issue 26, seed 004): a question answered in a worker thread
of an API process, its events stored one row each so any API worker can replay them to a
client that reconnects (`Last-Event-ID`). The worker beats `heartbeat_at`; a running job
whose heartbeat is old lost its worker and is stale. Finished jobs and their events are
deleted after RAGSCOPE_ASK_JOB_RETENTION_S."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from backend.store.models import Base, utcnow


class AskJob(Base):
    __tablename__ = "ask_jobs"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)  # a UUID
    # who started it: a dashboard user's name, an API principal's "api:<name>"
    owner: Mapped[str] = mapped_column(String(100), index=True)
    question: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(20), index=True)  # running|done|failed|stale
    worker: Mapped[str] = mapped_column(String(200), default="")  # host:pid of its thread
    error: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    heartbeat_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), index=True)


class AskJobEvent(Base):
    __tablename__ = "ask_job_events"
    __table_args__ = (UniqueConstraint("job_id", "seq", name="uq_ask_job_event_seq"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    job_id: Mapped[str] = mapped_column(ForeignKey("ask_jobs.id", ondelete="CASCADE"),
                                        index=True)
    seq: Mapped[int] = mapped_column(Integer)  # the SSE event id: 1, 2, … per job
    event: Mapped[str] = mapped_column(String(20))  # status|sources|delta|notice|answer|error
    data: Mapped[str] = mapped_column(Text)  # the event's JSON
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
