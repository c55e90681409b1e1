"""Evaluate retrieval configurations on a goldenset at document level, with ranx metrics —
the small API tests/test_retrieval_quality.py uses. It is eval.runner.evaluate without the
RAGAS context metrics and without storing anything; query embeddings are computed once
(batched) and shared across configurations."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from backend.security.access import Scope
from backend.retrieval import RetrievalParams
from eval.goldenset import Goldenset
from eval.runner import evaluate

METRICS = ["hit@5", "recall@5", "recall@10", "mrr@10", "ndcg@10", "map"]


@dataclass
class ConfigRun:
    name: str
    params: RetrievalParams
    run: dict[str, dict[str, float]]  # {qid: {doc: score}}
    metrics: dict[str, float]
    per_query: dict[str, dict[str, float]]


def evaluate_configs(rs, gs: Goldenset, configs: dict[str, RetrievalParams], *,
                     metrics: list[str] = METRICS,
                     on_progress: Callable[[int, int], None] | None = None) -> dict[str, ConfigRun]:
    report = evaluate(rs, gs, configs, scope=Scope.everything(), metrics=list(metrics),
                      contexts=False,
                      on_progress=(lambda d, t, _label: on_progress(d, t)) if on_progress
                      else None)
    return {name: ConfigRun(name, c.params, c.run, c.metrics,
                            {qid: r.metrics for qid, r in c.per_query.items()})
            for name, c in report.configs.items()}
