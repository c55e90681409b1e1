"""Evaluation metrics against hand-computed values: the ranx IR metrics (document level), the
RAGAS non-LLM context metrics, the significance tests of run comparison, the regression gate's
floor check and the goldenset format's bad-input errors. No corpus needed."""
from __future__ import annotations

import math

import numpy as np
import pytest

from eval.compare import paired_ttest, randomisation_test
from eval.context_metrics import context_scores, fold
from eval.gate import Floors, load_floors, violations
from eval.goldenset import GoldensetError, load_goldenset
from eval.runner import ir_metrics, ranx_name

# Query a: relevant d1 (grade 2) and d2 (grade 1); ranking d3, d1, d2.
# Query b: relevant d9; ranking x (nothing relevant retrieved).
QRELS = {"a": {"d1": 2, "d2": 1}, "b": {"d9": 1}}
RUN = {"a": {"d3": 1.0, "d1": 0.5, "d2": 1 / 3}, "b": {"x": 1.0}}


def test_ir_metrics_match_hand_computed_values():
    agg, per = ir_metrics(QRELS, RUN, ["hit@1", "hit@2", "recall@2", "precision@2", "mrr@10",
                                       "ndcg@3", "map"])
    # a: first relevant at rank 2 -> hit@1 0, hit@2 1, RR 1/2; recall@2 = 1/2; P@2 = 1/2.
    # nDCG@3 (ranx: gain = grade): DCG = 2/log2(3) + 1/log2(4); IDCG = 2/1 + 1/log2(3).
    dcg = 2 / math.log2(3) + 1 / 2
    idcg = 2 + 1 / math.log2(3)
    # AP(a) = (1/2 + 2/3) / 2 (precision at the ranks of the two relevant documents).
    ap = (1 / 2 + 2 / 3) / 2
    assert per["a"] == pytest.approx({"hit@1": 0.0, "hit@2": 1.0, "recall@2": 0.5,
                                      "precision@2": 0.5, "mrr@10": 0.5,
                                      "ndcg@3": dcg / idcg, "map": ap}, abs=1e-6)
    assert all(v == 0.0 for v in per["b"].values())
    assert agg == pytest.approx({m: v / 2 for m, v in per["a"].items()}, abs=1e-6)


def test_metric_names_map_to_ranx():
    assert ranx_name("hit@5") == "hit_rate@5"
    assert ranx_name("ndcg@10") == "ndcg@10" and ranx_name("map") == "map"


REF = "Das Gateway lauscht standardmäßig auf Port 8443."
OTHER = "Die Fernwärme wird über eine Übergabestation in das Haus geleitet, ganz unabhängig."


def test_context_precision_and_recall_hand_computed():
    hit = f"Kapitel 2. {REF} Weitere Schlüssel folgen."
    # retrieved: match, no match, match -> verdicts 1, 0, 1:
    # AP = (1/1 + 2/3) / 2 = 0.8333; one of two reference contexts found -> recall 0.5.
    s = context_scores([hit, OTHER, hit], [REF, "Ein Satz, der nirgends vorkommt, gar nicht."])
    assert s["context_precision"] == pytest.approx((1 + 2 / 3) / 2, abs=1e-6)
    assert s["context_recall"] == pytest.approx(0.5)
    # Nothing relevant first, then the match: AP = (1/2) / 1.
    s = context_scores([OTHER, hit], [REF])
    assert s["context_precision"] == pytest.approx(0.5, abs=1e-6)
    assert s["context_recall"] == 1.0 and s["string_similarity"] == 1.0


def test_string_similarity_is_levenshtein_on_the_best_window():
    # One substituted character in a ten-character reference: 1 - 1/10.
    s = context_scores(["xx abcdefghiX yy"], ["abcdefghij"])
    assert s["string_similarity"] == pytest.approx(0.9)


def test_context_metrics_edge_cases():
    assert context_scores(["anything"], []) is None  # no reference contexts: not scored
    assert context_scores([], [REF]) == {"context_precision": 0.0, "context_recall": 0.0,
                                         "string_similarity": 0.0}


def test_fold_joins_line_end_hyphenation_and_whitespace():
    assert fold("Übergabe-\n  station  im\n\nHaus") == "übergabestation im haus"
    hyphenated = "Die Übergabe-\nstation liegt im Keller des Hauses."
    assert context_scores([hyphenated], ["die Übergabestation liegt im Keller"])[
        "context_recall"] == 1.0


def test_significance_tests_hand_computed():
    a, b = np.zeros(4), np.array([0.5, -0.1, 0.3, 0.2])
    # t = mean / (sd / sqrt(n)) = 0.225 / (0.25 / 2) = 1.8 with 3 degrees of freedom.
    from scipy.stats import t

    assert paired_ttest(a, b) == pytest.approx(2 * t.sf(1.8, 3))
    # Exact sign flips of |d| = .5 .1 .3 .2 (sum 1.1): |sum| >= .9 for 4 of 16 patterns.
    assert randomisation_test(a, b) == pytest.approx(4 / 16)
    assert randomisation_test(a, a) == 1.0 and paired_ttest(a, a) == 1.0


def test_randomisation_test_detects_a_consistent_improvement():
    rng = np.random.default_rng(1)
    a = rng.uniform(0, 1, 60)
    assert randomisation_test(a, a + 0.1) < 0.001
    assert randomisation_test(a, a + rng.normal(0, 0.1, 60)) > 0.05


def test_gate_reports_metrics_below_their_floor():
    fl = Floors(goldenset=None, collection=None,
                floors={"hybrid": {"ndcg@10": 0.8, "recall@5": 0.9}, "rrf": {"map": 0.5}})
    got = {"hybrid": {"ndcg@10": 0.85, "recall@5": 0.7}}
    assert violations(got, fl) == ["hybrid recall@5 fell to 0.7000 (floor 0.9)",
                                   "rrf map: not measured (floor 0.5)"]
    assert violations({"hybrid": {"ndcg@10": 0.8, "recall@5": 0.9}, "rrf": {"map": 0.5}},
                      fl) == []


def test_floors_file_is_valid():
    fl = load_floors()
    assert fl.goldenset.exists() and {"hybrid", "semantic_only", "lexical_only"} <= set(fl.floors)


# ---- goldenset files: bad input ----------------------------------------------------------


def test_malformed_jsonl_names_the_line(tmp_path):
    p = tmp_path / "gs.jsonl"
    p.write_text('{"id": "q1", "question": "a?", "relevant": ["x.pdf"]}\n\n'
                 '{"id": "q2", "question": "b?", "relevant": ["y.pdf"]\n', encoding="utf-8")
    with pytest.raises(GoldensetError, match=r"gs.jsonl line 3: malformed JSON"):
        load_goldenset(p)
    p.write_text('{"id": "q1", "question": "a?"}\n', encoding="utf-8")
    with pytest.raises(GoldensetError, match=r"line 1: missing field 'relevant'"):
        load_goldenset(p)


@pytest.mark.parametrize("name,text", [("empty.jsonl", ""), ("blank.jsonl", "\n\n"),
                                       ("empty.yaml", "name: x\nqueries: []\n")])
def test_empty_goldenset_is_refused(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    with pytest.raises(GoldensetError, match="has no queries"):
        load_goldenset(p)


def test_duplicate_ids_and_bad_grades_are_refused(tmp_path):
    p = tmp_path / "d.jsonl"
    p.write_text('{"id": "q1", "question": "a?", "relevant": ["x"]}\n'
                 '{"id": "q1", "question": "b?", "relevant": ["y"]}\n', encoding="utf-8")
    with pytest.raises(GoldensetError, match=r"duplicate query ids \['q1'\]"):
        load_goldenset(p)
    p.write_text('{"id": "q1", "question": "a?", "relevant": [{"doc": "x", "grade": "hi"}]}\n',
                 encoding="utf-8")
    with pytest.raises(GoldensetError, match="grade must be an integer"):
        load_goldenset(p)


def test_goldenset_round_trips_through_yaml_and_jsonl(tmp_path):
    from tests.conftest import ROOT

    gs = load_goldenset(ROOT / "eval" / "goldenset_sample.yaml")
    assert len(gs.queries) >= 40 and {q.language for q in gs.queries} == {"de", "en"}
    for suffix, text in ((".yaml", gs.to_yaml()), (".jsonl", gs.to_jsonl())):
        p = tmp_path / f"copy{suffix}"
        p.write_text(text, encoding="utf-8")
        assert load_goldenset(p).sha256() == gs.sha256()


def test_every_eval_command_is_documented():
    import re

    from eval.cli import build_parser
    from tests.conftest import ROOT

    doc = (ROOT / "docs" / "evaluation.md").read_text(encoding="utf-8")
    sub = next(a for a in build_parser()._actions if a.dest == "cmd")
    missing = [c for c in sub.choices if not re.search(rf"python -m eval (\S+ \| )*{c}\b", doc)]
    assert not missing, f"commands missing from docs/evaluation.md: {missing}"
