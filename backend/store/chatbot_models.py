"""Models of the chatbot builder (migration 0018): a chatbot's configuration, the
collections it answers from (references to `collections`, never copies of documents), and
one row per configuration change (the version history). A bot's conversations are chat
sessions (`chat_sessions.chatbot_id`), answered by the chat's own answer path.

The build (crawl + ingestion) is the crawl run `crawl_run_id` of the source
`crawl_source_id`: its progress, frontier and cancel flag live in `crawl_runs`/`jobs`, so a
page reload reads it back from the store."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from backend.store.models import Base, utcnow


class Chatbot(Base):
    __tablename__ = "chatbots"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)  # shown to users
    slug: Mapped[str] = mapped_column(String(100), unique=True)  # ^[a-z0-9-]+$, in URLs
    description: Mapped[str] = mapped_column(Text, default="")
    system_prompt: Mapped[str] = mapped_column(Text, default="")
    welcome_message: Mapped[str] = mapped_column(Text, default="")
    fallback_message: Mapped[str] = mapped_column(Text, default="")
    provider: Mapped[str] = mapped_column(String(30), default="extractive")
    model: Mapped[str] = mapped_column(String(200), default="")
    temperature: Mapped[float] = mapped_column(Float, default=0.3)
    max_tokens: Mapped[int] = mapped_column(Integer, default=1024)
    context_limit: Mapped[int] = mapped_column(Integer, default=5)
    policy: Mapped[str] = mapped_column(String(30), default="hybrid")
    # answer settings (migration 0029): decline below this source similarity (0 = off),
    # sources in replies, fetch a URL in a question
    min_relevance: Mapped[float] = mapped_column(Float, default=0.0)
    show_sources: Mapped[bool] = mapped_column(Boolean, default=True)
    question_urls: Mapped[bool] = mapped_column(Boolean, default=False)
    status: Mapped[str] = mapped_column(String(20), default="draft")  # draft | published
    source_url: Mapped[str] = mapped_column(String(2000), default="")
    crawl_source_id: Mapped[int | None] = mapped_column(
        ForeignKey("crawl_sources.id", ondelete="SET NULL"), nullable=True)
    crawl_run_id: Mapped[int | None] = mapped_column(
        ForeignKey("crawl_runs.id", ondelete="SET NULL"), nullable=True)
    # where the current build leg started: for the ETA of a started or resumed build
    build_started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True),
                                                              nullable=True)
    build_started_pages: Mapped[int] = mapped_column(Integer, default=0)
    # the author profile it writes by (migration 0026); None: no style rules
    profile_id: Mapped[int | None] = mapped_column(
        ForeignKey("author_profiles.id", ondelete="SET NULL"), nullable=True, index=True)
    config_version: Mapped[int] = mapped_column(Integer, default=1)
    created_by: Mapped[str] = mapped_column(String(100), default="")
    updated_by: Mapped[str] = mapped_column(String(100), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    published_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True),
                                                          nullable=True)


class ChatbotCollection(Base):
    """A collection a chatbot answers from; deleting either side removes the link."""

    __tablename__ = "chatbot_collections"
    chatbot_id: Mapped[int] = mapped_column(ForeignKey("chatbots.id", ondelete="CASCADE"),
                                            primary_key=True)
    collection_id: Mapped[int] = mapped_column(
        ForeignKey("collections.id", ondelete="CASCADE"), primary_key=True, index=True)
    position: Mapped[int] = mapped_column(Integer, default=0)


class ChatbotVersion(Base):
    """The configuration after a change (create, update, publish, unpublish)."""

    __tablename__ = "chatbot_versions"
    __table_args__ = (UniqueConstraint("chatbot_id", "version", name="uq_chatbot_versions"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    chatbot_id: Mapped[int] = mapped_column(ForeignKey("chatbots.id", ondelete="CASCADE"),
                                            index=True)
    version: Mapped[int] = mapped_column(Integer)
    config: Mapped[dict] = mapped_column(JSON, default=dict)
    change: Mapped[str] = mapped_column(String(500), default="")
    changed_by: Mapped[str] = mapped_column(String(100), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
