"""Document analysis: extractor results (decisions, actions, deadlines, requirements, ...),
summaries, version and document comparisons, cross-references. Parse, call the analysis
service (backend/analysis/) with the caller's scope, serialise; nothing else.

A document outside the caller's scope is a 404 exactly like a missing one; for a document
comparison both must be readable; cross-references find only readable documents. A document
that cannot be analysed (no indexed version, over RAGSCOPE_ANALYSIS_MAX_CHARS without a
section, an unknown or ambiguous section, one version only) is a 422 saying why."""
from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request

from backend.security.access import Actor, scope_of
from backend.analysis.compare import compare_documents, compare_versions
from backend.analysis.service import analyze_document
from backend.analysis.summaries import summarize_document, summarize_section
from backend.analysis.xref import cross_reference
from backend.api import serialise_analysis as out
from backend.api.deps import known_query, needs, services
from backend.api.errors import ERROR_RESPONSES
from backend.api.routes_documents import DocId, Names, Offset, Version
from backend.api.schemas_analysis import (
    AnalysisOut,
    CrossReferenceOut,
    DocumentComparisonOut,
    Extractor,
    Length,
    SummaryOut,
    VersionComparisonOut,
)

router = APIRouter(tags=["analysis"], responses=ERROR_RESPONSES,
                   dependencies=[Depends(known_query)])

Section = Annotated[str | None, Query(min_length=1, max_length=500, description=(
    "a section: its id, number (\"2.2\", \"TOP 3\", \"§ 7\"), title or path (\"2 "
    "Installation > 2.2 Konfiguration\"); a unique prefix is enough"))]
ItemLimit = Annotated[int, Query(ge=1, le=500)]
MAX_XREF = 50


@router.get("/api/documents/{doc_id}/analysis", response_model=AnalysisOut,
            summary="Extracted decisions, actions, deadlines, ... of a document")
def analysis(doc_id: DocId, request: Request, actor: Actor = Depends(needs("read")),
             what: Annotated[list[Extractor] | None, Query(max_length=20, description=(
                 "extractors to run (repeat the parameter; default: all)"))] = None,
             version: Version = None, section: Section = None, offset: Offset = 0,
             limit: ItemLimit = 100):
    """One entry per extractor with its items (source passage, section, page, confidence,
    the extractor's own fields such as owner, due date or vote), each paged by
    `offset`/`limit`. Results are cached per version. With `section`, only the items of
    that section and the ones below it."""
    rs = services(request)
    res = analyze_document(rs, doc_id, version=version, what=list(what) if what else None,
                           section=section, scope=scope_of(rs, actor))
    return out.analysis(res, section=section, offset=offset, limit=limit)


@router.get("/api/documents/{doc_id}/summary", response_model=SummaryOut,
            summary="Summary of a document or one section")
def summary(doc_id: DocId, request: Request, actor: Actor = Depends(needs("read")),
            length: Length = "medium", section: Section = None, version: Version = None):
    """Extractive by default (RAGSCOPE_ANALYSIS_LLM chooses an LLM); every sentence names
    its section and page."""
    rs = services(request)
    scope = scope_of(rs, actor)
    s = (summarize_section(rs, doc_id, section, version=version, length=length, scope=scope)
         if section else
         summarize_document(rs, doc_id, version=version, length=length, scope=scope))
    return out.summary(s)


@router.get("/api/documents/{doc_id}/compare", response_model=VersionComparisonOut,
            summary="Compare two versions of a document")
def compare(doc_id: DocId, request: Request, actor: Actor = Depends(needs("read")),
            version_a: Annotated[int | None, Query(ge=1, le=100_000, description=(
                "the older version (default: the indexed one before version_b)"))] = None,
            version_b: Annotated[int | None, Query(ge=1, le=100_000, description=(
                "the newer version (default: the active one)"))] = None,
            offset: Offset = 0, limit: Annotated[int, Query(ge=1, le=200)] = 50,
            items_offset: Offset = 0, items_limit: ItemLimit = 100):
    """Sections aligned by number and title: added, removed, changed (with the word-level
    diff), unchanged — changed ones first, paged by `offset`/`limit`; extracted items
    (decisions, actions, deadlines, requirements, configuration keys) added, removed or
    changed, paged by `items_offset`/`items_limit`."""
    rs = services(request)
    c = compare_versions(rs, doc_id, version_a=version_a, version_b=version_b,
                         scope=scope_of(rs, actor))
    return out.version_comparison(c, offset=offset, limit=limit, items_offset=items_offset,
                                  items_limit=items_limit)


@router.get("/api/documents/{doc_id}/compare-document/{other_id}",
            response_model=DocumentComparisonOut, summary="Compare two documents")
def compare_document(doc_id: DocId, request: Request,
                     other_id: Annotated[int, Path(ge=1, le=2**31 - 1,
                                                   description="the other document's id")],
                     actor: Actor = Depends(needs("read")), limit: ItemLimit = 100):
    """Shared and differing topics, and the decisions, actions and configuration keys
    both documents have or only one has (active versions); each list cut to `limit`."""
    rs = services(request)
    c = compare_documents(rs, doc_id, other_id, scope=scope_of(rs, actor))
    return out.document_comparison(c, limit=limit)


@router.get("/api/documents/{doc_id}/cross-references", response_model=CrossReferenceOut,
            summary="Sections of other documents on the topic of a section")
def document_cross_references(doc_id: DocId, request: Request,
                              actor: Actor = Depends(needs("read")), section: Section = None,
                              version: Version = None,
                              offset: Annotated[int, Query(ge=0, le=MAX_XREF - 1)] = 0,
                              limit: Annotated[int, Query(ge=1, le=MAX_XREF)] = 10):
    """Ranked by the hybrid retrieval over the documents you may read, one entry per
    section, each with the reason (shared terms, retrieval stages). Without `section`, the
    topic is the document's beginning."""
    rs = services(request)
    x = cross_reference(rs, doc=doc_id, section=section, version=version,
                        k=offset + limit + 1, scope=scope_of(rs, actor))
    return out.cross_references(x, offset=offset, limit=limit)


@router.get("/api/cross-references", response_model=CrossReferenceOut,
            summary="Sections on a topic, across documents")
def cross_references(request: Request,
                     query: Annotated[str, Query(min_length=1, max_length=1000)],
                     actor: Actor = Depends(needs("read")), collection: Names = None,
                     offset: Annotated[int, Query(ge=0, le=MAX_XREF - 1)] = 0,
                     limit: Annotated[int, Query(ge=1, le=MAX_XREF)] = 10):
    rs = services(request)
    x = cross_reference(rs, query, k=offset + limit + 1, collections=collection or None,
                        scope=scope_of(rs, actor))
    return out.cross_references(x, offset=offset, limit=limit)
