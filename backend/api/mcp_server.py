"""The MCP tool server (official `mcp` SDK, `MCPServer`): the same service layer, tokens and
ACL as the HTTP API. Over HTTP (streamable HTTP at /mcp, legacy SSE at /mcp-sse/sse) the
token comes in each request's `Authorization: Bearer` header and is checked on every tool
call; over stdio (`python -m backend mcp`) the token is given once (RAGSCOPE_MCP_TOKEN or
`--token`) and is also checked on every call, so revoking it stops the tools at once.

Each tool parses its arguments (typed: the SDK derives the JSON schema from them), calls the
service layer and returns the JSON shape the HTTP API returns (backend/api/serialise.py).
ragscope's own errors come back as tool errors with the HTTP API's code and message
(`not_found: document 7 not found`, `invalid_request: limit: …`; unknown arguments are
refused); anything unexpected as `internal_error` with an id that the server log has (never
a stack trace)."""
from __future__ import annotations

import base64
import functools
import logging
import uuid
from typing import Annotated, Any, Callable, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from pydantic import Field, ValidationError

from backend import __version__
from backend.services import documents, library, navigation, search as search_service
from backend.services import feedback as feedback_service
from backend.security.access import Actor, scope_of
from backend.api import errors, mcp_analysis, mcp_critique, serialise
from backend.api.deps import actor_for
from backend.errors import RagscopeError

log = logging.getLogger("backend.api.mcp")

MAX_INLINE_BYTES = 8 * 1024 * 1024  # get_original_document: larger files go by link

INSTRUCTIONS = """ragscope: search and read the documents your token may read.
Start with smart_search (documents with their best passages) or search_rag_context (ranked
passages for answering), then read more with get_document_structure / get_document_section
(by id, index or a title such as "4.1") or get_document_fulltext (paged by characters).
Cite documents by title and section; get_document_download_link gives the original file.
For what a document decides, assigns or requires use analyze_document (or
get_document_decisions); summarize_document, compare_document_versions, compare_documents
and find_cross_references answer summary, change and "where else" questions. The seed's
names work too: get_document_context, extract_<extractor> (extract_meeting_actions,
extract_decisions, ...), summarize_document_section and cross_reference."""

Names = Annotated[list[str] | None, Field(max_length=50, description="only these (optional)")]
DocId = Annotated[int, Field(ge=1, le=2**31 - 1, description="document id")]
Version = Annotated[int | None, Field(ge=1, le=100_000,
                                      description="version number (default: the active one)")]
Offset = Annotated[int, Field(ge=0, le=10**9, description="first item / character (0-based)")]
Query = Annotated[str, Field(min_length=1, max_length=4000)]


class _Auth:
    """Resolves the actor of a tool call."""

    def __init__(self, rs, stdio_token: str | None):
        self.rs = rs
        self.stdio_token = stdio_token

    def actor(self, ctx: Context) -> Actor:
        headers = ctx.headers if ctx is not None else None
        if headers is not None:
            return actor_for(self.rs, headers.get("authorization"))
        return actor_for(self.rs, f"Bearer {self.stdio_token}" if self.stdio_token else None)


def _tool(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn ragscope's errors into tool errors with their message, others into an id."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except RagscopeError as e:  # the HTTP API's code first: one vocabulary
            raise ToolError(f"{errors.classify(e)[1]}: {e}") from None
        except ValidationError as e:  # parameters a service model refused
            raise ToolError(f"invalid_request: {errors.describe(e.errors())[1]}") from None
        except ValueError as e:
            raise ToolError(f"invalid_request: {e}") from None
        except Exception:
            rid = uuid.uuid4().hex[:12]
            log.exception("MCP tool %s failed (request id %s)", fn.__name__, rid)
            raise ToolError(f"internal_error: internal error (request id {rid}); the server "
                            "log has the details") from None
    return wrapper


def build_mcp(rs, *, stdio_token: str | None = None) -> MCPServer:
    """The MCP server with ragscope's tools bound to `rs`."""
    auth = _Auth(rs, stdio_token)
    mcp = MCPServer("ragscope", instructions=INSTRUCTIONS, version=__version__,
                    log_level="WARNING")

    @mcp.tool(description="Ranked passages for a question (hybrid vector + BM25 retrieval) "
                          "from the documents you may read: text, document, section path, "
                          "page and score. Use them as context to answer and cite. `tags`: only "
                          "documents with one of these tags; `categories`: only documents "
                          "whose type is in one of these registry categories.")
    @_tool
    def search_rag_context(ctx: Context, query: Query,
                           limit: Annotated[int, Field(ge=1, le=50)] = 8,
                           collections: Names = None, doc_types: Names = None,
                           file_types: Names = None,
                           policy: Literal["hybrid", "semantic_only", "lexical_only",
                                           "document_first", "section_first"] = "hybrid",
                           expand: Literal["none", "neighbours", "section"] = "none",
                           offset: Annotated[int, Field(ge=0, le=199)] = 0,
                           tags: Names = None, categories: Names = None) -> dict[str, Any]:
        page = search_service.search(rs, auth.actor(ctx), query, offset=offset, limit=limit,
                                     policy=policy, expand=expand, collections=collections,
                                     doc_types=doc_types, file_types=file_types, tags=tags,
                                     categories=categories)
        return serialise.search_page(page)

    @mcp.tool(description="Document-centred search: the best documents for a query, each "
                          "with its best passages (section, page). Questions like 'which "
                          "documents are about X' list documents. Filter by collection, "
                          "document type (e.g. minutes, manual), file type, tag or category.")
    @_tool
    def smart_search(ctx: Context, query: Query,
                     limit: Annotated[int, Field(ge=1, le=50)] = 10,
                     passages: Annotated[int, Field(ge=1, le=10)] = 2,
                     collections: Names = None, doc_types: Names = None,
                     file_types: Names = None,
                     offset: Annotated[int, Field(ge=0, le=99)] = 0,
                     tags: Names = None, categories: Names = None) -> dict[str, Any]:
        return serialise.smart_result(search_service.smart_search(
            rs, auth.actor(ctx), query, collections=collections, doc_types=doc_types,
            file_types=file_types, offset=offset, limit=limit, passages=passages, tags=tags,
            categories=categories))

    @mcp.tool(description="Documents you may read, newest first, with type, versions and "
                          "collections; filters by collection, document type, file type, "
                          "title (substring) or text (substring of the active version).")
    @_tool
    def list_documents(ctx: Context, offset: Offset = 0,
                       limit: Annotated[int, Field(ge=1, le=200)] = 50,
                       collections: Names = None, doc_types: Names = None,
                       file_types: Names = None,
                       title: Annotated[str, Field(max_length=500)] = "",
                       text: Annotated[str, Field(max_length=500)] = "") -> dict[str, Any]:
        actor = auth.actor(ctx)
        f = documents.ExplorerFilter(tuple(collections or ()), tuple(file_types or ()),
                                     tuple(doc_types or ()), title=title, text=text)
        page = documents.list_documents(rs, f, page_size=limit, offset=offset,
                                        scope=scope_of(rs, actor))
        return serialise.document_page(page, offset, limit)

    @mcp.tool(description="The collections you may read, with knowledge base and number "
                          "of documents.")
    @_tool
    def list_collections(ctx: Context, offset: Offset = 0,
                         limit: Annotated[int, Field(ge=1, le=500)] = 100) -> dict[str, Any]:
        rows, total = library.collections_page(rs, auth.actor(ctx), offset=offset, limit=limit)
        return serialise.collections_page(rows, total, offset, limit)

    @mcp.tool(description="A document's normalised full text, in pages of `limit` "
                          "characters; call again with `next_offset` for more.")
    @_tool
    def get_document_fulltext(ctx: Context, document_id: DocId, version: Version = None,
                              offset: Offset = 0,
                              limit: Annotated[int, Field(ge=1, le=navigation.MAX_TEXT_PAGE)]
                              = 20_000) -> dict[str, Any]:
        return serialise.text_page(navigation.fulltext(
            rs, auth.actor(ctx), document_id, version=version, offset=offset, limit=limit))

    @mcp.tool(description="A document's sections in reading order (index from 0) with "
                          "kind (chapter, section, agenda item, ...), number, title, "
                          "character and page ranges.")
    @_tool
    def list_document_sections(ctx: Context, document_id: DocId, version: Version = None,
                               offset: Offset = 0,
                               limit: Annotated[int, Field(ge=1, le=500)] = 100
                               ) -> dict[str, Any]:
        number, rows, total = navigation.sections(rs, auth.actor(ctx), document_id,
                                                  version=version, offset=offset, limit=limit)
        return serialise.section_list(document_id, number, rows, total, offset, limit)

    @mcp.tool(description="What a document is and how it is organised: its metadata "
                          "(title, type, language, date, collection), versions and links, "
                          "and its section tree to `max_depth` levels (default 2).")
    @_tool
    def get_document_context(ctx: Context, document_id: DocId,
                             max_depth: Annotated[int | None, Field(ge=0, le=20)] = 2
                             ) -> dict[str, Any]:
        actor = auth.actor(ctx)
        detail = documents.document_detail(rs, document_id, scope=scope_of(rs, actor))
        number, root = navigation.structure(rs, actor, document_id, max_depth=max_depth)
        return {"document": serialise.document_detail(detail),
                "structure": serialise.structure(document_id, number, root)}

    @mcp.tool(description="A document's section tree (chapters > sections > ...) with "
                          "chunk counts; `max_depth` cuts deeper levels.")
    @_tool
    def get_document_structure(ctx: Context, document_id: DocId, version: Version = None,
                               max_depth: Annotated[int | None, Field(ge=0, le=20)] = None
                               ) -> dict[str, Any]:
        number, root = navigation.structure(rs, auth.actor(ctx), document_id,
                                            version=version, max_depth=max_depth)
        return serialise.structure(document_id, number, root)

    @mcp.tool(description="One section's text, named by exactly one of: section_id, index "
                          "(reading order from 0) or query (a number or title such as '4.1' "
                          "or 'TOP 6'; otherwise the best-matching section of the document).")
    @_tool
    def get_document_section(ctx: Context, document_id: DocId,
                             section_id: Annotated[int | None, Field(ge=1)] = None,
                             index: Annotated[int | None, Field(ge=0)] = None,
                             query: Annotated[str | None, Field(max_length=500)] = None,
                             version: Version = None, offset: Offset = 0,
                             limit: Annotated[int, Field(ge=1, le=navigation.MAX_TEXT_PAGE)]
                             = 20_000) -> dict[str, Any]:
        return serialise.section_text(navigation.section(
            rs, auth.actor(ctx), document_id, section_id=section_id, index=index, query=query,
            version=version, offset=offset, limit=limit))

    @mcp.tool(description="The original file of a document as base64 (up to 8 MiB; larger "
                          "files: use get_document_download_link), with its metadata.")
    @_tool
    def get_original_document(ctx: Context, document_id: DocId,
                              version: Version = None) -> dict[str, Any]:
        actor = auth.actor(ctx)
        meta = navigation.original_meta(rs, actor, document_id, version=version)
        out = serialise.original_meta(meta)
        if meta.size_bytes > MAX_INLINE_BYTES:
            raise ToolError(f"the original of document {document_id} is "
                            f"{meta.size_bytes / 1048576:.1f} MiB, over the 8 MiB this tool "
                            "returns; download it from " + out["download_url"])
        o = navigation.original(rs, actor, document_id, version=version)
        return {**out, "content_base64": base64.b64encode(o.data).decode()}

    @mcp.tool(description="Metadata of a document's original file and a stable download "
                          "link (GET with the same bearer token).")
    @_tool
    def get_document_download_link(ctx: Context, document_id: DocId,
                                   version: Version = None) -> dict[str, Any]:
        out = serialise.original_meta(navigation.original_meta(
            rs, auth.actor(ctx), document_id, version=version))
        base = _base_url(ctx)
        if base:
            out["download_url"] = base + out["download_url"]
        return out

    @mcp.tool(description="Answer a question from the documents you may read, with checked "
                          "citations: each source carries the cited passage, the supporting "
                          "quote and its offsets in the document text, page, section path and "
                          "(PDFs) a preview_url of the page with the quote highlighted (GET "
                          "with the same bearer token).")
    @_tool
    def answer_question(ctx: Context, question: Query, collections: Names = None,
                        session: Annotated[str | None, Field(max_length=64)] = None
                        ) -> dict[str, Any]:
        last = None
        for last in search_service.ask_stream(rs, auth.actor(ctx), question, session=session,
                                              collections=collections):
            pass
        return serialise.answer(last.session.uuid, last.message)

    @mcp.tool(description="Rate an answer of answer_question (its message_id) with a thumbs "
                          "up or down and an optional note on what was right or wrong; "
                          "rating null withdraws your rating. Only answers of your own "
                          "sessions can be rated.")
    @_tool
    def rate_answer(ctx: Context, message_id: Annotated[int, Field(ge=1, le=2**53)],
                    rating: Literal["up", "down"] | None,
                    note: Annotated[str, Field(max_length=2000)] = "") -> dict[str, Any]:
        fb = feedback_service.rate(rs, auth.actor(ctx), message_id, rating, note)
        return {"message_id": message_id, "rated": fb is not None,
                **(fb.to_dict() if fb is not None else {})}

    mcp_analysis.register(mcp, rs, auth, _tool)  # analyze_document, summarize_document, ...
    mcp_critique.register(mcp, rs, auth, _tool)  # critique_answer
    _strict(mcp)
    return mcp


class _StrictTool(Tool):
    """A tool whose arguments are checked like an HTTP body: an unknown argument is refused
    (the SDK ignored it) and a bad one is named in the HTTP API's words
    (`invalid_request: limit: Input should be less than or equal to 50`), not as pydantic's
    multi-line report."""

    async def run(self, arguments: dict[str, Any], context, convert_result: bool = False):
        meta = self.fn_metadata
        unknown = sorted(set(arguments) - {f.alias or n for n, f in
                                           meta.arg_model.model_fields.items()})
        if unknown:
            raise ToolError(f"invalid_request: {unknown[0]}: unknown field"
                            + (f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""))
        try:
            meta.arg_model.model_validate(meta.pre_parse_json(dict(arguments)))
        except ValidationError as e:
            raise ToolError(f"invalid_request: {errors.describe(e.errors())[1]}") from None
        return await super().run(arguments, context, convert_result)


def _strict(mcp: MCPServer) -> None:
    """Every registered tool becomes a `_StrictTool` (same fields; the class is swapped, so
    the SDK's registry keeps working) and its schema says `additionalProperties: false`."""
    for tool in mcp._tool_manager.list_tools():
        tool.__class__ = _StrictTool
        tool.parameters = {**tool.parameters, "additionalProperties": False}


def _base_url(ctx: Context) -> str | None:
    """scheme://host of the HTTP request that carried the tool call (None over stdio)."""
    request = getattr(ctx.request_context, "request", None) if ctx is not None else None
    url = getattr(request, "base_url", None)
    return str(url).rstrip("/") if url is not None else None
