"""How the extractive answerer's weights and abstention threshold were chosen (docs/chat.md).

    RAGSCOPE_DATA_DIR=… python -m eval.answer_tuning [--expand section] [--min-score 0.2]

On the sample corpus (ingested into collection `samples` of RAGSCOPE_DATA_DIR) every
answerable and unanswerable question of eval/answers_sample.yaml is retrieved once the way the
chat retrieves; every answer candidate gets its features (backend/answer/evidence/scoring.py),
embeddings for all of them. A candidate is right when it (with its previous sentence) contains
an acceptable answer and its source contains a supporting sentence. Then, on the TUNING half
only: coordinate ascent over a grid of each weight (top-1 accuracy on answerable questions),
the shortlist size, and the abstention weights and threshold (most answerable accuracy +
abstention recall while at least 90 % of the threshold's abstentions are unanswerable
questions). The chosen values are printed with their figures on both
halves; the held-out half never influences a choice. A frozen test split (eval/unseen/,
issue 22) cannot be read here at all: the goldenset goes through eval.unseen_set.tuning_goldenset.
"""
from __future__ import annotations

import argparse
import json
import pickle
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np

import backend  # noqa: F401
from backend.answer.evidence.corpus import unseen
from backend.answer.evidence.question import analyse
from backend.answer.evidence.scoring import (
    FEATURES,
    NO_EVIDENCE,
    WEIGHTS,
    Weights,
    _keyed,
    _unknown_name,
    featurise,
)
from eval.answers import contains_answer, squash
from eval.gate import ROOT
from eval.unseen_set import tuning_goldenset  # refuses the frozen test splits


def collect(rs, gs, expand: str, min_score: float | None, emb_cache: dict | None = None):
    """Per question: type, split, feature rows, right flags, embeddings (all candidates)."""
    from backend.security.access import Scope
    from backend.chat.service import ChatService, SessionSettings
    from backend.llm.base import Evidence
    from backend.retrieval import TraceOwner

    rs.settings = rs.settings.model_copy(update={"chat_expand": expand,
                                                 "chat_min_score": min_score})
    svc = ChatService(rs)
    known = svc._known
    cfg = SessionSettings(collections=[gs.collection] if gs.collection else [])
    rows = []
    for q in gs.questions:
        if q.type == "inventory":
            continue
        result, _, _ = svc._retrieve(q.question, cfg, TraceOwner.system("eval"),
                                     Scope.everything())
        hits = result.hits[:cfg.context_limit]
        ev = [Evidence(n, h.context[:rs.settings.chat_source_chars], h.document_title or
                       h.filename, h.breadcrumb, h.page, float(h.score))
              for n, h in enumerate(hits, 1)]
        qi = analyse(q.question)
        scored = _keyed(qi, featurise(qi, ev, known))
        ctx = {e.n: squash(e.text) for e in ev}
        sups = [squash(s.sentence) for s in q.support]
        right = [q.type == "answerable" and contains_answer(s.candidate.text, q.answers)
                 and any(x in ctx[s.candidate.n] for x in sups) for s in scored]
        emb = np.zeros(len(scored))
        if scored:
            cache = {} if emb_cache is None else emb_cache
            todo = [t for t in dict.fromkeys(s.candidate.text for s in scored) if t not in cache]
            cache.update(zip(todo, rs.embedder.encode(todo)) if todo else [])
            qv = rs.embedder.encode_query(q.question)
            emb = np.maximum(0, np.stack([cache[s.candidate.text] for s in scored]) @ qv)
        rows.append({"id": q.id, "type": q.type, "split": q.split, "lang": q.language,
                     "hard": _unknown_name(qi, known),
                     "question": q.question, "texts": [s.candidate.text for s in scored],
                     "ns": [s.candidate.n for s in scored],
                     "support_in": [n for n, c in ctx.items() if any(x in c for x in sups)],
                     "feats": [s.features for s in scored], "right": right, "emb": emb,
                     "reachable": any(right)})
    return rows


_COL = {k: i for i, k in enumerate(FEATURES)}


def _matrix(row) -> np.ndarray:
    """The row's candidates x FEATURES matrix (computed once)."""
    if "X" not in row:
        row["X"] = np.array([[f.get(k, 0.0) for k in FEATURES] for f in row["feats"]],
                            dtype=float).reshape(len(row["feats"]), len(FEATURES))
    return row["X"]


def _vec(w: dict) -> tuple[np.ndarray, float]:
    return np.array([w.get(k, 0.0) for k in FEATURES]), w.get("bias", 0.0)


def decide(row, w: Weights):
    """(best score, is the top candidate right) under weights w, as scoring.assess ranks:
    the `shortlist` best by the `pre` weights get their embedding, the top one by `final`
    is the answer, its `abstain` score the evidence score."""
    if not row["feats"]:
        return -1e9, False
    X = _matrix(row)
    wp, bp = _vec(w.pre)
    order = np.argsort(-(X @ wp + bp), kind="stable")
    short = order[:w.shortlist] if w.shortlist else order
    Xs = X[short].copy()
    e = np.asarray(row["emb"])[short]
    Xs[:, _COL["emb"]] = e
    Xs[:, _COL["emb_type"]] = e * Xs[:, _COL["type"]]
    wf, bf = _vec(w.final)
    j = int(np.argmax(Xs @ wf + bf))
    top = int(short[j])
    if w.abstain:
        wa, ba = _vec(w.abstain)
        best = float(Xs[j] @ wa + ba)
    else:
        best = float(Xs[j] @ wf + bf)
    if X[top, _COL["strict"]] == 0.0:
        best = NO_EVIDENCE  # as scoring.assess: no word of the question in it
    return best, bool(row["right"][top])


def _metrics(sel, res, t: float) -> dict:
    ans = [r for r in sel if r["type"] == "answerable"]
    una = [r for r in sel if r["type"] == "unanswerable"]
    correct = [r for r in ans if res[r["id"]][1] and res[r["id"]][0] >= t]
    abst_a = [r for r in ans if res[r["id"]][0] < t]
    abst_u = [r for r in una if res[r["id"]][0] < t]
    declined = len(abst_a) + len(abst_u)
    out = {"accuracy": len(correct) / len(ans),
           "top1": sum(res[r["id"]][1] for r in ans) / len(ans),
           "reachable": sum(r["reachable"] for r in ans) / len(ans),
           "abstention_recall": len(abst_u) / len(una) if una else 0.0,
           "abstention_precision": len(abst_u) / declined if declined else 1.0}
    for lang in ("de", "en"):
        la = [r for r in ans if r["lang"] == lang]
        out[f"accuracy_{lang}"] = sum(1 for r in correct if r["lang"] == lang) / len(la)
    return {k: round(v, 4) for k, v in out.items()}


def evaluate(rows, w: Weights, split: str) -> dict:
    sel = [r for r in rows if split == "all" or r["split"] == split]
    return _metrics(sel, {r["id"]: decide(r, w) for r in sel}, w.threshold)


def threshold(rows, w: Weights, split: str) -> float:
    """The threshold with the most answerable accuracy + abstention recall among those whose
    own abstentions are at least 90 % unanswerable questions (precision >= 0.9, not counting
    the questions the no-shared-word rule declines anyway); the middle of the best interval."""
    sel = [r for r in rows if r["split"] == split]
    res = {r["id"]: decide(r, w) for r in sel}
    free = [r for r in sel if res[r["id"]][0] > NO_EVIDENCE]
    scores = sorted({round(res[r["id"]][0], 4) for r in free})
    cuts = [scores[0] - 1] + [(a + b) / 2 for a, b in zip(scores, scores[1:])]
    best, chosen = -1.0, []
    for t in cuts:
        declined = [r for r in free if res[r["id"]][0] < t]
        if declined and sum(r["type"] == "unanswerable" for r in declined) / len(declined) < 0.9:
            continue
        m = _metrics(sel, res, t)
        v = m["accuracy"] + m["abstention_recall"]
        if v > best + 1e-9:
            best, chosen = v, [t]
        elif abs(v - best) <= 1e-9:
            chosen.append(t)
    return round(float(np.median(chosen)), 4) if chosen else round(cuts[0], 4)


RANKING = ("lex", "prev", "head", "key", "key_ctx", "type", "src", "rank", "lang", "row",
           "field", "line", "lex_type", "type_new", "novel", "emb")
GRID = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)
SIGNED = ("head", "row", "field", "line", "novel")  # may also be negative
SHORTLISTS = (4, 8, 16)


def _top1(rows, w: dict, k: int, split: str) -> float:
    return evaluate(rows, Weights(w, w, -1e9, k), split)["top1"]


def tune(rows, split: str = "tune", rounds: int = 3, start: str = "fresh") -> Weights:
    """Coordinate ascent on the tuning half: each ranking weight in turn takes the grid
    value with the best top-1 accuracy (ties: the value closest to the current one), three
    rounds, for each shortlist size. `lang` stays >= 0.1: answering in the question's
    language where the evidence allows is a requirement, not a preference to learn away.
    Then the per-question weights `cover` and `missing` and the threshold (abstention).
    `start`: "fresh" (the fixed start above) or "current" (the weights in use)."""
    best = None
    for k in SHORTLISTS:
        w = dict(WEIGHTS.final) if start == "current" else {
            "bias": 0.0, "lex": 1.0, "type": 1.0, "rank": 1.0, "emb": 1.0, "key": 1.0,
            "lang": 0.1}
        for _ in range(rounds):
            for n in RANKING:
                grid = GRID + ((-0.5, -1.0) if n in SIGNED else ())
                if n == "lang":
                    grid = tuple(v for v in grid if v >= 0.1) + (0.1,)
                cur = w.get(n, 0.0)
                w[n] = max(grid, key=lambda v: (_top1(rows, dict(w, **{n: v}), k, split),
                                                -abs(v - cur)))
        score = _top1(rows, w, k, split)
        if best is None or score > best[0] + 1e-9:
            best = (score, w, k)
    _, w, k = best
    pre = {n: v for n, v in w.items() if n != "emb" and v}
    weights = Weights({"bias": 0.0, **pre}, {n: v for n, v in w.items() if v}, -1e9, k)
    a = dict(WEIGHTS.abstain) if start == "current" else {
        "bias": 0.0, "strict": 2.0, "emb": 0.5, "missing": -1.0,  # coverage first,
        "unseen": -1.0}  # and words the corpus lacks
    for _ in range(rounds):
        for n in ABSTAIN:
            grid = tuple(-v for v in GRID) if n in ("missing", "unseen", "unseen_caps", "type_miss",
                                                       "rare_miss", "year_miss") \
                else GRID
            cur = a.get(n, 0.0)
            a[n] = max(grid, key=lambda v: (_abstention(rows, weights, dict(a, **{n: v}), split),
                                            -abs(v - cur)))
    weights = replace(weights, abstain={n: v for n, v in a.items() if v or n == "bias"})
    return replace(weights, threshold=threshold(rows, weights, split))


ABSTAIN = ("strict", "emb", "lex", "type", "key", "missing", "cover", "unseen", "unseen_caps",
           "type_miss", "rare_miss", "year_miss")


def _abstention(rows, weights: Weights, a: dict, split: str) -> float:
    w = replace(weights, abstain=a)
    m = evaluate(rows, replace(w, threshold=threshold(rows, w, split)), split)
    return m["accuracy"] + m["abstention_recall"]


def main(argv=None) -> int:
    from backend.config import Settings
    from backend.services.container import Ragscope

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--goldenset", default=str(ROOT / "eval" / "answers_sample.yaml"))
    ap.add_argument("--expand", default="none", choices=["none", "neighbours", "section"])
    ap.add_argument("--min-score", type=float, default=None)
    ap.add_argument("--start", default="fresh", choices=["fresh", "current"],
                    help="coordinate ascent from a fixed start or from the weights in use")
    ap.add_argument("--current", action="store_true",
                    help="only report the figures of the current weights (no tuning)")
    ap.add_argument("--refresh-unseen", action="store_true",
                    help="with --rows: recompute the corpus-lookup features (unseen words)")
    ap.add_argument("--rows", help="a pickle file: reuse the collected candidates and "
                    "features if it exists, else collect and write them there")
    a = ap.parse_args(argv)
    if a.rows and Path(a.rows).exists():
        rows = pickle.loads(Path(a.rows).read_bytes())
        if a.refresh_unseen:  # the corpus lookups are cheap: redo them with today's rule
            from backend.chat.service import ChatService

            gs = {q.id: q for q in tuning_goldenset(a.goldenset).questions}
            known = ChatService(Ragscope(Settings()))._known
            for r in rows:
                qi = analyse(gs[r["id"]].question)
                r["hard"] = _unknown_name(qi, known)
                gone, caps = unseen(qi, known)
                for f in r["feats"]:
                    f["unseen"], f["unseen_caps"] = gone, caps
                r.pop("X", None)
    else:
        rs = Ragscope(Settings())
        rows = collect(rs, tuning_goldenset(a.goldenset), a.expand, a.min_score)
        if a.rows:
            Path(a.rows).write_bytes(pickle.dumps(rows))
    w = WEIGHTS if a.current else tune(rows, start=a.start)
    print(json.dumps({"weights": asdict(w), "tune": evaluate(rows, w, "tune"),
                      "test": evaluate(rows, w, "test")}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
