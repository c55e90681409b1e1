"""The built-in extractive answerer: no generative model, no network. It quotes the evidence
unit (sentence, table row, label line) that scores best against the question
(backend/answer/evidence/scoring.py: lexical, key, value-type, retrieval-rank, language and embedding
signals), with the previous sentence when that one carries the question's key or terms
("The key X limits … The default is 512."), each followed by its citation `[n]`. When the
best score is below the abstention threshold it says so in the question's language instead
of quoting something unrelated. Deterministic; the text is plain (the renderer escapes it)."""
from __future__ import annotations

import re
from typing import Callable, Iterator

from backend.answer.evidence.question import terms
from backend.answer.evidence.scoring import (
    WEIGHTS,
    Assessment,
    Encoder,
    Scored,
    Weights,
    assess,
)
from backend.answer.evidence.crosslingual import CrossLingual
from backend.answer.extractive_text import compose_answer
from backend.answer.evidence.sentences import split_sentences  # noqa: F401  (re-exported)
from backend.llm.base import (
    Evidence,
    GenerationRequest,
    StreamEnd,
    StreamEvent,
    TextDelta,
)

NOTHING_FOUND = {"de": "Dazu habe ich in den Dokumenten nichts gefunden.",
                 "en": "I found nothing on this in the documents."}
NO_SOURCES = {"de": "Die ausgewählten Sammlungen enthalten keine Quellen zu dieser Frage.",
              "en": "The selected collections contain no sources for this question."}


def message_language(question: str, language: str = "") -> str:
    """The language of fixed messages: the question's, English when undecided."""
    return language if language in ("de", "en") else "en"


def nothing_found(language: str) -> str:
    return NOTHING_FOUND[message_language("", language)]


def _previous_helps(a: Assessment) -> bool:
    """Quote the previous sentence too when it carries an exact token or content word of the
    question that the chosen sentence lacks."""
    top = a.top.candidate
    if top.kind != "sentence" or not top.previous:
        return False
    own, prev = top.text.casefold(), top.previous.casefold()
    if any(x in prev and x not in own for x in a.question.exact):
        return True
    return bool((set(terms(top.previous)) - set(terms(top.text))) & a.question.terms) and \
        a.top.features["lex"] < 0.5


# a labelled paragraph: "Lieferverzug der Edelstahlbecken: Der Hersteller … verschoben."
_LABEL = re.compile(r"^([A-ZÄÖÜ][\w-]*(?: [\w-]+){0,5}):\s")


def _labelled(a: Assessment) -> bool:
    """Quote the previous sentence too when it opens a labelled paragraph whose label the
    chosen (second) sentence does not repeat: the label names what that sentence is about
    ("Lieferverzug der Edelstahlbecken: … Verantwortlich für die Nachverfolgung ist
    Benedikt Kramer." answers "Für welches Risiko ist er verantwortlich?")."""
    top = a.top.candidate
    if top.kind != "sentence" or not top.previous or top.before != top.previous:
        return False
    m = _LABEL.match(top.previous)
    return m is not None and m.group(1).casefold() not in top.text.casefold()


def _following(a: Assessment) -> list[Scored]:
    """The sentences after the chosen one, quoted too when the chosen sentence lacks what the
    question asks for (a value, a duration, a name) and the next one has it or continues the
    chosen sentence's key ("Mit gateway.worker_threads legen Sie … fest. Ohne Angabe
    verwendet das Gateway die doppelte Anzahl …"), or else the one after that has it, with
    the sentence between ("Für Moosach soll deshalb eine zusätzliche Infoveranstaltung
    stattfinden. Frank bietet dafür das Bürgerhaus Moosach an. Termin: 22. Mai 2025, 19 Uhr.")."""
    top = a.top
    if top.candidate.kind != "sentence" or not a.question.qtype or top.features["type"]:
        return []

    def after(c) -> Scored | None:  # the next sentence of the passage, under the same heading
        return next((s for s in a.ranked if s.candidate.n == c.n
                     and s.candidate.index == c.index + 1 and s.candidate.kind == "sentence"
                     and s.candidate.heading == c.heading), None)

    nxt = after(top.candidate)
    if nxt is None:
        return []
    if nxt.candidate.previous == top.candidate.text and (nxt.features["type"]
                                                         or nxt.features["key_ctx"]):
        return [nxt]
    third = after(nxt.candidate)
    return [nxt, third] if third is not None and third.features["type"] else []


def compose(a: Assessment, evidence: list[Evidence] | None = None) -> str:
    """The answer text for an assessment (the "nothing found" message when abstaining),
    composed value first with the asked value in bold (backend/answer/extractive_text.py)."""
    if a.abstain or a.top is None:
        return nothing_found(a.question.language)
    top = a.top.candidate
    nxt = _following(a)
    return compose_answer(a.question, top, top.previous if _previous_helps(a) or _labelled(a) else "",
                          [s.candidate for s in nxt], evidence or [])


def answer_text(question: str, evidence: list[Evidence], encoder: Encoder | None = None,
                weights: Weights = WEIGHTS, known: Callable[[str], bool] | None = None,
                cross: CrossLingual | None = None) -> str:
    if not evidence:
        from backend.ingest.language import detect_language

        return NO_SOURCES[message_language(question, detect_language(question))]
    return compose(assess(question, evidence, encoder, weights, known, cross), evidence)


class ExtractiveProvider:
    name = "extractive"
    local = True
    default_model = "extractive"

    def __init__(self, encoder: Encoder | None = None, weights: Weights = WEIGHTS,
                 known: Callable[[str], float] | None = None, *, decline: bool = False,
                 cross: CrossLingual | None = None):
        """`encoder`: the embedding model (an Embedder, or a MemoEncoder around one) for the
        embedding signal; `known(word)`: does the corpus contain a word (the keyword index),
        for the abstention decision. Without them the other signals decide. `decline`: say that
        nothing was found whatever the evidence (the chat decided so before). `cross`: the
        dictionary and multilingual model for sentences in the other language."""
        self.encoder = encoder
        self.weights = weights
        self.known = known
        self.decline = decline
        self.cross = cross

    def stream(self, request: GenerationRequest) -> Iterator[StreamEvent]:
        if self.decline:
            from backend.ingest.language import detect_language

            text = nothing_found(message_language(request.question,
                                                  detect_language(request.question)))
        else:
            text = answer_text(request.question, request.evidence, self.encoder, self.weights,
                               self.known, self.cross)
        for piece in re.findall(r"\S+\s*", text):
            yield TextDelta(piece)
        yield StreamEnd(model="extractive", stop_reason="stop")
