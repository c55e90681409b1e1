"""The answer benchmark as a CI floor: every question of eval/answers_sample.yaml (130
answerable, 26 unanswerable, 8 inventory) asked through the chat's answering path with the
default answerer on the sample corpus; the metrics must hold the floors pinned in the
`answers:` section of eval/floors.yaml (figures in docs/chat.md). Also: the run is stored
like a retrieval run, and `python -m eval answers` prints the metrics."""
from __future__ import annotations

import json

import pytest

from backend.security.access import Scope
from eval.answer_set import load_answer_goldenset
from eval.answers import contains_answer, is_abstention, score
from eval.gate import answer_violations, load_answer_floors
from eval.store import get_run, list_runs, save_answer_report

FLOORS = load_answer_floors()


@pytest.fixture(scope="module")
def report(answer_rs):
    from eval.answers import evaluate_answers

    return evaluate_answers(answer_rs, load_answer_goldenset(FLOORS.goldenset),
                            provider=FLOORS.provider)


def test_the_default_answerer_holds_its_floors(report):
    assert report.warnings == []
    bad = answer_violations(report.metrics, FLOORS)
    assert not bad, "regression: " + "; ".join(bad)


def test_an_answer_run_is_stored_with_every_answer(answer_rs, report):
    run_id = save_answer_report(answer_rs, report, label="ci")
    runs = list_runs(answer_rs, "answers_sample", kind="answers", scope=Scope.everything())
    assert runs[0].id == run_id and runs[0].config_name == FLOORS.provider
    assert list_runs(answer_rs, "answers_sample", scope=Scope.everything()) == []  # retrieval runs only by default
    stored = get_run(answer_rs, run_id, scope=Scope.everything())
    assert stored.info.metrics == report.metrics and len(stored.results) == 164
    row = stored.results["a001"]
    assert row.details["answer"] and row.details["expected"] == ["512"]
    assert row.trace_id is not None


def test_scoring_rules():
    gs = load_answer_goldenset(FLOORS.goldenset)
    q = next(x for x in gs.questions if x.id == "a001")
    assert contains_answer("Der Standardwert beträgt 512. [1]", ["512"])
    assert not contains_answer("Der Standardwert beträgt 5120. [1]", ["512"])
    assert is_abstention("Dazu habe ich in den Dokumenten nichts gefunden.")
    from eval.answers import Answer

    good = Answer("Der Standardwert beträgt 512. [1]", [], {1: "… Der Standardwert beträgt 512."})
    wrong_source = Answer("Der Standardwert beträgt 512. [2]", [],
                          {1: "Der Standardwert beträgt 512.", 2: "Port 8443."})
    assert score(q, good)["precise_citations"] == 1.0
    assert score(q, wrong_source)["precise_citations"] == 0.0
    assert score(q, wrong_source)["correct"] == 1.0


def test_cli_prints_the_metrics_as_json(answer_rs, tmp_path, monkeypatch, capsys):
    import eval.commands
    from eval.cli import main

    monkeypatch.setattr(eval.commands, "_rs", lambda: answer_rs)
    f = tmp_path / "tiny.yaml"
    f.write_text("""name: tiny
collection: samples
questions:
  - id: t1
    question: "Welchen Standardwert hat gateway.max_connections?"
    language: de
    answers: ["512"]
    support:
      - {doc: lumen_handbuch.pdf, sentence: "Der Standardwert beträgt 512."}
  - id: t2
    question: "Wer ist der Bürgermeister von Paris?"
    type: unanswerable
    reason: out_of_corpus
""", encoding="utf-8")
    assert main(["answers", str(f), "--json", "-q"]) == 0
    m = json.loads(capsys.readouterr().out)
    assert m["accuracy"] == 1.0 and m["abstention_recall"] == 1.0
    assert m["citation_precision"] == 1.0 and m["latency_p50_ms"] > 0
    assert main(["answers", str(f), "--provider", "nope", "-q"]) == 1
    assert capsys.readouterr().err.startswith("error: unknown provider 'nope'")
