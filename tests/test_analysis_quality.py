"""Extraction quality on the hand-written analysis goldenset (eval/analysis_goldenset.yaml):
precision and recall per extractor must hold their floors. Floors are the figures measured
2026-12-01 (docs/analysis.md) minus a tolerance, so a regression in any extractor fails CI.
The goldenset has a dev split (the documents the rules were written against) and a held-out
split; both are pinned. Runs on the ingest stages only (no store, no embedding model)."""
from __future__ import annotations

import pytest

from eval.analysis_eval import check_goldenset, evaluate, load

# (precision, recall) floors; measured values in docs/analysis.md
FLOORS = {
    "dev": {
        "decisions": (0.95, 0.95), "meeting_actions": (0.95, 0.95), "deadlines": (0.95, 0.95),
        "requirements": (0.95, 0.95), "config_keys": (0.95, 0.95), "setup_steps": (0.95, 0.95),
        "api_surface": (0.95, 0.95), "operational_notes": (0.9, 0.95), "risks": (0.85, 0.95),
        "entities": (0.95, 0.95),
    },
    "heldout": {
        "decisions": (0.85, 0.85), "meeting_actions": (0.85, 0.85), "deadlines": (0.9, 0.9),
        "requirements": (0.9, 0.9), "setup_steps": (0.9, 0.9), "operational_notes": (0.85, 0.85),
        "risks": (0.8, 0.8), "entities": (0.9, 0.9),
    },
}
TARGET = {"decisions", "meeting_actions", "deadlines"}  # issue 12: P >= 0.85, R >= 0.8


@pytest.fixture(scope="module")
def scores():
    return evaluate()


def test_goldenset_is_consistent_and_large_enough():
    assert check_goldenset() == []  # every quote is in its document, every section exists
    docs, golds = load()
    scored = [g for g in golds if not g.optional]
    assert len(scored) >= 80
    langs = {("de" if any(c in g.doc for c in ("protokoll", "datenschutz", "benutzung",
                                                 "niederschrift", "handbuch", "merkblatt",
                                                 "kundenportal", "pressemitteilung", "betrieb"))
              else "en") for g in scored}
    assert langs == {"de", "en"}
    for split in ("dev", "heldout"):
        assert any(d.get("split", "dev") == split for d in docs)


@pytest.mark.parametrize("split,name", [(s, n) for s, fl in FLOORS.items() for n in fl])
def test_extractor_holds_its_floor(scores, split, name):
    sc = scores[split][name]
    p_floor, r_floor = FLOORS[split][name]
    assert sc.tp + sc.fn > 0, f"no gold items for {name} in {split}"
    assert sc.precision >= p_floor, (f"{split} {name}: precision {sc.precision:.3f} < {p_floor}; "
                                     f"false positives: {sc.false[:5]}")
    assert sc.recall >= r_floor, (f"{split} {name}: recall {sc.recall:.3f} < {r_floor}; "
                                  f"missed: {sc.misses[:5]}")


def test_issue_targets_for_decisions_actions_deadlines(scores):
    for name in TARGET:
        sc = scores["all"][name]
        assert sc.precision >= 0.85 and sc.recall >= 0.8, (name, sc.to_dict())


def test_normalised_fields_are_right(scores):
    """Dates and durations of deadlines, owner/due/status of actions and vote results of
    decisions are checked on every matched gold item that states them."""
    allf = {n: s.to_dict()["fields"] for n, s in scores["all"].items()}
    assert allf["deadlines"]["date"] >= 0.95 and allf["deadlines"]["duration"] >= 0.95
    assert allf["meeting_actions"]["owner"] >= 0.9 and allf["meeting_actions"]["due"] >= 0.9
    assert allf["decisions"]["vote"] >= 0.9
    assert allf["config_keys"]["default"] >= 0.85
