"""Scoring answer candidates against the question, and the abstention decision.

Features of a candidate (each 0..1):

| feature  | meaning |
|----------|---------|
| `lex`    | weighted share of the question's content words found in the candidate (German compounds matched by prefix, a small German/English glossary bridges cross-lingual questions); a word's weight is its IDF among the candidates times its corpus IDF (keyword index), so "Stadtwerke Birkenau" weighs less than "revenue" |
| `prev`, `head` | what the previous sentence / the section heading and table header add to `lex` |
| `strict` | `lex` over candidate and context without the loose prefix matching |
| `key`, `key_ctx` | share of the question's exact tokens (config keys, codes, versions, § numbers) in the candidate / only in its context |
| `type`   | the candidate has what the question asks for: a number, a duration, a date, a name, a path |
| `type_new` | it has it outside the question's own words and figures (for a number also not as an enumeration "(2)", § number, date or year): "8 March 2024" is no answer to "Auf welchen Wert …", "3 Jahre" is one to "Wie lange …" |
| `novel`  | share of the candidate's content words the question does not have (measured, weight 0) |
| `src`, `rank` | retrieval score of its source relative to the best, and 1 / its rank |
| `lang`   | the candidate is in the question's language |
| `emb`    | cosine similarity of question and candidate (MiniLM), computed for a shortlist only; for the best candidates in the other language than the question's, multilingual-e5's cosine rescaled (backend/answer/evidence/crosslingual.py) |
| `xemb`   | that e5 cosine itself (0 when not computed; recorded, weight 0) |

With a German–English dictionary (`cross`), a candidate in the other language that contains a
translation of a question word counts as containing the word for `lex`, `prev`, `head`,
`strict` and `cover` (backend/answer/evidence/crosslingual.py, `Bridge`).

Per question (the same for every candidate; they move the evidence score, i.e. the abstention
decision): `cover` (share of the question's content words found anywhere in the evidence),
`missing` (share of its exact tokens found nowhere in the evidence), `unseen` / `unseen_caps`
(share of its words / capitalised words the corpus lacks, German compounds by their last
part), `type_miss` (the candidate lacks the asked type), `rare_miss` (it and its context lack
the question's rarest word by corpus IDF), `year_miss` (share of the question's years missing
from it and its context) — the last three measured as abstention signals and left at weight 0
(docs/chat.md). The weights and the abstention threshold were chosen by measurement on the tuning
half of eval/answers_sample.yaml (eval/answer_tuning.py; figures in docs/chat.md). Beside that
threshold the abstention model (backend/answer/evidence/abstention.py, fitted on the tune splits)
declines when its p(unanswerable) reaches its threshold; `Assessment.signals` are its inputs.
Which candidate is quoted: the learned ranker over these features and relative ones
(backend/answer/evidence/ranker.py, fitted on the tune splits) when its file exists; the hand
weights choose the shortlist and give the evidence score either way."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Protocol

import numpy as np

from backend.answer.evidence import crosslingual
from backend.answer.evidence.abstention import AbstainModel, load_model, signals
from backend.answer.evidence.candidates import Candidate, candidates
from backend.answer.evidence.corpus import Known, in_corpus, rarity, unseen
from backend.answer.evidence.crosslingual import Bridge, CrossLingual
from backend.answer.evidence.ranker import RankerModel, extend, load_ranker, rerank
from backend.answer.evidence.question import (
    _WORD,
    Question,
    _has_type,
    has_money,
    _matches,
    analyse,
    new_value,
    terms,
)
from backend.llm.base import Evidence

FEATURES = ("lex", "prev", "head", "strict", "key", "key_ctx", "type", "src", "rank", "lang",
            "row", "field", "line", "lex_type", "ctx_type", "cover", "missing", "unseen",
            "unseen_caps", "emb", "emb_type", "type_miss", "type_new", "novel", "rare_miss",
            "year_miss", "xemb")


@dataclass(frozen=True)
class Weights:
    """Linear scores: bias + Σ weight × feature. `pre` ranks every candidate without the
    embedding; the `shortlist` best get their embedding and are ranked by `final`. The best
    candidate's evidence score (`abstain` weights: does it cover the question's words, how
    similar is it, are the question's keys present at all) below `threshold`: abstain."""

    pre: dict[str, float]
    final: dict[str, float]
    threshold: float
    shortlist: int = 8
    abstain: dict[str, float] = field(default_factory=dict)  # evidence score of the top one


# Chosen by measurement: `python -m eval.answer_tuning` on the tuning half of
# eval/answers_sample.yaml (figures and the held-out half in docs/chat.md).
WEIGHTS = Weights(
    pre={"bias": 0.0, "lex": 4.0, "prev": 1.0, "key": 1.0, "key_ctx": 2.0, "type": 1.0,
         "type_new": 2.0, "src": 4.0, "rank": 1.0, "lang": 0.1, "line": 1.0},
    final={"bias": 0.0, "lex": 4.0, "prev": 1.0, "key": 1.0, "key_ctx": 2.0, "type": 1.0,
           "type_new": 2.0, "src": 4.0, "rank": 1.0, "lang": 0.1, "line": 1.0, "emb": 1.0},
    abstain={"bias": 0.0, "strict": 0.25, "emb": 0.25, "missing": -1.0, "unseen": -1.0},
    threshold=-0.2323, shortlist=4)


NO_EVIDENCE = -99.0


class Encoder(Protocol):
    def encode(self, texts: list[str]) -> np.ndarray: ...

    def encode_query(self, text: str) -> np.ndarray: ...


class MemoEncoder:
    """Wraps an Embedder for one request: each text is embedded once however often it is
    scored (the evidence gate, the extractive answerer, the support check)."""

    def __init__(self, embedder):
        self.embedder = embedder
        self._memo: dict[str, np.ndarray] = {}

    def encode_query(self, text: str) -> np.ndarray:
        return self.embedder.encode_query(text)

    def encode(self, texts: list[str]) -> np.ndarray:
        todo = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if todo:
            for t, v in zip(todo, self.embedder.encode(todo)):
                self._memo[t] = v
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([self._memo[t] for t in texts])


@dataclass
class Scored:
    candidate: Candidate
    features: dict[str, float]
    score: float = 0.0


@dataclass
class Assessment:
    question: Question
    ranked: list[Scored] = field(default_factory=list)  # best first
    best: float = 0.0  # the evidence score of the top candidate
    abstain: bool = True  # below the threshold: the extractive answerer says "nothing found"
    # Clear signs that the documents cannot answer (used before asking a generative model,
    # which may summarise or combine what no single sentence matches): no candidate shares a
    # word with the question, or the evidence is below the threshold and a name in the
    # question (a capitalised word after the first) occurs nowhere in the corpus.
    no_evidence: bool = True
    signals: dict[str, float] = field(default_factory=dict)  # the abstention model's inputs
    p_unanswerable: float | None = None  # the model's p(the evidence does not answer it)

    @property
    def top(self) -> Scored | None:
        return self.ranked[0] if self.ranked else None


def _combine(f: dict[str, float], w: dict[str, float]) -> float:
    return w.get("bias", 0.0) + sum(v * f.get(k, 0.0) for k, v in w.items() if k != "bias")


def _bridged(b: Bridge, sets: list[set[str]], cands: list[Candidate], attr: str
             ) -> list[set[str]]:
    return [b.extend(ts, crosslingual.words_of(getattr(c, attr)), c.language)
            for ts, c in zip(sets, cands)]


def named_terms(q: Question, evidence: list[Evidence]) -> dict[int, set[str]]:
    """Source number -> the question's terms its document's title has, codes excepted. A
    sentence inherits its document's name: "Which refrigerant does the Calora AW12 contain?"
    is answered by "It uses the natural refrigerant R290" in the "Calora AW12 operating
    manual", not by its first sentence, which repeats the name (issue 22, chosen on the
    unseen tune split). Codes ("INC-2024-031" of "Incident report INC-2024-031") are left to
    the key features: the sentence that has the code is often the one that answers "What
    happened in incident INC-2024-031?". Only the title: every name-like word of the
    document's passages lost German answers (docs/chat.md "A sentence inherits its
    document's name")."""
    wanted = q.terms - {t for x in q.exact for t in terms(x)}
    passages: dict[str, set[str]] = {}  # the question's names each document's passages have
    for e in evidence:
        passages.setdefault(e.document, set()).update(q.names & set(terms(e.text)))
    return {e.n: wanted & (set(terms(e.document)) | passages[e.document])
            for e in evidence}


def featurise(q: Question, evidence: list[Evidence],
              known: Known | None = None) -> list[Scored]:
    """Every candidate with its features (emb = 0 until `embed` fills it in). `known(word)`
    tells whether the corpus has a word (for `unseen`)."""
    cands = candidates(evidence)
    if not cands:
        return []
    given = named_terms(q, evidence)  # the document's title words count for each sentence
    own = [set(terms(c.match_text)) | given.get(c.n, set()) for c in cands]
    before = [set(terms(c.previous)) for c in cands]
    head = [set(terms(c.heading)) for c in cands]
    if q.bridge is not None:  # a translation of a question word counts as the word
        own = _bridged(q.bridge, own, cands, "match_text")
        before = _bridged(q.bridge, before, cands, "previous")
        head = _bridged(q.bridge, head, cands, "heading")
    found = [_matches(q.terms, o | b | h) for o, b, h in zip(own, before, head)]
    n = len(cands)
    df = {t: sum(1 for f in found if t in f) for t in q.terms}
    idf = {t: math.log(1 + n / df[t]) if df[t] else math.log(1 + n) for t in q.terms}
    memo: dict[str, float] = {}
    share = (lambda w: memo[w] if w in memo else memo.setdefault(w, float(known(w)))) \
        if known is not None else None
    rare = rarity(q.text, share)
    if rare:  # evidence IDF times corpus IDF (terms without a corpus figure: the mean)
        mean = sum(rare.values()) / len(rare)
        idf = {t: v * rare.get(t, mean) for t, v in idf.items()}
    total = sum(idf.values()) or 1.0
    rarest = max(rare, key=lambda t: (rare[t], t)) if rare else None
    rarest = rarest if rarest in q.terms else None

    def cov(ts: set[str], loose: bool = True) -> float:
        return (sum(idf[t] for t in _matches(q.terms, ts, loose=loose)) / total
                if q.terms else 0.0)

    everywhere = _matches(q.terms, set().union(*own, *before, *head), loose=False)
    cover = sum(idf[t] for t in everywhere) / total if q.terms else 0.0
    alltext = " ".join(e.text for e in evidence).casefold()
    tokens = q.exact + q.years
    missing = (sum(1 for x in tokens if x not in alltext) / len(tokens)) if tokens else 0.0
    gone, gone_caps = unseen(q, share)
    top_score = max((e.score for e in evidence), default=0.0) or 1.0
    src = {e.n: max(0.0, e.score) / top_score for e in evidence}
    out = []
    for c, o, b, h in zip(cands, own, before, head):
        lex = cov(o)
        mine = c.match_text.casefold()
        ctx = f"{c.previous} {c.heading}".casefold()
        key = sum(1 for x in q.exact if x in mine)
        f = {
            "lex": lex, "prev": cov(o | b) - lex, "head": cov(o | h) - lex,
            "strict": cov(o | b | h, loose=False),
            "key": key / len(q.exact) if q.exact else 0.0,
            "key_ctx": (sum(1 for x in q.exact if x not in mine and x in ctx) / len(q.exact)
                        if q.exact else 0.0),
            "type": 1.0 if q.qtype and _has_type(q.qtype, c.match_text)
            and (not q.money or has_money(c.match_text)) else 0.0,
            "src": src.get(c.n, 0.0), "rank": 1.0 / c.n,
            "lang": 1.0 if q.language and c.language == q.language else 0.0,
            "row": float(c.kind == "row"), "field": float(c.kind == "field"),
            "line": float(c.kind == "line"), "cover": cover, "missing": missing, "emb": 0.0,
            "emb_type": 0.0, "xemb": 0.0,
            "unseen": gone, "unseen_caps": gone_caps,
        }
        f["type_miss"] = 1.0 if q.qtype and not f["type"] else 0.0
        f["type_new"] = 1.0 if f["type"] and new_value(q, c.match_text) else 0.0
        f["novel"] = (len(o - _matches(o, q.terms)) / len(o)) if o else 0.0
        f["rare_miss"] = float(rarest is not None and not _matches({rarest}, o | b | h,
                                                                   loose=False))
        near = f"{mine} {c.before} {c.heading}".casefold()
        f["year_miss"] = (sum(1 for y in q.years if y not in near) / len(q.years)
                          if q.years else 0.0)
        f["lex_type"] = f["lex"] * f["type"]
        f["ctx_type"] = (f["prev"] + f["head"] + f["key_ctx"]) * f["type"]
        out.append(Scored(c, f))
    return out


def embed(q: Question, scored: list[Scored], encoder: Encoder | None, k: int) -> None:
    """Fill in `emb` for the k best candidates by the other features."""
    if encoder is None or k <= 0 or not scored:
        return
    short = scored[:k]
    qv = encoder.encode_query(q.text)
    vecs = encoder.encode([s.candidate.text for s in short])
    for s, v in zip(short, vecs):
        s.features["emb"] = max(0.0, float(np.dot(qv, v)))
        s.features["emb_type"] = s.features["emb"] * s.features["type"]


def _keyed(q: Question, scored: list[Scored]) -> list[Scored]:
    """When the question names keys or codes ("gateway.max_connections", "LDG-2001") and some
    candidates carry one (in themselves or the sentence before), only those are considered:
    a value of another key is no answer."""
    if not q.exact:
        return scored
    keyed = [s for s in scored if s.features["key"] or s.features["key_ctx"]]
    return keyed or scored


def _unknown_name(q: Question, known: Known | None) -> bool:
    """A capitalised word after the question's first word that the corpus does not contain
    at all ("Paris")."""
    if known is None:
        return False
    first = (_WORD.findall(q.text) or [""])[0]
    names = [w for w in q.words if w[:1].isupper() and w != first]
    return any(not in_corpus(w, known) for w in names)


def embed_across(q: Question, scored: list[Scored], cross: CrossLingual | None,
                 k: int) -> list[Scored]:
    """`emb` from multilingual-e5 for the k best candidates (by the other features) whose
    language differs from the question's: MiniLM's cosine says little across languages.
    Returns those candidates."""
    if cross is None or cross.e5 is None or k <= 0 or q.language not in ("de", "en"):
        return []
    other = [s for s in scored if s.candidate.language in ("de", "en")
             and s.candidate.language != q.language][:k]
    if not other:
        return []
    for s, cos in zip(other, cross.e5.similarities(q.text, [s.candidate.text for s in other])):
        s.features["xemb"] = cos
        s.features["emb"] = crosslingual.rescale(cos)
        s.features["emb_type"] = s.features["emb"] * s.features["type"]
    return other


_FILE_MODEL = object()  # assess(model=...) default: the fitted abstain_model.json


def _memo(known: Known | None) -> Known | None:
    if known is None:
        return None
    seen: dict[str, float] = {}
    return lambda w: seen[w] if w in seen else seen.setdefault(w, float(known(w)))


def assess(question: str, evidence: list[Evidence], encoder: Encoder | None = None,
           weights: Weights = WEIGHTS, known: Known | None = None,
           cross: CrossLingual | None = None, model=_FILE_MODEL,
           ranker=_FILE_MODEL) -> Assessment:
    """Rank the candidates of the evidence for the question and decide on abstention.
    `known(word)`: the share of the corpus's chunks containing the word (the keyword index;
    optional): abstention on unknown words, and corpus IDF of the question's words.
    `cross`: the dictionary and multilingual model for candidates in the other language.
    `model`: the abstention model (backend/answer/evidence/abstention.py; default the fitted
    file when `known` is given, None: the evidence score's threshold alone decides).
    `ranker`: the learned sentence ranker (backend/answer/evidence/ranker.py; default the
    fitted file when `known` is given, None: the hand weights rank)."""
    known = _memo(known)
    q = analyse(question, cross)
    scored = _keyed(q, featurise(q, evidence, known))
    a = Assessment(q)
    if not scored:
        return a
    for s in scored:
        s.score = _combine(s.features, weights.pre)
    scored.sort(key=lambda s: (-s.score, s.candidate.n, s.candidate.index))
    short = scored[:weights.shortlist] if encoder is not None else []
    embed(q, short, encoder, weights.shortlist)
    across = embed_across(q, scored, cross, cross.shortlist if cross else 0)
    if short:  # ranked in the shortlist's tier (without an encoder there is no tier)
        short = short + [s for s in across if all(s is not x for x in short)]
    for s in short:
        s.score = _combine(s.features, weights.final)
    rest = [s for s in scored if all(s is not x for x in short)]
    for s in rest:  # outside the shortlist: the final score without the embedding
        s.score = _combine(s.features, weights.final)
    scored = sorted(short, key=lambda s: (-s.score, s.candidate.n, s.candidate.index)) + \
        sorted(rest, key=lambda s: (-s.score, s.candidate.n, s.candidate.index))
    extend(q, scored)
    a.ranked = scored  # the evidence score and the abstention signals: the hand order's top
    a.best = _combine(scored[0].features, weights.abstain) if weights.abstain else scored[0].score
    if scored[0].features.get("strict", 1.0) == 0.0:
        a.best = NO_EVIDENCE  # it shares not one word with the question: never an answer
    a.abstain = not q.terms and not q.exact or a.best < weights.threshold
    a.signals = signals(q, scored, evidence, known, a.best)
    if model is _FILE_MODEL:  # fitted on the chat's path, with the corpus's word statistics;
        model = load_model() if known is not None else None  # without them: the old rule
    if isinstance(model, AbstainModel):
        a.p_unanswerable = model.probability(a.signals)
        a.abstain = a.abstain or a.p_unanswerable >= model.threshold  # the old rule, or the model
    a.no_evidence = not q.terms and not q.exact or a.best == NO_EVIDENCE or \
        (a.abstain and _unknown_name(q, known))
    if ranker is _FILE_MODEL:  # fitted on the chat's path, like the abstention model
        ranker = load_ranker() if known is not None else None
    if isinstance(ranker, RankerModel):  # which sentence is quoted: the learned ranker's
        a.ranked = rerank(scored, ranker)  # (whether to answer stays the evidence's call)
    return a
