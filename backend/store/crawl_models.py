"""Models of crawling: sources (web sites and watched folders, with their schedule), runs
(one crawl, re-crawl or folder sync, with its saved frontier for resume), the known state of
every page/file of a source (for change detection), per-run events (what happened to each
URL, and why), the scheduler lock, and APScheduler's job store table. Migration 0003."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    Table,
    Text,
    Unicode,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from backend.store.models import Base, utcnow


class CrawlSource(Base):
    __tablename__ = "crawl_sources"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    kind: Mapped[str] = mapped_column(String(10), default="web")  # web | folder
    start_url: Mapped[str] = mapped_column(String(2000))  # URL, or folder path for kind folder
    collection: Mapped[str] = mapped_column(String(255))
    max_pages: Mapped[int] = mapped_column(Integer, default=50)
    max_depth: Mapped[int] = mapped_column(Integer, default=3)
    delay_s: Mapped[float] = mapped_column(Float, default=1.0)
    concurrency: Mapped[int] = mapped_column(Integer, default=2)
    respect_robots: Mapped[bool] = mapped_column(Boolean, default=True)
    use_sitemap: Mapped[bool] = mapped_column(Boolean, default=True)
    include_subdomains: Mapped[bool] = mapped_column(Boolean, default=False)
    # render pages with their JavaScript in Chromium (backend/crawl/render.py; 0029)
    render_js: Mapped[bool] = mapped_column(Boolean, default=False)
    schedule_kind: Mapped[str] = mapped_column(String(10), default="none")  # none|interval|cron
    schedule_value: Mapped[str] = mapped_column(String(100), default="")  # minutes | crontab
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow,
                                                 onupdate=utcnow)


class CrawlRun(Base):
    __tablename__ = "crawl_runs"
    id: Mapped[int] = mapped_column(primary_key=True)
    source_id: Mapped[int] = mapped_column(ForeignKey("crawl_sources.id", ondelete="CASCADE"),
                                           index=True)
    job_id: Mapped[int | None] = mapped_column(ForeignKey("jobs.id", ondelete="SET NULL"),
                                               nullable=True)
    trigger: Mapped[str] = mapped_column(String(20), default="manual")  # manual|schedule|resume
    status: Mapped[str] = mapped_column(String(20), default="running")
    # running | done | cancelled | failed | interrupted
    current_url: Mapped[str] = mapped_column(String(2000), default="")
    pages_total: Mapped[int] = mapped_column(Integer, default=0)
    counters: Mapped[dict] = mapped_column(JSON, default=dict)
    frontier: Mapped[list] = mapped_column(JSON, default=list)  # [[url, depth], ...] pending
    seen: Mapped[list] = mapped_column(JSON, default=list)  # urls already taken from frontier
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow,
                                                 onupdate=utcnow)


class CrawlPage(Base):
    """What is known about one URL (or file) of a source, across runs."""

    __tablename__ = "crawl_pages"
    __table_args__ = (UniqueConstraint("source_id", "url"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    source_id: Mapped[int] = mapped_column(ForeignKey("crawl_sources.id", ondelete="CASCADE"))
    url: Mapped[str] = mapped_column(String(2000))
    final_url: Mapped[str] = mapped_column(String(2000), default="")
    document_id: Mapped[int | None] = mapped_column(
        ForeignKey("documents.id", ondelete="SET NULL"), nullable=True)
    state: Mapped[str] = mapped_column(String(20), default="active")  # active | gone | failed
    content_sha: Mapped[str] = mapped_column(String(64), default="")
    etag: Mapped[str] = mapped_column(String(500), default="")
    last_modified: Mapped[str] = mapped_column(String(100), default="")
    sitemap_lastmod: Mapped[datetime | None] = mapped_column(DateTime(timezone=True),
                                                             nullable=True)
    http_status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    depth: Mapped[int] = mapped_column(Integer, default=0)
    links: Mapped[list] = mapped_column(JSON, default=list)  # out-links, reused on 304
    last_run_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    first_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    changed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class CrawlEvent(Base):
    """What happened to one URL in one run: new, changed, unchanged, linked, skipped,
    refused, failed, archived or restored — with the reason."""

    __tablename__ = "crawl_events"
    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("crawl_runs.id", ondelete="CASCADE"),
                                        index=True)
    url: Mapped[str] = mapped_column(String(2000))
    outcome: Mapped[str] = mapped_column(String(20))
    reason: Mapped[str] = mapped_column(Text, default="")
    http_status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    document_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    size_bytes: Mapped[int] = mapped_column(Integer, default=0)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class SchedulerLock(Base):
    """A lease: the one process allowed to run scheduled jobs holds this row and renews it."""

    __tablename__ = "scheduler_lock"
    name: Mapped[str] = mapped_column(String(50), primary_key=True)
    owner: Mapped[str] = mapped_column(String(200))
    acquired_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


# APScheduler's SQLAlchemyJobStore table (same layout APScheduler 3 creates), declared here so
# the schema is owned by the migrations.
apscheduler_jobs = Table(
    "apscheduler_jobs", Base.metadata,
    Column("id", Unicode(191), primary_key=True),
    Column("next_run_time", Float(25), index=True),
    Column("job_state", LargeBinary, nullable=False),
)
