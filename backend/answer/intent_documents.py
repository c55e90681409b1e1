"""Which documents a question names (backend/answer/intents.py asks this of its candidates):
distinctive words of a candidate's title and file name found in the question, also inside
German compounds; the generic words of document names ("Handbuch", "minutes") only break
ties. Pure functions, no store."""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class DocCandidate:
    id: int
    title: str
    filename: str = ""
    doc_type: str = ""



_STOP = {"und", "der", "die", "das", "des", "den", "dem", "for", "the", "and", "von", "vom", "zum",
         "zur", "mit", "gmbh", "stadtwerke", "birkenau", "docx", "pdf", "txt", "html", "odt",
         "data", "version", "minutes", "report", "policy", "manual", "guide", "protokoll",
         "handbuch", "richtlinie", "sitzung", "press", "release", "pressemitteilung"}


def _tokens(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-zäöüß0-9]{4,}", text.lower()) if w not in _STOP}


# generic words of document names (in _STOP: they name a kind, not a document) with their
# other-language forms; they only break ties between documents named equally well
_GENERIC_ALIASES = {"handbook": "handbuch", "manual": "handbuch", "minutes": "protokoll",
                    "policy": "richtlinie", "guideline": "richtlinie", "report": "bericht",
                    "presse": "press"}


def _part_of(t: str, w: str) -> bool:
    """A name word inside a question word as a compound part: at its start or its end (up to
    an inflection ending: "Werkausschusssitzung", "Wasserpreises"), not in the middle
    ("round" is no part of "groundbreaking")."""
    return w.startswith(t) or any(w[:len(w) - k].endswith(t) for k in range(0, 4))


def name_words(q: str, d: DocCandidate) -> tuple[set[str], set[str], int]:
    """(distinctive title words, distinctive file-name words, generic words) of `d` that the
    question names — also inside German compounds in either direction ("Werkausschusssitzung"
    names "Werkausschuss", "Lumen-Handbuchs" names "lumen_handbuch")."""
    words = re.findall(r"[a-zäöüß0-9-]{4,}", q.lower())
    parts = {p for w in words for p in w.split("-") if len(p) >= 4} | set(words)
    title = {t for t in _tokens(d.title) if not t.isdigit()}
    fname = {t for t in _tokens(re.sub(r"[_.-]", " ", d.filename.rsplit(".", 1)[0]))
             if not t.isdigit()} - title
    in_title = {t for t in title if any(_part_of(t, w) for w in words)}
    in_name = {t for t in fname if any(_part_of(t, w) for w in words)}
    generic = {t for t in re.findall(r"[a-zäöüß]{4,}", (d.title + " " + re.sub(
        r"[_.-]", " ", d.filename)).lower()) if t in _STOP}
    asked = {_GENERIC_ALIASES.get(p.rstrip("s"), p.rstrip("s")) for p in parts}
    n_generic = sum(1 for g in generic if any(a.startswith(g) or g in a for a in asked))
    return in_title, in_name, n_generic


def _name_score(q: str, d: DocCandidate) -> tuple[int, int]:
    in_title, in_name, generic = name_words(q, d)
    # one word of the file name alone is a topic more often than a name ("Wasserpreis")
    score = len(in_title) + (len(in_name) if in_title or len(in_name) > 1 else 0)
    if d.filename and d.filename.lower() in q.lower():
        score += 5
    return score, generic


def named_documents(q: str, docs: Sequence[DocCandidate]) -> list[DocCandidate]:
    """Candidates the question names, best first (distinctive title/file-name words; ties
    broken by the generic words: "Lumen-Handbuch" names the manual, not the runbook)."""
    scored = [(_name_score(q, d), d) for d in docs]
    scored = [(sc, d) for sc, d in scored if sc[0]]
    if not scored:
        return []
    scored.sort(key=lambda x: (-x[0][0], -x[0][1]))
    return [d for sc, d in scored if sc == scored[0][0]]


def _two_documents(q: str, docs: Sequence[DocCandidate]) -> list[DocCandidate]:
    """The two documents a comparison names: the best named one and the best of the rest
    that the question names by words of its own (not by the words that named the first: a
    document is never compared with itself or its namesake)."""
    first = named_documents(q, docs)
    if not first:
        return []
    if len(first) >= 2:
        a, b = first[:2]
        wa, wb = name_words(q, a)[:2], name_words(q, b)[:2]
        own_b = (wb[0] | wb[1]) - (wa[0] | wa[1])
        own_a = (wa[0] | wa[1]) - (wb[0] | wb[1])
        return [a, b] if own_a and own_b and a.title.casefold() != b.title.casefold() else []
    used = set().union(*name_words(q, first[0])[:2])
    rest = [d for d in docs if d.id != first[0].id
            and d.title.casefold() != first[0].title.casefold()
            and set().union(*name_words(q, d)[:2]) - used]
    second = named_documents(q, rest)
    return first + second[:1] if len(second) == 1 else first
