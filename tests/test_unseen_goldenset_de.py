"""The German half of the unseen answer benchmark (eval/unseen/de_tune.yaml, de_test.yaml over
eval/unseen/documents/de/) stays in sync with its documents: every supporting sentence occurs in
the text ragscope's ingest extracts (extract + normalise, compared with eval.answers.squash like
the citation check), an acceptable answer is in the support of its turn, every named document
exists, the generated PDF/DOCX files are what make_documents_de.py writes, and the set has the
mix of the shared brief (>= 155 questions, >= 30 % in English, >= 32 near misses, >= 22
dialogues, >= 10 table cells, >= 15 analysis routes, a few inventory questions)."""
from __future__ import annotations

import sys
from collections import Counter
from functools import cache

import pytest

from eval.unseen_set import load_unseen
from tests.conftest import ROOT

UNSEEN = ROOT / "eval" / "unseen"
DOCS = UNSEEN / "documents"
QUESTIONS = [q for q in load_unseen("all").questions if q.id.startswith("ude")]


@cache
def ingested_text(doc: str) -> str:
    """What the ingest pipeline extracts from the file (extract + normalise), squashed."""
    from backend.ingest.extract import extract
    from backend.ingest.normalise import normalise
    from eval.answers import squash

    path = DOCS / doc
    return squash(normalise(extract(path.read_bytes(), path.name)).text)


def _turns(q):
    return q.turns or [q]


def _supports(q):
    return [s for t in _turns(q) for s in t.support]


def test_supporting_sentences_occur_in_the_ingested_text():
    from eval.answers import squash

    missing = [f"{q.id}: {s.doc}: {s.sentence[:70]!r}" for q in QUESTIONS
               for s in _supports(q) if squash(s.sentence) not in ingested_text(s.doc)]
    assert not missing, "\n".join(missing)


def test_an_acceptable_answer_is_in_the_support_of_its_turn():
    bad = [q.id for q in QUESTIONS for t in _turns(q) if t.support and not any(
        a.casefold() in s.sentence.casefold() for a in t.answers for s in t.support)]
    assert not bad


def test_every_named_document_is_german_and_every_document_is_asked_about():
    named = {d for q in QUESTIONS for d in [s.doc for s in _supports(q)] + q.documents
             + ([q.near] if q.near else [])}
    assert all(d.startswith("de/") and (DOCS / d).is_file() for d in named), named
    on_disk = {f"de/{p.name}" for p in (DOCS / "de").iterdir()}
    assert len(on_disk) >= 20 and on_disk <= named, sorted(on_disk - named)


def test_size_and_mix():
    kinds = Counter(q.type for q in QUESTIONS)
    assert len(QUESTIONS) >= 155
    assert sum(q.language == "en" for q in QUESTIONS) >= 0.30 * len(QUESTIONS)
    near = [q for q in QUESTIONS if q.type == "unanswerable" and q.reason == "near_miss"]
    assert len(near) >= 32 and all(q.near for q in near)
    assert kinds["followup"] >= 22 and kinds["inventory"] >= 3
    analysis = [q for q in QUESTIONS if q.route not in ("passage", "inventory", "url")]
    assert len(analysis) >= 15
    text = "".join((UNSEEN / f"de_{s}.yaml").read_text(encoding="utf-8") for s in ("tune", "test"))
    assert text.count("  # table\n") >= 10  # a cell asked by its row and column labels
    for q in QUESTIONS:  # later turns only make sense in context: short, with a pronoun
        if q.type == "followup":
            assert all(len(t.question.split()) <= 12 for t in q.turns[1:]), q.id


def test_document_kinds_and_long_documents():
    from backend.ingest.extract import extract
    from backend.ingest.normalise import normalise

    files = sorted((DOCS / "de").iterdir())
    kinds = Counter(p.suffix for p in files)
    assert kinds[".pdf"] >= 3 and kinds[".docx"] >= 2 and min(
        kinds[".html"], kinds[".md"], kinds[".txt"]) >= 2, kinds
    words = {p.name: len(normalise(extract(p.read_bytes(), p.name)).text.split()) for p in files}
    assert sum(n >= 3000 for n in words.values()) >= 2, words


@pytest.fixture(scope="module")
def generator():
    sys.path.insert(0, str(UNSEEN))
    try:
        import make_documents_de
    finally:
        sys.path.pop(0)
    return make_documents_de


def test_the_generated_documents_are_what_the_script_writes(generator):
    """Deterministic: the committed PDF/DOCX files are byte for byte the script's output."""
    for doc in generator.T.DOCS:
        render = generator.render_pdf if doc["name"].endswith(".pdf") else generator.render_docx
        assert render(doc) == (DOCS / "de" / doc["name"]).read_bytes(), doc["name"]
