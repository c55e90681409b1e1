"""Query normalisation and intent: quoted phrases, exact tokens, language, inventory mode."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from backend.ingest.language import detect_language

MAX_QUERY_CHARS = 1000  # longer queries are cut (recorded in the trace)

_QUOTED = re.compile(r"[\"“„«»”]([^\"“„«»”]{2,200})[\"“„«»”]")
# Tokens that must match literally: config keys, env vars, paragraph signs, version numbers.
_EXACT = re.compile(r"(§\s*\d+[a-z]?|\b[\w-]+(?:[._][\w-]+)+\b|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b"
                    r"|\b\d{4}/\d+\b)")
_INVENTORY = [
    re.compile(r"^\s*welche\s+(dokumente|unterlagen|dateien|texte|quellen)\b(?:\s+gibt\s+es)?"
               r"\s*(?:(?:zu[mr]?|über|ueber|zum\s+thema|betreffend|mit|im\s+bereich)\s+(?P<t>.+?))?"
               r"\s*\??\s*$", re.I),
    re.compile(r"^\s*(?:gibt\s+es|habt\s+ihr|haben\s+wir)\s+(?:dokumente|unterlagen)\s+"
               r"(?:zu[mr]?|über|ueber)\s+(?P<t>.+?)\s*\??\s*$", re.I),
    re.compile(r"^\s*(?:liste|zeige)\s+(?:mir\s+)?(?:alle\s+)?(?:dokumente|unterlagen)"
               r"(?:\s+(?:zu[mr]?|über|ueber)\s+(?P<t>.+?))?\s*\??\s*$", re.I),
    re.compile(r"^\s*(?:which|what)\s+(?:documents|docs|files|sources)\s*"
               r"(?:(?:are\s+there\s+)?(?:cover|covers|mention|mentions|discuss|discusses|"
               r"are\s+about|about|on|deal\s+with|talk\s+about|exist\s+(?:on|about|for)|"
               r"do\s+we\s+have\s+(?:on|about))\s+(?P<t>.+?))?\s*(?:are\s+there|exist|do\s+we\s+have)?"
               r"\s*\??\s*$", re.I),
    re.compile(r"^\s*(?:list|show)\s+(?:me\s+)?(?:all\s+)?(?:the\s+)?(?:documents|docs|files)"
               r"(?:\s+(?:about|on|covering|for)\s+(?P<t>.+?))?\s*\??\s*$", re.I),
]


@dataclass
class ParsedQuery:
    raw: str
    text: str  # normalised, possibly truncated
    truncated: bool = False
    phrases: list[str] = field(default_factory=list)
    exact_tokens: list[str] = field(default_factory=list)
    language: str = ""
    inventory: bool = False
    inventory_topic: str = ""


def parse_query(raw: str, *, inventory: bool = True) -> ParsedQuery:
    text = unicodedata.normalize("NFC", raw or "")
    text = "".join(ch if ch.isprintable() or ch in "\n\t" else " " for ch in text)
    text = re.sub(r"\s+", " ", text).strip()
    truncated = len(text) > MAX_QUERY_CHARS
    if truncated:
        cut = text[:MAX_QUERY_CHARS]
        text = cut[: cut.rfind(" ")] if " " in cut[-50:] else cut
    q = ParsedQuery(raw=raw, text=text, truncated=truncated)
    q.phrases = [p.strip() for p in _QUOTED.findall(text) if p.strip()]
    q.exact_tokens = sorted({t.strip() for t in _EXACT.findall(text) if len(t.strip()) >= 3})
    q.language = detect_language(text) if text else ""
    if inventory and text:
        for pat in _INVENTORY:
            m = pat.match(text)
            if m:
                q.inventory = True
                q.inventory_topic = (m.groupdict().get("t") or "").strip(" ?.!")
                break
    return q


def terms(text: str) -> list[str]:
    """Lower-cased word tokens (for overlap scoring); drops 1-letter tokens."""
    return [t for t in re.findall(r"\w+", text.lower()) if len(t) > 1]
