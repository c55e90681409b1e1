"""The ASGI app: the HTTP API (FastAPI; OpenAPI at /openapi.json, docs at /docs) and the MCP
server (streamable HTTP at /mcp, legacy SSE at /mcp-sse/sse), one process, one `Ragscope`.

Layers, outside in: request size limits (backend/api/limits.py) -> FastAPI with one error
body for every 4xx/5xx (backend/api/errors.py) -> routes, each declaring the token scope it
needs (backend/api/deps.py). The MCP endpoints sit behind a token gate that answers 401
before the SDK sees the request; each tool call checks the token again.

The analysis routes (`/api/documents/{id}/analysis` and `/analysis/{extractor}`, `/summary`,
`/section-summary`, `/compare`, `/compare-version`, `/compare-document/{other}`,
`/cross-references`, `/api/cross-references`, `POST /api/cross-reference`) are in
routes_analysis.py, their MCP tools in mcp_analysis.py; the chatbot routes
(`/api/chatbots/*`) in routes_chatbots.py; rating an answer
(`POST /api/chat/messages/{id}/feedback`) in routes_feedback.py; replayable ask jobs
(`/api/ask-jobs`, `/api/ask-sse/{jobId}`) and the direct `/api/ask-sse` in
routes_ask_jobs.py; run-time configuration for admins (`/api/admin/prompts`, `/settings`,
`/audit`, `/domain-rules`) in routes_admin_config.py."""
from __future__ import annotations

import contextlib
from typing import Any, Awaitable, Callable

from fastapi import FastAPI
from mcp.server.transport_security import TransportSecuritySettings
from starlette.concurrency import run_in_threadpool
from starlette.routing import Mount

from backend import __version__
from backend.api import errors
from backend.api.deps import actor_for
from backend.api.limits import MULTIPART_OVERHEAD, BodyDeadline, BodyLimit, JsonBodies
from backend.api.ratelimit import RateLimit
from backend.api.tokens import TokenRefused
from backend.config import Settings
from backend.services.container import Ragscope

DESCRIPTION = """Search and read ragscope's documents. Every endpoint but `/api/health` needs
an API token (`Authorization: Bearer rgs_…`; `python -m backend token create NAME --scopes
read`). What a token's principal may read is decided by its access groups: ids outside it
answer 404. Errors: `{"error": {"code", "message", "field"}}`. MCP: streamable HTTP at
`/mcp`, SSE at `/mcp-sse/sse` (same token)."""


def _local_hosts(extra: str) -> TransportSecuritySettings:
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    hosts += [h.strip() for h in extra.split(",") if h.strip()]
    origins = [f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                     allowed_hosts=hosts, allowed_origins=origins)


class TokenGate:
    """ASGI: HTTP requests without a valid token get the API's 401 error body."""

    def __init__(self, app: Callable[..., Awaitable[None]], rs: Ragscope):
        self.app = app
        self.rs = rs

    async def __call__(self, scope: dict[str, Any], receive, send) -> None:
        if scope["type"] == "http":
            raw = dict(scope.get("headers") or []).get(b"authorization")
            try:
                await run_in_threadpool(actor_for, self.rs,
                                        raw.decode("latin-1") if raw is not None else None)
            except TokenRefused as e:
                response = errors.error_response(401, str(e), code=f"token_{e.reason}",
                                                 headers={"WWW-Authenticate": "Bearer"})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(rs: Ragscope | None = None, *, settings: Settings | None = None,
               provider_factory=None) -> FastAPI:
    """The app over `rs` (built from `settings` when not given). `provider_factory`: the
    chat's LLM providers (tests pass a fake)."""
    from backend.api import (
        routes_admin_config,
        routes_analysis,
        routes_ask_jobs,
        routes_chatbots,
        routes_critique,
        routes_documents,
        routes_feedback,
        routes_local,
        routes_profiles,
        routes_search,
        routes_system,
        routes_tags,
    )
    from backend.api.mcp_server import build_mcp

    rs = rs or Ragscope(settings or Settings())
    s = rs.settings
    mcp = build_mcp(rs)
    security = _local_hosts(s.api_allowed_hosts)
    streamable = mcp.streamable_http_app(streamable_http_path="/mcp",
                                         stateless_http=s.mcp_stateless,
                                         transport_security=security)
    sse = mcp.sse_app(sse_path="/sse", message_path="/messages/", transport_security=security)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        async with mcp.session_manager.run():
            yield

    app = FastAPI(title="ragscope API", version=__version__, description=DESCRIPTION,
                  lifespan=lifespan)
    app.state.rs = rs
    app.state.provider_factory = provider_factory
    app.state.local_secret = None  # set by `python -m backend api` (backend/bridge/)
    errors.install(app)
    for r in (routes_search.router, routes_ask_jobs.router, routes_documents.router,
              routes_analysis.router, routes_chatbots.router, routes_feedback.router,
              routes_critique.router, routes_system.router, routes_local.router,
              routes_profiles.router, routes_admin_config.router, routes_tags.router):
        app.include_router(r)
    for route in streamable.routes:  # the SDK's /mcp route, behind the token gate
        route.app = TokenGate(route.app, rs)
        app.router.routes.append(route)
    app.router.routes.append(Mount("/mcp-sse", app=TokenGate(sse, rs)))
    upload = s.max_upload_bytes * s.api_max_upload_files + MULTIPART_OVERHEAD
    app.add_middleware(BodyLimit, json_limit=s.api_max_body_kb * 1024, upload_limit=upload)
    app.add_middleware(JsonBodies)
    app.add_middleware(BodyDeadline, seconds=s.api_body_timeout_s)  # times reads
    app.add_middleware(RateLimit, per_token=s.api_rate_per_token,  # outermost: before reads
                       per_address=s.api_rate_per_address)
    return app
