"""Questions as replayable jobs (issue 26, seed 004): `POST /api/ask-jobs` starts one,
`GET /api/ask-jobs/{jobId}` is its status, `GET /api/ask-sse/{jobId}` streams its events
with ids (a reconnect with `Last-Event-ID` gets what it missed); `POST /api/ask-sse` is the
direct flow (as `/api/ask`). Parse, call backend/services/ask_jobs.py, serialise."""
from __future__ import annotations

from typing import Annotated, Iterator

from fastapi import APIRouter, Depends, Header, Path, Query, Request
from fastapi.responses import StreamingResponse

from backend.api import ask_events
from backend.api.deps import known_query, needs, services
from backend.api.errors import ERROR_RESPONSES
from backend.api.routes_search import ask_response
from backend.api.schemas import AskRequest
from backend.api.schemas_ask_jobs import AskJobOut
from backend.security.access import Actor
from backend.services import ask_jobs

router = APIRouter(prefix="/api", tags=["search"], responses=ERROR_RESPONSES,
                   dependencies=[Depends(known_query)])
JobId = Annotated[str, Path(alias="jobId", max_length=200,
                            description="the `job_id` `POST /api/ask-jobs` returned")]
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def _out(job: ask_jobs.JobInfo) -> dict:
    return {"job_id": job.id, "status": job.status, "question": job.question,
            "created_at": job.created_at, "heartbeat_at": job.heartbeat_at,
            "finished_at": job.finished_at, "last_event_id": job.events, "error": job.error,
            "links": {"self": f"/api/ask-jobs/{job.id}", "events": f"/api/ask-sse/{job.id}"}}


@router.post("/ask-jobs", response_model=AskJobOut, status_code=202,
             summary="Start an answer as a replayable job")
def start_job(body: AskRequest, request: Request, actor: Actor = Depends(needs("read"))):
    """Validate the question (the same body and errors as `/api/ask`) and answer it in the
    background; the job's events are stored, so `GET /api/ask-sse/{jobId}` can stream
    them from the start or resume after a disconnect. The job is yours only."""
    job = ask_jobs.start(
        services(request), actor, body.question, encode=ask_events.encode,
        session=body.session, collections=body.collections, policy=body.policy,
        context_limit=body.context_limit, context=body.context, profile_id=body.profile_id,
        tags=body.tags,
        provider_factory=getattr(request.app.state, "provider_factory", None))
    return _out(job)


@router.get("/ask-jobs/{jobId}", response_model=AskJobOut, summary="An ask job's status")
def job_status(job_id: JobId, request: Request, actor: Actor = Depends(needs("read"))):
    """`running`, `done`, `failed`, or `stale` (its worker stopped beating for
    RAGSCOPE_ASK_JOB_STALE_S). Another token's job, like an unknown id, is 404."""
    return _out(ask_jobs.status(services(request), actor, job_id))


def _frames(events: Iterator[tuple[int, str, str]]) -> Iterator[str]:
    for seq, name, data in events:
        yield ask_events.frame(name, data, seq)


@router.get("/ask-sse/{jobId}", summary="An ask job's events (replay and tail)",
            response_class=StreamingResponse,
            responses={200: {"content": {"text/event-stream": {}},
                             "description": "events with ids: status, sources, delta…, "
                                            "notice?, answer (or error)"}})
def job_events(job_id: JobId, request: Request, actor: Actor = Depends(needs("read")),
               last_event_id: int | None = Header(None, ge=0, description="resume after "
                                                  "this event id (sent by EventSource)"),
               after: int | None = Query(None, ge=0, description="the same as a query "
                                         "parameter (Last-Event-ID wins)")):
    """Server-sent events with ids 1, 2, …: `status` (phase `retrieving`, `generating`),
    `sources`, `delta`, `notice`, and last `answer`, or `error` (`job_stale` when its
    worker died). Stored events come at once, new ones as they are stored."""
    start = last_event_id if last_event_id is not None else (after or 0)
    events = ask_jobs.stream(services(request), actor, job_id, start)
    return StreamingResponse(_frames(events), media_type="text/event-stream",
                             headers=SSE_HEADERS)


@router.post("/ask-sse", summary="An answer as server-sent events (direct flow)",
             response_class=StreamingResponse,
             responses={200: {"content": {"text/event-stream": {}},
                              "description": "events: sources, delta…, notice?, answer"}})
def ask_direct(body: AskRequest, request: Request, actor: Actor = Depends(needs("read"))):
    """The same as `POST /api/ask` (seed 004's name for the direct flow): the answer is
    streamed while it is made and not kept as a job."""
    return ask_response(body, request, actor)
