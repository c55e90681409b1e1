"""API tokens: create, list, revoke, and authenticate a presented token.

A token looks like `rgs_<key id>_<secret>`: the key id (12 hex characters) finds the row, the
secret is 256 random bits. Only the SHA-256 of the whole token is stored, and the comparison
is `hmac.compare_digest` (constant time); an unknown key id is compared against a dummy hash
so it takes the same work. The plain token is shown once, when it is created, and is never
logged. Scopes: `read` (search and read documents), `write` (+ upload), `admin` (+ every
job, token management). A token belongs to a principal (a name): the API and the MCP tools
act as `Actor(principal, role_for_scopes(scopes), kind="principal")`."""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from sqlalchemy import bindparam, select, update

from backend.errors import NotFound, RagscopeError
from backend.store import Store
from backend.store.models import utcnow
from backend.store.token_models import ApiToken

SCOPES = ("read", "write", "admin")
ROLE_OF_SCOPE = {"read": "viewer", "write": "editor", "admin": "admin"}
PREFIX = "rgs"
DEFAULT_EXPIRY_DAYS = 90
LAST_USED_EVERY = timedelta(seconds=60)  # last_used_at is written at most once a minute
_TOKEN_RE = re.compile(rf"^{PREFIX}_([0-9a-f]{{12}})_([A-Za-z0-9_-]{{43}})$")
_PRINCIPAL_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]{1,63}$")
_DUMMY_HASH = hashlib.sha256(b"no such token").hexdigest()


class TokenError(RagscopeError):
    """A token-management request is invalid (bad principal name, unknown scope, ...)."""


class TokenRefused(RagscopeError):
    """A presented token is not valid; `reason` is one of missing, malformed, invalid,
    expired, revoked (all answered with 401)."""

    def __init__(self, reason: str, message: str):
        self.reason = reason
        super().__init__(message)


@dataclass(frozen=True)
class Principal:
    """Who a valid token speaks for."""

    name: str
    scopes: tuple[str, ...]
    token_id: int

    @property
    def role(self) -> str:
        return role_for_scopes(self.scopes)


@dataclass(frozen=True)
class TokenInfo:
    id: int
    key_id: str
    principal: str
    scopes: tuple[str, ...]
    description: str
    created_by: str
    created_at: datetime | None
    expires_at: datetime | None
    revoked_at: datetime | None
    last_used_at: datetime | None
    status: str  # active | expired | revoked


def role_for_scopes(scopes) -> str:
    """The dashboard role a set of scopes amounts to (admin > write > read)."""
    for scope in ("admin", "write", "read"):
        if scope in scopes:
            return ROLE_OF_SCOPE[scope]
    raise TokenError("a token needs at least one scope (read, write or admin)")


def _aware(t: datetime | None) -> datetime | None:
    if t is not None and t.tzinfo is None:  # SQLite returns naive datetimes (stored as UTC)
        return t.replace(tzinfo=timezone.utc)
    return t


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _status(row: ApiToken, now: datetime) -> str:
    if row.revoked_at is not None:
        return "revoked"
    exp = _aware(row.expires_at)
    return "expired" if exp is not None and exp <= now else "active"


def _info(row: ApiToken, now: datetime) -> TokenInfo:
    return TokenInfo(row.id, row.key_id, row.principal, tuple(row.scopes or ()),
                     row.description or "", row.created_by or "", _aware(row.created_at),
                     _aware(row.expires_at), _aware(row.revoked_at), _aware(row.last_used_at),
                     _status(row, now))


def normalise_scopes(scopes) -> tuple[str, ...]:
    if isinstance(scopes, str):
        scopes = [s for s in re.split(r"[,\s]+", scopes) if s]
    out = []
    for s in scopes or ():
        s = s.strip().lower()
        if s not in SCOPES:
            raise TokenError(f"unknown scope {s!r}; scopes are {', '.join(SCOPES)}")
        if s not in out:
            out.append(s)
    if not out:
        raise TokenError("a token needs at least one scope (read, write or admin)")
    return tuple(sorted(out, key=SCOPES.index))


def create_token(store: Store, principal: str, scopes, *, created_by: str,
                 expires_days: float | None = DEFAULT_EXPIRY_DAYS,
                 description: str = "") -> tuple[TokenInfo, str]:
    """A new token for `principal`; returns its info and the plain token (shown once).
    `expires_days` None: the token does not expire."""
    name = (principal or "").strip().lower()
    if not _PRINCIPAL_RE.match(name):
        raise TokenError(f"principal {principal!r}: 2 to 64 characters, lower-case letters, "
                         "digits, '.', '_' or '-', starting with a letter or digit")
    scopes = normalise_scopes(scopes)
    if expires_days is not None and not 0 < expires_days <= 3650:
        raise TokenError(f"expiry {expires_days} days: must lie between 0 and 3650 days")
    now = utcnow()
    with store.session() as s:
        while True:
            key_id = secrets.token_hex(6)
            if s.scalar(select(ApiToken.id).where(ApiToken.key_id == key_id)) is None:
                break
        token = f"{PREFIX}_{key_id}_{secrets.token_urlsafe(32)}"
        row = ApiToken(key_id=key_id, secret_hash=_hash(token), principal=name,
                       scopes=list(scopes), description=(description or "").strip()[:500],
                       created_by=created_by, created_at=now,
                       expires_at=None if expires_days is None
                       else now + timedelta(days=expires_days))
        s.add(row)
        s.flush()
        return _info(row, now), token


def list_tokens(store: Store, principal: str | None = None) -> list[TokenInfo]:
    now = utcnow()
    with store.session() as s:
        q = select(ApiToken).order_by(ApiToken.id)
        if principal:
            q = q.where(ApiToken.principal == principal.strip().lower())
        return [_info(r, now) for r in s.scalars(q)]


def revoke_token(store: Store, token: int | str) -> TokenInfo:
    """Revoke by row id or key id; revoking twice keeps the first moment."""
    with store.session() as s:
        key = str(token).strip()
        row = (s.get(ApiToken, int(key)) if key.isdigit()
               else s.scalar(select(ApiToken).where(ApiToken.key_id == key)))
        if row is None:
            raise NotFound(f"no API token {token!r} (give its id or key id)")
        if row.revoked_at is None:
            row.revoked_at = utcnow()
        s.flush()
        return _info(row, utcnow())


def bearer_token(authorization: str | None) -> str:
    """The token of an `Authorization: Bearer …` header value."""
    if not authorization:
        raise TokenRefused("missing", "this endpoint needs an API token: send "
                                      "'Authorization: Bearer <token>'")
    scheme, _, value = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        raise TokenRefused("malformed", "the Authorization header must be "
                                        "'Bearer <token>'")
    return value.strip()


# What a token check reads: one row's columns over a plain connection. The ORM session it
# replaced (an entity, its identity map, a commit) cost 1.3 ms CPU per API request against
# about 0.2 ms (docs/benchmarks.md, "Server CPU per search over HTTP"); the row is still read
# on every request, so a revocation or expiry takes effect at the next call. Built once with
# a bound key id: building the WHERE clause per call cost 0.3 ms more (375 against 74 µs).
_CHECK = select(ApiToken.id, ApiToken.secret_hash, ApiToken.principal, ApiToken.scopes,
                ApiToken.expires_at, ApiToken.revoked_at, ApiToken.last_used_at) \
    .where(ApiToken.key_id == bindparam("key_id"))


def authenticate(store: Store, token: str) -> Principal:
    """The principal of a valid token; TokenRefused otherwise (never with the token in the
    message). Records the last use (at most once a minute per token)."""
    m = _TOKEN_RE.match(token or "")
    if m is None:
        hmac.compare_digest(_hash(token or ""), _DUMMY_HASH)
        raise TokenRefused("malformed", "the API token is not valid")
    now = utcnow()
    with store.engine.connect() as c:
        row = c.execute(_CHECK, {"key_id": m.group(1)}).first()
    ok = hmac.compare_digest(_hash(token), row.secret_hash if row else _DUMMY_HASH)
    if row is None or not ok:
        raise TokenRefused("invalid", "the API token is not valid")
    status = _status(row, now)
    if status != "active":
        raise TokenRefused(status, f"the API token has been {status}" if status == "revoked"
                           else "the API token has expired")
    last = _aware(row.last_used_at)
    if last is None or now - last >= LAST_USED_EVERY:
        _mark_used(store, row.id, now)
    return Principal(row.principal, tuple(row.scopes or ()), row.id)


def _mark_used(store: Store, token_id: int, now: datetime) -> None:
    with store.session() as s:
        s.execute(update(ApiToken).where(ApiToken.id == token_id).values(last_used_at=now))


# ---- what the admin page calls (the actor is checked here, whatever the page did) --------


@dataclass(frozen=True)
class PrincipalTokens:
    """A token with the access groups its principal is a member of."""

    token: TokenInfo
    groups: tuple[str, ...]


def tokens_overview(rs, actor) -> list[PrincipalTokens]:
    from backend.security import access, acl

    access.require(actor, "manage_tokens")
    groups: dict[str, list[str]] = {}
    for g in acl.groups(rs):
        for kind, name in g.members:
            if kind == "principal":
                groups.setdefault(name, []).append(g.name)
    return [PrincipalTokens(t, tuple(sorted(groups.get(t.principal, ()))))
            for t in list_tokens(rs.store)]


def issue_token(rs, actor, principal: str, scopes, *, expires_days: float | None,
                description: str = "") -> tuple[TokenInfo, str]:
    from backend.security import access

    access.require(actor, "manage_tokens")
    return create_token(rs.store, principal, scopes, created_by=actor.username,
                        expires_days=expires_days, description=description)


def withdraw_token(rs, actor, token: int | str) -> TokenInfo:
    from backend.security import access

    access.require(actor, "manage_tokens")
    return revoke_token(rs.store, token)
