"""Model of the analysis artifacts cache (migration 0015): the result of one extractor or one
summary for one document version, with the version of the rules that produced it and a
signature of the input it was computed from. Deleting a version (or its document) deletes
its artifacts (ON DELETE CASCADE); a changed rules version or input signature makes the
artifact stale and it is recomputed on the next request (backend/analysis/artifacts.py)."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, DateTime, Float, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from backend.store.models import Base, utcnow


class AnalysisArtifact(Base):
    __tablename__ = "analysis_artifacts"
    __table_args__ = (UniqueConstraint("version_id", "kind", "variant",
                                       name="uq_analysis_artifacts_key"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    version_id: Mapped[int] = mapped_column(
        ForeignKey("document_versions.id", ondelete="CASCADE"), index=True)
    # "extract:decisions", "summary:document:medium", "summary:section:17:short"
    kind: Mapped[str] = mapped_column(String(80))
    # hash of what else shaped the result (LLM provider/model of a refinement, ...)
    variant: Mapped[str] = mapped_column(String(64), default="")
    producer_version: Mapped[str] = mapped_column(String(40))  # rules / pipeline version
    source_sig: Mapped[str] = mapped_column(String(100))  # the input it was computed from
    payload: Mapped[dict] = mapped_column(JSON, default=dict)
    item_count: Mapped[int] = mapped_column(Integer, default=0)
    duration_ms: Mapped[float] = mapped_column(Float, default=0.0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
