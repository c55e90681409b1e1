"""Run-time configuration for admin tokens (issue 26, item 7): system prompt versions, the
safe settings editable at run time, the audit log of both, and the state of the domain-rule
files. Parse, call backend/services/admin_config.py (which refuses non-admins), serialise.
Every route needs a token with the `admin` scope (others: 403)."""
from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, Path, Query, Request
from pydantic import BaseModel, Field

from backend.api.deps import known_query, needs, services
from backend.api.errors import ERROR_RESPONSES
from backend.security.access import Actor
from backend.services import admin_config as svc

router = APIRouter(prefix="/api/admin", tags=["admin"], responses=ERROR_RESPONSES,
                   dependencies=[Depends(known_query)])
Scope = Annotated[Literal["chat", "chatbots"], Path(description="chat (dashboard chat, "
                                                    "/api/ask) or chatbots")]
Version = Annotated[int, Path(ge=0, le=2**31 - 1, description="0: the built-in default")]
SettingName = Annotated[str, Path(max_length=100, pattern=r"^[a-z0-9_]+$")]


class PromptCreate(BaseModel):
    text: str = Field(max_length=20_000, description="the house rules (fixed rules stay first)")
    note: str = Field("", max_length=500, description="why this version")
    activate: bool = Field(False, description="make it the active version at once")


class SettingValue(BaseModel):
    value: Any = Field(description="a number, true/false, a choice or null, as the setting takes")


@router.get("/prompts/{scope}", summary="System prompt versions, newest first")
def prompt_list(scope: Scope, request: Request, actor: Actor = Depends(needs("admin"))):
    """Every version of the scope's house rules and which one is active (version 0: the
    built-in default)."""
    return {"scope": scope, "versions": [v.to_dict() for v in
                                         svc.prompt_versions_of(services(request), actor, scope)]}


@router.get("/prompts/{scope}/active", summary="The active system prompt")
def prompt_active(scope: Scope, request: Request, actor: Actor = Depends(needs("admin"))):
    """The active version with `system_block`, the whole rules block the model gets."""
    return svc.prompt_version(services(request), actor, scope)


@router.get("/prompts/{scope}/diff", summary="Diff of two system prompt versions")
def prompt_diff(scope: Scope, request: Request,
                a: Annotated[int, Query(ge=0, le=2**31 - 1)],
                b: Annotated[int, Query(ge=0, le=2**31 - 1)],
                actor: Actor = Depends(needs("admin"))):
    return {"scope": scope, "a": a, "b": b,
            "diff": svc.prompt_diff(services(request), actor, scope, a, b)}


@router.get("/prompts/{scope}/{version}", summary="One system prompt version")
def prompt_show(scope: Scope, version: Version, request: Request,
                actor: Actor = Depends(needs("admin"))):
    return svc.prompt_version(services(request), actor, scope, version)


@router.post("/prompts/{scope}", status_code=201, summary="Create a system prompt version")
def prompt_create(scope: Scope, body: PromptCreate, request: Request,
                  actor: Actor = Depends(needs("admin"))):
    """The next version number; audited. With `activate`, the next answer uses it."""
    return svc.create_prompt(services(request), actor, scope, body.text, body.note,
                             body.activate).to_dict()


@router.post("/prompts/{scope}/{version}/activate", summary="Activate a system prompt version")
def prompt_activate(scope: Scope, version: Version, request: Request,
                    actor: Actor = Depends(needs("admin"))):
    """One active version per scope; 0 returns to the built-in default. Audited."""
    return svc.activate_prompt(services(request), actor, scope, version).to_dict()


@router.get("/settings", summary="Settings editable at run time")
def settings_list(request: Request, actor: Actor = Depends(needs("admin"))):
    """The safe subset (weights, limits, context sizes): value in effect, the environment's
    value, type, bounds, help."""
    return {"settings": svc.editable_settings(services(request), actor)}


@router.put("/settings/{name}", summary="Override a setting at run time")
def setting_set(name: SettingName, request: Request, body: SettingValue = Body(),
                actor: Actor = Depends(needs("admin"))):
    """Validated with the setting's type and bounds (422 naming the setting otherwise);
    audited; applies to the next request in every process within 2 s."""
    return {"name": name, "value": svc.set_setting(services(request), actor, name, body.value)}


@router.delete("/settings/{name}", summary="Drop a run-time override")
def setting_reset(name: SettingName, request: Request, actor: Actor = Depends(needs("admin"))):
    return {"name": name, "reset": svc.reset_setting(services(request), actor, name)}


@router.get("/audit", summary="Audit log of settings and system prompts")
def audit_log(request: Request, kind: Annotated[Literal["setting", "prompt"] | None, Query()] = None,
              name: Annotated[str | None, Query(max_length=100)] = None,
              limit: Annotated[int, Query(ge=1, le=1000)] = 100,
              actor: Actor = Depends(needs("admin"))):
    """Who changed what, when, old and new value; newest first."""
    return {"entries": [e.to_dict() for e in svc.audit(services(request), actor, kind=kind,
                                                        name=name, limit=limit)]}


@router.get("/domain-rules", summary="State of the domain-rule YAML files")
def domain_rules(request: Request, actor: Actor = Depends(needs("admin"))):
    """Files, counts, and the error of a bad edit (file, line, field; the last good rules
    stay in use)."""
    return svc.domain_rules_status(services(request))
