"""Interim runner for the English half of the unseen benchmark, TUNING split only
(eval/unseen/en_tune.yaml; the runner for both halves lands with the German half).

Needs eval/unseen/documents/en/ ingested into the collection `unseen` of the data dir
(`python -m backend ingest -c unseen eval/unseen/documents/en/*`); then it either answers the answerable and unanswerable questions through
the chat's path (`evaluate_answers`; follow-up dialogues are skipped) and prints the metrics
with the accuracy per language pair (question → document), or, with `--retrieval`, the hit@k
of the supporting sentence (the rank of the first retrieved chunk containing it) per language
pair (for choosing the embedding model).

    RAGSCOPE_DATA_DIR=<dir> python -m eval.unseen_tune [--retrieval] [--normalisation minmax]
    RAGSCOPE_DATA_DIR=<dir> python -m eval.unseen_tune --abstain [--rows f.json] [--write]

(`--abstain`: fit the abstention model on the tune split of both halves, eval/abstain_tuning.py.)

It never reads a test split: the file name is fixed."""
from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
TUNE = ROOT / "eval" / "unseen" / "en_tune.yaml"
DOCS = ROOT / "eval" / "unseen" / "documents" / "en"
COLLECTION = "unseen"
KS = (1, 3, 5, 10)


def _by_file_name(q):
    """`q` with its support paths reduced to file names (the store knows documents by them)."""
    q.support = [dataclasses.replace(s, doc=Path(s.doc).name) for s in q.support]
    return q


def load_tune():
    """The tuning questions without follow-ups; support paths reduced to file names (the
    store knows documents by file name)."""
    from eval.answer_set import AnswerGoldenset, parse_question

    data = yaml.safe_load(TUNE.read_text(encoding="utf-8"))
    qs = []
    for i, obj in enumerate(data["questions"], 1):
        if obj.get("type", "answerable") not in ("answerable", "unanswerable"):
            continue
        q = parse_question(obj, f"{TUNE.name} question {i}")
        q.split = "tune"
        qs.append(_by_file_name(q))
    return AnswerGoldenset(data.get("name", "unseen_en_tune"), qs, collection=COLLECTION)


def load_tune_both():
    """The tune split of both halves without follow-ups (eval.unseen_set's tuning loader,
    which refuses the test split); support paths reduced to file names."""
    from eval.answer_set import AnswerGoldenset
    from eval.unseen_set import load_unseen_for_tuning

    qs = [_by_file_name(q) for q in load_unseen_for_tuning().questions
          if q.type in ("answerable", "unanswerable")]
    return AnswerGoldenset("unseen_tune", qs, collection=COLLECTION)


def ensure_ingested(rs) -> None:
    """A clear error when the collection is missing (ingesting is the CLI's job)."""
    from backend.security import acl
    from backend.security.access import Scope

    if not any(c.name == COLLECTION and c.documents
               for c in acl.collections(rs, Scope.everything())):
        raise SystemExit(f"collection '{COLLECTION}' is empty in {rs.settings.data_dir}: run "
                         f"`python -m backend ingest -c {COLLECTION} {DOCS.relative_to(ROOT)}/*`")


def pair(q, langs: dict[str, str]) -> str:
    docs = {langs.get(s.doc, "?") for s in q.support} if q.support else {"-"}
    return f"{q.language}->{'/'.join(sorted(docs))}"


def answers(rs, gs) -> dict:
    from eval.answers import document_languages, evaluate_answers

    rep = evaluate_answers(rs, gs, provider="extractive", split="tune")
    langs = document_languages(rs)
    by: dict[str, list[float]] = {}
    for r in rep.results:
        if r.question.type == "answerable":
            by.setdefault(pair(r.question, langs), []).append(r.metrics["correct"])
    keys = ("accuracy", "accuracy_same_language", "accuracy_cross_language",
            "citation_precision", "abstention_recall", "abstention_precision",
            "answerable_abstained", "latency_p50_ms", "latency_p95_ms", "first_token_p50_ms",
            "first_token_p95_ms", "retrieval_p50_ms")
    return {**{k: rep.metrics.get(k) for k in keys},
            "by_pair": {p: f"{sum(v):.0f}/{len(v)}" for p, v in sorted(by.items())},
            "wrong": [r.question.id for r in rep.results if r.question.type == "answerable"
                      and not r.metrics["correct"]]}


def retrieval(rs, gs, normalisation: str, vector_weight: float | None = None,
              anchor_boost: float | None = None) -> dict:
    from backend.security.access import Scope
    from backend.retrieval.engine import Retriever
    from backend.retrieval.types import RetrievalParams
    from eval.answers import document_languages, squash

    langs = document_languages(rs)
    by: dict[str, list[int | None]] = {}
    for q in gs.questions:
        if q.type != "answerable":
            continue
        res = Retriever(rs).retrieve(q.question, RetrievalParams(
            k=max(KS), collections=[COLLECTION], normalisation=normalisation,
            vector_weight=vector_weight,
            **({} if anchor_boost is None else {"anchor_boost": anchor_boost})),
            scope=Scope.everything())
        want = [squash(s.sentence) for s in q.support]
        rank = next((h.rank for h in res.hits
                     if any(w in squash(h.text) for w in want)), None)
        by.setdefault(pair(q, langs), []).append(rank)
    return {p: {f"hit@{k}": round(sum(1 for r in ranks if r and r <= k) / len(ranks), 3)
                for k in KS} | {"n": len(ranks)} for p, ranks in sorted(by.items())}


def main(argv=None) -> int:
    import sys

    argv = list(sys.argv[1:] if argv is None else argv)
    if "--abstain" in argv:  # fit the abstention model on both halves' tune split
        from eval.abstain_tuning import main as abstain_main

        return abstain_main([x for x in argv if x != "--abstain"])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--retrieval", action="store_true", help="hit@k of the supporting sentence")
    ap.add_argument("--abstain", action="store_true", help="fit the abstention model on the "
                    "tune splits (eval/abstain_tuning.py; --abstain --help for its options)")
    ap.add_argument("--normalisation", default="max", choices=["max", "minmax"])
    ap.add_argument("--both", action="store_true", help="with --retrieval: the tune split of "
                    "both halves (German and English documents), not only eval/unseen/en_tune.yaml")
    ap.add_argument("--vector-weight", type=float, default=None,
                    help="with --retrieval: one fusion weight of the vector side for every "
                    "question (default: the weight table by model and language)")
    ap.add_argument("--anchor-boost", type=float, default=None,
                    help="with --retrieval: RetrievalParams.anchor_boost (default: its default)")
    a = ap.parse_args(argv)
    from backend.config import Settings
    from backend.services.container import Ragscope

    rs = Ragscope(Settings())
    try:
        ensure_ingested(rs)
        gs = load_tune_both() if a.both else load_tune()
        out = (retrieval(rs, gs, a.normalisation, a.vector_weight, a.anchor_boost)
               if a.retrieval else answers(rs, gs))
        print(json.dumps({"model": rs.settings.embedding_model, **out}))
    finally:
        rs.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
