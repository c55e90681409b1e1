"""Who calls: the bearer token of a request, checked against the token table on every
request (a revoked or expired token stops working at once), becomes the request's `Actor`
(`kind="principal"`, role from the token's scopes). Routes declare the scope they need."""
from __future__ import annotations

from typing import Callable

from fastapi import Depends, Request
from fastapi.exceptions import RequestValidationError
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from backend.security import auth
from backend.security.access import Actor
from backend.api.tokens import TokenRefused, authenticate, bearer_token
from backend.services.container import Ragscope

bearer = HTTPBearer(auto_error=False, description="an API token: `python -m backend token "
                                                  "create NAME --scopes read`")
SCOPE_ROLE = {"read": "viewer", "write": "editor", "admin": "admin"}


def services(request: Request) -> Ragscope:
    return request.app.state.rs


def actor_for(rs: Ragscope, authorization: str | None) -> Actor:
    """The actor of an `Authorization` header value; TokenRefused when there is none or it
    is not valid."""
    principal = authenticate(rs.store, bearer_token(authorization))
    return Actor(principal.name, principal.role, kind="principal")


def current_actor(request: Request,
                  creds: HTTPAuthorizationCredentials | None = Depends(bearer)) -> Actor:
    # `creds` only puts the scheme into the OpenAPI spec; the raw header is checked so a
    # non-Bearer scheme gets its own message.
    actor = actor_for(services(request), request.headers.get("authorization"))
    request.state.actor = actor
    return actor


async def known_query(request: Request) -> None:
    """Refuse query parameters the route does not declare (`?colection=ops` is a typo the
    caller should hear about, not a filter silently ignored). `async`: pure computation, run
    on the event loop (a sync dependency costs a thread hand-off, see `needs`)."""
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is None:
        return
    allowed, stack = set(), [dependant]
    while stack:  # the route's own query parameters and those of its dependencies
        d = stack.pop()
        allowed.update(p.alias for p in d.query_params)
        stack.extend(d.dependencies)
    unknown = sorted(set(request.query_params) - allowed)
    if unknown:
        raise RequestValidationError([{"type": "extra_forbidden", "loc": ("query", unknown[0]),
                                       "msg": "unknown query parameter", "input": None}])


def check_role(actor: Actor, scope: str) -> None:
    """PermissionDenied (403) unless the actor's token has `scope` (or a higher one)."""
    if not auth.has_role(actor.role, SCOPE_ROLE[scope]):
        raise auth.PermissionDenied(f"this endpoint needs a token with the '{scope}' "
                                    f"scope; the token of {actor.username} has "
                                    f"{actor.role} rights")


def needs(scope: str) -> Callable[..., Actor]:
    """A dependency: the caller's actor, if its token has `scope` (or a higher one)."""
    SCOPE_ROLE[scope]  # KeyError for an unknown scope when the route is declared

    # async: a sync dependency runs in the thread pool, a hand-off per request that costs
    # more CPU than this check (docs/benchmarks.md, "Server CPU per search")
    async def dependency(actor: Actor = Depends(current_actor)) -> Actor:
        check_role(actor, scope)
        return actor

    dependency.token_scope = scope  # backend/api/one_hop.py runs the check itself
    return dependency


__all__ = ["TokenRefused", "actor_for", "check_role", "current_actor", "needs", "services"]
