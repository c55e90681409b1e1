"""One error body for every 4xx and 5xx of the API: `{"error": {"code", "message", "field"}}`.

Validation errors name the field; ragscope's own errors keep their message (they name the
file, document or setting and the reason); anything unexpected becomes a 500 with a request
id and no details: the stack trace goes to the server log, never into a response."""
from __future__ import annotations

import logging
import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from backend.api.tokens import TokenRefused
from backend.security.auth import PermissionDenied
from backend.errors import (
    BackendUnavailable,
    ChatbotError,
    FileTooLarge,
    IndexMismatch,
    IngestError,
    InvalidChatbot,
    NotFound,
    RagscopeError,
    UnsupportedFormat,
)
from backend.services.navigation import NavigationError
from backend.services.search import SearchInputError

log = logging.getLogger("backend.api")

STATUS_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
                405: "method_not_allowed", 406: "not_acceptable", 408: "request_timeout",
                409: "conflict",
                413: "too_large", 415: "unsupported_media_type", 422: "invalid_request",
                429: "too_many_requests", 500: "internal_error", 503: "unavailable"}


class ErrorDetail(BaseModel):
    code: str
    message: str
    field: str | None = None


class ErrorBody(BaseModel):
    error: ErrorDetail


def error_response(status: int, message: str, *, code: str | None = None,
                   field: str | None = None, headers: dict | None = None) -> JSONResponse:
    body = {"error": {"code": code or STATUS_CODES.get(status, "error"), "message": message,
                      "field": field}}
    return JSONResponse(body, status_code=status, headers=headers)


def _loc(loc: tuple[Any, ...]) -> str | None:
    """`("body", "query")` -> "query": the first part says where (body, query string, ...).
    A repeated query parameter is named without the position of the bad value
    (`("query", "what", 0)` -> "what")."""
    if loc and loc[0] == "query":
        loc = tuple(p for p in loc if not isinstance(p, int))
    if loc and loc[0] in ("body", "query", "path", "header", "cookie"):
        loc = loc[1:]
    return ".".join(str(p) for p in loc) or None


def describe(errors: list[dict]) -> tuple[str | None, str]:
    """The field and the message of validation errors (pydantic's `errors()`), as the HTTP
    API and the MCP tools both say them: `limit: Input should be less than or equal to 100`."""
    first = errors[0] if errors else {"loc": (), "msg": "invalid request", "type": ""}
    field = _loc(tuple(first.get("loc") or ()))
    msg = str(first.get("msg") or "invalid value")
    if first.get("type") == "extra_forbidden":
        msg = ("unknown query parameter" if tuple(first.get("loc") or ())[:1] == ("query",)
               else "unknown field")
    elif first.get("type") == "missing":
        msg = "field required"
    elif "Expected UploadFile" in msg:  # a form part without a file name
        field, msg = (field or "files").split(".")[0], "must be files (parts with a file name)"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return field, f"{field or 'request'}: {msg}{more}"


def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
    errors = exc.errors()
    if errors and errors[0].get("type") == "json_invalid":
        return error_response(400, "the request body is not valid JSON", code="malformed_json")
    field, message = describe(list(errors))
    return error_response(422, message, field=field)


def _unparsable(cause: BaseException | None) -> str:
    """Why FastAPI could not parse a JSON body ("There was an error parsing the body")."""
    if isinstance(cause, UnicodeDecodeError):
        return "the request body is not valid JSON (not UTF-8 text)"
    if isinstance(cause, RecursionError):
        return "the request body is not valid JSON we accept (nested too deeply)"
    if isinstance(cause, ValueError) and "digits" in str(cause):
        return "the request body is not valid JSON we accept (a number with too many digits)"
    return "the request body is not valid JSON"


def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    message = exc.detail if isinstance(exc.detail, str) else STATUS_CODES.get(exc.status_code,
                                                                              "error")
    if exc.status_code == 400 and message == "There was an error parsing the body":
        return error_response(400, _unparsable(exc.__cause__), code="malformed_json")
    if exc.status_code == 404 and message == "Not Found":
        message = f"no such endpoint: {request.method} {request.url.path}"
    elif exc.status_code == 405:
        message = f"{request.method} is not allowed on {request.url.path}"
    return error_response(exc.status_code, message, headers=getattr(exc, "headers", None))


def _status_of(exc: RagscopeError) -> tuple[int, str | None]:
    if isinstance(exc, TokenRefused):
        return 401, None
    if isinstance(exc, PermissionDenied):
        return 403, None
    if isinstance(exc, NotFound):
        return 404, None
    if isinstance(exc, FileTooLarge):
        return 413, "files"
    if isinstance(exc, UnsupportedFormat):
        return 415, "files"
    if isinstance(exc, IngestError):  # an upload refused as a whole (no file, 21 files)
        return 422, "files"
    if isinstance(exc, InvalidChatbot):  # every field's error in the message, the first named
        return 422, next(iter(exc.errors), None)
    if isinstance(exc, (IndexMismatch, ChatbotError)):
        return 409, None
    if isinstance(exc, BackendUnavailable):
        return 503, None
    return 422, None  # bad input the service refused with its reason (ChatInputError,
    # TokenError, AccessConfigError, AnalysisError, a crawl URL, ...)


def classify(exc: RagscopeError) -> tuple[int, str, str | None]:
    """Status, code and field of one of ragscope's errors: the vocabulary of the HTTP API
    and of the MCP tools (docs/api.md, "Errors")."""
    status, field = _status_of(exc)
    field = getattr(exc, "field", None) or field
    code = f"token_{exc.reason}" if isinstance(exc, TokenRefused) else STATUS_CODES[status]
    return status, code, field


def _ragscope(request: Request, exc: RagscopeError) -> JSONResponse:
    status, code, field = classify(exc)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return error_response(status, str(exc), code=code, field=field, headers=headers)


def _input(request: Request, exc: SearchInputError | NavigationError) -> JSONResponse:
    return error_response(422, str(exc), field=exc.field)


def _pydantic(request: Request, exc: ValidationError) -> JSONResponse:
    """Parameters the route passed on and a service model refused (e.g. retrieval)."""
    return _validation(request, RequestValidationError(exc.errors()))


def _value(request: Request, exc: ValueError) -> JSONResponse:
    return error_response(422, str(exc) or "invalid value")


def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    rid = uuid.uuid4().hex[:12]
    log.error("request %s %s failed (request id %s)", request.method, request.url.path, rid,
              exc_info=exc)
    return error_response(500, f"internal error (request id {rid}); the server log has the "
                               "details")


def install(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(StarletteHTTPException, _http)
    app.add_exception_handler(SearchInputError, _input)
    app.add_exception_handler(NavigationError, _input)
    app.add_exception_handler(RagscopeError, _ragscope)
    app.add_exception_handler(ValidationError, _pydantic)
    app.add_exception_handler(ValueError, _value)
    app.add_exception_handler(Exception, _unexpected)


ERROR_RESPONSES = {code: {"model": ErrorBody, "description": STATUS_CODES[code]}
                   for code in (400, 401, 403, 404, 408, 413, 415, 422)}
CHATBOT_RESPONSES = {**ERROR_RESPONSES, **{code: {"model": ErrorBody,
                                                   "description": STATUS_CODES[code]}
                                            for code in (409, 503)}}
