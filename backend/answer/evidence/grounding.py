"""Support check for generated answers: is each sentence backed by the source it cites?

Per answer sentence with citations `[n]`, against each cited source's text:

* `overlap`: share of the sentence's content words (German compounds by prefix, the glossary
  of backend/answer/evidence/scoring.py) found in the source;
* `numbers`: every figure of the sentence (512, 3.600, 1.2, 2024 …) occurs in the source —
  an invented or changed figure is the most harmful kind of unsupported statement;
* `similarity`: the best cosine similarity between the sentence and a sentence of the source
  (MiniLM), when an encoder is given.

A sentence is supported when its figures are all in the cited source and `overlap` ≥
`MIN_OVERLAP` or `similarity` ≥ `MIN_SIMILARITY`. Sentences without a citation are the
citation checker's business (`uncited_sentences`), not checked here. No NLI model is used:
none installs offline from the package registries this project may use (docs/chat.md)."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass

import numpy as np

from backend.answer.evidence.question import _matches, terms
from backend.answer.evidence.scoring import Encoder
from backend.answer.evidence.sentences import split_sentences
from backend.llm.base import Evidence

MIN_OVERLAP = 0.6
MIN_SIMILARITY = 0.75
_CITE = re.compile(r"\[(\d{1,4}(?:\s*[,;]\s*\d{1,4})*)\]")
_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?])")
_FIGURE = re.compile(r"\d+(?:[.,]\d+)*")


def _figures(text: str) -> set[str]:
    """Figures normalised so that 5.000 / 5,000 / 5000 compare equal."""
    return {re.sub(r"[.,](?=\d{3}\b)", "", f).replace(",", ".") for f in _FIGURE.findall(text)}


@dataclass
class SentenceSupport:
    sentence: str
    sources: list[int]
    overlap: float
    similarity: float | None
    figures_found: bool
    supported: bool

    def to_dict(self) -> dict:
        return asdict(self)


def check_support(answer: str, evidence: list[Evidence], encoder: Encoder | None = None,
                  language: str = "") -> list[SentenceSupport]:
    by_n = {e.n: e for e in evidence}
    out: list[SentenceSupport] = []
    for line in answer.splitlines():
        for sent in split_sentences(line, language):
            nums = [int(x) for m in _CITE.finditer(sent) for x in re.split(r"\s*[,;]\s*", m.group(1))]
            cited = [by_n[n] for n in dict.fromkeys(nums) if n in by_n]
            if not cited:
                continue
            claim = _BEFORE_PUNCT.sub(r"\1", _CITE.sub("", sent)).strip()  # "x [1]." -> "x."
            out.append(_support(claim, cited, encoder, language))
    return out


def _support(claim: str, cited: list[Evidence], encoder: Encoder | None,
             language: str) -> SentenceSupport:
    ct = set(terms(claim))
    source_text = " ".join(e.text for e in cited)
    overlap = len(_matches(ct, set(terms(source_text)))) / len(ct) if ct else 1.0
    figures_found = _figures(claim) <= _figures(source_text)
    similarity = None
    if encoder is not None:
        sents = [s for e in cited for s in split_sentences(e.text, language)][:60]
        if sents:
            vecs = encoder.encode([claim] + sents)
            similarity = round(float(np.max(vecs[1:] @ vecs[0])), 4)
    supported = figures_found and (overlap >= MIN_OVERLAP or
                                   (similarity is not None and similarity >= MIN_SIMILARITY))
    return SentenceSupport(claim, [e.n for e in cited], round(overlap, 4), similarity,
                           figures_found, supported)
