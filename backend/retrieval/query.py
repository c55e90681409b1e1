"""Query normalisation and intent: quoted phrases, exact tokens, language, inventory mode."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from backend.config import domain_rules
from backend.ingest.language import detect_language

MAX_QUERY_CHARS = 1000  # longer queries are cut (recorded in the trace)

_QUOTED = re.compile(r"[\"“„«»”]([^\"“„«»”]{2,200})[\"“„«»”]")
# Tokens that must match literally: config keys, env vars, paragraph signs, version numbers.
_EXACT = re.compile(r"(§\s*\d+[a-z]?|\b[\w-]+(?:[._][\w-]+)+\b|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b"
                    r"|\b\d{4}/\d+\b)")
# Nouns of inventory questions - generic ones, and kinds that name a document type - are a
# domain list in config/domain/domains.yaml (backend/config/domain_rules.py; reloaded when it
# changes): `_inventory()` builds the patterns and the noun -> types table per generation.
_compiled: dict[str, tuple] = {}


def _alternation(words) -> str:
    return "|".join(re.escape(w) for w in dict.fromkeys(words))


def _inventory() -> tuple[list[re.Pattern], dict[str, tuple[str, ...]]]:
    """The inventory question patterns and KIND_NOUNS (noun -> document types) of the
    current domain lists."""
    rules = domain_rules.current()
    got = _compiled.get(rules.generation)
    if got is not None:
        return got
    dm = rules.domains
    kinds = {n.lower(): tuple(k.types) for k in dm.document_kinds.values()
             for n in [*k.nouns_de, *k.nouns_en]}
    de = _alternation([*dm.inventory_nouns_de] + [n.lower() for k in dm.document_kinds.values()
                                                  for n in k.nouns_de])
    en = _alternation([*dm.inventory_nouns_en] + [n.lower() for k in dm.document_kinds.values()
                                                  for n in k.nouns_en])
    got = (_patterns(de, en), kinds)
    _compiled.clear()
    _compiled[rules.generation] = got
    return got


# "Welche der englischsprachigen Dokumente …", "Which of the German-language documents …":
# the documents' language (of their active version) narrows the list
_LANGUAGE_DE = (r"(?:(?P<en>englischsprachige[nr]?|englische[nr]?)|"
                r"(?P<de>deutschsprachige[nr]?|deutsche[nr]?))")
_LANGUAGE_EN = r"(?:(?P<en>English(?:-language)?)|(?P<de>German(?:-language)?))"


def _patterns(de_nouns: str, en_nouns: str) -> list[re.Pattern]:
    return [
        re.compile(rf"^\s*welche\s+(?:der\s+)?(?:{_LANGUAGE_DE}\s+)?(?P<n>{de_nouns})\b"
                   r"(?:\s+(?:gibt\s+es|haben\s+wir|liegen\s+vor|"
                   r"existieren))?\s*(?:(?:zu[mr]?|über|ueber|zum\s+thema|betreffend|mit|im\s+bereich)"
                   r"\s+(?P<t>.+?)|(?:betreffen|behandeln|erwähnen|erwaehnen|beschreiben|regeln|"
                   r"nennen|handeln\s+von|befassen\s+sich\s+mit|beziehen\s+sich\s+auf|geht\s+es\s+um|"
                   r"gibt\s+es\s+(?:zu[mr]?|über|ueber)|sind|ist)\s+(?P<t2>.+?))?\s*\??\s*$", re.I),
        re.compile(r"^\s*(?:gibt\s+es|habt\s+ihr|haben\s+wir)\s+(?:dokumente|unterlagen)\s+"
                   r"(?:zu[mr]?|über|ueber)\s+(?P<t>.+?)\s*\??\s*$", re.I),
        re.compile(r"^\s*(?:liste|zeige)\s+(?:mir\s+)?(?:alle\s+)?(?:dokumente|unterlagen)"
                   r"(?:\s+(?:zu[mr]?|über|ueber)\s+(?P<t>.+?))?\s*\??\s*$", re.I),
        re.compile(rf"^\s*(?:which|what)\s+(?:of\s+the\s+)?(?:{_LANGUAGE_EN}\s+)?(?P<n>{en_nouns})\s*"
                   r"(?:(?:are\s+there\s+)?(?:cover|covers|mention|mentions|discuss|discusses|"
                   r"are\s+about|about|on|deal\s+with|talk\s+about|exist\s+(?:on|about|for)|"
                   r"name|names|refer\s+to|are(?!\s+there\b)|is|"
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
    inventory_language: str = ""  # "Welche englischsprachigen Dokumente …": "en"
    translations: list[str] = field(default_factory=list)  # keyword query only (dictionary)
    expansions: list[str] = field(default_factory=list)  # keyword query only (synonyms)


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
        patterns, kind_nouns = _inventory()
        for pat in patterns:
            m = pat.match(text)
            if m:
                g = m.groupdict()
                q.inventory = True
                topic = _ARTICLE.sub("", (g.get("t") or g.get("t2") or "").strip(" ?.!"))
                kind = kind_nouns.get((g.get("n") or "").lower())
                if not kind:  # "… documents are minutes of a board meeting": the kind
                    first = re.match(r"([\wäöüß-]+)\s*(?:(?:of|for|für|zu[mr]?|über)\s+)?", topic, re.I)
                    kind = kind_nouns.get(first.group(1).lower()) if first else None
                    if kind:
                        topic = _ARTICLE.sub("", topic[first.end():].strip(" ?.!"))
                q.inventory_topic = topic
                q.inventory_types = list(kind or ())
                q.inventory_language = "en" if g.get("en") else "de" if g.get("de") else ""
                break
    return q


def terms(text: str) -> list[str]:
    """Lower-cased word tokens (for overlap scoring); drops 1-letter tokens."""
    return [t for t in re.findall(r"\w+", text.lower()) if len(t) > 1]
