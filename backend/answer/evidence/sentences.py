"""Sentence splitting for German and English with `sentencex` (Wikimedia's rule-based
segmenter: abbreviations such as "z. B.", "Nr.", "Abs.", "Dr.", "e.g.", ordinals and dates
such as "1. Januar" stay inside their sentence; citations "[1]" after a full stop stay with
the sentence they follow). A small repair joins a fragment ending in a day number ("am 3.")
to the next one, which sentencex splits before abbreviated month names ("Okt.")."""
from __future__ import annotations

import re

from sentencex import segment

from backend.ingest.language import detect_language

_ORDINAL_END = re.compile(r"(?:^|\s)\d{1,2}\.$")
_ABBREV_END = re.compile(r"(?:^|[\s(])(?:ca|approx|vgl|bzw|ggf|Nr|No|Abs|Art|Ziff|inkl|zzgl|Str)\.$",
                         re.I)


def split_sentences(text: str, language: str = "") -> list[str]:
    """Sentences of `text`, stripped, in order. `language` "de"/"en"; detected when empty
    (German rules for undecided text: they know the German abbreviations and ordinals)."""
    text = (text or "").strip()
    if not text:
        return []
    lang = language or detect_language(text) or "de"
    out: list[str] = []
    for part in segment(lang if lang in ("de", "en") else "de", text):
        part = part.strip()
        if not part:
            continue
        if out and (_ORDINAL_END.search(out[-1]) or _ABBREV_END.search(out[-1])):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out
