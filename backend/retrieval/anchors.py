"""Anchor words: a name in the question that only a few documents contain lifts every
passage of those documents (stage `anchors`).

A question often names what it is about once — "the Talblick housing cooperative", "die
Projektrunde Riedland", "the Calora AW12" — while the passage holding the answer does not
repeat the name: the annual report says "Talblick" in its title and "4,812 Mitglieder" three
pages later. Chunk-level BM25 cannot connect the two, and across languages the vector side
cannot either (MiniLM is an English model), so an English question about a German document
was answered from an English document that shares the question's ordinary words.

An anchor is a word of the question that is capitalised or carries a digit (not the
question's first word, not a stop word, at least 3 characters or a two-character code such as
"RS", "A4", "Q3"), that the German–English
dictionary does not know when it is installed (so a name or code, not one of the capitalised
German nouns: "Talblick" and "AW12" are anchors, "Mitglieder" is not), and that occurs in at
least one and at most `MAX_DOCUMENTS` documents within the search's filter. Every hit of such a
document gains `anchor_boost × top score × (share of the anchors its document contains)`;
the order inside a document stays the fused one. Costs one keyword search per candidate word
(usually 1-3 per question, no snippets) and the chunk look-ups, which are cached.
`RetrievalParams.anchor_boost = 0` turns it off; the weight was chosen on tuning questions
only (docs/retrieval.md, "Anchor words").

Within a lifted document, the passages that carry one of the question's codes (a word with a
digit found in at most `CODE_CHUNKS` passages: "E22" of "Was bedeutet der Störungscode E22
bei der Calora AW12?") are lifted `CODE_LIFT` more: otherwise the manual's cover and
description, which repeat "Calora AW12" and "Wärmepumpe", stay ahead of its fault table."""
from __future__ import annotations

import re
import time
from collections.abc import Callable

from backend.index.base import IndexFilter
from backend.retrieval import dictionary, lookup
from backend.retrieval.stopwords import STOP_WORDS
from backend.retrieval.types import Candidate, Hit, Stage, Trace

MAX_DOCUMENTS = 2  # a word in more documents than this names no particular document
MAX_WORDS = 6  # candidate words searched per question
SEARCH_LIMIT = 40  # chunks read per candidate word
CODE_CHUNKS = 3  # a code anchor ("E22") in at most this many passages marks them
CODE_LIFT = 0.5  # their extra lift, in units of the document's (chosen on tune splits only)
_WORD = re.compile(r"[^\W_](?:[\w.-]*[^\W_])?", re.UNICODE)


def candidates(question: str, known: Callable[[str], bool] | None = None) -> list[str]:
    """The question's words that may name something: capitalised or with a digit, not its
    first word, not a stop word, not a `known` word (unless it has a digit); in the order
    asked, each once."""
    words = _WORD.findall(question)
    out: list[str] = []
    for i, w in enumerate(words):
        code = len(w) == 2 and w.isupper()  # "RS", "A4", "Q3"
        if i == 0 or (len(w) < 3 and not code) or w.casefold() in STOP_WORDS:
            continue
        if not (w[0].isupper() or any(c.isdigit() for c in w)):
            continue
        if w.isdigit() and len(w) == 4:  # a year is a constraint, not a name
            continue
        if known is not None and not any(c.isdigit() for c in w) and known(w):
            continue
        if w not in out:
            out.append(w)
    return out[:MAX_WORDS]


def documents_of(rs, word: str, flt: IndexFilter, chunks: set[str] | None = None
                 ) -> set[int] | None:
    """The documents (ids) whose chunks within `flt` contain `word`; None when more than
    MAX_DOCUMENTS do or the index cannot say. `chunks`, when given, gets the ids of those
    chunks."""
    try:
        hits = rs.keyword_index.search(word, SEARCH_LIMIT, flt, highlight_limit=0)
    except Exception:  # noqa: BLE001 - a word the index cannot search is no anchor
        return None
    if not hits:
        return set()
    infos = lookup.current_chunk_infos(rs.store.engine, [h.chunk_id for h in hits])
    docs = {info.document_id for info in infos.values() if info.active}
    if chunks is not None:
        chunks.update(i for i, info in infos.items() if info.active)
    return docs if len(docs) <= MAX_DOCUMENTS else None


def boost(rs, question: str, flt: IndexFilter, hits: list[Hit], weight: float,
          trace: Trace, *, policy: str = "hybrid") -> list[Hit]:
    """Lift the hits of documents the question's anchor words name; re-sorted by score.
    Not for `semantic_only`, which promises not to consult the keyword index."""
    if weight <= 0 or not hits or policy == "semantic_only":
        return hits
    t0 = time.perf_counter()
    settings = getattr(rs, "settings", None)
    d = dictionary.get(settings.dictionary_path) if settings is not None else None
    anchors: dict[str, list[int]] = {}
    coded: set[str] = set()  # the few passages that have a code of the question ("E22")
    for w in candidates(question, (lambda x: dictionary.knows(d, x)) if d else None):
        chunks: set[str] = set()
        docs = documents_of(rs, w, flt, chunks)
        if docs:
            anchors[w] = sorted(docs)
            if any(c.isdigit() for c in w) and len(chunks) <= CODE_CHUNKS:
                coded |= chunks
    named = set().union(*anchors.values()) if anchors else set()
    if named and all(h.document_id in named for h in hits):
        anchors = {}  # every hit is of a named document: nothing to tell apart, scores kept
    boosted = 0
    if anchors:
        top = max(h.score for h in hits) or 1.0
        for h in hits:
            share = sum(1 for docs in anchors.values() if h.document_id in docs) / len(anchors)
            if share:
                add = weight * top * (share + (CODE_LIFT if h.chunk_id in coded else 0.0))
                h.boost += add
                h.score += add
                boosted += 1
        hits.sort(key=lambda h: (-h.score, h.chunk_id))
    trace.stages.append(Stage("anchors", round((time.perf_counter() - t0) * 1000, 3), {
        "anchor_boost": weight, "anchors": anchors, "boosted": boosted,
        "coded": sum(1 for h in hits if h.chunk_id in coded) if anchors else 0},
        [Candidate(h.chunk_id, round(h.score, 6), r) for r, h in enumerate(hits[:50], 1)]
        if boosted else []))
    return hits
