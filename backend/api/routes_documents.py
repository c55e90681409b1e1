"""Documents: list (paged, filtered), one document, its full text, sections, structure,
one section, and the original file with its metadata. Parse, call the service layer
(backend/services/documents.py, backend/services/navigation.py), serialise; nothing else.

Ids are integers in the path: anything else (`../etc`, `1;drop`) is a 422 naming the
parameter; an id outside the caller's scope is a 404, exactly like a missing one."""
from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import Response

from backend.services import documents, navigation
from backend.security.access import Actor, scope_of
from backend.api import serialise
from backend.api.deps import known_query, needs, services
from backend.api.errors import ERROR_RESPONSES
from backend.api.schemas import (
    DocumentList,
    DocumentOut,
    OriginalMetaOut,
    SectionList,
    SectionTextOut,
    StructureOut,
    TextPageOut,
)
from backend.chat import preview

router = APIRouter(prefix="/api/documents", tags=["documents"], responses=ERROR_RESPONSES,
                   dependencies=[Depends(known_query)])

DocId = Annotated[int, Path(ge=1, le=2**31 - 1, description="document id")]
Version = Annotated[int | None, Query(ge=1, le=100_000,
                                      description="version number (default: the active one)")]
Offset = Annotated[int, Query(ge=0, le=10**9)]
Names = Annotated[list[str] | None, Query(max_length=50)]


@router.get("", response_model=DocumentList, summary="List documents")
def list_documents(request: Request, actor: Actor = Depends(needs("read")),
                   offset: Offset = 0, limit: Annotated[int, Query(ge=1, le=200)] = 50,
                   collection: Names = None, doc_type: Names = None, file_type: Names = None,
                   source_kind: Names = None, status: Names = None, tag: Names = None,
                   title: Annotated[str, Query(max_length=500)] = "",
                   text: Annotated[str, Query(max_length=500)] = ""):
    """Documents you may read, newest first; repeat a filter parameter for several values
    (`?doc_type=minutes&doc_type=manual`). `text` matches the active version's text; `tag`
    keeps documents carrying any of the tags (any case)."""
    rs = services(request)
    f = documents.ExplorerFilter(tuple(collection or ()), tuple(file_type or ()),
                                 tuple(doc_type or ()), tuple(source_kind or ()),
                                 tuple(status or ()), title, text, tuple(tag or ()))
    page = documents.list_documents(rs, f, page_size=limit, offset=offset,
                                    scope=scope_of(rs, actor))
    return serialise.document_page(page, offset, limit)


@router.get("/{doc_id}", response_model=DocumentOut, summary="One document")
def get_document(doc_id: DocId, request: Request, actor: Actor = Depends(needs("read"))):
    rs = services(request)
    return serialise.document_detail(documents.document_detail(rs, doc_id,
                                                               scope=scope_of(rs, actor)))


@router.get("/{doc_id}/fulltext", response_model=TextPageOut, summary="Full text, paged")
def fulltext(doc_id: DocId, request: Request, actor: Actor = Depends(needs("read")),
             version: Version = None, offset: Offset = 0,
             limit: Annotated[int, Query(ge=1, le=navigation.MAX_TEXT_PAGE)] = 20_000):
    """The normalised text in pages of `limit` characters; `next_offset` continues it."""
    p = navigation.fulltext(services(request), actor, doc_id, version=version, offset=offset,
                            limit=limit)
    return serialise.text_page(p)


@router.get("/{doc_id}/sections", response_model=SectionList, summary="Sections, flat")
def sections(doc_id: DocId, request: Request, actor: Actor = Depends(needs("read")),
             version: Version = None, offset: Offset = 0,
             limit: Annotated[int, Query(ge=1, le=500)] = 100):
    """The persisted sections in reading order (`index`), with character and page ranges."""
    number, rows, total = navigation.sections(services(request), actor, doc_id,
                                              version=version, offset=offset, limit=limit)
    return serialise.section_list(doc_id, number, rows, total, offset, limit)


@router.get("/{doc_id}/structure", response_model=StructureOut, summary="Section tree")
def structure(doc_id: DocId, request: Request, actor: Actor = Depends(needs("read")),
              version: Version = None,
              max_depth: Annotated[int | None, Query(ge=0, le=20)] = None):
    number, root = navigation.structure(services(request), actor, doc_id, version=version,
                                        max_depth=max_depth)
    return serialise.structure(doc_id, number, root)


@router.get("/{doc_id}/section", response_model=SectionTextOut, summary="One section's text")
def section(doc_id: DocId, request: Request, actor: Actor = Depends(needs("read")),
            section_id: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None,
            index: Annotated[int | None, Query(ge=0, le=10**6)] = None,
            query: Annotated[str | None, Query(min_length=1, max_length=500)] = None,
            version: Version = None, offset: Offset = 0,
            limit: Annotated[int, Query(ge=1, le=navigation.MAX_TEXT_PAGE)] = 20_000):
    """Name the section by exactly one of `section_id`, `index` (reading order, from 0) or
    `query` (a number or title such as "4.1" or "TOP 6"; otherwise searched in the
    document)."""
    st = navigation.section(services(request), actor, doc_id, section_id=section_id,
                            index=index, query=query, version=version, offset=offset,
                            limit=limit)
    return serialise.section_text(st)


@router.get("/{doc_id}/original/meta", response_model=OriginalMetaOut,
            summary="The original file's metadata and download link")
def original_meta(doc_id: DocId, request: Request, actor: Actor = Depends(needs("read")),
                  version: Version = None):
    return serialise.original_meta(navigation.original_meta(services(request), actor, doc_id,
                                                            version=version))


@router.get("/{doc_id}/original", summary="The original file",
            response_class=Response,
            responses={200: {"content": {"*/*": {"schema": {"type": "string",
                                                            "format": "binary"}}},
                             "description": "the file as it was ingested, with its type"}})
def original(doc_id: DocId, request: Request, actor: Actor = Depends(needs("read")),
             version: Version = None):
    o = navigation.original(services(request), actor, doc_id, version=version)
    return Response(o.data, media_type=o.mime, headers={
        "Content-Disposition": serialise.content_disposition(o.filename),
        "X-Content-Type-Options": "nosniff"})


@router.get("/{doc_id}/versions/{version}/pages/{page}.png",
            summary="A PDF page as PNG, the cited quote highlighted", response_class=Response,
            responses={200: {"content": {"image/png": {"schema": {"type": "string",
                                                                  "format": "binary"}}},
                             "description": "the rendered page; `X-Highlight-Boxes` says how "
                                            "many line boxes mark the quote"}})
def page_image(doc_id: DocId, request: Request,
               version: Annotated[int, Path(ge=1, le=100_000, description="version number")],
               page: Annotated[int, Path(ge=1, le=100_000, description="page (1-based)")],
               actor: Actor = Depends(needs("read")),
               quote_start: Annotated[int | None, Query(ge=0, le=10**9)] = None,
               quote_end: Annotated[int | None, Query(ge=1, le=10**9)] = None):
    """A citation's `preview_url`: the page rendered with the quote `[quote_start,
    quote_end)` (offsets in the version's text, as in `quote_offsets`) drawn as boxes over
    its lines. 404 for a document outside your scope or a page the PDF lacks; 422 for a
    document that is not a PDF or offsets outside its text."""
    p = preview.page_png(services(request), actor, doc_id, version, page,
                         quote_start, quote_end)
    return Response(p.png, media_type="image/png", headers={
        "Cache-Control": "private, max-age=300", "X-Highlight-Boxes": str(p.boxes),
        "X-Page-Count": str(p.pages), "X-Content-Type-Options": "nosniff"})
