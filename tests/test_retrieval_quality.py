"""Retrieval quality on the sample goldenset (64 hand-written questions, German and English;
keyword-exact, paraphrased, structure, inventory). Hybrid must beat both single policies on
recall@5 and MRR@10, and the pinned figures guard against regressions.
Figures measured 2026-11-29 (docs/retrieval.md); floors lowered on 2026-12-01 for the int8
embedding backend, the new default (measured: hybrid recall@5 0.921, MRR@10 0.920, nDCG@10
0.898 against fp32's 0.929 / 0.930 / 0.902; semantic_only MRR@10 0.835 against 0.859;
docs/retrieval.md, "Embedding backend")."""
from __future__ import annotations

import pytest

from backend.retrieval import RetrievalParams
from eval.goldenset import load_goldenset
from eval.retrieval_eval import evaluate_configs
from tests.conftest import ROOT

PINNED = {  # metric floors: measured value minus a small tolerance
    "hybrid": {"recall@5": 0.91, "mrr@10": 0.91, "ndcg@10": 0.88},
    "semantic_only": {"recall@5": 0.88, "mrr@10": 0.82},
    "lexical_only": {"recall@5": 0.86, "mrr@10": 0.85},
}


@pytest.fixture(scope="module")
def runs(sample_rs):
    gs = load_goldenset(ROOT / "eval" / "goldenset_sample.yaml")
    assert len(gs.queries) >= 25
    configs = {p: RetrievalParams(policy=p, collections=["samples"]) for p in PINNED}
    return evaluate_configs(sample_rs, gs, configs, metrics=["recall@5", "mrr@10", "ndcg@10"])


def test_hybrid_beats_both_single_policies(runs):
    h, s, lx = (runs[p].metrics for p in ("hybrid", "semantic_only", "lexical_only"))
    for m in ("recall@5", "mrr@10"):
        assert h[m] > max(s[m], lx[m]), (m, h[m], s[m], lx[m])


@pytest.mark.parametrize("policy", sorted(PINNED))
def test_pinned_quality_floors(runs, policy):
    got = runs[policy].metrics
    for metric, floor in PINNED[policy].items():
        assert got[metric] >= floor, f"{policy} {metric} fell to {got[metric]:.3f} (< {floor})"
