"""Retrieval parameters, hits, results and traces. One hit type keeps every stage's score
separately (None where a stage did not see the hit): the query-debug page depends on it."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field, field_validator

Policy = Literal["hybrid", "semantic_only", "lexical_only", "document_first", "section_first"]
POLICIES: tuple[str, ...] = ("hybrid", "semantic_only", "lexical_only", "document_first",
                             "section_first")


class RetrievalParams(BaseModel):
    """Everything a caller can set for one retrieval. Defaults were chosen by measurement
    on the sample goldenset (docs/retrieval.md)."""

    model_config = {"extra": "forbid"}

    policy: Policy = "hybrid"
    k: int = Field(10, ge=1, le=200, description="hits returned")
    candidates: int = Field(50, ge=1, le=1000, description="candidates per retriever")
    fusion: Literal["rrf", "weighted"] = "weighted"
    rrf_k: int = Field(60, ge=0, le=1000)
    vector_weight: float | None = Field(
        None, ge=0.0, le=1.0,
        description="weight of the vector retriever (keyword gets 1 - w); None: by language")
    normalisation: Literal["max", "minmax"] = "max"
    collections: list[str] | None = None
    doc_types: list[str] | None = None
    file_types: list[str] | None = None
    document_ids: list[int] | None = None
    tags: list[str] | None = Field(None, description="only documents carrying at least one "
                                   "of these tags (matched case-folded; docs/tags.md)")
    categories: list[str] | None = Field(None, description="only documents whose type is in "
                                         "one of these categories of the type registry")
    tag_routing: bool = Field(True, description="query words that name a tag boost the "
                              "documents carrying it (trace stage `tags`)")
    tag_boost: float = Field(0.25, ge=0.0, le=10.0, description="added per routed hit, "
                             "times the top score (chosen on the tuning split: docs/tags.md)")
    min_score: float | None = Field(None, description="drop hits whose final score is lower")
    exact_boost: float = Field(0.15, ge=0.0, le=10.0,
                               description="added for quoted phrases / titles / file names")
    anchor_boost: float = Field(1.5, ge=0.0, le=10.0, description="added to every hit of a "
                                "document that a rare name of the question occurs in, times "
                                "the top score (backend/retrieval/anchors.py; 0 = off)")
    fuzzy: bool = False
    translate: bool = Field(True, description="add the question's words in the other language "
                            "(German/English dictionary, when installed) to the keyword query")
    rerank: bool = False
    expand: Literal["none", "neighbours", "section"] = "none"
    expand_chars: int = Field(2000, ge=0, le=50000)
    group_by_document: bool = False
    per_document_cap: int | None = Field(None, ge=1, le=100)
    inventory: Literal["auto", "off"] = "auto"
    inventory_cutoff: float = Field(
        0.0, ge=0.0, le=1.0, description="topic inventories list only documents scoring at "
        "least this share of the best document's score (0: every document with a match)")
    prefer_uploads: bool = Field(False, description="on score ties (within 0.5 % of the top "
                                 "score) rank uploaded files before crawled web pages")
    persist_trace: bool = False

    @field_validator("collections", "doc_types", "file_types", "categories")
    @classmethod
    def _strip(cls, v):
        if v is None:
            return v
        return [x.strip() for x in v if x and x.strip()]

    @field_validator("tags")
    @classmethod
    def _tags(cls, v):
        """Case-folded keys; an invalid tag raises TagError naming the field `tags`."""
        if v is None:
            return v
        from backend.store.tags import keys

        return keys(v, "tags")


OWNER_KINDS = ("user", "principal", "system")


@dataclass(frozen=True)
class TraceOwner:
    """Who asked for a retrieval; stored with its persisted trace. `kind="user"`: a
    dashboard user (`name` is the user name; the user sees the trace); `kind="principal"`:
    an API principal (sees its own traces through the API); `kind="system"`: a
    caller without a user, such as "cli" or "eval" (only admins see the trace)."""

    name: str
    kind: str = "user"

    def __post_init__(self):
        if self.kind not in OWNER_KINDS:
            raise ValueError(f"trace owner kind must be one of {OWNER_KINDS}, not {self.kind!r}")
        if not self.name or len(self.name) > 200:
            raise ValueError("a trace owner needs a name of 1 to 200 characters")

    @classmethod
    def user(cls, name: str) -> "TraceOwner":
        return cls(name, "user")

    @classmethod
    def system(cls, name: str) -> "TraceOwner":
        return cls(name, "system")


@dataclass
class Hit:
    chunk_id: str
    document_id: int
    version_id: int
    text: str
    rank: int = 0
    score: float = 0.0  # the final score the ranking used
    vector_score: float | None = None
    vector_rank: int | None = None
    keyword_score: float | None = None
    keyword_rank: int | None = None
    fused_score: float | None = None
    fused_rank: int | None = None
    boost: float = 0.0
    rerank_score: float | None = None
    document_title: str = ""
    filename: str = ""
    version_number: int | None = None
    doc_type: str = ""
    file_type: str = ""
    section_id: int | None = None
    section_title: str = ""
    section_path: list[str] = field(default_factory=list)
    page: int | None = None
    page_end: int | None = None
    start: int = 0
    end: int = 0
    ordinal: int = 0
    original_path: str | None = None
    source_uri: str = ""
    highlights: list[str] = field(default_factory=list)
    expanded_text: str | None = None
    expanded_start: int | None = None
    expanded_end: int | None = None

    @property
    def breadcrumb(self) -> str:
        return " › ".join(self.section_path)

    @property
    def context(self) -> str:
        return self.expanded_text or self.text


@dataclass
class DocumentHit:
    """A document-level result (inventory mode and document_first)."""

    document_id: int
    title: str
    filename: str
    doc_type: str
    score: float
    rank: int
    chunks: int  # how many candidate chunks matched
    best_chunk_id: str | None = None


@dataclass
class Candidate:
    id: str
    score: float
    rank: int


@dataclass
class Stage:
    name: str
    ms: float = 0.0
    params: dict[str, Any] = field(default_factory=dict)
    candidates: list[Candidate] = field(default_factory=list)
    error: str | None = None
    note: str | None = None


@dataclass
class Trace:
    id: str
    query: str
    stages: list[Stage] = field(default_factory=list)
    total_ms: float = 0.0

    def stage(self, name: str) -> Stage | None:
        return next((s for s in self.stages if s.name == name), None)


@dataclass
class RetrievalResult:
    query: str
    params: RetrievalParams
    hits: list[Hit]
    trace: Trace
    mode: Literal["chunks", "inventory"] = "chunks"
    documents: list[DocumentHit] = field(default_factory=list)
    language: str = ""
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "mode": self.mode,
            "language": self.language,
            "params": self.params.model_dump(),
            "warnings": list(self.warnings),
            "hits": [{**asdict(h), "breadcrumb": h.breadcrumb} for h in self.hits],
            "documents": [asdict(d) for d in self.documents],
            "trace": asdict(self.trace),
        }


class Searcher(Protocol):
    """What the result shaping (policies.py) needs of the Retriever that calls it: the
    services and a nested retrieval (inventory mode). Named here, below both, so that
    policies.py does not import engine.py."""

    rs: Any

    def retrieve(self, query: str, params: RetrievalParams | None = None, *, scope: Any,
                 owner: TraceOwner | None = None, query_embedding=None) -> RetrievalResult: ...
