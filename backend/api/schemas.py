"""Request and response models of the HTTP API (the OpenAPI spec is generated from them).
Requests refuse unknown fields; every list is paged (`offset`/`limit`, answered with
`total` and `next_offset`)."""
from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from backend.chat.types import CONTEXT_LIMITS

Policy = Literal["hybrid", "semantic_only", "lexical_only", "document_first", "section_first"]
Names = list[str] | None
MAX_QUERY = 4000


class Strict(BaseModel):
    """Unknown fields are refused, and so are values of another JSON type (`"offset":
    false`, `"rerank": 0`): a client's mistake is named, not guessed at."""

    model_config = ConfigDict(extra="forbid", strict=True)


def _names(description: str):
    return Field(None, max_length=100, description=description)


class SearchRequest(Strict):
    query: str = Field(..., min_length=1, max_length=MAX_QUERY)
    offset: int = Field(0, ge=0, le=199, description="first hit returned (0-based)")
    limit: int = Field(10, ge=1, le=100, description="hits returned")
    policy: Policy = "hybrid"
    collections: Names = _names("only these collections (of those you may read)")
    doc_types: Names = _names("only these document types (e.g. minutes, manual)")
    file_types: Names = _names("only these file types (pdf, docx, md, ...)")
    tags: Names = _names("only documents carrying at least one of these tags (any case)")
    categories: Names = _names("only documents whose type is in one of these categories "
                               "of the document-type registry (e.g. operations, legal)")
    tag_routing: bool = Field(True, description="query words naming a tag boost the "
                              "documents carrying it")
    fusion: Literal["rrf", "weighted"] | None = None
    rerank: bool = False
    expand: Literal["none", "neighbours", "section"] = "none"
    min_score: float | None = Field(None, ge=-1e6, le=1e6)
    fuzzy: bool = False
    include_trace: bool = Field(False, description="add the retrieval trace (every stage)")


class SmartSearchRequest(Strict):
    query: str = Field(..., min_length=1, max_length=MAX_QUERY)
    offset: int = Field(0, ge=0, le=99)
    limit: int = Field(10, ge=1, le=50, description="documents returned")
    passages: int = Field(2, ge=1, le=10, description="best passages per document")
    collections: Names = _names("only these collections (of those you may read)")
    doc_types: Names = _names("only these document types")
    file_types: Names = _names("only these file types")
    tags: Names = _names("only documents carrying at least one of these tags (any case)")
    categories: Names = _names("only documents whose type is in one of these categories")


class AskRequest(Strict):
    question: str = Field(..., min_length=1, max_length=100_000)
    session: str | None = Field(None, max_length=36,
                                description="continue this chat session (its uuid)")
    collections: Names = _names("only these collections (of those you may read)")
    tags: Names = _names("answer only from documents carrying at least one of these tags; "
                         "stored with the session")
    policy: Policy = "hybrid"
    context_limit: Literal[CONTEXT_LIMITS] = Field(5, description="passages given to the model")
    context: Literal["regular", "full"] | None = Field(
        None, description="conversation context of the session: `regular` (the last 25 lines) "
        "or `full` (500 lines), for the model's prompt and the rewrite of follow-up "
        "questions; stored with the session (omitted: a new session is regular, a continued "
        "one keeps its own)")
    profile_id: int | None = Field(None, ge=1, le=2**53, description=(
        "the author profile (style rules, `/api/profiles`) the session writes by; stored with "
        "the session (omitted: a continued session keeps its own)"))


class Page(BaseModel):
    total: int
    offset: int
    limit: int
    next_offset: int | None


class HitOut(BaseModel):
    rank: int
    chunk_id: str
    document_id: int
    document_title: str
    filename: str
    version: int | None
    doc_type: str
    file_type: str
    section_id: int | None
    breadcrumb: str
    section_path: list[str]
    page: int | None
    page_end: int | None
    start: int
    end: int
    score: float
    vector_score: float | None
    keyword_score: float | None
    fused_score: float | None
    rerank_score: float | None
    highlights: list[str]
    text: str
    expanded_text: str | None
    links: dict[str, str]


class DocumentHitOut(BaseModel):
    document_id: int
    title: str
    filename: str
    doc_type: str
    score: float
    rank: int
    chunks: int


class SearchResponse(Page):
    total: int | None = Field(description="passages: not counted (next_offset says whether "
                                          "more follow); inventory mode: the documents")
    query: str
    mode: Literal["chunks", "inventory"]
    language: str
    warnings: list[str]
    hits: list[HitOut]
    documents: list[DocumentHitOut]
    trace: dict | None = None


class PassageOut(BaseModel):
    chunk_id: str
    section_id: int | None
    breadcrumb: str
    page: int | None
    page_end: int | None
    score: float
    text: str


class SmartDocumentOut(BaseModel):
    document_id: int
    title: str
    filename: str
    doc_type: str
    score: float
    rank: int
    matching_passages: int
    passages: list[PassageOut]
    links: dict[str, str]


class SmartSearchResponse(Page):
    query: str
    mode: Literal["documents", "inventory"]
    language: str
    warnings: list[str]
    documents: list[SmartDocumentOut]


class DocumentRowOut(BaseModel):
    id: int
    title: str
    filename: str
    display_name: str = Field(description="filename with control and bidi characters as "
                                          "visible escapes (\\n, \\x1b, \\u202e): for showing")
    file_type: str
    doc_type: str
    source_kind: str
    status: str
    active_version: int | None
    versions: int
    collections: list[str]
    updated_at: datetime | None
    tags: list[str] = Field(default_factory=list, description="its tags, as entered")


class DocumentList(Page):
    items: list[DocumentRowOut]


class VersionOut(BaseModel):
    number: int
    status: str
    is_active: bool
    size_bytes: int
    sha256: str
    filename: str
    page_count: int | None
    language: str
    chunks: int
    created_at: datetime | None
    error: str | None
    has_original: bool


class DocumentOut(BaseModel):
    id: int
    title: str
    filename: str
    display_name: str = Field(description="filename, display-safe (as in DocumentRowOut)")
    file_type: str
    doc_type: str
    source_kind: str
    source_uri: str
    status: str
    meta: dict
    collections: list[str]
    active_version: int | None
    versions: list[VersionOut]
    created_at: datetime | None
    updated_at: datetime | None
    links: dict[str, str]


class TextPageOut(BaseModel):
    document_id: int
    version: int
    offset: int
    limit: int
    total_chars: int
    next_offset: int | None
    text: str


class SectionOut(BaseModel):
    id: int
    index: int
    parent_id: int | None
    level: int
    kind: str
    title: str
    number: str | None
    start: int
    end: int
    page_start: int | None
    page_end: int | None


class SectionList(Page):
    document_id: int
    version: int
    items: list[SectionOut]


class SectionNodeOut(BaseModel):
    id: int
    level: int
    kind: str
    title: str
    label: str
    number: str | None
    start: int
    end: int
    page_start: int | None
    page_end: int | None
    chunks: int
    subtree_chunks: int
    children: list["SectionNodeOut"]


class StructureOut(BaseModel):
    document_id: int
    version: int
    root: SectionNodeOut | None


class SectionTextOut(BaseModel):
    document_id: int
    version: int
    matched_by: Literal["section_id", "index", "title", "search"]
    section: SectionOut
    breadcrumb: list[str]
    offset: int
    limit: int
    total_chars: int
    next_offset: int | None
    text: str


class OriginalMetaOut(BaseModel):
    document_id: int
    version: int
    filename: str
    mime: str
    size_bytes: int
    sha256: str
    source_kind: str
    source_uri: str
    available: bool
    download_url: str


class CollectionOut(BaseModel):
    name: str
    knowledge_base: str
    documents: int


class CollectionList(Page):
    items: list[CollectionOut]


class JobOut(BaseModel):
    id: int
    kind: str
    status: str
    alive: bool
    total: int
    done: int
    failed: int
    progress: float
    message: str
    error: str | None
    result: dict
    files: list[str]
    collection: str | None
    created_at: datetime | None
    finished_at: datetime | None


class UploadAccepted(BaseModel):
    job_id: int
    files: list[str]
    collection: str | None
    status_url: str


class Health(BaseModel):
    status: Literal["ok"]
    version: str


class FeedbackRequest(Strict):
    rating: Literal["up", "down"] | None = Field(
        ..., description="thumbs up or down; null withdraws your rating")
    note: str = Field("", max_length=2000, description="optional: what was right or wrong")


class FeedbackOut(BaseModel):
    message_id: int
    rated: bool
    rating: Literal["up", "down"] | None = None
    note: str = ""
    user: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
