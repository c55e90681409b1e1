"""The built-in extractive answerer: no model, no network. It answers with the evidence
sentences that share the most (weighted) words with the question, each followed by the
citation `[n]` of its source, best first. Deterministic, and fast enough to start streaming
within milliseconds of retrieval."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Iterator

from backend.llm.base import Evidence, GenerationRequest, StreamEnd, StreamEvent, TextDelta

MAX_SENTENCES = 3
MAX_CHARS = 900
_WORD = re.compile(r"\w+", re.UNICODE)
_SPLIT = re.compile(r"(?<=[.!?])(?<!\b\d\.)(?<!\b\d\d\.)\s+(?=[\"„“(\[]?[A-ZÄÖÜ0-9])|\n(?=\s*[-*•]\s)")
_ABBREV = re.compile(r"\b(?:z|d|u|bzw|ggf|vgl|ca|Nr|Abs|e\.g|i\.e|etc|Dr|St|No)\.$", re.I)
_STOP = frozenset("""
a an and are as at be by can do does for from has have how i if in into is it its of on or
that the their there these this to was were what when where which who why will with you your
der die das den dem des ein eine einer eines einem einen und oder ist sind wird werden wie
was wer wo wann warum welche welcher welches welchen welchem mit von zu zum zur im in am an
auf aus bei fur für über ueber um nach vor nicht auch es sie er wir ich ihr sich noch nur
als dass daß so kann können muss müssen gibt hat haben sein seine ihre dann denn doch wenn
""".split())
_GERMAN_HINTS = frozenset("der die das und ist wie welche welcher welches wann warum wer "
                          "nicht gibt werden".split())


def terms(text: str) -> list[str]:
    """Lower-cased content words, cut to a 6-character stem (German and English inflection)."""
    return [w[:6] for w in (m.lower() for m in _WORD.findall(text))
            if w not in _STOP and (len(w) > 1 or w.isdigit())]


def _is_heading(paragraph: str) -> bool:
    """A title, heading or label line: short and without a sentence-ending mark."""
    p = paragraph.strip()
    return len(p.split()) < 15 and not p.endswith((".", "!", "?", ":", ";", ")", '"', "“"))


def split_sentences(text: str) -> list[str]:
    """Sentences of the running text; headings and label lines are left out."""
    out: list[str] = []
    for para in re.split(r"\n\s*\n", text.replace("\r", "")):
        if not para.strip() or _is_heading(" ".join(para.split())):
            continue
        for p in _SPLIT.split(para):
            p = re.sub(r"^[-*•]\s+", "", " ".join(p.split()))
            if out and _ABBREV.search(out[-1]):
                out[-1] = f"{out[-1]} {p}"  # "z. B." and friends do not end a sentence
            elif p:
                out.append(p)
    return [s for s in out if len(s) >= 12 and len(s.split()) >= 4]


def _matches(q: set[str], ts: set[str]) -> set[str]:
    """Query terms found in a sentence; a term also matches a longer or shorter one it
    starts (German compounds: "Portnummer" finds "Port")."""
    found = q & ts
    for t in q - found:
        if len(t) >= 4 and any(len(u) >= 4 and (u.startswith(t) or t.startswith(u))
                               for u in ts):
            found.add(t)
    return found


@dataclass
class _Candidate:
    n: int
    position: int
    text: str
    score: float


def select(question: str, evidence: list[Evidence], *, max_sentences: int = MAX_SENTENCES,
           max_chars: int = MAX_CHARS) -> list[_Candidate]:
    """The best sentences for the question, best first (empty when no word matches)."""
    q = set(terms(question))
    if not q or not evidence:
        return []
    sents = [(e.n, i, s, set(terms(s))) for e in evidence
             for i, s in enumerate(split_sentences(e.text))]
    if not sents:
        return []
    found = [_matches(q, ts) for *_, ts in sents]
    df = {t: sum(1 for f in found if t in f) for t in q}
    idf = {t: math.log(1 + len(sents) / df[t]) if df[t] else 0.0 for t in q}
    avg = sum(len(ts) for *_, ts in sents) / len(sents) or 1.0
    cands = []
    for (n, i, s, ts), matched in zip(sents, found):
        if not matched:
            continue
        score = sum(idf[t] for t in matched) / (0.6 + 0.4 * len(ts) / avg)
        score *= 1.0 + 0.15 / n  # the retriever's order breaks near-ties
        cands.append(_Candidate(n, i, s, score))
    cands.sort(key=lambda c: (-c.score, c.n, c.position))
    chosen, seen, used = [], set(), 0
    best = cands[0].score if cands else 0.0
    for c in cands:
        key = " ".join(terms(c.text))
        if key in seen or c.score < 0.5 * best:
            continue
        if chosen and used + len(c.text) > max_chars:
            continue
        chosen.append(c)
        seen.add(key)
        used += len(c.text)
        if len(chosen) >= max_sentences:
            break
    return chosen


def _german(question: str) -> bool:
    return bool(set(w.lower() for w in _WORD.findall(question)) & _GERMAN_HINTS)


def answer_text(question: str, evidence: list[Evidence]) -> str:
    if not evidence:
        return ("Die ausgewählten Sammlungen enthalten keine Quellen zu dieser Frage."
                if _german(question) else
                "The selected collections contain no sources for this question.")
    chosen = select(question, evidence)
    if chosen:
        return " ".join(f"{c.text} [{c.n}]" for c in chosen)
    first = next((s for e in evidence for s in split_sentences(e.text)), evidence[0].text[:300])
    lead = ("Keine Stelle der Quellen passt genau zur Frage; die am besten bewertete Quelle "
            "sagt:" if _german(question) else
            "No passage of the sources matches the question closely; the best-ranked source "
            "says:")
    return f"{lead} {first} [{evidence[0].n}]"


class ExtractiveProvider:
    name = "extractive"
    local = True
    default_model = "extractive"

    def stream(self, request: GenerationRequest) -> Iterator[StreamEvent]:
        text = answer_text(request.question, request.evidence)
        for piece in re.findall(r"\S+\s*", text):
            yield TextDelta(piece)
        yield StreamEnd(model="extractive", stop_reason="stop")
