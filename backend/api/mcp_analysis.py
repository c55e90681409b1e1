"""The analysis tools of the MCP server (backend/api/mcp_server.py calls `register`): the
same analysis service, scope and JSON shapes as the HTTP routes in routes_analysis.py
(backend/api/serialise_analysis.py). A document outside the token's scope is "not found"."""
from __future__ import annotations

from typing import Annotated, Any, Callable

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from backend.security.access import scope_of
from backend.analysis.compare import compare_documents, compare_versions
from backend.analysis.service import analyze_document
from backend.analysis.summaries import summarize_document, summarize_section
from backend.analysis.xref import cross_reference
from backend.api import serialise_analysis as out
from backend.api.schemas_analysis import Extractor, Length
from backend.errors import AnalysisError

DocId = Annotated[int, Field(ge=1, le=2**31 - 1, description="document id")]
Version = Annotated[int | None, Field(ge=1, le=100_000,
                                      description="version number (default: the active one)")]
Offset = Annotated[int, Field(ge=0, le=10**9, description="first item (0-based)")]
ItemLimit = Annotated[int, Field(ge=1, le=500)]
Section = Annotated[str | None, Field(min_length=1, max_length=500, description=(
    "a section: id, number ('2.2', 'TOP 3', '§ 7'), title or path; a unique prefix is "
    "enough (optional)"))]
MAX_XREF = 50


def register(mcp: MCPServer, rs, auth, tool: Callable) -> None:
    """Add the analysis tools; `auth.actor(ctx)` resolves the caller, `tool` wraps errors."""

    def scope(ctx: Context):
        return scope_of(rs, auth.actor(ctx))

    @mcp.tool(name="analyze_document", description="What a document decides, assigns and requires: one list per "
                          "extractor (decisions with votes, meeting_actions with owner/due/"
                          "status, deadlines as ISO dates, requirements, config_keys, "
                          "setup_steps, api_surface, operational_notes, risks, entities), "
                          "each item with its source passage, section and page. `what` "
                          "chooses extractors (default: all); `section` narrows to a section.")
    @tool
    def analyze_document_tool(ctx: Context, document_id: DocId,
                              what: Annotated[list[Extractor] | None,
                                              Field(max_length=20)] = None,
                              section: Section = None, version: Version = None,
                              offset: Offset = 0, limit: ItemLimit = 100) -> dict[str, Any]:
        res = analyze_document(rs, document_id, version=version,
                               what=list(what) if what else None, section=section,
                               scope=scope(ctx))
        return out.analysis(res, section=section, offset=offset, limit=limit)

    @mcp.tool(description="The decisions (Beschlüsse) of a document, e.g. meeting minutes: "
                          "each with its outcome, vote, section and page.")
    @tool
    def get_document_decisions(ctx: Context, document_id: DocId, version: Version = None,
                               section: Section = None, offset: Offset = 0,
                               limit: ItemLimit = 100) -> dict[str, Any]:
        res = analyze_document(rs, document_id, version=version, what=["decisions"],
                               section=section, scope=scope(ctx))
        return out.analysis(res, section=section, offset=offset, limit=limit)

    @mcp.tool(name="summarize_document", description="Summary of a document or of one section (`section`), short, "
                          "medium or long; every sentence names its section and page.")
    @tool
    def summarize_document_tool(ctx: Context, document_id: DocId, length: Length = "medium",
                                section: Section = None,
                                version: Version = None) -> dict[str, Any]:
        sc = scope(ctx)
        s = (summarize_section(rs, document_id, section, version=version, length=length,
                               scope=sc) if section else
             summarize_document(rs, document_id, version=version, length=length, scope=sc))
        return out.summary(s)

    @mcp.tool(description="What changed between two versions of a document: sections added, "
                          "removed or changed (word diff; changed ones first) and extracted "
                          "items (decisions, actions, deadlines, requirements, config keys) "
                          "added, removed or changed. Defaults: the active version against "
                          "the one before it.")
    @tool
    def compare_document_versions(ctx: Context, document_id: DocId,
                                  version_a: Version = None, version_b: Version = None,
                                  offset: Offset = 0,
                                  limit: Annotated[int, Field(ge=1, le=200)] = 50,
                                  items_offset: Offset = 0,
                                  items_limit: ItemLimit = 100) -> dict[str, Any]:
        c = compare_versions(rs, document_id, version_a=version_a, version_b=version_b,
                             scope=scope(ctx))
        return out.version_comparison(c, offset=offset, limit=limit,
                                      items_offset=items_offset, items_limit=items_limit)

    @mcp.tool(name="compare_documents", description="Two documents side by side: shared and differing topics, and the "
                          "decisions, actions and configuration keys both have or only one "
                          "has.")
    @tool
    def compare_documents_tool(ctx: Context, document_id: DocId, other_document_id: DocId,
                               limit: ItemLimit = 100) -> dict[str, Any]:
        c = compare_documents(rs, document_id, other_document_id, scope=scope(ctx))
        return out.document_comparison(c, limit=limit)

    @mcp.tool(description="Sections of other documents on the same topic: give a `query`, "
                          "or a `document_id` (with a `section`) whose topic to follow. "
                          "Ranked, one entry per section, with the reason it was found.")
    @tool
    def find_cross_references(ctx: Context,
                              query: Annotated[str | None,
                                               Field(min_length=1, max_length=1000)] = None,
                              document_id: Annotated[int | None,
                                                     Field(ge=1, le=2**31 - 1)] = None,
                              section: Section = None, version: Version = None,
                              collections: Annotated[list[str] | None,
                                                     Field(max_length=50)] = None,
                              offset: Annotated[int, Field(ge=0, le=MAX_XREF - 1)] = 0,
                              limit: Annotated[int, Field(ge=1, le=MAX_XREF)] = 10
                              ) -> dict[str, Any]:
        if query is None and document_id is None:
            raise AnalysisError("give a query or a document_id")
        if section is not None and document_id is None:
            raise AnalysisError("section needs the document_id it belongs to")
        x = cross_reference(rs, query, doc=document_id, section=section, version=version,
                            k=offset + limit + 1, collections=collections,
                            scope=scope(ctx))
        return out.cross_references(x, offset=offset, limit=limit)
