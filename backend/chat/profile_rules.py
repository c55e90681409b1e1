"""An author profile's style rules (seed 000, "Autorenprofil-Auswahl für Schreibstil") as a
value: `AuthorProfile`, its validation (every error names its field) and what it turns into —
the prompt block of style rules (`style_rules_text(language)`) and the format checker's
configuration (`format_args`). Storage and CRUD: backend/chat/profiles.py.

The prompt block follows the fixed rules of backend/chat/prompt.py and never overrides them
(citations, evidence only, the question's language): a profile shapes wording, address and
format, not what may be said."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime

from backend.errors import RagscopeError

FORMALITIES = ("formal", "neutral", "informal")
ADDRESSES = ("sie", "du", "you", "none")
OUTPUT_FORMATS = ("markdown", "plain")
NAME_MAX, TONE_MAX, TEXT_MAX = 100, 200, 2_000
MIN_SENTENCE_WORDS, MAX_SENTENCE_WORDS = 5, 100
MAX_FORBIDDEN, WORD_MAX = 100, 60
FIELDS = ("name", "description", "tone", "formality", "address", "max_sentence_words",
          "forbidden_words", "output_format", "extra_rules")
_FORMAT_ALIASES = {"reiner text": "plain", "plain text": "plain", "text": "plain",
                   "md": "markdown"}


class InvalidProfile(RagscopeError):
    """An author profile field is not acceptable; `field` names it (the API's 422 field)."""

    def __init__(self, field_name: str, message: str):
        self.field = field_name
        super().__init__(f"{field_name}: {message}")


@dataclass
class AuthorProfile:
    id: int | None
    name: str
    description: str = ""
    tone: str = ""
    formality: str = "neutral"
    address: str = "none"
    max_sentence_words: int | None = None
    forbidden_words: list[str] = field(default_factory=list)
    output_format: str = "markdown"
    extra_rules: str = ""
    created_by: str = ""
    updated_by: str = ""
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @property
    def plain(self) -> bool:
        return self.output_format == "plain"

    def to_dict(self) -> dict:
        d = asdict(self)
        for k in ("created_at", "updated_at"):
            d[k] = d[k].isoformat() if d[k] else None
        return d

    def style_rules_text(self, language: str = "en") -> str:
        """The rules as prompt text, in German for "de", else English: the chat's system
        prompt and the stylist critic (issue 26.1) both use it."""
        t = _TEXTS["de" if str(language).lower().startswith("de") else "en"]
        lines = [t["head"].format(name=self.name)]
        if self.tone.strip():
            lines.append(t["tone"].format(tone=" ".join(self.tone.split())))
        lines.append(t["formality"][self.formality])
        if self.address != "none":
            lines.append(t["address"][self.address])
        if self.max_sentence_words:
            lines.append(t["sentences"].format(n=self.max_sentence_words))
        if self.forbidden_words:
            words = ", ".join(t["quote"].format(w=w) for w in self.forbidden_words)
            lines.append(t["forbidden"].format(words=words))
        lines.append(t["format"][self.output_format])
        lines += [f"- {r.strip()}" for r in self.extra_rules.splitlines() if r.strip()]
        return "\n".join(lines)

    def format_config(self) -> tuple[dict, dict]:
        """(structure, profile) configuration of backend/chat/format_check.py: the
        checker's active rules this profile switches on."""
        structure: dict = {}
        profile: dict = {}
        if self.plain:
            structure = {"output": {"format": "plain text"},
                         "formatting": {"bold": False}}
            profile = {"grammar_and_syntax": {"dashes": "forbidden"}}
        if self.max_sentence_words:
            profile.setdefault("grammar_and_syntax", {})["max_sentence_words"] = \
                self.max_sentence_words
        if self.forbidden_words:
            profile["vocabulary"] = {"forbidden_words": list(self.forbidden_words)}
        return structure, profile


_TEXTS = {
    "en": {
        "head": "Author profile \u201c{name}\u201d:",
        "quote": "\u201c{w}\u201d",
        "tone": "- Tone: {tone}.",
        "formality": {"formal": "- Register: formal; no colloquialisms.",
                      "neutral": "- Register: neutral and factual.",
                      "informal": "- Register: informal and friendly, still precise."},
        "address": {"sie": "- Address the reader formally (German: \u201cSie\u201d, never "
                           "\u201cdu\u201d).",
                    "du": "- Address the reader informally (German: \u201cdu\u201d, never "
                          "\u201cSie\u201d).",
                    "you": "- Address the reader directly as \u201cyou\u201d."},
        "sentences": "- Keep every sentence to at most {n} words.",
        "forbidden": "- Never use these words or forms: {words}.",
        "format": {"markdown": "- Output format: Markdown is allowed.",
                   "plain": "- Output format: plain text only: no Markdown (no **bold**, "
                            "*italic* or # headings), no en or em dashes."},
    },
    "de": {
        "head": "Autorenprofil \u201e{name}\u201c:",
        "quote": "\u201e{w}\u201c",
        "tone": "- Ton: {tone}.",
        "formality": {"formal": "- Stil: formell, keine Umgangssprache.",
                      "neutral": "- Stil: neutral und sachlich.",
                      "informal": "- Stil: locker und freundlich, aber genau."},
        "address": {"sie": "- Sprich die Leser mit \u201eSie\u201c an, nie mit \u201edu\u201c.",
                    "du": "- Sprich die Leser mit \u201edu\u201c an, nie mit \u201eSie\u201c.",
                    "you": "- Sprich die Leser direkt an (englisch \u201eyou\u201c)."},
        "sentences": "- Jeder Satz hat höchstens {n} Wörter.",
        "forbidden": "- Verwende diese Wörter und Formen nie: {words}.",
        "format": {"markdown": "- Ausgabeformat: Markdown ist erlaubt.",
                   "plain": "- Ausgabeformat: reiner Text, kein Markdown (kein **fett**, "
                            "*kursiv*, keine #-Überschriften), keine Gedankenstriche."},
    },
}


# ---- validation --------------------------------------------------------------------------

def _text(values: dict, key: str, limit: int, *, required: bool = False) -> str:
    raw = values.get(key, "")
    if raw is None:
        raw = ""
    if not isinstance(raw, str):
        raise InvalidProfile(key, f"must be text, not {type(raw).__name__}")
    value = " ".join(raw.split()) if key in ("name", "tone") else raw.strip()
    if required and not value:
        raise InvalidProfile(key, "must not be empty")
    if len(value) > limit:
        raise InvalidProfile(key, f"may have at most {limit:,} characters (has {len(value):,})")
    return value


def _choice(values: dict, key: str, choices: tuple[str, ...], default: str) -> str:
    raw = values.get(key) or default
    value = str(raw).strip().lower()
    value = _FORMAT_ALIASES.get(value, value) if key == "output_format" else value
    if value not in choices:
        raise InvalidProfile(key, f"unknown value {raw!r}; choose one of {', '.join(choices)}")
    return value


def _sentence_words(values: dict) -> int | None:
    raw = values.get("max_sentence_words")
    if raw in (None, "", 0, "0"):
        return None
    try:
        n = int(raw)
        if isinstance(raw, float) and raw != n or isinstance(raw, bool):
            raise ValueError
    except (TypeError, ValueError):
        raise InvalidProfile("max_sentence_words",
                             f"must be a whole number, not {raw!r}") from None
    if not MIN_SENTENCE_WORDS <= n <= MAX_SENTENCE_WORDS:
        raise InvalidProfile("max_sentence_words",
                             f"must be between {MIN_SENTENCE_WORDS} and {MAX_SENTENCE_WORDS} "
                             "words (or empty: no limit)")
    return n


def _words(values: dict) -> list[str]:
    raw = values.get("forbidden_words") or []
    if isinstance(raw, str):
        raw = raw.replace("\n", ",").split(",")
    if not isinstance(raw, (list, tuple)):
        raise InvalidProfile("forbidden_words", "must be a list of words")
    words = []
    for w in raw:
        if not isinstance(w, str):
            raise InvalidProfile("forbidden_words", f"must hold words, not {w!r}")
        w = " ".join(w.split())
        if len(w) > WORD_MAX:
            raise InvalidProfile("forbidden_words", f"{w[:20]!r}… has more than {WORD_MAX} "
                                                    "characters")
        if w and w.lower() not in {x.lower() for x in words}:
            words.append(w)
    if len(words) > MAX_FORBIDDEN:
        raise InvalidProfile("forbidden_words", f"at most {MAX_FORBIDDEN} words "
                                                f"(has {len(words)})")
    return words


def validate(values: dict) -> dict:
    """The profile's fields, cleaned; InvalidProfile names the first bad field (an unknown
    field too)."""
    unknown = sorted(set(values) - set(FIELDS))
    if unknown:
        raise InvalidProfile(unknown[0], f"unknown field; the fields are {', '.join(FIELDS)}")
    return {"name": _text(values, "name", NAME_MAX, required=True),
            "description": _text(values, "description", TEXT_MAX),
            "tone": _text(values, "tone", TONE_MAX),
            "formality": _choice(values, "formality", FORMALITIES, "neutral"),
            "address": _choice(values, "address", ADDRESSES, "none"),
            "max_sentence_words": _sentence_words(values),
            "forbidden_words": _words(values),
            "output_format": _choice(values, "output_format", OUTPUT_FORMATS, "markdown"),
            "extra_rules": _text(values, "extra_rules", TEXT_MAX)}


def format_args(answer_profile: str, author: AuthorProfile | None
                ) -> tuple[str, tuple[dict, dict] | None]:
    """What `format_check.apply_profile` gets for a session: its answer profile, made
    "plain" when the author profile writes plain text, plus the author profile's rules."""
    if author is None:
        return answer_profile, None
    return ("plain" if author.plain else answer_profile), author.format_config()
