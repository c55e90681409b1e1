"""Run-time overrides of the safe settings (issue 26, item 7): retrieval weights, limits and
context sizes an admin may change on the Settings page (or `python -m backend runtime-settings`,
`PUT /api/admin/settings/{name}`) without a restart, stored in `runtime_settings`, every
change in `config_audit` (who, when, old, new).

How settings are read: `Settings` (backend/config) is built once from RAGSCOPE_* variables and
frozen. The service container's `settings` is an `Overlay`: the environment's settings with
the stored overrides on top (`model_copy(update=…)`), re-read from the database at most every
CHECK_S seconds, so a change applies to the next question in every process within CHECK_S.
Only the names in SAFE can be overridden - never secrets, paths, URLs, or what is fixed when
an index is built (chunk size, embedding model); a value is validated with the setting's own
type and bounds (the same pydantic field)."""
from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any

from pydantic import TypeAdapter, ValidationError
from sqlalchemy import select

from backend.config import Settings
from backend.errors import RagscopeError
from backend.store.admin_config_models import ConfigAudit, RuntimeSetting

log = logging.getLogger(__name__)
CHECK_S = 2.0  # how stale a process's overrides may be at most

# The safe subset: each is read per request (rs.settings.X at the time of use), so an override
# applies without a restart; none is a secret, path or URL, none changes how an index is built.
SAFE = (
    "retrieval_translation_weight",  # keyword weight of dictionary words and domain synonyms
    "chat_source_chars",  # context: characters of one source in the prompt
    "chat_context_lines",  # context: conversation lines of a regular session
    "chat_full_context_lines",  # context: the same in full-context mode
    "chat_expand",  # context: small-to-big expansion of a hit
    "chat_min_score",  # limit: least retrieval score of a source
    "chat_inventory_cutoff",  # limit: relevance cut-off of document lists
    "chat_max_message_chars",  # limit: longest question
    "chat_analysis_route",  # answer analysis questions from the analysis
    "chat_analysis_items",  # limit: items listed in one analysis answer
    "question_urls",  # fetch the URL of a question
    "analysis_llm_max_sections",  # limit: sections per LLM refinement pass
    "critique_auto",  # critique every generated chat answer (services/auto_critique.py)
)


class RuntimeSettingError(RagscopeError, ValueError):
    """A setting that cannot be overridden, or a value it does not accept."""


@dataclass(frozen=True)
class AuditEntry:
    id: int
    kind: str
    name: str
    action: str
    old: Any
    new: Any
    actor: str
    at: datetime

    def to_dict(self) -> dict:
        return {"id": self.id, "kind": self.kind, "name": self.name, "action": self.action,
                "old": self.old, "new": self.new, "actor": self.actor,
                "at": self.at.isoformat() if self.at else None}


def _field(name: str):
    if name not in SAFE:
        if name in Settings.model_fields:
            raise RuntimeSettingError(f"{name}: not editable at run time (only: {', '.join(SAFE)})")
        raise RuntimeSettingError(f"{name}: no such setting")
    return Settings.model_fields[name]


def validate(name: str, value: Any) -> Any:
    """`value` as the setting's type, within its bounds (strings from a form or the command
    line are parsed: "0.3", "true", "none")."""
    f = _field(name)
    adapter = TypeAdapter(Annotated[(f.annotation, *f.metadata)] if f.metadata else f.annotation)
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in ("none", "null", "") and _nullable(adapter):
            return None
        try:
            return adapter.validate_json(text if not _is_text(adapter) else json.dumps(text))
        except ValidationError:
            pass  # fall through: validate the raw text (Literal choices, bad numbers)
    try:
        return adapter.validate_python(value)
    except ValidationError as e:
        raise RuntimeSettingError(f"{name}: {e.errors()[0]['msg']} (got {value!r})") from None


def _nullable(adapter: TypeAdapter) -> bool:
    try:
        adapter.validate_python(None)
        return True
    except ValidationError:
        return False


def _is_text(adapter: TypeAdapter) -> bool:
    return adapter.json_schema().get("type") == "string" or "enum" in adapter.json_schema()


def overrides(store) -> dict[str, Any]:
    """The stored overrides, each validated again (a value a newer version would refuse is
    left out, with a warning, rather than breaking every request)."""
    out = {}
    with store.session() as s:
        rows = s.scalars(select(RuntimeSetting)).all()
        for r in rows:
            try:
                out[r.name] = validate(r.name, json.loads(r.value))
            except (RuntimeSettingError, ValueError) as e:
                log.warning("runtime setting %s ignored: %s", r.name, e)
    return out


def _audit(s, actor: str, name: str, action: str, old: Any, new: Any) -> None:
    s.add(ConfigAudit(kind="setting", name=name, action=action, old=json.dumps(old),
                      new=json.dumps(new), actor=actor))


def set_value(store, base: Settings, actor: str, name: str, value: Any) -> Any:
    """Store an override (validated); the audit entry holds the value in effect before."""
    value = validate(name, value)
    with store.session() as s:
        row = s.get(RuntimeSetting, name)
        old = json.loads(row.value) if row is not None else getattr(base, name)
        if row is None:
            s.add(RuntimeSetting(name=name, value=json.dumps(value), updated_by=actor))
        else:
            row.value, row.updated_by, row.updated_at = json.dumps(value), actor, datetime.now().astimezone()
        _audit(s, actor, name, "set", old, value)
    return value


def reset(store, base: Settings, actor: str, name: str) -> bool:
    """Drop an override: the environment's value applies again. False when none was set."""
    _field(name)
    with store.session() as s:
        row = s.get(RuntimeSetting, name)
        if row is None:
            return False
        old = json.loads(row.value)
        s.delete(row)
        _audit(s, actor, name, "reset", old, getattr(base, name))
    return True


def audit_log(store, *, kind: str | None = None, name: str | None = None,
              limit: int = 100) -> list[AuditEntry]:
    """The newest changes first (settings and system prompts)."""
    q = select(ConfigAudit).order_by(ConfigAudit.id.desc()).limit(max(1, min(limit, 10_000)))
    if kind:
        q = q.where(ConfigAudit.kind == kind)
    if name:
        q = q.where(ConfigAudit.name == name)
    with store.session() as s:
        return [AuditEntry(r.id, r.kind, r.name, r.action, _loads(r.old), _loads(r.new),
                           r.actor, r.at) for r in s.scalars(q).all()]


def _loads(v: str | None) -> Any:
    if v is None:
        return None
    try:
        return json.loads(v)
    except ValueError:
        return v


class Overlay:
    """The environment's settings with the stored overrides on top, re-read at most every
    CHECK_S seconds (one small query). A database that cannot be read keeps the overrides
    last read (logged), so a store hiccup does not change behaviour mid-flight."""

    def __init__(self, base: Settings):
        self.base = base
        self._store = None
        self._current, self._values = base, {}
        self._checked = 0.0
        self._lock = threading.Lock()

    def attach(self, store) -> None:
        self._store = store
        self._checked = 0.0

    def overridden(self) -> set[str]:
        """The names with a stored override (as last read)."""
        self.get()
        return set(self._values)

    def invalidate(self) -> None:
        """Re-read on the next access (this process changed an override)."""
        self._checked = 0.0

    def get(self) -> Settings:
        if self._store is None or time.monotonic() - self._checked < CHECK_S:
            return self._current
        with self._lock:
            if time.monotonic() - self._checked < CHECK_S:
                return self._current
            try:
                values = overrides(self._store)
            except Exception as e:  # noqa: BLE001 - keep the last overrides, say why
                log.warning("runtime settings not read (%s); the last ones stay", e)
                values = self._values
            if values != self._values or self._current is self.base and values:
                self._current = self.base.model_copy(update=values) if values else self.base
                self._values = values
            self._checked = time.monotonic()
            return self._current
