"""THE retrieval module: query -> candidates from both indexes (concurrently) -> fusion ->
boosts -> policy (chunks, documents first, sections first) -> optional rerank -> expansion,
with a trace of every stage. The chat, the query-debug page and the evaluator all call
`Retriever.retrieve` (or `retrieve`)."""
from __future__ import annotations

from backend.retrieval.engine import Retriever, retrieve
from backend.retrieval.types import (
    POLICIES,
    DocumentHit,
    Hit,
    RetrievalParams,
    RetrievalResult,
    Stage,
    Trace,
    TraceOwner,
)

__all__ = ["Retriever", "retrieve", "RetrievalParams", "RetrievalResult", "Hit",
           "DocumentHit", "Stage", "Trace", "TraceOwner", "POLICIES"]
