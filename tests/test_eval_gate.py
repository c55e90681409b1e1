"""The regression gate: evaluate the sample goldenset on the sample corpus with the
configurations named in eval/floors.yaml and fail when any metric falls below its floor
(IR metrics and the RAGAS context metrics). Floors are pinned in eval/floors.yaml."""
from __future__ import annotations

import pytest

from eval.configs import resolve
from eval.gate import load_floors, violations
from eval.goldenset import load_goldenset
from eval.runner import evaluate
from backend.security.access import Scope

EVERYTHING = Scope.everything()

FLOORS = load_floors()


@pytest.fixture(scope="module")
def report(sample_rs):
    gs = load_goldenset(FLOORS.goldenset)
    ir = [m for m in FLOORS.metrics if "@" in m or m == "map"]
    return evaluate(sample_rs, gs, resolve(list(FLOORS.floors)), metrics=ir,
                    collections=[FLOORS.collection] if FLOORS.collection else None,
                    scope=EVERYTHING)


def test_sample_goldenset_is_clean(report):
    assert report.warnings == []  # every judged document exists in the sample corpus
    assert all(len(c.per_query) == len(report.goldenset.queries)
               for c in report.configs.values())


@pytest.mark.parametrize("config", sorted(FLOORS.floors))
def test_metrics_hold_their_floors(report, config):
    bad = [v for v in violations(report.summary(), FLOORS) if v.startswith(f"{config} ")]
    assert not bad, "regression: " + "; ".join(bad)
