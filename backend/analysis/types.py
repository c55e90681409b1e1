"""Plain result types of the analysis layer (picklable for st.cache_data, JSON-able for the
artifacts cache, the CLI and later the HTTP API). No ORM objects, no Streamlit."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


# Document kinds the analysis cares about, as the stored document types (the classification
# registry, backend/ingest/doctypes.py; "minutes"/"manual"/"policy" are the names used
# before the registry and by documents ingested before it).
DOC_KINDS: dict[str, tuple[str, ...]] = {
    "minutes": ("meeting_minutes", "minutes"),
    "policy": ("policy", "contract"),
    "manual": ("manual", "runbook_or_ops_doc", "code_documentation", "documentation_website",
               "api_reference"),
}
MINUTES_TYPES = DOC_KINDS["minutes"]


@dataclass
class Item:
    """One finding of one extractor, anchored in the text: the exact source passage
    (`text` == version text[start:end]), its section and page, how sure the rules are and
    which signals fired. `fields` holds the extractor's own columns (owner, due, vote, key,
    default, method, path, ...; see EXTRACTORS[...].fields)."""

    extractor: str
    text: str
    start: int
    end: int
    section_id: int | None
    section: str
    section_path: list[str]
    page: int | None
    confidence: float
    signals: list[str]
    fields: dict[str, Any] = field(default_factory=dict)
    origin: str = "rules"  # "rules" | "llm" (found by the optional LLM pass, checked in the text)

    def to_dict(self) -> dict:
        return {"extractor": self.extractor, "text": self.text, "start": self.start,
                "end": self.end, "section_id": self.section_id, "section": self.section,
                "section_path": list(self.section_path), "page": self.page,
                "confidence": self.confidence, "signals": list(self.signals),
                "fields": dict(self.fields), "origin": self.origin}

    @classmethod
    def from_dict(cls, d: dict) -> "Item":
        return cls(**d)

    def row(self) -> dict:
        """A flat row for tables and CSV: the fields first, then where it was found."""
        out = {k: _flat(v) for k, v in self.fields.items()}
        out.update(section=self.section, page=self.page, text=self.text,
                   confidence=round(self.confidence, 2), signals=", ".join(self.signals),
                   start=self.start, end=self.end, section_id=self.section_id, origin=self.origin)
        return out


def _flat(v: Any) -> Any:
    if isinstance(v, dict):
        return "; ".join(f"{k}={x}" for k, x in v.items() if x is not None and x != "" and x is not False)
    if isinstance(v, (list, tuple)):
        return ", ".join(str(x) for x in v)
    return v


@dataclass
class ExtractorResult:
    name: str
    version: str
    items: list[Item]
    total: int  # items found before the cap
    truncated: bool = False
    cached: bool = False
    ms: float = 0.0
    refined_by: str | None = None  # "provider/model" when the LLM pass ran

    def to_dict(self) -> dict:
        return {"name": self.name, "version": self.version, "total": self.total,
                "truncated": self.truncated, "cached": self.cached, "ms": round(self.ms, 2),
                "refined_by": self.refined_by, "items": [i.to_dict() for i in self.items]}


@dataclass
class DocumentRef:
    document_id: int | None
    version_id: int | None
    version_number: int | None
    title: str
    filename: str
    doc_type: str
    language: str
    doc_date: str | None  # ISO; the date relative dates and "future" are measured from
    sections: int
    pages: int | None
    chars: int


@dataclass
class DocumentAnalysis:
    document: DocumentRef
    results: dict[str, ExtractorResult]
    warnings: list[str] = field(default_factory=list)

    def items(self, name: str) -> list[Item]:
        r = self.results.get(name)
        return r.items if r else []

    def to_dict(self) -> dict:
        return {"document": asdict(self.document), "warnings": list(self.warnings),
                "results": {k: v.to_dict() for k, v in self.results.items()}}


@dataclass
class SummarySentence:
    text: str
    section_id: int | None
    section: str
    page: int | None
    start: int | None  # offsets of the source sentence (None for an LLM sentence whose
    end: int | None  # source could only be matched to a section)
    score: float = 0.0


@dataclass
class Summary:
    document: DocumentRef
    scope: str  # "document" or the section label
    section_id: int | None
    length: str  # short | medium | long
    method: str  # "extractive" | "llm:<provider>/<model>" | "extractive (LLM failed: ...)"
    sentences: list[SummarySentence]
    parts: int  # how many parts the text was split into before condensing
    cached: bool = False
    warnings: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.sentences)

    def to_dict(self) -> dict:
        return {"document": asdict(self.document), "scope": self.scope,
                "section_id": self.section_id, "length": self.length, "method": self.method,
                "parts": self.parts, "cached": self.cached, "warnings": list(self.warnings),
                "text": self.text, "sentences": [asdict(s) for s in self.sentences]}
