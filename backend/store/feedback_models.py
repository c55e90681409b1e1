"""Feedback on answers (migration 0023): a thumbs up or down with an optional note, one per
answer and rater, stored next to the chat message it rates (which keeps the answer, its
sources and its retrieval trace id). Deleting the message or its session deletes the
feedback (ON DELETE CASCADE)."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from backend.store.models import Base, utcnow


class AnswerFeedback(Base):
    __tablename__ = "answer_feedback"
    __table_args__ = (UniqueConstraint("message_id", "user", name="uq_answer_feedback"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[int] = mapped_column(
        ForeignKey("chat_messages.id", ondelete="CASCADE"), index=True)
    # who rated: a dashboard user's name, an API principal's "api:<name>"
    user: Mapped[str] = mapped_column(String(100), index=True)
    rating: Mapped[int] = mapped_column(Integer)  # +1 (thumbs up) | -1 (thumbs down)
    note: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow,
                                                 index=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
