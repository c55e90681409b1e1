"""Rerank stage behind a small protocol. The deterministic default scores term overlap with
the chunk, a match of the query with the section title, and position in the document; it is
combined with the normalised fused score. Off by default (see docs/retrieval.md)."""
from __future__ import annotations

from typing import Protocol, Sequence

from backend.retrieval.query import terms
from backend.retrieval.types import Hit


class Reranker(Protocol):
    name: str

    def score(self, query: str, hits: Sequence[Hit]) -> list[float]: ...


class HeuristicReranker:
    name = "heuristic-v1"

    def __init__(self, w_fused: float = 0.6, w_overlap: float = 0.25, w_title: float = 0.1,
                 w_position: float = 0.05):
        self.w = (w_fused, w_overlap, w_title, w_position)

    def score(self, query: str, hits: Sequence[Hit]) -> list[float]:
        if not hits:
            return []
        qt = set(terms(query))
        top = max(h.score for h in hits) or 1.0
        out = []
        for h in hits:
            ct = set(terms(h.text))
            overlap = len(qt & ct) / len(qt) if qt else 0.0
            st = set(terms(" ".join(h.section_path) or h.section_title))
            title = len(qt & st) / len(qt) if qt and st else 0.0
            position = 1.0 / (1.0 + h.ordinal / 10)
            wf, wo, wt, wp = self.w
            out.append(wf * h.score / top + wo * overlap + wt * title + wp * position)
        return out


DEFAULT_RERANKER = HeuristicReranker()
