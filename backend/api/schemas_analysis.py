"""Response models of the analysis routes (backend/api/routes_analysis.py): extractor
results, summaries, version and document comparisons, cross-references. Lists are paged
(`offset`/`limit` answered with `total` and `next_offset`)."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from backend.analysis.extractors import NAMES
from backend.api.schemas import Strict

Extractor = Literal[NAMES]
Length = Literal["short", "medium", "long"]


class AnalysedDocument(BaseModel):
    """The analysed document version."""

    document_id: int | None
    version_id: int | None
    version_number: int | None
    title: str
    filename: str
    doc_type: str
    language: str
    doc_date: str | None
    sections: int
    pages: int | None
    chars: int


class ItemOut(BaseModel):
    """One finding, anchored in the text: `text` is the version's text[start:end]."""

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
    fields: dict[str, Any]
    origin: str
    link: str | None


class ExtractorOut(BaseModel):
    name: str
    label: str
    description: str
    version: str
    columns: list[str]
    total: int
    truncated: bool
    cached: bool
    refined_by: str | None
    items: list[ItemOut]
    offset: int
    limit: int
    next_offset: int | None


class AnalysisOut(BaseModel):
    document: AnalysedDocument
    section: str | None
    warnings: list[str]
    extractors: list[ExtractorOut]


class SummarySentenceOut(BaseModel):
    n: int
    text: str
    section_id: int | None
    section: str
    page: int | None
    start: int | None
    end: int | None
    link: str | None


class SummaryOut(BaseModel):
    document: AnalysedDocument
    scope: str
    section_id: int | None
    length: str
    method: str
    parts: int
    cached: bool
    warnings: list[str]
    text: str
    sentences: list[SummarySentenceOut]


class WordOpOut(BaseModel):
    op: str
    a: str
    b: str


class SectionChangeOut(BaseModel):
    status: str
    label: str
    label_a: str | None
    label_b: str | None
    section_id_a: int | None
    section_id_b: int | None
    page_a: int | None
    page_b: int | None
    similarity: float
    ops: list[WordOpOut]


class ItemChangeOut(BaseModel):
    extractor: str
    status: str
    section: str
    a: ItemOut | None
    b: ItemOut | None


class VersionComparisonOut(BaseModel):
    document_a: AnalysedDocument
    document_b: AnalysedDocument
    counts: dict[str, int]
    sections: list[SectionChangeOut]
    total: int
    offset: int
    limit: int
    next_offset: int | None
    items: list[ItemChangeOut]
    items_total: int
    items_offset: int
    items_limit: int
    items_next_offset: int | None


class OverlapOut(BaseModel):
    extractor: str
    shared: list[list[ItemOut]]
    only_a: list[ItemOut]
    only_b: list[ItemOut]
    shared_total: int
    only_a_total: int
    only_b_total: int


class DocumentComparisonOut(BaseModel):
    document_a: AnalysedDocument
    document_b: AnalysedDocument
    topic_similarity: float
    shared_topics: list[str]
    topics_only_a: list[str]
    topics_only_b: list[str]
    overlaps: list[OverlapOut]
    limit: int


class CrossReferenceHitOut(BaseModel):
    rank: int
    document_id: int
    title: str
    filename: str
    section_id: int | None
    section: str
    page: int | None
    score: float
    shared_terms: list[str]
    reason: str
    snippet: str
    link: str


class CrossReferenceOut(BaseModel):
    query: str
    origin: str
    hits: list[CrossReferenceHitOut]
    offset: int
    limit: int
    next_offset: int | None


class CrossReferenceRequest(Strict):
    """Body of `POST /api/cross-reference`: a `query`, or a `document_id` (with a `section`)
    whose topic to follow; at most 50 hits in all."""

    query: str | None = Field(None, min_length=1, max_length=1000)
    document_id: int | None = Field(None, ge=1, le=2**31 - 1)
    section: str | None = Field(None, min_length=1, max_length=500, description=(
        "a section of `document_id`: id, number, title or path; a unique prefix is enough"))
    version: int | None = Field(None, ge=1, le=100_000)
    collections: list[str] | None = Field(None, max_length=50)
    offset: int = Field(0, ge=0, le=49)
    limit: int = Field(10, ge=1, le=50)
