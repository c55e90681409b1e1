"""Which section of version B is which section of version A, by content rather than by
number: a version that inserts "TOP 3: IT-Sicherheit" renumbers every later item, and
pairing by number diffed the new TOP 3 against the old "TOP 3: Verschiedenes" and called
"TOP 4: Verschiedenes" added.

Every pair of sections gets a similarity of its titles without their numbering ("TOP 3:
Verschiedenes" -> "verschiedenes") and of its own texts (without the heading line), each
rapidfuzz's normalised Indel ratio; one optimal assignment (scipy's linear_sum_assignment,
the Hungarian method) maximises the total, and a pair below `MIN_SIMILARITY` is no pair
(the sections are removed and added). The same label or number adds a small tie-breaker
only, so identical documents still pair label with label.

`MIN_SIMILARITY` 0.5 sits in the gap measured by bench/bench_section_alignment.py
(2026-12-02; the sample minutes v1/v2, the privacy policy v1/v2, the minutes with a new TOP 3
and with TOP 5 retitled and half rewritten): true pairs scored 0.93-1.0, the rewritten one
0.58; every other pair at most 0.41 (95th percentile 0.30-0.33). Texts are compared word by
word: by letters two unrelated German paragraphs agreed on ~0.45."""
from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from rapidfuzz import fuzz
from rapidfuzz.process import cdist
from scipy.optimize import linear_sum_assignment

from backend.analysis.source import SectionRef

MIN_SIMILARITY = 0.5
TITLE_WEIGHT = 0.5  # the rest is the own text's; a section without text: its title alone
BODY_WORDS = 600  # a longer own text is compared by its start (the cost stays bounded)
_SAME_LABEL, _SAME_NUMBER, _SAME_LEVEL = 0.05, 0.01, 0.02
_LEAD = re.compile(r"^[\s:.)\-–—]+")


def bare_title(s: SectionRef) -> str:
    """The label without its kind word and number: "TOP 3: Verschiedenes" -> "verschiedenes",
    "2.2 Konfiguration" -> "konfiguration"."""
    label = s.label
    if s.number:
        at = label.find(s.number)
        if 0 <= at <= 20:
            label = label[at + len(s.number):]
    return " ".join(_LEAD.sub("", label).lower().split())


def _body(text: str, s: SectionRef) -> list[str]:
    """The own text's words without the heading (compared word by word: letters of two
    unrelated German paragraphs agree on ~45%, their words on ~10%)."""
    words = text.lower().split()
    head = s.label.lower().split()
    if words[:len(head)] == head:
        words = words[len(head):]
    return words[:BODY_WORDS]


def similarity(sa: Sequence[SectionRef], sb: Sequence[SectionRef], texts_a: dict[int, str],
               texts_b: dict[int, str]) -> np.ndarray:
    """The |A| x |B| matrix of section similarities (0..1, tie-breakers added)."""
    ta, tb = [bare_title(s) for s in sa], [bare_title(s) for s in sb]
    ba = [_body(texts_a.get(s.ordinal, ""), s) for s in sa]
    bb = [_body(texts_b.get(s.ordinal, ""), s) for s in sb]
    titles = cdist(ta, tb, scorer=fuzz.ratio, dtype=np.float32) / 100
    bodies = cdist(ba, bb, scorer=fuzz.ratio, dtype=np.float32) / 100
    empty = np.array([not x for x in ba])[:, None] | np.array([not y for y in bb])[None, :]
    score = np.where(empty, titles, TITLE_WEIGHT * titles + (1 - TITLE_WEIGHT) * bodies)
    for i, x in enumerate(sa):
        for j, y in enumerate(sb):
            score[i, j] += (_SAME_LABEL * (x.label == y.label)
                            + _SAME_NUMBER * (bool(x.number) and x.number == y.number)
                            + _SAME_LEVEL * (x.level == y.level))
    return score


def match_sections(sa: Sequence[SectionRef], sb: Sequence[SectionRef], texts_a: dict[int, str],
                   texts_b: dict[int, str]) -> list[tuple[SectionRef, SectionRef]]:
    """The optimal pairs of similar sections (each section in one pair at most)."""
    if not sa or not sb:
        return []
    score = similarity(sa, sb, texts_a, texts_b)
    rows, cols = linear_sum_assignment(score, maximize=True)
    return [(sa[i], sb[j]) for i, j in zip(rows, cols) if score[i, j] >= MIN_SIMILARITY]
