"""The English half of the unseen answer benchmark (eval/unseen/en_tune.yaml, en_test.yaml over
eval/unseen/documents/en/) stays in sync with its documents: every supporting sentence occurs in
the text ragscope's ingest extracts from the document (extract + normalise, compared with
eval.answers.squash like the citation check), every `doc`/`near`/inventory document exists,
every `route` is a known label, ids are unique, every question sits in the split its first
document hashes to, and the set has the promised size and mix (the shared format of the two
writers of issue 22's benchmark: >= 155 questions, >= 30 % asked in German, >= 32 near-miss
unanswerables, >= 22 follow-up dialogues, >= 10 table cells, >= 15 analysis routes).

The YAML is parsed here, not with load_answer_goldenset: `type: followup` with `turns` is not
known to that loader today. Every question of a known type, and every turn of a dialogue, is
still checked with its parse_question, so the fields it knows stay loadable."""
from __future__ import annotations

import hashlib
from collections import Counter
from functools import cache

import pytest
import yaml

from eval.answer_set import parse_question
from tests.conftest import ROOT

UNSEEN = ROOT / "eval" / "unseen"
DOCS = UNSEEN / "documents"
FILES = {"tune": UNSEEN / "en_tune.yaml", "test": UNSEEN / "en_test.yaml"}
ROUTES = {"passage", "inventory", "extract:decisions", "extract:meeting_actions",
          "extract:deadlines", "extract:requirements", "extract:risks", "summarize_document",
          "summarize_section", "compare_versions", "compare_documents", "cross_reference", "url"}
TYPES = {"answerable", "unanswerable", "inventory", "followup"}


def _load(split: str) -> dict:
    return yaml.safe_load(FILES[split].read_text(encoding="utf-8"))


SETS = {split: _load(split) for split in FILES}
QUESTIONS = [(split, q) for split, data in SETS.items() for q in data["questions"]]


def doc_split(doc: str) -> str:
    """The benchmark's split rule: whole documents go to `test` unless their hash is 0 mod 3."""
    return "test" if int(hashlib.sha256(doc.encode()).hexdigest(), 16) % 3 != 0 else "tune"


def _turns(q: dict) -> list[dict]:
    return q["turns"] if q.get("type") == "followup" else [q]


def _supports(q: dict) -> list[dict]:
    return [s for t in _turns(q) for s in (t.get("support") or [])]


def first_doc(q: dict) -> str:
    """The document that decides a question's split: its first support, else `near`, else
    the first inventory document."""
    sup = _supports(q)
    if sup:
        return sup[0]["doc"]
    return q.get("near") or q["documents"][0]


@cache
def ingested_text(doc: str) -> str:
    """What the ingest pipeline extracts from the file (backend.ingest.pipeline.prepare runs
    exactly extract + normalise before cutting), squashed for containment checks."""
    from backend.ingest.extract import extract
    from backend.ingest.normalise import normalise
    from eval.answers import squash

    path = DOCS / doc
    return squash(normalise(extract(path.read_bytes(), path.name)).text)


def test_files_have_the_shared_header():
    for split, data in SETS.items():
        assert data["collection"] == "unseen", split
        assert data["name"] and data["description"], split


def test_ids_are_unique_and_prefixed():
    ids = [q["id"] for _, q in QUESTIONS]
    dup = sorted(i for i, n in Counter(ids).items() if n > 1)
    assert not dup
    assert all(i.startswith("uen") for i in ids)


def test_questions_parse_with_the_answer_set_loader():
    """Known types through parse_question as they are; a dialogue turn by turn, as the
    answerable or unanswerable question it is."""
    for split, q in QUESTIONS:
        assert q.get("type", "answerable") in TYPES, q["id"]
        if q.get("type") != "followup":
            parse_question(q, f"en_{split}.yaml")
            continue
        assert 2 <= len(q["turns"]) <= 3, q["id"]
        for n, t in enumerate(q["turns"], 1):
            turn = {"id": f"{q['id']}.{n}", "question": t.get("question")}
            if t.get("unanswerable"):
                assert "answers" not in t and "support" not in t, turn["id"]
                turn |= {"type": "unanswerable", "reason": "near_miss"}
            else:
                turn |= {"answers": t.get("answers"), "support": t.get("support")}
            parse_question(turn, f"en_{split}.yaml")


def test_routes_languages_and_reasons():
    for _, q in QUESTIONS:
        assert q.get("route") in ROUTES, (q["id"], q.get("route"))
        assert q.get("language") in ("en", "de"), q["id"]
        if q.get("type") == "unanswerable":
            assert q.get("reason") == "near_miss" and q.get("near"), q["id"]
        if q.get("type") == "followup" and q["turns"][-1].get("unanswerable"):
            assert q.get("near"), q["id"]


def test_every_named_document_exists_and_is_english():
    for _, q in QUESTIONS:
        named = [s["doc"] for s in _supports(q)] + q.get("documents", []) + q.get("also", [])
        named += [q["near"]] if q.get("near") else []
        for doc in named:
            assert doc.startswith("en/") and (DOCS / doc).is_file(), (q["id"], doc)


def test_every_question_is_in_the_split_of_its_first_document():
    wrong = [(q["id"], first_doc(q), split) for split, q in QUESTIONS
             if doc_split(first_doc(q)) != split]
    assert not wrong


def test_supporting_sentences_occur_in_the_ingested_text():
    from eval.answers import squash

    missing = [f"{q['id']}: {s['doc']}: {s['sentence'][:70]!r}" for _, q in QUESTIONS
               for s in _supports(q) if squash(s["sentence"]) not in ingested_text(s["doc"])]
    assert not missing, "\n".join(missing)


def test_every_scored_answer_is_in_its_support():
    """At least one acceptable answer string is literally in a supporting sentence of the
    same turn (the others are translations or spellings an answer may use)."""
    bad = []
    for _, q in QUESTIONS:
        for t in _turns(q):
            if t.get("support") and not any(a.casefold() in s["sentence"].casefold()
                                            for a in t["answers"] for s in t["support"]):
                bad.append(q["id"])
    assert not bad


def test_size_and_mix():
    qs = [q for _, q in QUESTIONS]
    kinds = Counter(q.get("type", "answerable") for q in qs)
    assert len(qs) >= 155, len(qs)
    assert sum(q["language"] == "de" for q in qs) >= 0.30 * len(qs)  # the other language
    assert kinds["unanswerable"] >= 32 and kinds["followup"] >= 22 and kinds["inventory"] >= 3
    table = [q for q in qs if any(" | " in s["sentence"] for s in _supports(q))]
    assert len(table) >= 10  # a cell asked by row and column: support is a "cell | cell" row
    analysis = [q for q in qs if q["route"] not in ("passage", "inventory")]
    assert len(analysis) >= 15
    for q in qs:
        if q.get("type") == "followup":  # later turns only make sense in context
            assert all(len(t["question"].split()) <= 12 for t in q["turns"][1:]), q["id"]


def test_every_document_is_asked_about():
    on_disk = {f"en/{p.name}" for p in (DOCS / "en").iterdir()}
    asked = {d for _, q in QUESTIONS for d in [first_doc(q)] + [s["doc"] for s in _supports(q)]}
    assert len(on_disk) >= 20 and on_disk <= asked, sorted(on_disk - asked)


@pytest.mark.parametrize("doc,split", [("en/kestrel_queue_operations_manual.pdf", "test"),
                                       ("en/visitor_parking.html", "tune")])
def test_split_rule_pinned(doc, split):
    """Two documents' splits written down when the files were named, so a changed rule cannot
    silently move documents between the splits."""
    assert doc_split(doc) == split


def test_document_kinds():
    """Formats of the shared brief (>= 3 PDF, >= 2 DOCX, web pages, Markdown, text) and at least
    one long document (3,000+ words of extracted text)."""
    from backend.ingest.extract import extract
    from backend.ingest.normalise import normalise

    files = sorted((DOCS / "en").iterdir())
    kinds = Counter(p.suffix for p in files)
    assert kinds[".pdf"] >= 3 and kinds[".docx"] >= 2 and min(
        kinds[".html"], kinds[".md"], kinds[".txt"]) >= 1, kinds
    words = {p.name: len(normalise(extract(p.read_bytes(), p.name)).text.split()) for p in files}
    assert max(words.values()) >= 3000, words
