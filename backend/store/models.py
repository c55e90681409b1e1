"""SQLAlchemy 2 models of the metadata store — the source of truth. Chroma and the keyword
index are derived from it (`reindex`). Portable SQL only: runs on SQLite and PostgreSQL."""
from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    type_annotation_map = {dict: JSON, list: JSON}


class Collection(Base):
    """A named set of documents. Each collection belongs to one knowledge base, the unit
    access groups grant (backend/store/acl_models.py, docs/security.md)."""

    __tablename__ = "collections"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    knowledge_base_id: Mapped[int] = mapped_column(
        ForeignKey("knowledge_bases.id", ondelete="RESTRICT"), index=True)


class CollectionDocument(Base):
    __tablename__ = "collection_documents"
    collection_id: Mapped[int] = mapped_column(
        ForeignKey("collections.id", ondelete="CASCADE"), primary_key=True
    )
    document_id: Mapped[int] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), primary_key=True
    )
    added_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Document(Base):
    __tablename__ = "documents"
    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str] = mapped_column(String(500), default="")
    filename: Mapped[str] = mapped_column(String(500), default="")
    source_kind: Mapped[str] = mapped_column(String(20), default="file")  # file|upload|crawl|sync
    source_uri: Mapped[str] = mapped_column(String(2000), unique=True)
    file_type: Mapped[str] = mapped_column(String(20), default="")  # pdf, docx, ...
    doc_type: Mapped[str] = mapped_column(String(50), default="generic")  # minutes, manual, ...
    status: Mapped[str] = mapped_column(String(20), default="active")  # active|failed|archived
    meta: Mapped[dict] = mapped_column(JSON, default=dict)
    active_version_id: Mapped[int | None] = mapped_column(
        ForeignKey("document_versions.id", use_alter=True, name="fk_documents_active_version",
                   ondelete="SET NULL"),
        nullable=True,
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow,
                                                 onupdate=utcnow)

    versions: Mapped[list["DocumentVersion"]] = relationship(
        back_populates="document",
        foreign_keys="DocumentVersion.document_id",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by="DocumentVersion.number",
    )


class DocumentVersion(Base):
    __tablename__ = "document_versions"
    __table_args__ = (UniqueConstraint("document_id", "number"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    # the version's key: the SHA-256 of the file's bytes, except for a private copy of
    # content stored elsewhere too (a document the uploader may not read, migration 0019),
    # whose key is derived from the content hash and its document (backend/ingest/dedup.py)
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    # the SHA-256 of the file's bytes (what deduplication compares; shown as the hash)
    content_sha256: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    size_bytes: Mapped[int] = mapped_column(Integer, default=0)
    original_path: Mapped[str | None] = mapped_column(String(1000), nullable=True)
    filename: Mapped[str] = mapped_column(String(500), default="")
    text: Mapped[str] = mapped_column(Text, default="")
    page_count: Mapped[int | None] = mapped_column(Integer, nullable=True)
    language: Mapped[str] = mapped_column(String(8), default="")
    # pending -> indexing -> indexed | failed; an indexed version that is not active is "inactive"
    status: Mapped[str] = mapped_column(String(20), default="pending")
    is_active: Mapped[bool] = mapped_column(Boolean, default=False)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    meta: Mapped[dict] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # classification (backend/ingest/classify.py; migration 0014): the primary type, the
    # processing profile its sections and chunks were cut with, and the rest of the result
    # (secondary_types, traits, confidence, signals, reasoning_short, method, model, ...)
    primary_type: Mapped[str | None] = mapped_column(String(50), nullable=True, index=True)
    processing_profile: Mapped[str | None] = mapped_column(String(40), nullable=True)
    classification: Mapped[dict | None] = mapped_column(JSON, nullable=True)

    document: Mapped[Document] = relationship(back_populates="versions",
                                              foreign_keys=[document_id])


class Section(Base):
    __tablename__ = "sections"
    __table_args__ = (Index("ix_sections_version", "version_id", "ordinal"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    version_id: Mapped[int] = mapped_column(ForeignKey("document_versions.id", ondelete="CASCADE"))
    ordinal: Mapped[int] = mapped_column(Integer)
    parent_id: Mapped[int | None] = mapped_column(
        ForeignKey("sections.id", ondelete="CASCADE"), nullable=True
    )
    level: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(20))
    title: Mapped[str] = mapped_column(String(1000), default="")
    number: Mapped[str | None] = mapped_column(String(50), nullable=True)
    start: Mapped[int] = mapped_column(Integer)
    end: Mapped[int] = mapped_column(Integer)
    page_start: Mapped[int | None] = mapped_column(Integer, nullable=True)
    page_end: Mapped[int | None] = mapped_column(Integer, nullable=True)


class Chunk(Base):
    __tablename__ = "chunks"
    __table_args__ = (Index("ix_chunks_version", "version_id", "ordinal"),
                      Index("ix_chunks_section", "section_id", "ordinal"))
    # Stable id: derived from the version's content hash and the chunk's position.
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    version_id: Mapped[int] = mapped_column(ForeignKey("document_versions.id", ondelete="CASCADE"))
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"),
                                             index=True)
    section_id: Mapped[int | None] = mapped_column(
        ForeignKey("sections.id", ondelete="SET NULL"), nullable=True
    )
    ordinal: Mapped[int] = mapped_column(Integer)
    start: Mapped[int] = mapped_column(Integer)
    end: Mapped[int] = mapped_column(Integer)
    page: Mapped[int | None] = mapped_column(Integer, nullable=True)
    page_end: Mapped[int | None] = mapped_column(Integer, nullable=True)
    text: Mapped[str] = mapped_column(Text)


class IndexMeta(Base):
    """How an index was built: the guardrail record."""

    __tablename__ = "index_meta"
    name: Mapped[str] = mapped_column(String(50), primary_key=True)  # "vector" | "keyword"
    backend: Mapped[str] = mapped_column(String(50))
    params: Mapped[dict] = mapped_column(JSON, default=dict)
    chunk_count: Mapped[int] = mapped_column(Integer, default=0)
    built_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class StoreGeneration(Base):
    """Counters that database triggers bump in the transaction of every change of what they
    name (`tags`, `content`; migration 0030): a process may keep values read from those rows
    while the counter it read them under is unchanged (backend/store/generation_cache.py)."""

    __tablename__ = "store_generations"
    name: Mapped[str] = mapped_column(String(20), primary_key=True)
    value: Mapped[int] = mapped_column(BigInteger, default=0)


class Job(Base):
    __tablename__ = "jobs"
    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(30))  # ingest | reindex | crawl | eval
    status: Mapped[str] = mapped_column(String(20), default="queued")
    # queued | running | done | failed | cancelled
    total: Mapped[int] = mapped_column(Integer, default=0)
    done: Mapped[int] = mapped_column(Integer, default=0)
    failed: Mapped[int] = mapped_column(Integer, default=0)
    message: Mapped[str] = mapped_column(Text, default="")
    cancel_requested: Mapped[bool] = mapped_column(Boolean, default=False)
    params: Mapped[dict] = mapped_column(JSON, default=dict)
    result: Mapped[dict] = mapped_column(JSON, default=dict)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    @property
    def progress(self) -> float:
        return (self.done + self.failed) / self.total if self.total else 0.0


class RetrievalTrace(Base):
    """A persisted retrieval (query debug, chat, `search --save-trace`, evaluation runs).
    `owner_kind`/`owner` say who asked: ("user", user name) or ("system", "cli" | "eval");
    both NULL for traces stored before migration 0007 (visible to admins only)."""

    __tablename__ = "retrieval_traces"
    __table_args__ = (Index("ix_retrieval_traces_owner", "owner_kind", "owner", "created_at"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True)  # uuid
    query: Mapped[str] = mapped_column(Text)
    policy: Mapped[str] = mapped_column(String(30))
    params: Mapped[dict] = mapped_column(JSON, default=dict)
    trace: Mapped[dict] = mapped_column(JSON, default=dict)
    hit_count: Mapped[int] = mapped_column(Integer, default=0)
    total_ms: Mapped[float] = mapped_column(Float, default=0.0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow,
                                                 index=True)
    owner_kind: Mapped[str | None] = mapped_column(String(20), nullable=True)
    owner: Mapped[str | None] = mapped_column(String(200), nullable=True)


class TraceDocument(Base):
    """Which documents a stored trace shows (its hits and document list), so deleting a
    document finds the traces to scrub without reading every trace's JSON. No foreign key
    to documents: a trace may name a document deleted while the query ran."""

    __tablename__ = "trace_documents"
    trace_id: Mapped[str] = mapped_column(
        ForeignKey("retrieval_traces.id", ondelete="CASCADE"), primary_key=True)
    document_id: Mapped[int] = mapped_column(Integer, primary_key=True, index=True)

from backend.store import crawl_models as _crawl_models  # noqa: E402,F401  (crawl tables)
from backend.store import chat_models as _chat_models  # noqa: E402,F401  (chat tables)
from backend.store import eval_models as _eval_models  # noqa: E402,F401  (evaluation tables)
from backend.store import acl_models as _acl_models  # noqa: E402,F401  (knowledge bases, groups)
from backend.store import token_models as _token_models  # noqa: E402,F401  (API tokens)
from backend.store import analysis_models as _analysis_models  # noqa: E402,F401  (analysis artifacts)
from backend.store import doctype_models as _doctype_models  # noqa: E402,F401  (document types)
from backend.store import git_models as _git_models  # noqa: E402,F401  (Git sources)
from backend.store import chatbot_models as _chatbot_models  # noqa: E402,F401  (chatbots)
from backend.store import feedback_models as _feedback_models  # noqa: E402,F401  (answer feedback)
from backend.store import ask_job_models as _ask_job_models  # noqa: E402,F401  (ask jobs)
from backend.store import profile_models as _profile_models  # noqa: E402,F401  (author profiles)
from backend.store import critic_models as _critic_models  # noqa: E402,F401  (critics, critiques)
from backend.store import admin_config_models as _admin_config_models  # noqa: E402,F401  (prompts, runtime settings)
from backend.store import tag_models as _tag_models  # noqa: E402,F401  (document tags)
