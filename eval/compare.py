"""Compare two stored runs query by query: wins and losses per metric, and two paired
significance tests on the per-query scores of the queries both runs evaluated:

* Student's paired t-test (scipy.stats.ttest_rel);
* Fisher's randomisation test, as ranx's `compare(stat_test="fisher")` does it: each query's
  pair of scores is swapped with probability 1/2 (= the sign of its difference flipped), and the
  p-value is the share of permutations whose |mean difference| reaches the observed one
  (seeded, with the +1 correction). Exact enumeration when there are at most 16 queries.

"B wins" a query when B scores higher than A on the metric."""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from eval.store import RunInfo, StoredRun

EPS = 1e-9
N_PERMUTATIONS = 10_000
SEED = 42


@dataclass
class MetricComparison:
    metric: str
    mean_a: float
    mean_b: float
    wins: int  # queries where B > A
    losses: int  # queries where B < A
    ties: int
    p_ttest: float
    p_randomisation: float
    alpha: float = 0.05

    @property
    def delta(self) -> float:
        return self.mean_b - self.mean_a

    @property
    def significant(self) -> bool:
        return self.p_randomisation < self.alpha


@dataclass
class Comparison:
    a: RunInfo
    b: RunInfo
    queries: list[str]  # evaluated by both
    metrics: list[MetricComparison]
    per_query: list[dict]  # {query_id, question, "<metric>": (a, b)}
    notes: list[str] = field(default_factory=list)

    def table(self) -> list[dict]:
        return [{"metric": m.metric, "A": round(m.mean_a, 4), "B": round(m.mean_b, 4),
                 "delta": round(m.delta, 4), "B wins": m.wins, "B losses": m.losses,
                 "ties": m.ties, "p (t-test)": round(m.p_ttest, 4),
                 "p (randomisation)": round(m.p_randomisation, 4),
                 "significant": m.significant} for m in self.metrics]


def paired_ttest(a: np.ndarray, b: np.ndarray) -> float:
    d = b - a
    if len(d) < 2 or np.allclose(d, d[0]):
        return 1.0 if np.allclose(d, 0) or len(d) < 2 else 0.0
    from scipy.stats import ttest_rel

    p = float(ttest_rel(b, a).pvalue)
    return 1.0 if math.isnan(p) else p


def randomisation_test(a: np.ndarray, b: np.ndarray, n: int = N_PERMUTATIONS,
                       seed: int = SEED) -> float:
    d = b - a
    if len(d) == 0 or np.allclose(d, 0):
        return 1.0
    observed = abs(d.mean()) - EPS
    if len(d) <= 16:  # exact: every sign pattern
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=len(d))))
        return float((np.abs((signs * d).mean(axis=1)) >= observed).mean())
    rng = np.random.default_rng(seed)
    signs = rng.choice((1.0, -1.0), size=(n, len(d)))
    hits = int((np.abs((signs * d).mean(axis=1)) >= observed).sum())
    return (hits + 1) / (n + 1)


def compare_runs(a: StoredRun, b: StoredRun, metrics: list[str] | None = None, *,
                 alpha: float = 0.05) -> Comparison:
    common = [q for q in a.results if q in b.results]
    notes = []
    if a.info.goldenset_name != b.info.goldenset_name:
        notes.append(f"the runs evaluated different goldensets ({a.info.goldenset_name} vs "
                     f"{b.info.goldenset_name}); only shared query ids are compared")
    elif a.info.goldenset_sha != b.info.goldenset_sha:
        notes.append("the goldenset changed between the runs (questions or judgements)")
    only = len(a.results) + len(b.results) - 2 * len(common)
    if only:
        notes.append(f"{only} queries were evaluated by only one of the runs and are left out")
    for key in ("vector", "keyword", "counts"):
        if a.info.index_meta.get(key) != b.info.index_meta.get(key):
            notes.append(f"the {key} index metadata differ between the runs")
    if metrics is None:
        metrics = [m for m in a.info.metrics if m in b.info.metrics]
    out, per_query = [], []
    for m in metrics:
        qs = [q for q in common if m in a.results[q].metrics and m in b.results[q].metrics]
        va = np.array([a.results[q].metrics[m] for q in qs], dtype=float)
        vb = np.array([b.results[q].metrics[m] for q in qs], dtype=float)
        d = vb - va
        out.append(MetricComparison(
            m, float(va.mean()) if len(qs) else 0.0, float(vb.mean()) if len(qs) else 0.0,
            int((d > EPS).sum()), int((d < -EPS).sum()), int((np.abs(d) <= EPS).sum()),
            paired_ttest(va, vb), randomisation_test(va, vb), alpha))
    for q in common:
        row = {"query_id": q, "question": a.results[q].question}
        for m in metrics:
            row[m] = (a.results[q].metrics.get(m), b.results[q].metrics.get(m))
        per_query.append(row)
    return Comparison(a.info, b.info, common, out, per_query, notes)
