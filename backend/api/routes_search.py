"""Search, smart search and questions (server-sent events). Parse, call the service layer
(backend/services/search.py), serialise; nothing else."""
from __future__ import annotations

from typing import Iterator

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse

from backend.services import search as search_service
from backend.security.access import Actor
from backend.api import ask_events, serialise
from backend.api.deps import known_query, needs, services
from backend.api.errors import ERROR_RESPONSES
from backend.api.one_hop import OneHopRoute
from backend.api.schemas import (
    AskRequest,
    SearchRequest,
    SearchResponse,
    SmartSearchRequest,
    SmartSearchResponse,
)

router = APIRouter(prefix="/api", tags=["search"], responses=ERROR_RESPONSES,
                   dependencies=[Depends(known_query)])


# The two searches run the token check, the search and the response's validation and JSON in
# one worker thread (backend/api/one_hop.py; FastAPI's own handler hands off twice: the token
# check, then the route). docs/benchmarks.md, "Server CPU per search over HTTP".


def search(body: SearchRequest, request: Request, actor: Actor = Depends(needs("read"))):
    """Hybrid retrieval (vectors + BM25) within the collections your token may read, with
    every stage's score per hit."""
    params = body.model_dump(exclude={"query", "offset", "limit", "include_trace"},
                             exclude_none=True)
    page = search_service.search(services(request), actor, body.query, offset=body.offset,
                                 limit=body.limit, **params)
    return serialise.search_page(page, include_trace=body.include_trace)


def smart_search(body: SmartSearchRequest, request: Request,
                 actor: Actor = Depends(needs("read"))):
    """Document-centred search: the best documents for the query, each with its best
    passages (section and page); "which documents …" questions list documents. Filters by
    collection, document type and file type."""
    res = search_service.smart_search(
        services(request), actor, body.query, collections=body.collections,
        doc_types=body.doc_types, file_types=body.file_types, offset=body.offset,
        limit=body.limit, passages=body.passages, tags=body.tags, categories=body.categories)
    return serialise.smart_result(res)


router.add_api_route("/search", search, methods=["POST"], response_model=SearchResponse,
                     summary="Ranked passages", route_class_override=OneHopRoute)
router.add_api_route("/smart-search", smart_search, methods=["POST"],
                     response_model=SmartSearchResponse,
                     summary="Documents with their best passages",
                     route_class_override=OneHopRoute)


def _events(events: Iterator) -> Iterator[str]:
    try:
        for ev in events:
            encoded = ask_events.encode(ev)
            if encoded is not None:
                yield ask_events.frame(*encoded)
    except Exception as e:  # the stream has started: the error becomes the last event
        import logging

        logging.getLogger("backend.api").error("ask stream failed", exc_info=e)
        yield ask_events.frame("error", ask_events.STREAM_ERROR)


def ask_response(body: AskRequest, request: Request, actor: Actor) -> StreamingResponse:
    """The direct flow's response (`/api/ask`, `/api/ask-sse`): the answer streamed as it
    comes; errors in the question as a JSON error before the stream starts."""
    events = search_service.ask_stream(
        services(request), actor, body.question, session=body.session,
        collections=body.collections, policy=body.policy, context_limit=body.context_limit,
        context=body.context, profile_id=body.profile_id, tags=body.tags,
        provider_factory=getattr(request.app.state, "provider_factory", None))
    return StreamingResponse(_events(events), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@router.post("/ask", summary="An answer as server-sent events",
             response_class=StreamingResponse,
             responses={200: {"content": {"text/event-stream": {}},
                              "description": "events: sources, delta…, notice?, answer"}})
def ask(body: AskRequest, request: Request, actor: Actor = Depends(needs("read"))):
    """Answer a question from the documents you may read. The response is a stream of
    server-sent events: `sources` (what was retrieved), `delta` (answer text as it comes),
    `notice` (a fallback), and last `answer` (the whole text, its checked citations, the
    sources, the trace id and, for a follow-up, `rewrite`: the query it was retrieved with,
    why, and the document it was pinned to). Errors in the question come back as a JSON error before the stream starts."""
    return ask_response(body, request, actor)
