"""Fit the learned sentence ranker (backend/answer/evidence/ranker.py) on the TUNE splits only.

    python -m eval.ranker_tuning --rows unseen.json --sample-rows sample.json \
        [--data-dir UNSEEN_DATA] [--sample-data-dir SAMPLE_DATA] [--analyse] [--write]

Rows (eval/ranker_tuning_rows.py): every candidate of every tune question with its features
and the label "the answer would be right if this candidate were quoted"; collected through the chat
when the files do not exist. `--analyse` prints the error analysis of the hand weights (why
each wrong answer was wrong: docs/chat.md, "A learned sentence ranker"). Otherwise: grouped
cross-validation by document (5 folds over the documents of the unseen tune split and the
sample tuning half together, 5 shuffles) of pointwise and pairwise logistic regression and
gradient-boosted trees, top-1 accuracy per benchmark next to the hand weights'; the best
linear model is refitted on all tune rows and, with `--write`, stored as ranker_model.json —
only when it beats the hand weights in cross-validation on BOTH benchmarks. It never reads a
test split (eval/ranker_tuning_rows.py loads the goldensets through the tuning loaders)."""
from __future__ import annotations

import argparse
import json
from collections import Counter

import numpy as np

from backend.answer.evidence.ranker import EXTRA
from backend.answer.evidence.scoring import FEATURES, WEIGHTS
from eval.ranker_tuning_rows import load_rows

# Per question (the same for every candidate): no use for ordering candidates.
CONSTANT = ("cover", "missing", "unseen", "unseen_caps")
RANK_FEATURES = tuple(f for f in FEATURES if f not in CONSTANT) + EXTRA
SETS = ("unseen", "sample")


def usable(rows: list[dict]) -> list[dict]:
    """Answerable tune questions the answerer quoted from (analysis routes have no ranking)."""
    return [r for r in rows if r["type"] == "answerable" and r["cands"]
            and r["split"] == "tune"]


def _x(row: dict, feats=RANK_FEATURES) -> np.ndarray:
    return np.array([[c["f"].get(k, 0.0) for k in feats] for c in row["cands"]], dtype=float)


def _y(row: dict) -> np.ndarray:
    return np.array([c["y"] for c in row["cands"]], dtype=int)


# ---- error analysis ------------------------------------------------------------------------

def hand_score(f: dict) -> float:
    w = WEIGHTS.final
    return w.get("bias", 0.0) + sum(v * f.get(k, 0.0) for k, v in w.items() if k != "bias")


def misled_by(top: dict, right: dict) -> str:
    """The hand-weighted feature that most favoured the quoted candidate over the first right
    one."""
    w = WEIGHTS.final
    diff = {k: v * (top["f"].get(k, 0.0) - right["f"].get(k, 0.0)) for k, v in w.items()
            if k != "bias"}
    k = max(diff, key=diff.get)
    return k if diff[k] > 0 else "tie"


def category(r: dict) -> tuple[str, int | None, str]:
    """(class, rank of the first right candidate, misleading feature) of a wrong answer."""
    if r["mode"] == "analysis":
        return "analysis route answered (no sentence ranking)", None, ""
    cands = r["cands"]
    rank = next((i + 1 for i, c in enumerate(cands) if c["y"]), None)
    if rank is None:
        sup = any(c["sup"] for c in cands)
        return ("supporting sentence among the candidates, its quote lacks the accepted value"
                if sup else "no candidate holds the answer (retrieval or candidate split)"), \
            None, ""
    if rank == 1:
        return "right candidate ranked first, but declined", 1, ""
    bucket = "2" if rank == 2 else "3-4" if rank <= 4 else "5-10" if rank <= 10 else ">10"
    return f"right candidate at rank {bucket}", rank, misled_by(cands[0], cands[rank - 1])


def analyse(rows: list[dict]) -> dict:
    out = {}
    for which in SETS:
        wrong = [r for r in rows if r["set"] == which and r["split"] == "tune"
                 and r["type"] == "answerable" and not r["correct"]]
        cats = Counter(category(r)[0] for r in wrong)
        misled = Counter(category(r)[2] for r in wrong if category(r)[2])
        out[which] = {"wrong": len(wrong), "classes": dict(cats.most_common()),
                      "misled_by": dict(misled.most_common())}
    return out


# ---- models --------------------------------------------------------------------------------

def _pointwise(kind: str, c: float):
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if kind == "hgb":
        return HistGradientBoostingClassifier(max_depth=3, learning_rate=0.05, max_iter=int(c),
                                              random_state=0)
    return make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=3000))


def _pairs(rows: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """Pairwise differences right − wrong (and their negation) within each question."""
    xs, ys = [], []
    for r in rows:
        X, y = _x(r), _y(r)
        pos, neg = X[y == 1], X[y == 0]
        if len(pos) and len(neg):
            d = (pos[:, None, :] - neg[None, :, :]).reshape(-1, X.shape[1])
            xs += [d, -d]
            ys += [np.ones(len(d)), np.zeros(len(d))]
    return np.vstack(xs), np.concatenate(ys)


class Fitted:
    """A fitted ranker of one kind: `scores(row)` for each candidate."""

    def __init__(self, kind: str, c: float, rows: list[dict]):
        self.kind = kind
        if kind == "pairwise":
            from sklearn.linear_model import LogisticRegression
            from sklearn.preprocessing import StandardScaler

            X = np.vstack([_x(r) for r in rows])
            self.scaler = StandardScaler().fit(X)
            D, y = _pairs(rows)
            self.lr = LogisticRegression(C=c, max_iter=3000, fit_intercept=False).fit(
                D / np.where(self.scaler.scale_ == 0, 1, self.scaler.scale_), y)
        else:
            X = np.vstack([_x(r) for r in rows])
            y = np.concatenate([_y(r) for r in rows])
            self.model = _pointwise(kind, c).fit(X, y)

    def scores(self, row: dict) -> np.ndarray:
        X = _x(row)
        if self.kind == "pairwise":
            return self.scaler.transform(X) @ self.lr.coef_[0]
        return self.model.predict_proba(X)[:, 1]

    def linear(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """mean, scale, coef, intercept of a linear kind (standardised features)."""
        if self.kind == "pairwise":
            sc = self.scaler
            return sc.mean_, np.where(sc.scale_ == 0, 1, sc.scale_), self.lr.coef_[0], 0.0
        sc, lr = self.model[0], self.model[1]
        return sc.mean_, np.where(sc.scale_ == 0, 1, sc.scale_), lr.coef_[0], \
            float(lr.intercept_[0])


def top1(row: dict, scores: np.ndarray) -> bool:
    """Is the best-scored candidate right (ties: the hand order, as recorded)."""
    return bool(row["cands"][int(np.argmax(scores))]["y"])


def cross_validate(rows: list[dict], kind: str, c: float, shuffles: int = 5) -> dict:
    """Out-of-fold top-1 accuracy per benchmark, averaged over shuffled 5-fold splits by
    document (no document's questions in both the fitting and the scored fold)."""
    from sklearn.model_selection import GroupKFold

    groups = np.array([r["group"] for r in rows])
    hits = {s: [] for s in SETS}
    for seed in range(shuffles):
        won = np.zeros(len(rows), dtype=bool)
        for tr, te in GroupKFold(5, shuffle=True, random_state=seed).split(rows, groups=groups):
            m = Fitted(kind, c, [rows[i] for i in tr])
            for i in te:
                won[i] = top1(rows[i], m.scores(rows[i]))
        for s in SETS:
            hits[s].append(np.mean([w for w, r in zip(won, rows) if r["set"] == s]))
    return {s: round(float(np.mean(v)), 4) for s, v in hits.items()}


def hand(rows: list[dict]) -> dict:
    return {s: round(float(np.mean([r["cands"][0]["y"] for r in rows if r["set"] == s])), 4)
            for s in SETS}


CANDIDATES = [("pointwise", c) for c in (0.003, 0.01, 0.03, 0.1, 0.3, 1.0)] + \
    [("pairwise", c) for c in (0.01, 0.03, 0.1, 0.3, 1.0)] + [("hgb", n) for n in (100, 300)]


def search(rows: list[dict]) -> list[dict]:
    base = hand(rows)
    out = [{"kind": "hand weights", "c": None, **base}]
    print(json.dumps(out[-1]), flush=True)
    for kind, c in CANDIDATES:
        cv = cross_validate(rows, kind, c)
        out.append({"kind": kind, "c": c, **cv})
        print(json.dumps(out[-1]), flush=True)
    return out


def choose(results: list[dict]) -> dict | None:
    """The linear fit with the best mean top-1 of both benchmarks among those that beat the
    hand weights on each (None: keep the hand weights)."""
    base = results[0]
    ok = [r for r in results[1:] if r["kind"] != "hgb"
          and all(r[s] > base[s] for s in SETS)]
    return max(ok, key=lambda r: (r["unseen"] + r["sample"], -r["c"])) if ok else None


def model_of(rows: list[dict], pick: dict, note: str):
    from backend.answer.evidence.ranker import RankerModel

    mean, scale, coef, b = Fitted(pick["kind"], pick["c"], rows).linear()
    return RankerModel(RANK_FEATURES, tuple(map(float, mean)), tuple(map(float, scale)),
                       tuple(map(float, coef)), float(b), note)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", help="unseen tune rows (JSON; collected and written if absent)")
    ap.add_argument("--sample-rows", help="sample benchmark rows (the same)")
    ap.add_argument("--data-dir", help="data dir with collection 'unseen' (for collecting)")
    ap.add_argument("--sample-data-dir", help="data dir with the sample corpus in 'samples'")
    ap.add_argument("--analyse", action="store_true", help="the hand weights' error analysis")
    ap.add_argument("--write", action="store_true", help="store ranker_model.json")
    a = ap.parse_args(argv)
    rows = load_rows(a.rows, a.data_dir, "unseen") + load_rows(a.sample_rows,
                                                               a.sample_data_dir, "sample")
    if a.analyse:
        print(json.dumps(analyse(rows), indent=1, ensure_ascii=False))
        return 0
    use = usable(rows)
    print(f"tune questions with candidates: {Counter(r['set'] for r in use)}; documents "
          f"{len({r['group'] for r in use})}")
    results = search(use)
    pick = choose(results)
    if pick is None:
        print("no fit beats the hand weights on both benchmarks: nothing written")
        return 0
    note = (f"python -m eval.ranker_tuning --write (tune splits only); {pick['kind']} C "
            f"{pick['c']}; grouped 5-fold CV top-1 unseen {pick['unseen']} / sample "
            f"{pick['sample']} vs hand weights {results[0]['unseen']} / "
            f"{results[0]['sample']}")
    model = model_of(use, pick, note)
    from backend.answer.evidence.ranker import MODEL_FILE
    from eval.abstain_tuning import emit_model

    emit_model(model.to_dict(), MODEL_FILE, a.write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
