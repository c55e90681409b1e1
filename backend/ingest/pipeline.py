"""The processing of one version, without the store: extract -> normalise -> classify (type,
traits, profile, title) -> sections and chunks as the profile says. Also rebuilds a stored
version's Text (for re-sectioning when its profile changes) from what the store keeps: the
normalised text, page spans, headings and code/table spans in the version's meta."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field

from backend.errors import ExtractionError
from backend.ingest import doctypes
from backend.ingest.chunking import chunk_text
from backend.ingest.classify import Classification, Subject, better_title, classify
from backend.ingest.extract import extract
from backend.ingest.extract.limits import ExtractLimits
from backend.ingest.normalise import normalise
from backend.ingest.ocr import OcrOptions
from backend.ingest.profiles import Profile, chunking_record, get_profile
from backend.ingest.structure import build_sections
from backend.ingest.types import ChunkSpec, Heading, PageSpan, RawDocument, SectionNode, Span, Text

log = logging.getLogger(__name__)


@dataclass
class Context:
    """What the classifier needs to know about the document beyond the file."""

    source_kind: str = "file"
    path: str = ""  # repository path / source URI
    versions: int = 1
    profile_override: str | None = None
    title: str | None = None  # a title the caller gives (a repository path); wins over all
    title_locked: bool = False  # a user edited the title: keep the document's title


@dataclass
class Prepared:
    raw: RawDocument | None
    text: Text
    sections: list[SectionNode]
    chunks: list[ChunkSpec]
    classification: Classification
    profile: Profile
    title: str
    title_source: str
    size: int
    overlap: int
    warnings: list[str] = field(default_factory=list)

    @property
    def chunking(self) -> dict:
        return {"size": self.size, "overlap": self.overlap,
                **({"profile": self.profile.variant()} if self.profile.variant() else {})}


def prepare(settings, store, data: bytes, filename: str, ctx: Context) -> Prepared:
    """Extract and cut one file (raises IngestError subclasses for bad input)."""
    raw = extract(data, filename, limits=ExtractLimits.from_settings(settings),
                  ocr=OcrOptions.from_settings(settings))
    text = normalise(raw)
    if not text.text.strip():
        raise ExtractionError(filename, "no text could be extracted")
    return cut(settings, store, text, filename, ctx, raw=raw)


def cut(settings, store, text: Text, filename: str, ctx: Context,
        raw: RawDocument | None = None, refine: bool = True) -> Prepared:
    """Classify a normalised text and cut it into sections and chunks by its profile
    (`refine`: ask the configured classification LLM too)."""
    base = build_sections(text)
    sub = Subject(filename=filename, text=text.text, sections=base, title="", path=ctx.path,
                  fmt=str(text.metadata.get("format", "")), source_kind=ctx.source_kind,
                  spans=list(text.spans), meta=dict(text.metadata),
                  page_count=text.metadata.get("page_count"), versions=ctx.versions)
    title, source = (ctx.title, "given") if ctx.title else better_title(sub, text.title)
    sub.title = title
    types = doctypes.load(store)
    result = classify(sub, types, profile_override=ctx.profile_override)
    warnings: list[str] = []
    if settings.classify_llm_provider and refine:
        from backend.ingest.classify_llm import refine

        result, warning = refine(settings, sub, result, types)
        if warning:
            warnings.append(warning)
    profile = get_profile(result.processing_profile)
    sections = base if profile.params() == get_profile("generic_text").params() \
        else build_sections(text, profile)
    size, overlap = profile.sizes(settings.chunk_size, settings.chunk_overlap)
    chunks = chunk_text(text, sections, size, overlap, profile)
    return Prepared(raw, text, sections, chunks, result, profile, title, source, size, overlap,
                    warnings)


# ---- what the store keeps to cut a version again ------------------------------------------


def stored_layout(text: Text) -> dict:
    """The parts of a Text the store does not otherwise keep (goes into the version's meta)."""
    return {"headings": [[h.start, h.end, h.level, h.source, h.title] for h in text.headings],
            "spans": [[x.start, x.end, x.kind] for x in text.spans],
            "extracted_title": text.title}


def text_from_store(version_text: str, meta: dict, title: str | None,
                    fallback_sections: list[SectionNode] | None = None) -> Text | None:
    """The version's Text as it was cut: None when the meta lacks the layout (versions
    ingested before profiles) and no fallback sections are given."""
    pages = [PageSpan(n, a, b) for n, a, b in meta.get("pages", [])]
    if "headings" in meta:
        headings = [Heading(t, lvl, a, b, src) for a, b, lvl, src, t in meta["headings"]]
        spans = [Span(a, b, k) for a, b, k in meta.get("spans", [])]
        return Text(version_text, pages, headings, title, dict(meta), spans)
    if fallback_sections is None:
        return None
    headings = [Heading(x.title, max(1, x.level), x.start,
                        _line_end(version_text, x.start), "markup")
                for x in fallback_sections[1:] if x.kind not in ("page",)]
    return Text(version_text, pages, headings, title, dict(meta), [])


def _line_end(text: str, start: int) -> int:
    i = text.find("\n", start)
    return len(text) if i < 0 else i


def expected_chunking(settings, profile_name: str | None) -> dict:
    return chunking_record(get_profile(profile_name), settings.chunk_size, settings.chunk_overlap)
