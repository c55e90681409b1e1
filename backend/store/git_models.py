"""Git repository sources (backend/ingest/git_source.py): what was synchronised last, and
each ingested file's blob, so a re-sync reads only what changed (migration 0014)."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from backend.store.models import Base, utcnow


class GitSource(Base):
    __tablename__ = "git_sources"
    __table_args__ = (UniqueConstraint("url", "branch", "subpath", "collection"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    url: Mapped[str] = mapped_column(String(2000))  # as given: a URL or an absolute path
    branch: Mapped[str] = mapped_column(String(255), default="")  # "" = the default branch
    subpath: Mapped[str] = mapped_column(String(1000), default="")
    collection: Mapped[str] = mapped_column(String(255))
    last_commit: Mapped[str] = mapped_column(String(64), default="")
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    synced_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class GitFile(Base):
    __tablename__ = "git_files"
    __table_args__ = (UniqueConstraint("source_id", "path"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    source_id: Mapped[int] = mapped_column(ForeignKey("git_sources.id", ondelete="CASCADE"))
    path: Mapped[str] = mapped_column(String(2000))
    blob: Mapped[str] = mapped_column(String(64), default="")
    document_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    state: Mapped[str] = mapped_column(String(20), default="active")  # active | failed | gone
