"""The CLI's `search` and `ask` run by this process on the CLI's behalf (backend/bridge/):
not part of the public API (not in the OpenAPI spec), loopback only, authorised by the secret
the serving process announced in its data dir; 404 when the process announced none."""
from __future__ import annotations

import json
from collections.abc import Iterator

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import StreamingResponse

from backend.api import local_bridge
from backend.api.deps import services
from backend.bridge import calls, protocol
from backend.errors import RagscopeError


def local_operator(request: Request) -> None:
    client = request.client.host if request.client else None
    if not local_bridge.accepts(getattr(request.app.state, "local_secret", None),
                              request.headers.get(protocol.SECRET_HEADER), client):
        raise HTTPException(status_code=404, detail="Not Found")


router = APIRouter(prefix="/api/_local", include_in_schema=False,
                   dependencies=[Depends(local_operator)])


async def _body(request: Request) -> dict:
    try:
        body = json.loads(await request.body() or b"{}")
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise HTTPException(status_code=422, detail="the body must be a JSON object")
    return body


@router.post("/search")
def search(request: Request, body: dict = Depends(_body)):
    a = protocol.namespace(body, protocol.SEARCH_ARGS)
    return calls.search_result(services(request), a)


@router.post("/ask")
def ask(request: Request, body: dict = Depends(_body)):
    from backend.chat.service import ChatService

    a = protocol.namespace(body, protocol.ASK_ARGS)
    events = calls.ask_events(ChatService(services(request)), a)
    first = next(events)  # errors in the question answer before the stream starts

    def lines() -> Iterator[str]:
        yield json.dumps(first, ensure_ascii=False) + "\n"
        try:
            for ev in events:
                yield json.dumps(ev, ensure_ascii=False) + "\n"
        except Exception as e:  # the stream has started: the error becomes the last line
            import logging

            logging.getLogger("backend.api").error("local ask failed", exc_info=e)
            message = str(e) if isinstance(e, RagscopeError) else \
                "the answer could not be completed (see the server log)"
            yield json.dumps({"type": "error", "message": message}) + "\n"

    return StreamingResponse(lines(), media_type="application/x-ndjson")
