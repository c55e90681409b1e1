"""RAGAS metrics that need no LLM, scored against a query's reference contexts.

* `context_precision`: ragas `NonLLMContextPrecisionWithReference` — average precision of the
  retrieved contexts, a context counting as relevant when it matches a reference context.
* `context_recall`: ragas `NonLLMContextRecall` — the share of reference contexts that some
  retrieved context matches.
* `string_similarity`: ragas `NonLLMStringSimilarity` (Levenshtein) of each reference context
  with its best-aligned, equally long window of the retrieved text, averaged — a graded
  companion to the thresholded recall.

Retrieved contexts are chunks (~800 characters) and reference contexts single sentences, so
ragas' default whole-string Levenshtein similarity would never reach its threshold. Both
context metrics therefore use `PartialStringSimilarity` as their distance measure: rapidfuzz's
`partial_ratio`, which aligns the shorter text with the best window of the longer one. Texts are
compared after whitespace folding and joining of line-end hyphenation ("Übergabe-\\nstation"),
because PDF extraction keeps both. The threshold (0.8) was chosen on the sample corpus: each of
the goldenset's 96 reference contexts matches its chunk at 1.0, while the other 15,743
(reference, chunk) pairs score a median 0.43, 99th percentile 0.56, 99.9th 0.70."""
from __future__ import annotations

import asyncio
import re
import typing as t
from dataclasses import dataclass, field

import backend  # noqa: F401  (RAGAS_DO_NOT_TRACK before ragas is imported)

MATCH_THRESHOLD = 0.8
CONTEXT_METRICS = ("context_precision", "context_recall", "string_similarity")

_HYPHEN = re.compile(r"(\w)-\s*\n\s*(\w)")
_WS = re.compile(r"\s+")


def fold(text: str) -> str:
    """Whitespace folded, line-end hyphenation joined, case folded."""
    return _WS.sub(" ", _HYPHEN.sub(r"\1\2", text)).strip().casefold()


def _metrics():
    """Built on first use: importing ragas costs ~2 s."""
    from rapidfuzz import fuzz
    from ragas.metrics import (
        NonLLMContextPrecisionWithReference,
        NonLLMContextRecall,
        NonLLMStringSimilarity,
    )
    from ragas.metrics.base import MetricType, SingleTurnMetric

    @dataclass
    class PartialStringSimilarity(SingleTurnMetric):
        """Best-window similarity (rapidfuzz partial_ratio / 100) of reference and response."""

        name: str = "partial_string_similarity"
        _required_columns: t.Dict[MetricType, t.Set[str]] = field(
            default_factory=lambda: {MetricType.SINGLE_TURN: {"reference", "response"}})

        def init(self, run_config) -> None:  # no LLM, nothing to set up
            pass

        async def _single_turn_ascore(self, sample, callbacks) -> float:
            return fuzz.partial_ratio(sample.reference, sample.response) / 100.0

        async def _ascore(self, row, callbacks) -> float:
            return fuzz.partial_ratio(row["reference"], row["response"]) / 100.0

    partial = PartialStringSimilarity()
    return {
        "context_precision": NonLLMContextPrecisionWithReference(
            distance_measure=partial, threshold=MATCH_THRESHOLD),
        "context_recall": NonLLMContextRecall(_distance_measure=partial,
                                              threshold=MATCH_THRESHOLD - 1e-9),
        "levenshtein": NonLLMStringSimilarity(),
    }


_CACHE: dict = {}


def _get():
    if not _CACHE:
        _CACHE.update(_metrics())
    return _CACHE


def _window(ref: str, contexts: list[str], slack: int = 3) -> str:
    """The retrieved text window best aligned with `ref`: partial_ratio's alignment, then the
    start and end nudged by up to `slack` characters to the closest Levenshtein match (the
    Indel alignment is ambiguous by a character or two)."""
    from rapidfuzz import fuzz
    from rapidfuzz.distance import Levenshtein

    best, best_score = "", -1.0
    for c in contexts:
        al = fuzz.partial_ratio_alignment(ref, c)
        if al is None or al.score <= best_score:
            continue
        best_score = al.score
        cands = {c[a:b] for a in range(max(0, al.dest_start - slack), al.dest_start + slack + 1)
                 for b in range(al.dest_end - slack, min(len(c), al.dest_end + slack) + 1)
                 if b > a}
        best = max(sorted(cands), key=lambda w: Levenshtein.normalized_similarity(ref, w))
    return best


async def _score(retrieved: list[str], references: list[str]) -> dict[str, float]:
    from ragas.dataset_schema import SingleTurnSample

    m = _get()
    sample = SingleTurnSample(retrieved_contexts=retrieved, reference_contexts=references)
    out = {"context_precision": float(await m["context_precision"].single_turn_ascore(sample)),
           "context_recall": float(await m["context_recall"].single_turn_ascore(sample))}
    sims = []
    for ref in references:
        win = _window(ref, retrieved)
        sims.append(await m["levenshtein"].single_turn_ascore(
            SingleTurnSample(reference=ref, response=win)))
    out["string_similarity"] = float(sum(sims) / len(sims))
    return out


def context_scores(retrieved: list[str], references: list[str]) -> dict[str, float] | None:
    """The three context metrics for one query; None without reference contexts. An empty
    retrieval scores 0 (ragas would divide by zero)."""
    references = [fold(r) for r in references if r and r.strip()]
    if not references:
        return None
    retrieved = [fold(c) for c in retrieved if c and c.strip()]
    if not retrieved:
        return {k: 0.0 for k in CONTEXT_METRICS}
    return {k: round(v, 6) for k, v in asyncio.run(_score(retrieved, references)).items()}
