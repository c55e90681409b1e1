"""The learned sentence ranker (issue 22): which candidate sentence answers the question.

The hand weights of scoring.py were chosen on the sample set, written by the same hands as its
documents; on documents nobody tuned for the answerer picked the wrong sentence for most
wrong answers while the supporting sentence was among its candidates (docs/chat.md, "A
learned sentence ranker"). This module adds cheap per-candidate features relative to the
other candidates of the same question (`extend`) and, when `ranker_model.json` exists beside
it, orders the candidates by a linear model over the features (`RankerModel`), fitted on the
tune splits only by `python -m eval.ranker_tuning --write` (eval/ranker_tuning.py: grouped
cross-validation by document). The hand weights still choose which candidates get an
embedding (the shortlist), so the model costs no extra encoding: its `emb` is what the
answerer computes today; and the abstention decision is still made on the hand order's top
candidate (scoring.assess): the ranker picks which sentence is quoted, not whether one is.
Plain numbers, no pickle; without the file the hand weights rank."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from backend.answer.evidence.question import Question, terms

MODEL_FILE = Path(__file__).with_name("ranker_model.json")
QTYPES = ("number", "date", "duration", "person")

# The features `extend` adds (each 0..1), beside scoring.FEATURES.
EXTRA = ("pos", "length", "lex_rel", "lex_best", "strict_rel", "emb_rel", "has_emb",
         "label_lex", "src_best", "cross_lang") + tuple(f"tn_{t}" for t in QTYPES)


def _label(text: str, kind: str) -> str:
    """A table row's or label line's label: its first cell ("Lüftung und Zugangssicherung"
    of "Lüftung und Zugangssicherung: 87.000,00 EUR."; header label included)."""
    if kind == "row":
        return text.split(";", 1)[0]
    if kind == "field":
        return text.split(":", 1)[0]
    return ""


def extend(q: Question, scored: list) -> None:
    """Add the EXTRA features to every candidate's `features` (in place): its position in its
    source, its length, how its word overlap, strict overlap and similarity compare with the
    best candidate's, whether it is in the best source, whether a table row's label carries
    the question's words, and the asked value type found beyond the question's words per
    question type."""
    if not scored:
        return
    best = {k: max(s.features.get(k, 0.0) for s in scored) for k in ("lex", "strict", "emb")}
    for s in scored:
        f, c = s.features, s.candidate
        f["pos"] = 1.0 / (1 + c.index)
        f["length"] = min(1.0, len(c.text.split()) / 40)
        f["lex_rel"] = f["lex"] / best["lex"] if best["lex"] else 0.0
        f["lex_best"] = float(best["lex"] > 0 and f["lex"] >= best["lex"] - 1e-9)
        f["strict_rel"] = f["strict"] / best["strict"] if best["strict"] else 0.0
        f["emb_rel"] = f["emb"] / best["emb"] if best["emb"] else 0.0
        f["has_emb"] = float(f["emb"] > 0)
        label = set(terms(_label(c.text, c.kind)))
        f["label_lex"] = len(label & q.terms) / len(q.terms) if q.terms and label else 0.0
        f["src_best"] = float(f["src"] >= 1.0 - 1e-9)
        f["cross_lang"] = float(bool(q.language) and c.language in ("de", "en")
                                and c.language != q.language)
        for t in QTYPES:
            f[f"tn_{t}"] = f["type_new"] if q.qtype == t else 0.0


@dataclass(frozen=True)
class RankerModel:
    """Standardised linear score: b + Σ w·(x − mean)/scale (a logit for pointwise fits; the
    order is what counts)."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float = 0.0
    fitted: str = ""  # the command and the cross-validated figures

    def score(self, x: dict[str, float]) -> float:
        return self.intercept + sum(w * (x.get(k, 0.0) - m) / (s or 1.0) for k, m, s, w in
                                    zip(self.features, self.mean, self.scale, self.coef))

    def to_dict(self) -> dict:
        return {"features": list(self.features), "mean": list(self.mean),
                "scale": list(self.scale), "coef": list(self.coef),
                "intercept": self.intercept, "fitted": self.fitted}

    @classmethod
    def from_dict(cls, d: dict) -> "RankerModel":
        n = len(d["features"])
        if not (len(d["mean"]) == len(d["scale"]) == len(d["coef"]) == n):
            raise ValueError(f"{MODEL_FILE.name}: features, mean, scale and coef differ in "
                             f"length")
        vals = [float(v) for v in (*d["mean"], *d["scale"], *d["coef"], d["intercept"])]
        if not all(math.isfinite(v) for v in vals):
            raise ValueError(f"{MODEL_FILE.name}: a coefficient is not a finite number")
        return cls(tuple(d["features"]), tuple(map(float, d["mean"])),
                   tuple(map(float, d["scale"])), tuple(map(float, d["coef"])),
                   float(d["intercept"]), str(d.get("fitted", "")))


@lru_cache(maxsize=4)
def load_ranker(path: str = str(MODEL_FILE)) -> RankerModel | None:
    """The fitted ranker, or None when the file is absent (the hand weights rank)."""
    p = Path(path)
    if not p.is_file():
        return None
    return RankerModel.from_dict(json.loads(p.read_text(encoding="utf-8")))


def rerank(scored: list, model: RankerModel) -> list:
    """The candidates ordered by the model's score (ties: source, position), `score` set."""
    for s in scored:
        s.score = model.score(s.features)
    return sorted(scored, key=lambda s: (-s.score, s.candidate.n, s.candidate.index))
