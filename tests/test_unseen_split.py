"""The unseen answer benchmark's frozen test split (issue 22): no tuning code and nothing under
backend/ can read it, every question of both writers sits in the split its document hashes to,
the question files load, and the runner (eval/unseen_bench.py) asks follow-ups in one session,
maps routes and aggregates per language pair on a small corpus of its own."""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
import yaml

from eval.answer_set import load_answer_goldenset
from eval.goldenset import GoldensetError
from eval.unseen_set import (
    FrozenSplitError,
    doc_split,
    load_unseen,
    load_unseen_for_tuning,
    question_files,
    tuning_goldenset,
)
from tests.conftest import ROOT

UNSEEN = ROOT / "eval" / "unseen"

# ---- (a) the tuning code and the backend cannot read the test split ------------------------

_TEST_FILE = re.compile(r"_test\.ya?ml")
_REPORTING_LOADER = re.compile(r"\bload_unseen\s*\(")
_TEST_SPLIT_CALL = re.compile(r"\bload_unseen\w*\s*\([^)]*['\"](?:test|all)['\"]")


def violations(path: Path) -> list[str]:
    """What in a source file reaches the frozen split: a *_test.yaml path, the reporting
    loader `load_unseen(...)`, or any unseen loader called with "test"/"all"."""
    text = path.read_text(encoding="utf-8")
    found = []
    for name, pat in (("a *_test.yaml path", _TEST_FILE),
                      ("the reporting loader load_unseen()", _REPORTING_LOADER),
                      ("an unseen loader with the test split", _TEST_SPLIT_CALL)):
        for m in pat.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:"
                         f"{line}: {name}")
    return found


def guarded_modules() -> list[Path]:
    """Everything under backend/ and every tuning module of eval/."""
    return sorted((ROOT / "backend").rglob("*.py")) + sorted(
        p for p in (ROOT / "eval").rglob("*.py") if "tun" in p.name)


def test_no_tuning_module_or_backend_module_reads_the_test_split():
    mods = guarded_modules()
    assert any(p.name == "answer_tuning.py" for p in mods)  # the scan covers the tuner
    problems = [v for p in mods for v in violations(p)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("source", [
    'gs = load_answer_goldenset("eval/unseen/de_test.yaml")\n',
    "from eval.unseen_set import load_unseen\nqs = load_unseen(split)\n",
    'gs = load_unseen_for_tuning("test")\n',
    "path = UNSEEN / 'en_test.yml'\n",
])
def test_the_scan_catches_a_module_that_reads_the_test_split(tmp_path, source):
    p = tmp_path / "my_tuning.py"
    p.write_text(source, encoding="utf-8")
    assert violations(p)


def test_the_tuning_loaders_refuse_the_test_split():
    with pytest.raises(FrozenSplitError, match="not for tuning"):
        load_unseen_for_tuning("test")
    with pytest.raises(FrozenSplitError):
        load_unseen_for_tuning("all")
    for path in question_files("test"):
        with pytest.raises(FrozenSplitError, match=re.escape(path.name)):
            tuning_goldenset(path)
    tune = load_unseen_for_tuning()
    assert tune.questions and {q.split for q in tune.questions} == {"tune"}


def test_answer_tuning_refuses_a_test_split_file():
    from eval import answer_tuning

    with pytest.raises(FrozenSplitError):
        answer_tuning.main(["--goldenset", str(UNSEEN / "de_test.yaml")])


# ---- (b) the document -> split rule, for both writers' files -------------------------------

def _raw_questions():
    for path in question_files("all"):
        split = path.stem.split("_", 1)[1]
        for q in yaml.safe_load(path.read_text(encoding="utf-8"))["questions"]:
            yield path.name, split, q


def _first_doc(q: dict) -> str:
    turns = q["turns"] if q.get("type") == "followup" else [q]
    sup = [s for t in turns for s in (t.get("support") or [])]
    return sup[0]["doc"] if sup else q.get("near") or (q.get("documents") or [""])[0]


def test_every_question_is_in_the_split_its_document_hashes_to():
    rows = list(_raw_questions())
    assert {name for name, _, _ in rows} >= {"de_tune.yaml", "de_test.yaml"}
    wrong = []
    for name, split, q in rows:
        doc = _first_doc(q)
        expected = "test" if int(hashlib.sha256(doc.encode()).hexdigest(), 16) % 3 else "tune"
        if not doc or expected != split or doc_split(doc) != split:
            wrong.append(f"{name} {q.get('id')}: {doc!r} belongs to {expected}")
    assert not wrong, "\n".join(wrong)


def test_no_document_is_asked_about_in_both_splits():
    docs: dict[str, set[str]] = {}
    for _, split, q in _raw_questions():
        turns = q["turns"] if q.get("type") == "followup" else [q]
        for t in turns:
            for s in t.get("support") or []:
                docs.setdefault(s["doc"], set()).add(split)
    assert docs and all(len(v) == 1 for v in docs.values())


# ---- (c) the files load ----------------------------------------------------------------------

def test_the_unseen_files_load():
    tune, test, both = load_unseen("tune"), load_unseen("test"), load_unseen("all")
    assert len(both.questions) == len(tune.questions) + len(test.questions) >= 155
    assert {q.split for q in test.questions} == {"test"}
    for path in question_files("all"):
        assert load_answer_goldenset(path).questions
    kinds = {q.type for q in both.questions}
    assert {"answerable", "unanswerable", "followup", "inventory"} <= kinds
    assert all(q.route for q in both.questions)
    dialogues = [q for q in both.questions if q.type == "followup"]
    assert all(2 <= len(q.turns) <= 3 and q.question == q.turns[-1].question
               for q in dialogues)


def test_a_question_in_the_wrong_file_is_refused(tmp_path):
    docs = tmp_path / "documents" / "de"
    docs.mkdir(parents=True)
    tune_doc = next(f"de/d{i}.txt" for i in range(100) if doc_split(f"de/d{i}.txt") == "tune")
    (tmp_path / "documents" / tune_doc).write_text("Der Wert ist 5.", encoding="utf-8")
    (tmp_path / "de_test.yaml").write_text(
        "questions:\n  - {id: x1, question: 'Wert', answers: ['5'], support: "
        f"[{{doc: {tune_doc}, sentence: Der Wert ist 5.}}]}}\n", encoding="utf-8")
    with pytest.raises(GoldensetError, match=r"de_test\.yaml question x1: its document .* "
                                             r"belongs to the tune split"):
        load_unseen("test", root=tmp_path)


@pytest.mark.parametrize("body,message", [
    ("  - {id: x, question: q, route: teleport, answers: [a], support: [{doc: d, sentence: s}]}",
     "route must be one of"),
    ("  - {id: x, type: followup, turns: [{question: a, unanswerable: true}]}",
     "'turns' must be a list of 2-3 turns"),
    ("  - {id: x, type: followup, turns: [{question: a, answers: [b]}, {question: c, "
     "unanswerable: true}]}", "turn 1: 'support' must be a non-empty"),
    ("  - {id: x, type: followup, turns: [{answers: [b]}, {question: c, unanswerable: true}]}",
     "turn 1: missing field 'question'"),
    ("  - {id: x, question: q, type: unanswerable, reason: near_miss, near: [a, b]}",
     "'near' must be a document path"),
])
def test_bad_new_fields_are_refused_naming_file_question_and_field(tmp_path, body, message):
    p = tmp_path / "bad.yaml"
    p.write_text("questions:\n" + body + "\n", encoding="utf-8")
    with pytest.raises(GoldensetError, match=re.escape(message)) as e:
        load_answer_goldenset(p)
    assert "bad.yaml" in str(e.value) and "(x)" in str(e.value)


# ---- the runner ------------------------------------------------------------------------------

def test_route_labels_map_the_trace_to_the_benchmark_labels():
    from eval.unseen_bench import route_labels

    ana = {"route": "analysis"}
    assert route_labels({**ana, "action": "extract", "extractors": ["decisions", "deadlines"]},
                        [], "", "q") == ["extract:decisions", "extract:deadlines"]
    assert route_labels({**ana, "action": "summarize", "section": "3"}, [], "", "q") == \
        ["summarize_section"]
    assert route_labels({**ana, "action": "summarize", "section": None}, [], "", "q") == \
        ["summarize_document"]
    assert route_labels({**ana, "action": "compare_documents"}, [], "", "q") == \
        ["compare_documents"]
    retr = {"route": "retrieval"}
    assert route_labels(retr, [], "inventory", "Welche Dokumente?") == ["inventory"]
    url_q = "Was steht auf https://example.org/a.html?"
    echo = [{"name": "query", "params": {"text": url_q, "terms": ["https://example.org/a.html"]}}]
    assert route_labels(retr, echo, "extractive", url_q) == \
        ["passage"]  # a URL in the question that nothing fetched is no URL route
    assert route_labels(retr, [{"name": "url_fetch", "params": {}}], "extractive", url_q) == \
        ["url"]


SMALL = {
    "de/protokoll_gartenverein_2025-04-05.txt": (
        "Protokoll der Versammlung des Gartenvereins Lindenau vom 5. April 2025\n\n"
        "Der Vorstand berichtete über das Vereinsjahr. Der Jahresbeitrag beträgt 48 Euro. "
        "Im Vorjahr lag der Jahresbeitrag bei 42 Euro.\n\n"
        "Die Wasseruhr der Parzelle 12 wurde im März erneuert.\n"),
    "en/allotment_rules.txt": (
        "Allotment rules of the Lindenau garden association\n\n"
        "Bonfires are not allowed between 1 April and 30 September. "
        "Hedges must not be higher than 1.25 metres.\n"),
}


@pytest.fixture
def small_unseen(tmp_path, rs):
    """A two-document corpus in the unseen layout, ingested by the runner."""
    from eval.unseen_bench import ensure_ingested

    root = tmp_path / "documents"
    for rel, text in SMALL.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    notes = ensure_ingested(rs, root=root, collection="unseen")
    return rs, root, notes


def test_ingest_is_idempotent_and_follow_ups_share_a_session(small_unseen):
    from eval.answer_set import AnswerGoldenset, parse_question
    from eval.unseen_bench import ensure_ingested, evaluate_unseen

    rs, root, notes = small_unseen
    assert notes and "ingested 2 of 2" in notes[0]
    assert ensure_ingested(rs, root=root, collection="unseen") == []  # nothing to do again
    de = "de/protokoll_gartenverein_2025-04-05.txt"
    qs = [parse_question(o, "small.yaml question") for o in [
        {"id": "t1", "type": "followup", "language": "de", "route": "passage", "turns": [
            {"question": "Wie hoch ist der Jahresbeitrag des Gartenvereins Lindenau?",
             "answers": ["48 Euro"], "support": [{"doc": de, "sentence": "Der Jahresbeitrag "
                                                  "beträgt 48 Euro."}]},
            {"question": "Und im Vorjahr?", "answers": ["42 Euro"],
             "support": [{"doc": de, "sentence": "Im Vorjahr lag der Jahresbeitrag bei 42 "
                                                 "Euro."}]}]},
        {"id": "t2", "question": "How high may hedges be in the Lindenau allotments?",
         "language": "en", "route": "passage", "answers": ["1.25 metres"],
         "support": [{"doc": "en/allotment_rules.txt",
                      "sentence": "Hedges must not be higher than 1.25 metres."}]},
    ]]
    report = evaluate_unseen(rs, AnswerGoldenset("small", qs, collection="unseen"),
                             keep_sessions=True)
    m = report.metrics
    assert m["questions"] == 2 and m["followups"] == 1 and m["pair_de_de"] == 1
    assert m["pair_en_en"] == 1 and 0.0 <= m["route_accuracy"] <= 1.0
    assert m["latency_p95_ms"] >= m["latency_p50_ms"] > 0
    from sqlalchemy import func, select

    from backend.store.chat_models import ChatMessage, ChatSession

    with rs.store.session() as s:  # one session per dialogue, both turns in it
        counts = sorted(s.scalars(select(func.count(ChatMessage.id)).join(ChatSession)
                                  .group_by(ChatSession.id)))
    assert counts == [2, 4]
    for r in report.results:
        assert r.route_taken  # the route the chat took, read from the answer's trace
    evaluate_unseen(rs, AnswerGoldenset("small", qs[1:], collection="unseen"))
    with rs.store.session() as s:  # by default a run leaves no conversation behind
        assert s.scalar(select(func.count(ChatSession.id))) == 2


@pytest.mark.parametrize("argv,message", [
    (["answers"], "name an answer goldenset file, or use --benchmark unseen"),
    (["answers", "eval/answers_sample.yaml", "--benchmark", "unseen"], "takes no goldenset"),
    (["answers", "--benchmark", "unseen", "--collection", "samples"], "takes no goldenset"),
])
def test_the_cli_refuses_a_goldenset_together_with_the_unseen_benchmark(argv, message, capsys):
    from eval.cli import main

    assert main(argv) == 1
    assert message in capsys.readouterr().err
