"""Fit the abstention model (backend/answer/evidence/abstention.py) on the unseen benchmark's
TUNING split only (issue 22, item 4).

    RAGSCOPE_DATA_DIR=<dir> python -m eval.unseen_tune --abstain [--rows rows.json] [--write]

Every tune question (a dialogue's turns in one session, as `python -m eval answers
--benchmark unseen` asks them) goes through the chat; the evidence assessment of its scored
turn is recorded with the abstention signals and with the answer it would give if it did not
decline. Label: the answer would be wrong (a near miss or a dialogue ending in one, or an
answerable question whose quoted sentence lacks an acceptable answer) vs right — on these
documents a near miss looks like a wrong answer, not like a right one (docs/chat.md), so the
model predicts whether the quote answers the question; its p(wrong) declines.
A standardised logistic regression (scikit-learn, L2) is cross-validated inside the tune
split (stratified 5-fold, 5 repeats): the out-of-fold probabilities give the trade-off curve
(abstention recall / precision / answerable accuracy by threshold, printed as a table) and
the threshold (`choose`: the most recall whose accuracy stays within 0.02 of today's) and
the feature groups and regularisation (`search`). Then the model is refitted on the whole tune
split; `--write` stores its coefficients as backend/answer/evidence/abstain_model.json.
Questions the chat answered by an analysis route (no assessment) keep the outcome they had.
It never reads a test split: the goldenset comes from `load_unseen_for_tuning()`."""
from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

from eval.unseen_set import load_unseen_for_tuning  # refuses the frozen test split

FEATURE_SETS = {
    "names": ("name_miss_top", "name_miss_doc", "name_miss_all", "names"),
    "base": ("evidence_score", "top_strict", "top_emb", "top_missing", "top_unseen",
             "top_cover"),
    "rare": ("rare2_miss_top", "rare2_miss_doc", "top_rare_miss", "top_year_miss"),
    "shape": ("margin", "top_src", "top_type", "top_type_new", "top_type_miss", "cross",
              "cover_doc", "cover_top", "top_xemb", "top_unseen_caps", "top_lex"),
}


def collect(rs) -> list[dict]:
    """One row per scored question of the tune split (see the module docstring)."""
    import backend.answer.evidence.scoring as scoring
    import backend.chat.service as chat_service
    from backend.answer.evidence.abstention import load_model
    from backend.answer.extractive import compose
    from backend.chat.service import ChatService
    from eval.answers import contains_answer, is_abstention
    from eval.unseen_bench import ask_dialogue, ensure_ingested, scored_question

    ensure_ingested(rs)
    gs = load_unseen_for_tuning()
    seen: list = []
    original = chat_service.assess

    def recording(*a, **k):
        out = original(*a, **{**k, "model": None})
        seen.append(out)
        return out

    chat_service.assess = recording
    scoring.load_model = lambda: None  # the answerer's own assess too: today's rule decides
    svc = ChatService(rs)
    ask = svc.ask_stream

    def ask_turn(*a, **k):  # only the scored (last) turn's assessments count
        seen.clear()
        yield from ask(*a, **k)

    svc.ask_stream = ask_turn
    rows = []
    try:
        settings = {"provider": "extractive", "collections": ["unseen"], "temperature": 0.0}
        for q in gs.questions:
            sq = scored_question(q)
            if sq.type not in ("answerable", "unanswerable"):
                continue
            answer, _ = ask_dialogue(svc, q, settings)
            a = seen[-1] if seen else None
            row = {"id": q.id, "type": sq.type, "lang": q.language, "set": "unseen",
                   "split": "tune",
                   "declined": bool(answer.abstained or is_abstention(answer.text)),
                   "correct": bool(sq.type == "answerable" and contains_answer(
                       answer.text, sq.answers)), "signals": None}
            if a is not None and a.top is not None and not answer.mode == "analysis":
                text = compose(replace(a, abstain=False))
                row.update(signals=a.signals, hard=not a.question.terms and not a.question.exact
                           or a.best <= -99.0,
                           would_correct=sq.type == "answerable" and contains_answer(
                               text, sq.answers))
            rows.append(row)
    finally:
        chat_service.assess = original
        scoring.load_model = load_model
    return rows


def collect_sample(rs, path: str = "eval/answers_sample.yaml") -> list[dict]:
    """The same rows for the sample benchmark (both halves, each row with its `split`; only
    the tuning half is fitted on), asked through `answer_stream` as eval/answers.py asks."""
    import backend.answer.evidence.scoring as scoring
    import backend.chat.service as chat_service
    from backend.answer.evidence.abstention import load_model
    from backend.answer.extractive import compose
    from backend.chat.service import ChatService, SessionSettings
    from eval.answers import chat_answer, contains_answer, is_abstention
    from eval.unseen_set import tuning_goldenset

    gs = tuning_goldenset(ROOT / path)
    seen: list = []
    original = chat_service.assess

    def recording(*a, **k):
        out = original(*a, **{**k, "model": None})
        seen.append(out)
        return out

    chat_service.assess = recording
    scoring.load_model = lambda: None  # the answerer's own assess too: today's rule decides
    svc = ChatService(rs)
    cfg = SessionSettings(provider="extractive", collections=[gs.collection or "samples"],
                          temperature=0.0)
    rows = []
    try:
        for q in gs.questions:
            if q.type not in ("answerable", "unanswerable"):
                continue
            seen.clear()
            answer = chat_answer(svc, q.question, cfg)
            a = seen[-1] if seen else None
            row = {"id": q.id, "type": q.type, "lang": q.language, "set": "sample",
                   "split": q.split, "declined": bool(answer.abstained
                                                      or is_abstention(answer.text)),
                   "correct": bool(q.type == "answerable" and contains_answer(
                       answer.text, q.answers)), "signals": None}
            if a is not None and a.top is not None:
                text = compose(replace(a, abstain=False))
                row.update(signals=a.signals, hard=not a.question.terms and not a.question.exact
                           or a.best <= -99.0,
                           would_correct=q.type == "answerable" and contains_answer(
                               text, q.answers))
            rows.append(row)
    finally:
        chat_service.assess = original
        scoring.load_model = load_model
    return rows


def outcome(rows: list[dict], p: np.ndarray | None, threshold: float) -> dict:
    """Recall, precision and answerable accuracy when the model declines at p >= threshold
    (p aligned with the rows that have signals; the others keep their outcome)."""
    declined, correct = [], []
    i = 0
    for r in rows:
        if r["signals"] is None or p is None:
            d, c = r["declined"], r["correct"]
        else:
            d = r["hard"] or r["declined"] or p[i] >= threshold  # today's rule, or the model
            c = not d and r["would_correct"]
            i += 1
        declined.append(d)
        correct.append(c)
    una = [d for r, d in zip(rows, declined) if r["type"] == "unanswerable"]
    ans = [c for r, c in zip(rows, correct) if r["type"] == "answerable"]
    n_dec = sum(declined)
    good = sum(1 for r, d in zip(rows, declined) if d and r["type"] == "unanswerable")
    return {"threshold": round(threshold, 3), "recall": round(sum(una) / len(una), 3),
            "precision": round(good / n_dec, 3) if n_dec else 0.0,
            "accuracy": round(sum(ans) / len(ans), 3), "declined": n_dec}


LABELS = ("wrong", "unanswerable")


def matrix(rows: list[dict], features: tuple[str, ...], label: str = "wrong"
           ) -> tuple[np.ndarray, np.ndarray]:
    """Features and label of the rows with signals. Label "wrong": the answer would be wrong
    (a near miss, or an answerable question whose quoted sentence lacks the value — on the
    unseen documents those look alike: a near miss is told from a right answer, not from a
    wrong one; docs/chat.md); "unanswerable": only the near misses."""
    use = [r for r in rows if r["signals"] is not None]
    X = np.array([[r["signals"].get(f, 0.0) for f in features] for r in use], dtype=float)
    y = np.array([r["type"] == "unanswerable" or (label == "wrong" and not r["would_correct"])
                  for r in use], dtype=int)
    return X, y


def _pipe(c: float):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=2000))


def oof(rows: list[dict], features: tuple[str, ...], c: float, label: str = "wrong",
        repeats: int = 5) -> np.ndarray:
    """Out-of-fold p(wrong) of the rows with signals, averaged over repeated stratified
    5-fold splits (the strata: label and benchmark)."""
    from sklearn.model_selection import StratifiedKFold

    X, y = matrix(rows, features, label)
    strata = np.array([f"{r['set']}{y_}" for r, y_ in
                       zip([r for r in rows if r["signals"] is not None], y)])
    p = np.zeros(len(y))
    for seed in range(repeats):
        for tr, te in StratifiedKFold(5, shuffle=True, random_state=seed).split(X, strata):
            p[te] += _pipe(c).fit(X[tr], y[tr]).predict_proba(X[te])[:, 1] / repeats
    return p


THRESHOLDS = tuple(float(t) for t in np.round(np.arange(0.05, 0.991, 0.05), 2))
SETS = ("unseen", "sample")


def by_set(rows: list[dict], p: np.ndarray | None, threshold: float) -> dict[str, dict]:
    """`outcome` per benchmark (p aligned with the rows that have signals)."""
    it = iter(p) if p is not None else None
    parts: dict[str, tuple[list, list]] = {}
    for r in rows:
        rs_, ps = parts.setdefault(r["set"], ([], []))
        rs_.append(r)
        if r["signals"] is not None and it is not None:
            ps.append(next(it))
    return {k: outcome(v[0], np.array(v[1]) if p is not None else None, threshold)
            for k, v in parts.items()}


def curve(rows: list[dict], p: np.ndarray, thresholds=THRESHOLDS) -> list[dict]:
    return [{"threshold": t, **by_set(rows, p, t)} for t in thresholds]


MAX_ACCURACY_LOSS = 0.01  # of answerable accuracy on the sample tune half (1 question: 0.015)
SAMPLE_MIN_PRECISION = 0.90  # its abstention precision (today 1.00; CI floor 0.78)
THRESHOLDS_FINE = tuple(float(t) for t in np.round(np.arange(0.05, 0.991, 0.01), 2))


def choose(points: list[dict], today: dict) -> dict | None:
    """The threshold with the most abstention recall + precision on the unseen tune split
    (ties: its accuracy, then the higher threshold) among those that keep the sample
    benchmark's tune half as it is: accuracy within MAX_ACCURACY_LOSS of today's, precision
    at least SAMPLE_MIN_PRECISION, recall not below today's. Precision 0.90 on the unseen
    documents is out of reach (docs/chat.md), so it cannot be the constraint."""
    def fine(x):
        if "sample" not in x:
            return True
        s, t = x["sample"], today["sample"]
        return (s["accuracy"] >= t["accuracy"] - MAX_ACCURACY_LOSS and s["recall"] >= t["recall"]
                and s["precision"] >= SAMPLE_MIN_PRECISION)

    def key(x):
        u = x["unseen"]
        return (round(u["recall"] + u["precision"], 4), u["accuracy"], x["threshold"])

    ok = [x for x in points if fine(x)]
    return max(ok, key=key) if ok else None


def search(rows: list[dict], today: dict) -> tuple[tuple[str, ...], float, list[dict], dict]:
    """The feature groups and regularisation with the best cross-validated chosen point."""
    from itertools import combinations

    best = None
    groups = list(FEATURE_SETS)
    for k in range(1, len(groups) + 1):
        for combo in combinations(groups, k):
            feats = tuple(f for g in combo for f in FEATURE_SETS[g])
            for c, label in ((c, lb) for c in (0.3, 1.0, 3.0) for lb in LABELS):
                p = oof(rows, feats, c, label)
                pick = choose(curve(rows, p, THRESHOLDS_FINE), today)
                if pick is None:  # no threshold keeps the sample benchmark as it is
                    continue
                key = (round(pick["unseen"]["recall"] + pick["unseen"]["precision"], 4),
                       pick["unseen"]["accuracy"])
                if best is None or key > best[0]:
                    best = (key, feats, (c, label), p, pick, combo)
    _, feats, c, p, pick, combo = best
    print(f"chosen groups {combo}, C, label = {c}")
    return feats, c, curve(rows, p) + [pick], pick


def fit(rows: list[dict], features: tuple[str, ...], c_label: tuple[float, str],
        threshold: float, note: str):
    from backend.answer.evidence.abstention import AbstainModel

    c, label = c_label
    X, y = matrix(rows, features, label)
    pipe = _pipe(c).fit(X, y)
    sc, lr = pipe[0], pipe[1]
    return AbstainModel(features, tuple(map(float, sc.mean_)), tuple(map(float, sc.scale_)),
                        tuple(float(v) for v in lr.coef_[0]), float(lr.intercept_[0]),
                        float(threshold), note)


def _rows(path: str | None, data_dir: str | None, which: str) -> list[dict]:
    """Rows from `path` when it exists, else collected (and written to `path`)."""
    p = Path(path) if path else None
    if p is not None and p.is_file():
        return json.loads(p.read_text(encoding="utf-8"))
    from backend.config import Settings
    from backend.services.container import Ragscope

    rs = Ragscope(Settings(**({"data_dir": Path(data_dir)} if data_dir else {})))
    try:
        rows = collect(rs) if which == "unseen" else collect_sample(rs)
    finally:
        rs.close()
    if p is not None:
        p.write_text(json.dumps(rows), encoding="utf-8")
    return rows


def _table(pts: list[dict], pick: dict) -> None:
    print("| threshold | unseen tune: recall / precision / accuracy | sample tune: recall / "
          "precision / accuracy |")
    for x in pts:
        mark = "**" if x is pick else ""
        cells = " | ".join(f"{x[k]['recall']:.3f} / {x[k]['precision']:.3f} / "
                           f"{x[k]['accuracy']:.3f}" for k in SETS if k in x)
        print(f"| {mark}{x['threshold']:.2f}{mark} | {cells} |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", help="the unseen tune rows: read from this JSON file if it "
                                   "exists, else collected (RAGSCOPE_DATA_DIR) and written")
    ap.add_argument("--sample-rows", help="the same for the sample benchmark")
    ap.add_argument("--sample-data-dir", help="data dir with the sample corpus in collection "
                                              "'samples' (for collecting --sample-rows)")
    ap.add_argument("--write", action="store_true", help="store abstain_model.json")
    a = ap.parse_args(argv)
    rows = [r | {"set": r.get("set", "unseen")} for r in _rows(a.rows, None, "unseen")]
    sample = _rows(a.sample_rows, a.sample_data_dir, "sample") if (
        a.sample_rows or a.sample_data_dir) else []
    held = [r for r in sample if r["split"] != "tune"]  # reported, never fitted on
    rows += [r for r in sample if r["split"] == "tune"]
    print(f"tune rows: {len(rows)} ({sum(r['type'] == 'unanswerable' for r in rows)} "
          f"unanswerable, {sum(r['signals'] is None for r in rows)} without an assessment)")
    today = by_set(rows, None, 1.0)
    print("today (evidence-score threshold):", today)
    feats, c, pts, pick = search(rows, today)
    _table(pts, pick)
    note = "; ".join(f"{k} tune {pick[k]['recall']}/{pick[k]['precision']}/"
                     f"{pick[k]['accuracy']}" for k in today)
    model = fit(rows, feats, c, pick["threshold"],
                f"python -m eval.unseen_tune --abstain --write (tune splits only); 5x5-fold "
                f"CV at the threshold, recall/precision/accuracy: {note}")
    if held:
        X, _ = matrix(held, feats)
        p = np.array([model.probability(dict(zip(feats, x))) for x in X])
        print("sample held-out half (report only):", outcome(held, None, 1.0), "->",
              outcome(held, p, model.threshold))
    from backend.answer.evidence.abstention import MODEL_FILE

    emit_model(model.to_dict(), MODEL_FILE, a.write)
    return 0


def emit_model(model: dict, path: Path, write: bool) -> None:
    """Print a fitted model's plain numbers; with `write` store them where the answerer
    reads them (the abstention and ranker models' JSON files)."""
    print(json.dumps(model, indent=1))
    if write:
        path.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    raise SystemExit(main())
