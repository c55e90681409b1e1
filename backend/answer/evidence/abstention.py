"""Abstention as a calibrated model (issue 22, item 4): is the question answerable from the
evidence at all?

Near-miss questions ("the share price of X", "who voted against", "revenue in 2019") share the
topic and most words with real passages; what tells them apart is whether the question's
distinguishing parts — its names, figures, years and rarest words — occur in the chosen
sentence, in its document, or anywhere in the evidence. `signals` computes those (each 0..1)
next to the ranking features of the top candidate (backend/answer/evidence/scoring.py); a
logistic regression over them, fitted on the tune splits only (the unseen benchmark's and the
sample benchmark's tuning half; `python -m eval.unseen_tune --abstain`,
eval/abstain_tuning.py, which also chose the feature groups, the regularisation, the label and
the threshold), gives the probability that the evidence does not answer the question. The
answerer declines when the old evidence-score rule or the model says so
(`p >= threshold`). Its coefficients live in `abstain_model.json` beside this module (plain
numbers, no pickle); without that file the old rule alone decides. The probability also gives
the answer's confidence hint (backend/answer/confidence.py)."""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

from backend.answer.evidence import crosslingual
from backend.answer.evidence.question import _WORD, Question, _matches, terms
from backend.llm.base import Evidence

MODEL_FILE = Path(__file__).with_name("abstain_model.json")
_DIGITS = re.compile(r"\b\d[\d.,]*\d\b|\b\d\b")

# The ranking features of the top candidate the model may use (scoring.FEATURES).
TOP = ("lex", "strict", "prev", "head", "key", "key_ctx", "type", "type_new", "type_miss",
       "src", "lang", "emb", "xemb", "cover", "missing", "unseen", "unseen_caps", "rare_miss",
       "year_miss", "novel")


def _names(q: Question) -> list[str]:
    """The question's distinguishing words as written: capitalised words after its first
    word (names, products; in German also nouns), and its figures and years."""
    first = (_WORD.findall(q.text) or [""])[0]
    caps = [w for w in q.words if w[:1].isupper() and w != first]
    return list(dict.fromkeys(caps + _DIGITS.findall(q.text)))


def _has(word: str, ts: set[str], text: str) -> bool:
    """A word of the question in a text: a figure verbatim, a word by its term (compounds by
    prefix, as the ranking matches)."""
    if word[:1].isdigit():
        return re.search(rf"(?<![\d.,]){re.escape(word)}(?![\d])", text) is not None
    t = set(terms(word))
    return bool(t) and bool(_matches(t, ts, loose=False))


def _bridged(q: Question, text: str, language: str) -> set[str]:
    own = set(terms(text))
    if q.bridge is None:
        return own
    return q.bridge.extend(own, crosslingual.words_of(text), language)


def _miss(words: list[str], ts: set[str], text: str) -> float:
    return sum(1 for w in words if not _has(w, ts, text)) / len(words) if words else 0.0


def signals(q: Question, ranked: list, evidence: list[Evidence],
            share: Callable[[str], float] | None, best: float) -> dict[str, float]:
    """The model's inputs for a question and its ranked candidates (scoring.Scored, best
    first); `best` is the old evidence score of the top one."""
    top = ranked[0]
    c = top.candidate
    f = {f"top_{k}": float(top.features.get(k, 0.0)) for k in TOP}
    f["evidence_score"] = max(best, -2.0)
    f["margin"] = top.score - ranked[1].score if len(ranked) > 1 else 1.0
    f["cross"] = float(bool(q.language) and c.language in ("de", "en")
                       and c.language != q.language)
    own_text = f"{c.text} {c.before} {c.heading}"
    doc = next((e.document for e in evidence if e.n == c.n), "")
    doc_text = " ".join(e.text for e in evidence if e.document == doc)
    all_text = " ".join(e.text for e in evidence)
    sets = {k: _bridged(q, t, c.language) for k, t in
            (("own", own_text), ("doc", doc_text), ("all", all_text))}
    names = _names(q)
    f["names"] = min(len(names), 4) / 4
    f["name_miss_top"] = _miss(names, sets["own"], own_text)
    f["name_miss_doc"] = _miss(names, sets["doc"], doc_text)
    f["name_miss_all"] = _miss(names, sets["all"], all_text)
    rare = _rarest(q, share, 2)
    f["rare2_miss_top"] = _miss(rare, sets["own"], own_text)
    f["rare2_miss_doc"] = _miss(rare, sets["doc"], doc_text)
    qt = q.terms
    f["cover_doc"] = len(_matches(qt, sets["doc"], loose=False)) / len(qt) if qt else 0.0
    f["cover_top"] = len(_matches(qt, sets["own"], loose=False)) / len(qt) if qt else 0.0
    return f


def _rarest(q: Question, share: Callable[[str], float] | None, k: int) -> list[str]:
    """The question's k rarest content words in the corpus (all of them without an index)."""
    words = [w for w in q.words if terms(w)]
    if share is None:
        return words[:k]
    return sorted(words, key=lambda w: (share(w), w))[:k]


@dataclass(frozen=True)
class AbstainModel:
    """Standardised logistic regression: p(unanswerable) = σ(b + Σ w·(x − mean)/scale)."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float  # abstain at p >= threshold
    fitted: str = ""  # how and when (the command, the tuning split's figures)

    def probability(self, x: dict[str, float]) -> float:
        z = self.intercept + sum(w * (x.get(k, 0.0) - m) / (s or 1.0) for k, m, s, w in
                                 zip(self.features, self.mean, self.scale, self.coef))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def to_dict(self) -> dict:
        return {"features": list(self.features), "mean": list(self.mean),
                "scale": list(self.scale), "coef": list(self.coef),
                "intercept": self.intercept, "threshold": self.threshold,
                "fitted": self.fitted}

    @classmethod
    def from_dict(cls, d: dict) -> "AbstainModel":
        n = len(d["features"])
        if not (len(d["mean"]) == len(d["scale"]) == len(d["coef"]) == n):
            raise ValueError(f"{MODEL_FILE.name}: features, mean, scale and coef differ in "
                             f"length")
        return cls(tuple(d["features"]), tuple(map(float, d["mean"])),
                   tuple(map(float, d["scale"])), tuple(map(float, d["coef"])),
                   float(d["intercept"]), float(d["threshold"]), str(d.get("fitted", "")))


@lru_cache(maxsize=4)
def load_model(path: str = str(MODEL_FILE)) -> AbstainModel | None:
    """The fitted model, or None when the file is absent (the old threshold decides)."""
    p = Path(path)
    if not p.is_file():
        return None
    return AbstainModel.from_dict(json.loads(p.read_text(encoding="utf-8")))
