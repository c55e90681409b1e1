"""Evaluate retrieval configurations on a goldenset at document level, with ranx metrics.
Query embeddings are computed once (batched) and shared across configurations."""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable

from backend.retrieval import RetrievalParams, Retriever
from eval.goldenset import Goldenset

METRICS = ["hit_rate@5", "recall@5", "recall@10", "mrr@10", "ndcg@10", "map"]


@dataclass
class ConfigRun:
    name: str
    params: RetrievalParams
    run: dict[str, dict[str, float]]  # {qid: {doc: score}}
    metrics: dict[str, float]
    per_query: dict[str, dict[str, float]]


def doc_ranking(result, depth: int = 20) -> dict[str, float]:
    """Distinct documents in rank order, scored 1/rank (file name as document key)."""
    out: dict[str, float] = {}
    items = ([d.filename for d in result.documents] if result.mode == "inventory" or
             (result.params.policy == "document_first" and result.documents)
             else [h.filename for h in result.hits])
    for name in items:
        if name not in out:
            out[name] = 1.0 / (len(out) + 1)
        if len(out) >= depth:
            break
    return out


def evaluate_configs(rs, gs: Goldenset, configs: dict[str, RetrievalParams], *,
                     metrics: list[str] = METRICS,
                     on_progress: Callable[[int, int], None] | None = None) -> dict[str, ConfigRun]:
    from ranx import Qrels, Run, evaluate

    retriever = Retriever(rs)
    questions = [q.question for q in gs.queries]
    embs = rs.embedder.encode(questions)
    qrels = Qrels(gs.qrels())
    out = {}
    total, done = len(configs) * len(gs.queries), 0
    for name, params in configs.items():
        p = params.model_copy(update={"k": max(params.k, 30)})
        run: dict[str, dict[str, float]] = {}
        for q, emb in zip(gs.queries, embs):
            res = retriever.retrieve(q.question, p, query_embedding=emb)
            ranking = doc_ranking(res)
            run[q.id] = ranking or {"__none__": 0.0}
            done += 1
            if on_progress:
                on_progress(done, total)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = Run(run, name=name)
            agg = evaluate(qrels, r, metrics, make_comparable=True)
            per_q = {m: dict(r.scores[m]) for m in metrics}
        out[name] = ConfigRun(name, params, run, {m: float(v) for m, v in agg.items()},
                              {qid: {m: float(per_q[m].get(qid, 0.0)) for m in metrics}
                               for qid in run})
    return out
