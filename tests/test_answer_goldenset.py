"""The answer goldenset (eval/answers_sample.yaml) stays in sync with the sample corpus: every
supporting document exists, every section is a heading of it, every supporting sentence occurs
in the hand-written source text and in the text ragscope extracted on ingest; the set has the
promised size and mix. Bad goldenset files are refused with the file and field named."""
from __future__ import annotations

import re
import sys
from collections import Counter

import pytest
from sqlalchemy import select

from eval.answer_set import load_answer_goldenset
from eval.goldenset import GoldensetError
from tests.conftest import ROOT

GS = load_answer_goldenset(ROOT / "eval" / "answers_sample.yaml")


def _samples_module():
    """data/sample_dsl.py: the sample documents' sources (`T`), texts and headings."""
    sys.path.insert(0, str(ROOT / "data"))
    try:
        import sample_dsl
    finally:
        sys.path.pop(0)
    return sample_dsl


def _norm(s: str) -> str:
    s = re.sub(r"(\w)-\s*\n\s*(\w)", r"\1\2", s)
    return " ".join(s.split())


def test_size_and_mix():
    kinds = Counter(q.type for q in GS.questions)
    assert len(GS.questions) >= 100
    assert kinds["answerable"] >= 100 and kinds["unanswerable"] >= 20 and kinds["inventory"] >= 5
    langs = Counter(q.language for q in GS.questions if q.type == "answerable")
    assert min(langs["de"], langs["en"]) >= 0.4 * kinds["answerable"], langs
    reasons = Counter(q.reason for q in GS.questions if q.type == "unanswerable")
    assert set(reasons) == {"out_of_corpus", "nonsense", "near_miss"} and min(reasons.values()) >= 4
    splits = Counter((q.type, q.split) for q in GS.questions)
    for t in kinds:  # both halves of every kind are about equal
        assert abs(splits[(t, "tune")] - splits[(t, "test")]) <= 1


def test_supporting_sentences_occur_in_the_source_texts():
    ms = _samples_module()
    docs = {d["name"]: d for d in ms.T.DOCS}
    problems = []
    for q in GS.questions:
        for doc in q.documents + q.also:
            if doc not in docs:
                problems.append(f"{q.id}: {doc} is not a sample document")
        for s in q.support:
            if s.doc not in docs:
                problems.append(f"{q.id}: {s.doc} is not a sample document")
                continue
            if s.section is not None and s.section not in ms.source_headings(docs[s.doc]):
                problems.append(f"{q.id}: {s.section!r} is not a heading of {s.doc}")
            if _norm(s.sentence) not in _norm(ms.source_text(docs[s.doc])):
                problems.append(f"{q.id}: sentence not in {s.doc}: {s.sentence[:60]!r}")
    assert not problems, "\n".join(problems)


def test_every_question_has_an_answer_in_its_support():
    """At least one acceptable answer string is literally in a supporting sentence (the
    other variants are translations or spellings an LLM may use)."""
    bad = [q.id for q in GS.questions if q.type == "answerable" and not any(
        a.casefold() in s.sentence.casefold() for a in q.answers for s in q.support)]
    assert not bad


def test_supporting_sentences_occur_in_the_ingested_text(sample_rs):
    """What ragscope extracted: the citation-precision check looks for these sentences in
    the cited sources (with eval.answers.squash: whitespace and table bars ignored, because
    PDF tables come out without bars and sometimes without a space), so they must survive
    extraction (PDF, DOCX, ODT, HTML, TXT, MD)."""
    from backend.store.models import Document, DocumentVersion
    from eval.answers import squash

    with sample_rs.store.session() as s:
        texts = {fn: squash(t) for fn, t in s.execute(
            select(Document.filename, DocumentVersion.text)
            .join(DocumentVersion, DocumentVersion.id == Document.active_version_id))}
    missing = [f"{q.id}: {sup.doc}: {sup.sentence[:60]!r}" for q in GS.questions
               for sup in q.support if squash(sup.sentence) not in texts.get(sup.doc, "")]
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("text,message", [
    ("questions: []\n", "has no questions"),
    ("questions:\n  - {id: x, question: q}\n", "'answers' must not be empty"),
    ("questions:\n  - {id: x, question: q, answers: [1]}\n", "'answers' must be a list"),
    ("questions:\n  - {id: x, question: q, answers: [a]}\n", "'support' must be a non-empty"),
    ("questions:\n  - {id: x, question: q, type: unanswerable, reason: maybe}\n", "reason must"),
    ("questions:\n  - {id: x, question: q, type: inventory}\n", "'documents' must not be empty"),
    ("questions:\n  - {id: x, question: q, type: other}\n", "type must be one of"),
    ("questions:\n  - {id: x, question: q, type: unanswerable, reason: nonsense}\n"
     "  - {id: x, question: r, type: unanswerable, reason: nonsense}\n", "duplicate question ids"),
    ("questions: [\n", "malformed YAML"),
])
def test_bad_files_are_refused_naming_the_problem(tmp_path, text, message):
    p = tmp_path / "bad.yaml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(GoldensetError, match=re.escape(message)) as e:
        load_answer_goldenset(p)
    assert "bad.yaml" in str(e.value)
