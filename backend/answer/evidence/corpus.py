"""What the corpus says about a question's words, for the scorer (scoring.py): which words
the keyword index has never seen (a question about unknown things) and how rare each is
(corpus IDF). `share(word)` is the share of the corpus's chunks containing the word."""
from __future__ import annotations

import math
from typing import Callable

from backend.answer.evidence.question import _WORD, Question, terms


Known = Callable[[str], float]  # share of the corpus's chunks containing a word (0: none)


HEAD_MIN = 4  # letters of the last part of a German compound looked up on its own


def in_corpus(word: str, share: Callable[[str], float]) -> bool:
    """Does the corpus have the word, or, for a German compound it lacks as a whole, its last
    part ("Mindestausstattung" → "Ausstattung", "Telefonnummer" → "Nummer"): a question may
    compose a noun the documents only use in parts. A name ("Paris", "SNMP") has no such
    part in the corpus."""
    if share(word):
        return True
    if len(word) < 2 * HEAD_MIN or not word[:1].isupper():
        return False
    return any(share(word[i:].capitalize()) for i in range(3, len(word) - HEAD_MIN + 1))


def unseen(q: Question, share: Callable[[str], float] | None) -> tuple[float, float]:
    """Shares of the question's content words that the corpus does not contain at all (by
    the keyword index), of all and of the capitalised ones: "Paris", "IBAN", "Gaspreis" make
    a question the documents cannot answer, however well its other words match. A word one
    of whose dictionary translations the corpus has is seen: "How wide will the cycle
    superhighway be?" over a German press release ("breit", "Radschnellweg") is no question
    about unknown things (issue 22: the old rule declined right German sentences)."""
    if share is None or not q.words:
        return 0.0, 0.0

    def seen(w: str) -> bool:
        if in_corpus(w, share):
            return True
        ts = terms(w)
        aliases = q.bridge.aliases.get(ts[0], ()) if q.bridge is not None and ts else ()
        return any(share(t) for t in sorted(aliases))  # at most MAX_ALIASES

    gone = [w for w in q.words if not seen(w)]
    caps = [w for w in q.words if w[:1].isupper()]
    return (len(gone) / len(q.words),
            sum(1 for w in gone if w[:1].isupper()) / len(caps) if caps else 0.0)


def rarity(question: str, share: Callable[[str], float] | None) -> dict[str, float]:
    """Corpus IDF of each content term of the question, log(1 + 1/share), from the share of
    chunks containing the word as written (a word the corpus lacks counts as 1 in 1,000).
    Words common in the corpus ("Stadtwerke Birkenau") then weigh less than the one that
    singles out the answer ("revenue")."""
    out: dict[str, float] = {}
    if share is None:
        return out
    for w in dict.fromkeys(_WORD.findall(question)):
        ts = terms(w)
        if ts and ts[0] not in out:
            out[ts[0]] = math.log(1 + 1 / max(float(share(w)), 0.001))
    return out
