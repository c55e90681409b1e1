"""The admin's run-time configuration, as every front door uses it (Settings page, HTTP API,
CLI): system prompt versions (backend/chat/prompt_versions.py), run-time overrides of the safe
settings with their audit log (backend/store/runtime_settings.py) and the state of the
domain-rule files (backend/config/domain_rules.py). Every function checks the actor here, so
the rule "admins only" holds in all doors: others get PermissionDenied."""
from __future__ import annotations

from typing import Any

from backend.chat import prompt_versions
from backend.config import domain_rules
from backend.security import auth
from backend.store import runtime_settings as rt


def _admin(actor) -> None:
    auth.require(actor.role, "settings")


# ---- system prompts ---------------------------------------------------------------------


def prompt_versions_of(rs, actor, scope: str) -> list[prompt_versions.PromptVersion]:
    _admin(actor)
    return prompt_versions.versions(rs.store, scope)


def prompt_version(rs, actor, scope: str, version: int | None = None) -> dict[str, Any]:
    """One version with the whole rules block the model gets with it."""
    _admin(actor)
    v = prompt_versions.get(rs.store, scope, version)
    return {**v.to_dict(), "scope": scope,
            "system_block": prompt_versions.full_text(rs.store, scope, v.version)}


def create_prompt(rs, actor, scope: str, text: str, note: str = "",
                  activate: bool = False) -> prompt_versions.PromptVersion:
    return prompt_versions.create(rs.store, actor, scope, text, note, make_active=activate)


def activate_prompt(rs, actor, scope: str, version: int) -> prompt_versions.PromptVersion:
    return prompt_versions.activate(rs.store, actor, scope, version)


def prompt_diff(rs, actor, scope: str, a: int, b: int) -> str:
    _admin(actor)
    return prompt_versions.diff(rs.store, scope, a, b)


# ---- run-time settings ------------------------------------------------------------------


def editable_settings(rs, actor) -> list[dict[str, Any]]:
    """The safe settings: value in effect, the environment's value, whether overridden, the
    type and bounds, and the help text."""
    _admin(actor)
    from backend.config import Settings

    now, base = rs.settings, rs.base_settings
    stored = rs.settings_overlay.overridden()
    rows = []
    for name in rt.SAFE:
        f = Settings.model_fields[name]
        bounds = {k: getattr(m, k) for m in f.metadata for k in ("ge", "gt", "le", "lt")
                  if getattr(m, k, None) is not None}
        rows.append({"name": name, "value": getattr(now, name), "default": getattr(base, name),
                     "overridden": name in stored,
                     "type": str(f.annotation).replace("typing.", ""), "bounds": bounds,
                     "help": f.description or ""})
    return rows


def set_setting(rs, actor, name: str, value: Any) -> Any:
    """Override one safe setting (validated with the setting's type and bounds); the next
    question uses it in this process at once, in others within 2 s."""
    _admin(actor)
    v = rt.set_value(rs.store, rs.base_settings, actor.username, name, value)
    rs.settings_overlay.invalidate()
    return v


def reset_setting(rs, actor, name: str) -> bool:
    _admin(actor)
    done = rt.reset(rs.store, rs.base_settings, actor.username, name)
    rs.settings_overlay.invalidate()
    return done


def audit(rs, actor, *, kind: str | None = None, name: str | None = None,
          limit: int = 100) -> list[rt.AuditEntry]:
    """Who changed which setting or system prompt when, from what to what; newest first."""
    _admin(actor)
    if kind not in (None, "setting", "prompt"):
        raise rt.RuntimeSettingError(f"kind: 'setting' or 'prompt', not {kind!r}")
    return rt.audit_log(rs.store, kind=kind, name=name, limit=limit)


# ---- domain rules -----------------------------------------------------------------------


def domain_rules_status(rs) -> dict[str, Any]:
    """The domain-rule files in use and the error of a bad edit (then the last good rules
    stay in use): shown by `status`, the Settings page and `GET /api/admin/domain-rules`."""
    return domain_rules.status(rs.settings.domain_config_dir or None)
