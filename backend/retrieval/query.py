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
# Nouns of inventory questions: generic ones, and kinds that name a document type.
_MINUTES = ("meeting_minutes", "minutes")  # type names of the registry and earlier ones
_POLICY = ("policy", "contract")
_MANUAL = ("manual", "runbook_or_ops_doc")
KIND_NOUNS = {
    "protokolle": _MINUTES, "sitzungsprotokolle": _MINUTES, "niederschriften": _MINUTES,
    "minutes": _MINUTES, "richtlinien": _POLICY, "ordnungen": _POLICY,
    "regelungen": _POLICY, "satzungen": _POLICY, "policies": _POLICY,
    "handbücher": _MANUAL, "handbuecher": _MANUAL, "anleitungen": _MANUAL,
    "manuals": _MANUAL, "guides": _MANUAL, "runbooks": ("runbook_or_ops_doc",),
    "webseiten": ("web_article", "documentation_website", "web_page"),
    "internetseiten": ("web_article", "documentation_website", "web_page"),
}
_DE_NOUNS = ("dokumente|unterlagen|dateien|texte|quellen|protokolle|sitzungsprotokolle|"
             "niederschriften|richtlinien|ordnungen|regelungen|satzungen|handbücher|"
             "handbuecher|anleitungen|webseiten|internetseiten")
_EN_NOUNS = r"documents|docs|files|sources|policies|manuals|minutes|guides|runbooks"
_INVENTORY = [
    re.compile(rf"^\s*welche\s+(?P<n>{_DE_NOUNS})\b(?:\s+(?:gibt\s+es|haben\s+wir|liegen\s+vor|"
               r"existieren))?\s*(?:(?:zu[mr]?|über|ueber|zum\s+thema|betreffend|mit|im\s+bereich)"
               r"\s+(?P<t>.+?)|(?:betreffen|behandeln|erwähnen|erwaehnen|beschreiben|regeln|"
               r"nennen|handeln\s+von|befassen\s+sich\s+mit|beziehen\s+sich\s+auf|geht\s+es\s+um|"
               r"gibt\s+es\s+(?:zu[mr]?|über|ueber))\s+(?P<t2>.+?))?\s*\??\s*$", re.I),
    re.compile(r"^\s*(?:gibt\s+es|habt\s+ihr|haben\s+wir)\s+(?:dokumente|unterlagen)\s+"
               r"(?:zu[mr]?|über|ueber)\s+(?P<t>.+?)\s*\??\s*$", re.I),
    re.compile(r"^\s*(?:liste|zeige)\s+(?:mir\s+)?(?:alle\s+)?(?:dokumente|unterlagen)"
               r"(?:\s+(?:zu[mr]?|über|ueber)\s+(?P<t>.+?))?\s*\??\s*$", re.I),
    re.compile(rf"^\s*(?:which|what)\s+(?P<n>{_EN_NOUNS})\s*"
               r"(?:(?:are\s+there\s+)?(?:cover|covers|mention|mentions|discuss|discusses|"
               r"are\s+about|about|on|deal\s+with|talk\s+about|exist\s+(?:on|about|for)|"
               r"do\s+we\s+have\s+(?:on|about))\s+(?P<t>.+?))?\s*(?:are\s+there|exist|do\s+we\s+have)?"
               r"\s*\??\s*$", re.I),
    re.compile(r"^\s*(?:list|show)\s+(?:me\s+)?(?:all\s+)?(?:the\s+)?(?:documents|docs|files)"
               r"(?:\s+(?:about|on|covering|for)\s+(?P<t>.+?))?\s*\??\s*$", re.I),
]
_ARTICLE = re.compile(r"^(?:den|die|das|dem|der|the)\s+", re.I)


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
    inventory_types: list[str] = field(default_factory=list)  # doc types named by the noun
    translations: list[str] = field(default_factory=list)  # keyword query only (dictionary)


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
                g = m.groupdict()
                q.inventory = True
                topic = (g.get("t") or g.get("t2") or "").strip(" ?.!")
                q.inventory_topic = _ARTICLE.sub("", topic)
                kind = KIND_NOUNS.get((g.get("n") or "").lower())
                q.inventory_types = list(kind or ())
                break
    return q


def terms(text: str) -> list[str]:
    """Lower-cased word tokens (for overlap scoring); drops 1-letter tokens."""
    return [t for t in re.findall(r"\w+", text.lower()) if len(t) > 1]
