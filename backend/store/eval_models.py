"""Models of evaluation (migrations 0005, 0008): goldensets (questions with their relevant documents,
edited on the evaluation page or imported from a file or a BEIR dataset), evaluation runs (one
retrieval configuration evaluated on one goldenset, with the configuration, the index metadata
and the aggregated metrics) and their per-query results."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, DateTime, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from backend.store.models import Base, utcnow


class EvalGoldenset(Base):
    __tablename__ = "eval_goldensets"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")
    # What `relevant[].doc` names: "filename" (sample corpus) or "beir" (BEIR document ids,
    # kept in the document's meta as beir_id by the BEIR import).
    doc_key: Mapped[str] = mapped_column(String(20), default="filename")
    collection: Mapped[str | None] = mapped_column(String(200), nullable=True)
    source: Mapped[str] = mapped_column(String(1000), default="")  # file path, beir:DIR, editor
    queries: Mapped[list] = mapped_column(JSON, default=list)  # [GoldQuery as dict]
    sha256: Mapped[str] = mapped_column(String(64), default="")  # of the queries, for runs
    edited_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow,
                                                 onupdate=utcnow)


class EvalRun(Base):
    __tablename__ = "eval_runs"
    __table_args__ = (Index("ix_eval_runs_goldenset", "goldenset_name", "created_at"),
                      Index("ix_eval_runs_kind", "kind", "created_at"))
    id: Mapped[int] = mapped_column(primary_key=True)
    # "retrieval" (a retrieval configuration on a goldenset) or "answers" (a provider on an
    # answer goldenset; migration 0008)
    kind: Mapped[str] = mapped_column(String(20), default="retrieval",
                                      server_default="retrieval")
    batch: Mapped[str] = mapped_column(String(36), index=True)  # configurations run together
    goldenset_id: Mapped[int | None] = mapped_column(
        ForeignKey("eval_goldensets.id", ondelete="SET NULL"), nullable=True)
    goldenset_name: Mapped[str] = mapped_column(String(200))
    goldenset_sha: Mapped[str] = mapped_column(String(64), default="")
    config_name: Mapped[str] = mapped_column(String(100))
    params: Mapped[dict] = mapped_column(JSON, default=dict)  # RetrievalParams.model_dump()
    index_meta: Mapped[dict] = mapped_column(JSON, default=dict)  # how the indexes were built
    metrics: Mapped[dict] = mapped_column(JSON, default=dict)  # aggregated, incl. ragas_*
    n_queries: Mapped[int] = mapped_column(Integer, default=0)
    warnings: Mapped[list] = mapped_column(JSON, default=list)
    duration_s: Mapped[float] = mapped_column(Float, default=0.0)
    label: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow,
                                                 index=True)


class EvalResult(Base):
    __tablename__ = "eval_results"
    __table_args__ = (Index("ix_eval_results_run", "run_id", "query_id"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("eval_runs.id", ondelete="CASCADE"))
    query_id: Mapped[str] = mapped_column(String(200))
    question: Mapped[str] = mapped_column(Text, default="")
    metrics: Mapped[dict] = mapped_column(JSON, default=dict)
    ranking: Mapped[list] = mapped_column(JSON, default=list)  # [[doc key, score], ...]
    relevant: Mapped[dict] = mapped_column(JSON, default=dict)  # {doc key: grade}
    trace_id: Mapped[str | None] = mapped_column(String(36), nullable=True)
    latency_ms: Mapped[float] = mapped_column(Float, default=0.0)
    # answer runs: the answer text, cited documents, the expected answers (migration 0008)
    details: Mapped[dict | None] = mapped_column(JSON, nullable=True)
