"""Tags on documents (migration 0027; issue 26, seed 004). A tag is stored as entered
(`name`, trimmed and whitespace collapsed) and matched by its case-folded `key`; one key per
document. Tags are store rows only: no index carries them, so a tag change is current for
the next search without a reindex (the tag filter is a document-id prefilter,
docs/tags.md)."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from backend.store.models import Base, utcnow


class DocumentTag(Base):
    __tablename__ = "document_tags"
    __table_args__ = (UniqueConstraint("document_id", "key", name="uq_document_tag_key"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    document_id: Mapped[int] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(50))  # as entered (display)
    key: Mapped[str] = mapped_column(String(50), index=True)  # case-folded (matching)
    source: Mapped[str] = mapped_column(String(20), default="user")  # user | suggestion
    created_by: Mapped[str] = mapped_column(String(100), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

