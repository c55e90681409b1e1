"""Critics and critique rounds (migration 0025; seed 001 "Kritiker").

`critics`: the configured critics (seed: content_config type='critic'): name, type
(fact | style | structure | format), the prompt and rubric an LLM critic is asked with, the
pass threshold (0-10) and whether it is active. The format checker is a row too (type
`format`), so it can be switched off or given another threshold, but its check is code
(backend/chat/format_check.py), never a model.

`critique_runs`: one run of critique rounds on a text: a chat answer or chatbot reply
(`message_id`; deleting the message deletes its runs) or a given text (`text_hash`, e.g. a
summary), with the sources it was checked against, the final text, the status
(validated | revised | failed) and the rounds done. `content_critiques` (the seed's table
name): one row per round and critic with the seed's feedback (rating, issues, suggestions,
passed) and the model's raw reply. `critique_revisions`: the revised text of each round."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON, Boolean, DateTime, Float, ForeignKey, Integer, String, Text, UniqueConstraint)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from backend.store.models import Base, utcnow

CRITIC_TYPES = ("fact", "style", "structure", "format")
RUN_STATUSES = ("running", "validated", "revised", "failed")


class Critic(Base):
    __tablename__ = "critics"
    __table_args__ = (UniqueConstraint("name", name="uq_critics_name"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    type: Mapped[str] = mapped_column(String(20))  # fact | style | structure | format
    prompt: Mapped[str] = mapped_column(Text, default="")
    rubric: Mapped[str] = mapped_column(Text, default="")
    threshold: Mapped[float] = mapped_column(Float, default=7.0)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    position: Mapped[int] = mapped_column(Integer, default=0)  # the order critics run in
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow,
                                                 onupdate=utcnow)
    updated_by: Mapped[str] = mapped_column(String(100), default="")


class CritiqueRun(Base):
    __tablename__ = "critique_runs"
    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[int | None] = mapped_column(
        ForeignKey("chat_messages.id", ondelete="CASCADE"), nullable=True, index=True)
    text_hash: Mapped[str] = mapped_column(String(64), index=True)  # SHA-256 of the original
    kind: Mapped[str] = mapped_column(String(20), default="text")  # answer | reply | text
    original_text: Mapped[str] = mapped_column(Text)
    final_text: Mapped[str] = mapped_column(Text, default="")
    sources: Mapped[list] = mapped_column(JSON, default=list)  # [{"n", "title", "text"}]
    status: Mapped[str] = mapped_column(String(20), default="running", index=True)
    rounds: Mapped[int] = mapped_column(Integer, default=0)
    max_rounds: Mapped[int] = mapped_column(Integer, default=1)
    provider: Mapped[str] = mapped_column(String(30), default="")
    model: Mapped[str] = mapped_column(String(200), default="")
    user: Mapped[str] = mapped_column(String(100), default="", index=True)
    error: Mapped[str] = mapped_column(Text, default="")
    duration_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow,
                                                 index=True)

    critiques: Mapped[list["ContentCritique"]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True,
        order_by="(ContentCritique.round, ContentCritique.id)")
    revisions: Mapped[list["CritiqueRevision"]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True, order_by="CritiqueRevision.round")


class ContentCritique(Base):
    __tablename__ = "content_critiques"
    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("critique_runs.id", ondelete="CASCADE"),
                                        index=True)
    round: Mapped[int] = mapped_column(Integer)
    critic_id: Mapped[int | None] = mapped_column(
        ForeignKey("critics.id", ondelete="SET NULL"), nullable=True)
    critic_name: Mapped[str] = mapped_column(String(100))
    critic_type: Mapped[str] = mapped_column(String(20))
    rating: Mapped[float | None] = mapped_column(Float, nullable=True)  # None: failed critique
    threshold: Mapped[float] = mapped_column(Float)
    passed: Mapped[bool] = mapped_column(Boolean, default=False)
    issues: Mapped[list] = mapped_column(JSON, default=list)
    suggestions: Mapped[list] = mapped_column(JSON, default=list)
    summary: Mapped[str] = mapped_column(Text, default="")
    deterministic: Mapped[bool] = mapped_column(Boolean, default=False)
    raw: Mapped[str] = mapped_column(Text, default="")  # the model's reply as it came
    error: Mapped[str] = mapped_column(Text, default="")  # why the critique failed
    duration_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CritiqueRevision(Base):
    __tablename__ = "critique_revisions"
    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("critique_runs.id", ondelete="CASCADE"),
                                        index=True)
    round: Mapped[int] = mapped_column(Integer)  # the round whose critiques it answers
    text: Mapped[str] = mapped_column(Text)
    duration_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
