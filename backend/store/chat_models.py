"""Models of the chat: sessions (one per conversation, with its settings) and messages
(questions and answers, with sources, citation check, tokens, cost, model and latency).
Deleting a session deletes its messages (ON DELETE CASCADE). Migration 0004 (context mode and rewrite: 0020); the side table of
the documents an answer's sources come from: migration 0007."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, DateTime, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from backend.store.models import Base, utcnow

DEFAULT_TITLE = "New chat"


class ChatSession(Base):
    __tablename__ = "chat_sessions"
    id: Mapped[int] = mapped_column(primary_key=True)
    uuid: Mapped[str] = mapped_column(String(36), unique=True)
    user: Mapped[str | None] = mapped_column(String(100), nullable=True, index=True)
    title: Mapped[str] = mapped_column(String(255), default=DEFAULT_TITLE)
    provider: Mapped[str] = mapped_column(String(30), default="extractive")
    model: Mapped[str] = mapped_column(String(200), default="")
    collections: Mapped[list] = mapped_column(JSON, default=list)
    context_limit: Mapped[int] = mapped_column(Integer, default=5)
    temperature: Mapped[float] = mapped_column(Float, default=0.7)
    max_tokens: Mapped[int] = mapped_column(Integer, default=1024)
    policy: Mapped[str] = mapped_column(String(30), default="hybrid")
    system_prompt: Mapped[str] = mapped_column(Text, default="")
    answer_profile: Mapped[str] = mapped_column(String(30), default="markdown")
    # regular (25 lines of the conversation) | full (500 lines; migration 0020)
    context_mode: Mapped[str] = mapped_column(String(10), default="regular",
                                              server_default="regular")
    # answer only from documents with one of these tags (migration 0027, docs/tags.md)
    tags: Mapped[list] = mapped_column(JSON, default=list, server_default="[]")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_activity: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow,
                                                    index=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow,
                                                 onupdate=utcnow)
    # a chatbot's conversation (migration 0018); None for the chat page's own sessions
    chatbot_id: Mapped[int | None] = mapped_column(
        ForeignKey("chatbots.id", ondelete="CASCADE", name="fk_chat_sessions_chatbot_id"),
        nullable=True, index=True)
    # the author profile it writes by (migration 0026); None: no style rules
    profile_id: Mapped[int | None] = mapped_column(
        ForeignKey("author_profiles.id", ondelete="SET NULL"), nullable=True, index=True)

    messages: Mapped[list["ChatMessage"]] = relationship(
        back_populates="session", cascade="all, delete-orphan", passive_deletes=True,
        order_by="ChatMessage.id")


class ChatMessage(Base):
    __tablename__ = "chat_messages"
    __table_args__ = (Index("ix_chat_messages_session", "session_id", "id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("chat_sessions.id", ondelete="CASCADE"))
    role: Mapped[str] = mapped_column(String(10))  # user | assistant
    content: Mapped[str] = mapped_column(Text)
    sources: Mapped[list] = mapped_column(JSON, default=list)
    citations: Mapped[dict] = mapped_column(JSON, default=dict)
    format_check: Mapped[dict] = mapped_column(JSON, default=dict)
    collections: Mapped[list] = mapped_column(JSON, default=list)
    provider: Mapped[str] = mapped_column(String(30), default="")
    model: Mapped[str] = mapped_column(String(200), default="")
    tokens_input: Mapped[int | None] = mapped_column(Integer, nullable=True)
    tokens_output: Mapped[int | None] = mapped_column(Integer, nullable=True)
    tokens_counted_locally: Mapped[bool] = mapped_column(Boolean, default=False)
    cost_usd: Mapped[float | None] = mapped_column(Float, nullable=True)
    cost_label: Mapped[str] = mapped_column(String(10), default="local")  # local|priced|unknown
    latency_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    first_token_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    retrieval_ms: Mapped[float | None] = mapped_column(Float, nullable=True)
    trace_id: Mapped[str | None] = mapped_column(String(36), nullable=True)
    fallback: Mapped[bool] = mapped_column(Boolean, default=False)
    # a chatbot's reply was its fallback message (migration 0029; the test page's rate)
    bot_fallback: Mapped[bool] = mapped_column(Boolean, default=False)
    notice: Mapped[str | None] = mapped_column(Text, nullable=True)
    # a follow-up's rewritten retrieval query, why, the document in focus (migration 0020)
    rewrite: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow,
                                                 index=True)

    session: Mapped[ChatSession] = relationship(back_populates="messages")


class ChatMessageDocument(Base):
    """Which documents an answer's sources come from, so deleting a document finds the
    messages to mark without reading every message's sources JSON (migration 0007)."""

    __tablename__ = "chat_message_documents"
    message_id: Mapped[int] = mapped_column(
        ForeignKey("chat_messages.id", ondelete="CASCADE"), primary_key=True)
    document_id: Mapped[int] = mapped_column(Integer, primary_key=True, index=True)
