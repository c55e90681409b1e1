"""Admin-managed system prompts (issue 26, item 7; seed 004 "aktiver System-Prompt"): the
editable house rules of the system block, in versions, one active per scope - `chat` (the
dashboard chat, `/api/ask`, the CLI) and `chatbots` (every published bot). The fixed rules
(evidence is data, cite [n], no outside knowledge) stay first and cannot be edited
(backend/chat/prompt.py `system_rules`). Version 0 is the built-in default; activating it
turns the admin versions off.

Every create and activate is in the audit log (config_audit: who, when, old and new active
version). Only admins change prompts (action `settings`); anyone who may chat may read the
active one (it shapes their answers)."""
from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass
from datetime import datetime

from sqlalchemy import func, select, update

from backend.chat.prompt import DEFAULT_HOUSE_RULES, FIXED_RULES
from backend.errors import NotFound, RagscopeError
from backend.security import auth
from backend.store.admin_config_models import ConfigAudit, SystemPromptVersion

SCOPES = ("chat", "chatbots")
MAX_CHARS = 4000  # house rules longer than this crowd out the evidence in small models


class PromptInputError(RagscopeError, ValueError):
    """A prompt version that cannot be stored: the field and the reason are in the text."""


@dataclass(frozen=True)
class PromptVersion:
    scope: str
    version: int
    text: str
    note: str
    created_by: str
    created_at: datetime | None
    active: bool

    def to_dict(self) -> dict:
        d = asdict(self)
        d["created_at"] = self.created_at.isoformat() if self.created_at else None
        return d


def _scope(scope: str) -> str:
    if scope not in SCOPES:
        raise PromptInputError(f"scope: must be one of {', '.join(SCOPES)}, not {scope!r}")
    return scope


def _builtin(active: bool) -> PromptVersion:
    return PromptVersion("", 0, DEFAULT_HOUSE_RULES, "built-in default", "ragscope", None, active)


def _info(r: SystemPromptVersion) -> PromptVersion:
    return PromptVersion(r.scope, r.version, r.text, r.note, r.created_by, r.created_at, r.active)


def _audit(s, actor, scope: str, action: str, old, new) -> None:
    s.add(ConfigAudit(kind="prompt", name=scope, action=action,
                      old=None if old is None else str(old), new=None if new is None else str(new),
                      actor=actor.username))


def _active_row(s, scope: str) -> SystemPromptVersion | None:
    return s.scalar(select(SystemPromptVersion).where(
        SystemPromptVersion.scope == scope, SystemPromptVersion.active.is_(True)))


def active_text(store, scope: str) -> str | None:
    """The active house rules of `scope`, or None for the built-in default. One indexed
    query per answer: a new activation applies to the next answer in every process."""
    with store.session() as s:
        row = _active_row(s, _scope(scope))
        return row.text if row is not None else None


def versions(store, scope: str) -> list[PromptVersion]:
    """Every version of `scope`, newest first, then the built-in default (version 0)."""
    with store.session() as s:
        rows = s.scalars(select(SystemPromptVersion).where(SystemPromptVersion.scope == _scope(
            scope)).order_by(SystemPromptVersion.version.desc())).all()
        out = [_info(r) for r in rows]
    b = _builtin(not any(v.active for v in out))
    return out + [PromptVersion(scope, 0, b.text, b.note, b.created_by, None, b.active)]


def get(store, scope: str, version: int | None = None) -> PromptVersion:
    """One version (None: the active one, possibly the built-in default)."""
    vs = versions(store, scope)
    found = next((v for v in vs if (v.active if version is None else v.version == version)), None)
    if found is None:
        raise NotFound(f"system prompt {scope} version {version} does not exist")
    return found


def full_text(store, scope: str, version: int | None = None) -> str:
    """The whole rules block the model gets with that version (fixed rules first)."""
    from backend.chat.prompt import system_rules

    v = get(store, scope, version)
    return system_rules(v.text if v.version else None)


def create(store, actor, scope: str, text: str, note: str = "", *,
           make_active: bool = False) -> PromptVersion:
    """A new version (the next number); active at once with `make_active`."""
    auth.require(actor.role, "settings")
    text = (text or "").strip()
    if not text:
        raise PromptInputError("text: the house rules are empty")
    if len(text) > MAX_CHARS:
        raise PromptInputError(f"text: {len(text)} characters, at most {MAX_CHARS}")
    if len(note) > 500:
        raise PromptInputError("note: at most 500 characters")
    with store.session() as s:
        n = (s.scalar(select(func.max(SystemPromptVersion.version)).where(
            SystemPromptVersion.scope == _scope(scope))) or 0) + 1
        s.add(SystemPromptVersion(scope=scope, version=n, text=text, note=note.strip(),
                                  created_by=actor.username, active=False))
        _audit(s, actor, scope, "create", None, n)
    if make_active:
        return activate(store, actor, scope, n)
    return get(store, scope, n)


def activate(store, actor, scope: str, version: int) -> PromptVersion:
    """Make `version` the active one of `scope` (0: the built-in default)."""
    auth.require(actor.role, "settings")
    with store.session() as s:
        old = _active_row(s, _scope(scope))
        if version != 0 and s.scalar(select(SystemPromptVersion.id).where(
                SystemPromptVersion.scope == scope,
                SystemPromptVersion.version == version)) is None:
            raise NotFound(f"system prompt {scope} version {version} does not exist")
        s.execute(update(SystemPromptVersion).where(SystemPromptVersion.scope == scope)
                  .values(active=SystemPromptVersion.version == version))
        _audit(s, actor, scope, "activate", old.version if old else 0, version)
    return get(store, scope, version)


def diff(store, scope: str, a: int, b: int) -> str:
    """A unified diff of the house rules of versions `a` and `b` (0: the default)."""
    va, vb = get(store, scope, a), get(store, scope, b)
    return "".join(difflib.unified_diff(
        (va.text + "\n").splitlines(keepends=True), (vb.text + "\n").splitlines(keepends=True),
        fromfile=f"{scope} v{a}", tofile=f"{scope} v{b}")) or "(no difference)\n"


__all__ = ["FIXED_RULES", "SCOPES", "PromptInputError", "PromptVersion", "activate",
           "active_text", "create", "diff", "full_text", "get", "versions"]
