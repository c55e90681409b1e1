"""Author profiles (issue 26, seed 000): list, read, create, change and delete the style
rules chat sessions and chatbots write by. Parse, call ProfileService
(backend/chat/profiles.py), serialise; nothing else.

Scopes: reading needs `read`; creating, changing and deleting need `write` (the editor's
right, as on the dashboard's Author profiles page). A profile is named by its id."""
from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request

from backend.api.deps import known_query, needs, services
from backend.api.errors import ERROR_RESPONSES
from backend.api.schemas_profiles import (
    ProfileCreate,
    ProfileDeleted,
    ProfileList,
    ProfileOut,
    ProfileUpdate,
)
from backend.chat.profiles import AuthorProfile, ProfileService
from backend.security.access import Actor

router = APIRouter(prefix="/api/profiles", tags=["profiles"], responses=ERROR_RESPONSES,
                   dependencies=[Depends(known_query)])
ProfileId = Annotated[int, Path(ge=1, le=2**53, description="the profile's id")]


def _svc(request: Request) -> ProfileService:
    return ProfileService(services(request))


def _out(svc: ProfileService, p: AuthorProfile) -> dict:
    sessions, bots = svc.usage(p.id)
    return {**p.to_dict(), "style_rules": {"en": p.style_rules_text("en"),
                                           "de": p.style_rules_text("de")},
            "in_use": {"sessions": sessions, "chatbots": bots}}


@router.get("", response_model=ProfileList, summary="Author profiles")
def list_profiles(request: Request, actor: Actor = Depends(needs("read"))):
    """Every profile, by name."""
    svc = _svc(request)
    return {"profiles": [_out(svc, p) for p in svc.list()]}


@router.post("", response_model=ProfileOut, status_code=201,
             summary="Create an author profile (write scope)")
def create_profile(body: ProfileCreate, request: Request,
                   actor: Actor = Depends(needs("write"))):
    """A bad or duplicate field is named (422, `error.field`)."""
    svc = _svc(request)
    return _out(svc, svc.create(actor, **body.model_dump(exclude_none=True)))


@router.get("/{profile_id}", response_model=ProfileOut, summary="One author profile")
def show_profile(profile_id: ProfileId, request: Request,
                 actor: Actor = Depends(needs("read"))):
    svc = _svc(request)
    return _out(svc, svc.show(profile_id))


@router.put("/{profile_id}", response_model=ProfileOut,
            summary="Change an author profile (write scope)")
def update_profile(profile_id: ProfileId, body: ProfileUpdate, request: Request,
                   actor: Actor = Depends(needs("write"))):
    """Only the fields given change; `max_sentence_words: 0` removes the limit."""
    svc = _svc(request)
    return _out(svc, svc.update(actor, profile_id, **body.model_dump(exclude_unset=True)))


@router.delete("/{profile_id}", response_model=ProfileDeleted,
               summary="Delete an author profile (write scope)")
def delete_profile(profile_id: ProfileId, request: Request,
                   actor: Actor = Depends(needs("write"))):
    """Sessions and chatbots that used it fall back to no profile (counted in the answer)."""
    done = _svc(request).delete(actor, profile_id)
    return {"deleted": done.profile.id, "name": done.profile.name,
            "sessions_reset": done.sessions, "chatbots_reset": done.chatbots,
            "message": done.message()}
