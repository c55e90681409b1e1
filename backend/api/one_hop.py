"""One thread hand-off per request for the hot JSON routes (`POST /api/search`,
`/api/smart-search`): the token check, the endpoint and the response's validation and JSON
run in ONE worker thread, where FastAPI's own handler hands off twice (the token check is a
sync dependency: it reads the store; then the route). Each hand-off costs the event loop a
queue put, a thread wake-up and a future's callback — about 0.5-1 ms of CPU per request
here (docs/benchmarks.md, "Server CPU per search over HTTP: one thread hop").

`OneHopRoute` is an `APIRoute`: the route is declared as any other (body model,
`Depends(needs(scope))`, `response_model`), so the OpenAPI schema, the security scheme and
the documented responses are FastAPI's own; only the request handler differs. It keeps the
order of FastAPI's answers, checked against FastAPI's handler by
tests/test_api_one_hop.py: a body that is not JSON (422) -> unknown query parameters (422)
-> the token (401) -> its scope (403) -> the body's fields (422) -> the endpoint. The body is
validated on the event loop (pure computation, as FastAPI does it), but its errors are
raised only after the token check, in the thread.

The endpoint is a plain (sync) function of the body, `request` and the actor; a route whose
parameters or dependencies are anything else is refused when the app is built."""
from __future__ import annotations

import email.message
import json
from typing import Any, Callable

from fastapi import HTTPException, Request
from fastapi._compat import Undefined
from fastapi.dependencies.utils import request_body_to_args
from fastapi.exceptions import RequestValidationError, ResponseValidationError
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from backend.api.deps import actor_for, check_role, services

Handler = Callable[[Request], Any]


class OneHopRoute(APIRoute):
    def get_route_handler(self) -> Handler:
        from fastapi import routing as fr

        ctx = fr._effective_route_context_var.get()  # an included router's merged route
        route = ctx if ctx is not None and ctx.original_route is self else self
        return _handler(route)


def _parts(route) -> tuple[list[Callable], tuple[str, str], str | None]:
    """(request-only async dependencies, (actor parameter, scope), request parameter) of
    the route, or TypeError naming what this handler cannot run."""
    d = route.dependant
    name = getattr(route, "path", "?")
    if d.path_params or d.query_params or d.header_params or d.cookie_params:
        raise TypeError(f"{name}: OneHopRoute takes no path, query, header or cookie params")
    if len(d.body_params) != 1:
        raise TypeError(f"{name}: OneHopRoute needs exactly one body model")
    plain, actor = [], None
    for sub in d.dependencies:
        scope = getattr(sub.call, "token_scope", None)
        if scope is not None and sub.name:
            actor = (sub.name, scope)
        elif (sub.name is None and sub.request_param_name and not sub.dependencies
              and not (sub.query_params or sub.body_params)):
            plain.append(sub.call)  # e.g. known_query: async, of the request only
        else:
            raise TypeError(f"{name}: OneHopRoute cannot run the dependency {sub.call!r}")
    if actor is None:
        raise TypeError(f"{name}: OneHopRoute needs an `actor = Depends(needs(scope))`")
    return plain, actor, d.request_param_name


def _handler(route) -> Handler:
    plain, (actor_param, token_scope), request_param = _parts(route)
    body_params, embed = route.dependant.body_params, route._embed_body_fields
    endpoint, out = route.dependant.call, route.response_field
    status = route.status_code or 200
    if out is None:
        raise TypeError(f"{route.path}: OneHopRoute needs a response_model")

    def work(request: Request, values: dict, errors: list, body: Any) -> bytes:
        actor = actor_for(services(request), request.headers.get("authorization"))  # 401
        check_role(actor, token_scope)  # 403
        request.state.actor = actor
        if errors:
            raise RequestValidationError(errors, body=body)
        kwargs = {**values, actor_param: actor}
        if request_param:
            kwargs[request_param] = request
        raw = endpoint(**kwargs)
        value, problems = out.validate(raw, {}, loc=("response",))
        if problems:
            raise ResponseValidationError(errors=problems, body=raw)
        return out.serialize_json(value, by_alias=True)

    async def app(request: Request) -> Response:
        body = await _json_body(request)
        for dep in plain:
            await dep(request)
        values, errors = await request_body_to_args(body_params, body, embed)
        content = await run_in_threadpool(work, request, values, errors,
                                          None if body is Undefined else body)
        return Response(content, status_code=status, media_type="application/json")

    return app


async def _json_body(request: Request) -> Any:
    """The request body as FastAPI reads it for a JSON body parameter: parsed when the
    content type is JSON (a decoding error is FastAPI's `json_invalid` 422), the raw bytes
    otherwise, "missing" when empty."""
    raw = await request.body()
    if not raw:
        return Undefined
    ctype = request.headers.get("content-type")
    if ctype:
        message = email.message.Message()
        message["content-type"] = ctype
        sub = message.get_content_subtype()
        if message.get_content_maintype() == "application" and (
                sub == "json" or sub.endswith("+json")):
            try:
                return json.loads(raw)
            except json.JSONDecodeError as e:
                raise RequestValidationError(
                    [{"type": "json_invalid", "loc": ("body", e.pos), "msg": "JSON decode error",
                      "input": {}, "ctx": {"error": e.msg}}], body=e.doc) from e
            except Exception as e:  # e.g. not UTF-8: FastAPI's 400
                raise HTTPException(400, "There was an error parsing the body") from e
    return raw
