"""Document classification: primary type, secondary types, traits and processing profile of a
version, by heuristics over file name/path, format, source, title, wording and structure,
driven by the type registry (backend/ingest/doctypes.py); optionally refined by an LLM
(backend/ingest/classify_llm.py).

Scoring: every enabled type collects the weights (WEIGHTS) of the signals it matches; the
highest score wins when it reaches MIN_SCORE (else `generic_text`); ties go to the higher
priority. Types scoring at least half of the winner (and MIN_SCORE) are secondary types.
`confidence` grows with the winner's score and its lead over the runner-up. A document whose
pages were mostly OCR'd is `pdf_scanned` (its content type comes first among the secondary
types) and always gets the `ocr_resilient` profile. The profile is the per-document override
if one is set, else the type's `default_profile`."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import PurePosixPath

from backend.ingest.doctypes import TypeDef
from backend.ingest.profiles import PROFILES
from backend.ingest.types import SectionNode, Span

WEIGHTS = {"extensions": 4.0, "names": 2.0, "title": 2.5, "text": 0.75, "structure": 2.0,
           "traits": 1.0, "formats": 0.75, "source_kinds": 0.5}
MAX_TEXT_HITS = 4  # at most this many text patterns count per type
MIN_SCORE = 1.5
HEAD_CHARS = 4000
METHOD = "heuristic"
PROMPT_VERSION = "1"

TRAITS = ("has_tables", "has_code_blocks", "has_references", "has_agenda", "has_action_items",
          "has_deadlines", "has_api_endpoints", "has_config_keys", "is_ocr",
          "ocr_low_confidence", "is_multilingual", "is_versioned")

_TABLE_ROW = re.compile(r"(?m)^[^\n|]*\S[^\n|]*(\s\|\s[^\n|]*\S){2,}\s*$")
_REFERENCES = re.compile(r"(?im)^\s*(\d+\.?\s+)?(references|literatur(verzeichnis)?|quellen(angaben)?|"
                         r"bibliography)\s*$|\bdoi:\s*10\.|\[\d{1,3}\]")
_AGENDA = re.compile(r"(?i)\b(tagesordnung|agenda)\b")
_ACTIONS = re.compile(r"(?i)\b(action items?|aufgaben?:|to-?dos?\b|maßnahmen?:|verantwortlich(e)?:|"
                      r"owner:|wer\s*/\s*was|offene punkte|next steps|nächste schritte)|"
                      r"\b[A-Z]{1,3}-\d{2}-\d{2,3}\b")
_DEADLINES = re.compile(
    r"(?i)\b(bis (zum|spätestens)?|deadline|frist|fällig|due|by|until|no later than|spätestens)"
    r"\s+(\d{1,2}\.\s?\d{1,2}\.(\d{2,4})?|\d{1,2}\.\s+\w+(\s+\d{4})?|\w+\s+\d{1,2}(,\s+\d{4})?|"
    r"\d{4}-\d{2}-\d{2}|ende\s+\w+|end of \w+|kw\s*\d+)")
_ENDPOINT = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE|HEAD)\s+/[\w/{}:.\-]*")
_CONFIG_KEY = re.compile(r"\b[a-z][a-z0-9_]*(\.[a-z0-9_]+){1,5}\b(?=\s*[:=]|\s+\(|`|\s+(is|ist|to|auf)\b)|"
                         r"\b[A-Z][A-Z0-9]{2,}(_[A-Z0-9]+){1,6}\b")
_VERSION_MARK = re.compile(r"(?i)\b(version|fassung|ausgabe|revision|rev\.)\s*:?\s*v?\d")
_ALLCAPS_LABEL = re.compile(r"^[A-ZÄÖÜ0-9 \-–:/&.]{3,60}$")


@dataclass
class Subject:
    """What the classifier looks at (no ORM objects): one version of a document."""

    filename: str
    text: str
    sections: list[SectionNode]
    title: str = ""
    path: str = ""  # repository path or source URI (folders carry meaning: docs/, ops/)
    fmt: str = ""  # extracted format: pdf, docx, html, markdown, code, ...
    source_kind: str = "file"
    spans: list[Span] = field(default_factory=list)
    meta: dict = field(default_factory=dict)  # the version's meta (ocr, warnings, ...)
    page_count: int | None = None
    versions: int = 1  # versions the document has, this one included


@dataclass
class Classification:
    primary_type: str
    secondary_types: list[str]
    traits: list[str]
    processing_profile: str
    confidence: float
    signals: list[str]
    reasoning_short: str
    method: str = METHOD
    model: str | None = None
    prompt_version: str = PROMPT_VERSION
    scores: dict[str, float] = field(default_factory=dict)
    classified_at: str = ""
    profile_source: str = "type"  # type | override | ocr

    def to_json(self) -> dict:
        return asdict(self)


# ---- traits ---------------------------------------------------------------------------------


def traits_of(sub: Subject) -> list[str]:
    text = sub.text
    kinds = Counter(x.kind for x in sub.sections)
    span_kinds = Counter(x.kind for x in sub.spans)
    out = []
    if span_kinds["table"] or len(_TABLE_ROW.findall(text[:200_000])) >= 3:
        out.append("has_tables")
    if span_kinds["code"] or kinds["symbol"]:
        out.append("has_code_blocks")
    if len(_REFERENCES.findall(text[-30_000:])) >= 1 and (
            "references" in text[-30_000:].lower() or "literatur" in text[-30_000:].lower()
            or len(re.findall(r"\[\d{1,3}\]", text)) >= 3 or "doi:" in text.lower()):
        out.append("has_references")
    if kinds["agenda_item"] or _AGENDA.search(text[:HEAD_CHARS]):
        out.append("has_agenda")
    if len(_ACTIONS.findall(text)) >= 2:
        out.append("has_action_items")
    if _DEADLINES.search(text):
        out.append("has_deadlines")
    if len(_ENDPOINT.findall(text)) >= 2:
        out.append("has_api_endpoints")
    if len(set(m.group(0) for m in _CONFIG_KEY.finditer(text[:200_000]))) >= 2:
        out.append("has_config_keys")
    ocr = sub.meta.get("ocr") or {}
    if ocr:
        out.append("is_ocr")
        if ocr.get("low_confidence_pages"):
            out.append("ocr_low_confidence")
    if _multilingual(text):
        out.append("is_multilingual")
    if sub.versions > 1 or _VERSION_MARK.search(text[:HEAD_CHARS]):
        out.append("is_versioned")
    return out


def _multilingual(text: str) -> bool:
    """German and English both make up a real share of the paragraphs (at least 2 and 15 %)."""
    from backend.ingest.language import detect_language

    paras = [p for p in re.split(r"\n\s*\n", text[:100_000]) if len(p) >= 200]
    if len(paras) < 4:
        return False
    step = max(1, len(paras) // 40)
    langs = Counter(detect_language(p) for p in paras[::step])
    total = sum(langs.values())
    return sum(1 for n in langs.values() if n >= 2 and n >= 0.15 * total) >= 2


# ---- scoring ---------------------------------------------------------------------------------


def _score(t: TypeDef, sub: Subject, traits: set[str], kinds: Counter,
           head: str) -> tuple[float, list[str]]:
    sig = t.signals or {}
    score, why = 0.0, []
    ext = PurePosixPath(sub.filename.lower()).suffix
    if ext and ext in sig.get("extensions", ()):
        score += WEIGHTS["extensions"]
        why.append(f"extension {ext}")
    where = f"{sub.path} {sub.filename}".lower()
    for p in sig.get("names", ()):
        if m := re.search(p, where):
            score += WEIGHTS["names"]
            why.append(f"file name '{m.group(0).strip('/ ')}'")
            break
    for p in sig.get("title", ()):
        if sub.title and (m := re.search(p, sub.title)):
            score += WEIGHTS["title"]
            why.append(f"title '{m.group(0).strip()}'")
            break
    hits = [p for p in sig.get("text", ()) if re.search(p, head)][:MAX_TEXT_HITS]
    if hits:
        score += WEIGHTS["text"] * len(hits)
        why.append(f"{len(hits)} wording pattern(s)")
    for kind, n in (sig.get("structure") or {}).items():
        if kinds[kind] >= n:
            score += WEIGHTS["structure"]
            why.append(f"{kinds[kind]} {kind} sections")
    for tr in sig.get("traits", ()):
        if tr in traits:
            score += WEIGHTS["traits"]
            why.append(tr)
    if sub.fmt and sub.fmt in sig.get("formats", ()):
        score += WEIGHTS["formats"]
        why.append(f"format {sub.fmt}")
    if sub.source_kind in sig.get("source_kinds", ()):
        score += WEIGHTS["source_kinds"]
        why.append(f"source {sub.source_kind}")
    return score, why


def classify(sub: Subject, types: list[TypeDef], *, profile_override: str | None = None,
             ) -> Classification:
    """The heuristic classification of one version (pure: no store, no network)."""
    enabled = [t for t in types if t.enabled]
    by_name = {t.name: t for t in enabled}
    traits = traits_of(sub)
    kinds = Counter(x.kind for x in sub.sections)
    head = sub.text[:HEAD_CHARS]
    scored = []
    for t in enabled:
        if t.name in ("generic_text", "pdf_scanned"):
            continue
        score, why = _score(t, sub, set(traits), kinds, head)
        if score > 0:
            scored.append((score, t.priority, t.name, why))
    scored.sort(key=lambda x: (-x[0], -x[1], x[2]))
    scores = {name: round(score, 2) for score, _, name, _ in scored}
    if scored and scored[0][0] >= MIN_SCORE:
        best, _, primary, why = scored[0]
        second = scored[1][0] if len(scored) > 1 else 0.0
        confidence = _confidence(best, second)
    else:
        best, primary, why, second = 0.0, "generic_text", ["no type reached the minimum score"], 0
        confidence = 0.3 if not scored else round(0.3 + 0.1 * scored[0][0], 2)
    secondary = [name for score, _, name, _ in scored[1:4]
                 if score >= MIN_SCORE and score >= 0.5 * best]
    profile_source = "type"
    ocr = sub.meta.get("ocr") or {}
    if ocr and "pdf_scanned" in by_name and _mostly_ocr(ocr, sub.page_count):
        if primary != "generic_text":
            secondary = [primary] + [x for x in secondary if x != primary][:2]
        why = [f"{len(ocr.get('pages') or {})} of {sub.page_count or '?'} pages OCR'd"] + why
        primary = "pdf_scanned"
    profile = by_name[primary].default_profile if primary in by_name else "generic_text"
    if "is_ocr" in traits:
        profile, profile_source = "ocr_resilient", "ocr"
    if profile_override and profile_override in PROFILES:
        profile, profile_source = profile_override, "override"
    if profile not in PROFILES:
        profile = "generic_text"
    label = by_name[primary].label if primary in by_name else primary
    reason = f"{label}: " + ", ".join(why[:4])
    return Classification(
        primary_type=primary, secondary_types=secondary, traits=traits,
        processing_profile=profile, confidence=confidence, signals=why, reasoning_short=reason[:300],
        scores=scores, classified_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        profile_source=profile_source)


def _confidence(best: float, second: float) -> float:
    """0.5 .. 0.99: more with a higher score and a larger lead over the runner-up."""
    lead = (best - second) / best if best else 0.0
    strength = min(1.0, best / 8.0)
    return round(min(0.99, 0.5 + 0.25 * strength + 0.25 * lead), 2)


def _mostly_ocr(ocr: dict, pages: int | None) -> bool:
    n = len(ocr.get("pages") or {})
    return bool(n) and (not pages or n * 2 >= pages)


# ---- titles ----------------------------------------------------------------------------------


def better_title(sub: Subject, extracted: str | None) -> tuple[str, str]:
    """(title, source): the document's own title (metadata), else the first heading, else a
    first line that reads as a title, else the file name made readable. A first line that is
    only a label in capitals ("PRESSEMITTEILUNG", "PROTOKOLL") is skipped for the line after
    it; a title in capitals is given sentence case only when nothing better exists."""
    meta = (extracted or "").strip()
    if meta and not _generic(meta, sub.filename):
        return " ".join(meta.split())[:500], "metadata"
    head = next((x for x in sub.sections[1:]
                 if x.kind in ("chapter", "section") and x.level <= 1 and x.title.strip()
                 and x.start < 600), None)
    heading = head.title if head is not None else None
    lines = [x.strip() for x in sub.text[:2000].split("\n") if x.strip()]
    first = _first_title_line(lines)
    numbered = bool(getattr(head, "number", None))  # "1 Prüfung der Pumpen": a chapter, the
    # line above it (an OCR'd scan's first line) is the document's title
    if heading and (first is None or (not numbered and not first.startswith(heading[:20]))):
        candidate = heading
    else:
        candidate = first or heading
    if candidate and not _generic(candidate, sub.filename):
        return candidate[:500], "text"
    return _from_filename(sub.filename), "file name"


def _first_title_line(lines: list[str]) -> str | None:
    for i, line in enumerate(lines[:3]):
        if _ALLCAPS_LABEL.match(line) and len(line.split()) <= 3 and i + 1 < len(lines):
            continue  # a label like PRESSEMITTEILUNG: the headline follows
        if 3 <= len(line) <= 150 and not line.endswith((".", ",", ";")) and i + 1 < len(lines):
            return line
        return None
    return None


def _generic(title: str, filename: str) -> bool:
    """Titles that say nothing: "Untitled", "Microsoft Word - x.docx", the file name itself."""
    t = title.strip().lower()
    return (not t or t in ("untitled", "unbenannt", "document", "dokument", "title", "titel")
            or t.startswith("microsoft word -") or t == filename.lower()
            or t == PurePosixPath(filename).stem.lower())


def _from_filename(filename: str) -> str:
    stem = PurePosixPath(filename).stem if "." in filename[1:] else filename
    words = re.sub(r"[_\-]+", " ", stem).strip()
    return (words[:1].upper() + words[1:]) if words else filename
