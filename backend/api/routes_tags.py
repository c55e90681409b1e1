"""Tags on documents (docs/tags.md): read with the `read` scope, change with `write` (the
editor role and write access to every collection the document is in). A document outside
the caller's scope is a 404, exactly like a missing one. Parse, call backend/services/tags.py,
serialise; nothing else."""
from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request

from backend.api.deps import known_query, needs, services
from backend.api.errors import ERROR_RESPONSES
from backend.api.schemas_tags import AddTagsBody, TagsBody, TagsOut, TagVocabulary
from backend.security.access import Actor
from backend.services import tags

router = APIRouter(prefix="/api", tags=["tags"], responses=ERROR_RESPONSES,
                   dependencies=[Depends(known_query)])

DocId = Annotated[int, Path(ge=1, le=2**31 - 1, description="document id")]
TagName = Annotated[str, Path(min_length=1, max_length=200, description="a tag, any case")]


def _out(v: tags.TagsView) -> dict:
    return {"document_id": v.document_id, "tags": [asdict(t) for t in v.tags],
            "suggestions": v.suggestions, "changed": v.changed}


@router.get("/tags", response_model=TagVocabulary, summary="Every tag you can see")
def vocabulary(request: Request, actor: Actor = Depends(needs("read"))):
    """Tags on the documents you may read, with how many documents carry each, most used
    first."""
    return {"tags": [{"name": n, "documents": c}
                     for n, c in tags.vocabulary(services(request), actor)]}


@router.get("/documents/{doc_id}/tags", response_model=TagsOut, summary="A document's tags")
def get_tags(doc_id: DocId, request: Request, actor: Actor = Depends(needs("read"))):
    """Its tags (as entered) and the suggestions it does not carry yet."""
    return _out(tags.get(services(request), actor, doc_id))


@router.put("/documents/{doc_id}/tags", response_model=TagsOut,
            summary="Replace a document's tags (write scope)")
def put_tags(doc_id: DocId, body: TagsBody, request: Request,
             actor: Actor = Depends(needs("write"))):
    """The document's tags become exactly `tags` (an invalid one changes nothing)."""
    return _out(tags.replace(services(request), actor, doc_id, body.tags))


@router.post("/documents/{doc_id}/tags", response_model=TagsOut,
             summary="Add tags to a document (write scope)")
def post_tags(doc_id: DocId, body: AddTagsBody, request: Request,
              actor: Actor = Depends(needs("write"))):
    """Tags already there (in any spelling) stay as they are; an invalid one adds none."""
    return _out(tags.add(services(request), actor, doc_id, body.tags, source=body.source))


@router.delete("/documents/{doc_id}/tags/{tag}", response_model=TagsOut,
               summary="Remove a tag from a document (write scope)")
def delete_tag(doc_id: DocId, tag: TagName, request: Request,
               actor: Actor = Depends(needs("write"))):
    """Removes the tag in any spelling; a tag the document does not carry is no error
    (`changed` is empty)."""
    return _out(tags.remove(services(request), actor, doc_id, [tag]))
