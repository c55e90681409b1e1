"""Rank fusion, pure functions on plain rankings. Stage scores are never overwritten: these
functions only compute the fused score per id.

A ranking is a list of (id, score) pairs, best first."""
from __future__ import annotations

from typing import Mapping, Sequence

Ranking = Sequence[tuple[str, float]]


def rrf(rankings: Mapping[str, Ranking], k: int = 60,
        weights: Mapping[str, float] | None = None) -> dict[str, float]:
    """Reciprocal rank fusion: sum over retrievers of w / (k + rank), rank 1-based."""
    if k < 0:
        raise ValueError("rrf k must be >= 0")
    out: dict[str, float] = {}
    for name, ranking in rankings.items():
        w = 1.0 if weights is None else weights.get(name, 1.0)
        for rank, (doc_id, _score) in enumerate(ranking, 1):
            out[doc_id] = out.get(doc_id, 0.0) + w / (k + rank)
    return out


def minmax(ranking: Ranking) -> dict[str, float]:
    """Scale scores to [0, 1]; a single or constant list maps to 1.0."""
    if not ranking:
        return {}
    scores = [s for _, s in ranking]
    lo, hi = min(scores), max(scores)
    if hi - lo < 1e-12:
        return {d: 1.0 for d, _ in ranking}
    return {d: (s - lo) / (hi - lo) for d, s in ranking}


def max_norm(ranking: Ranking) -> dict[str, float]:
    """Divide by the best score (keeps 0 meaning 'no evidence'); for non-negative scores."""
    if not ranking:
        return {}
    hi = max(s for _, s in ranking)
    if hi <= 0:
        return {d: 0.0 for d, _ in ranking}
    return {d: max(0.0, s) / hi for d, s in ranking}


NORMALISERS = {"minmax": minmax, "max": max_norm}


def weighted(rankings: Mapping[str, Ranking], weights: Mapping[str, float],
             normalise: str = "max") -> dict[str, float]:
    """Convex combination of normalised scores: sum_i w_i * norm_i(score); an id missing from
    a retriever's list contributes 0 for it. Weights are rescaled to sum to 1."""
    if normalise not in NORMALISERS:
        raise ValueError(f"unknown normalisation '{normalise}' (use {', '.join(NORMALISERS)})")
    total = sum(max(0.0, weights.get(n, 0.0)) for n in rankings) or 1.0
    out: dict[str, float] = {}
    for name, ranking in rankings.items():
        w = max(0.0, weights.get(name, 0.0)) / total
        for doc_id, s in NORMALISERS[normalise](ranking).items():
            out[doc_id] = out.get(doc_id, 0.0) + w * s
    return out


def ranked(scores: Mapping[str, float]) -> list[tuple[str, float]]:
    """Sort by score, ties broken by id for determinism."""
    return sorted(scores.items(), key=lambda x: (-x[1], x[0]))
