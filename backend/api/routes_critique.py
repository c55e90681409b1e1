"""Critics and critique rounds (issue 26.1): `POST /api/critique` critiques a stored answer
or a given text and revises it in rounds; `GET /api/critics` lists the critics, `PATCH
/api/critics/{id}` edits one (admin). Parse, call backend/services/critique.py (which decides
who may do what), serialise."""
from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request

from backend.api.deps import known_query, needs, services
from backend.api.errors import ERROR_RESPONSES
from backend.api.schemas_critique import (
    CriticOut,
    CriticsOut,
    CriticUpdate,
    CritiqueOut,
    CritiqueRequest,
)
from backend.security.access import Actor
from backend.services import critique as critique_service

router = APIRouter(prefix="/api", tags=["critique"], responses=ERROR_RESPONSES,
                   dependencies=[Depends(known_query)])
CriticId = Annotated[int, Path(ge=1, le=2**53, description="the critic's `id`")]


@router.post("/critique", response_model=CritiqueOut,
             summary="Critique an answer or a text; revise it until the critics pass")
def critique(body: CritiqueRequest, request: Request, actor: Actor = Depends(needs("read"))):
    """Give `message_id` (an answer of your own session, as `/api/ask` returns it; checked
    against its stored sources) or `text` with its `sources`. Every active critic rates it
    0-10 with issues and suggestions; one below its threshold makes the model revise the
    text with the critiques, up to `rounds` times. Every round is stored; `status` is
    `validated` (passed as written), `revised` (a revision passed) or `failed`. The model:
    `RAGSCOPE_CRITIQUE_PROVIDER`, else the answer's own provider, else the chat default
    (chosen by the server's operator, not per request)."""
    rs = services(request)
    if (body.message_id is None) == (body.text is None):
        raise critique_service.CritiqueInputError(
            "text", "give `message_id` or `text`, not both and not neither")
    opts = dict(rounds=body.rounds, style_rules=body.style_rules,
                provider_factory=getattr(request.app.state, "provider_factory", None))
    if body.message_id is not None:
        if body.sources:
            raise critique_service.CritiqueInputError(
                "sources", "`sources` is for `text`; a stored answer is checked against its "
                "own sources")
        return critique_service.critique_message(rs, actor, body.message_id, **opts)
    return critique_service.critique_text(
        rs, actor, body.text, sources=[s.model_dump() for s in body.sources],
        question=body.question, **opts)


@router.get("/critics", response_model=CriticsOut, summary="The configured critics")
def critics(request: Request, actor: Actor = Depends(needs("read"))):
    found = critique_service.list_critics(services(request), actor)
    return {"critics": [c.to_dict() for c in found]}


@router.patch("/critics/{critic_id}", response_model=CriticOut, summary="Edit a critic")
def edit_critic(critic_id: CriticId, body: CriticUpdate, request: Request,
                actor: Actor = Depends(needs("admin"))):
    """Change a critic's name, type, prompt, rubric, threshold (0-10), active flag or
    position; fields left out stay. An LLM critic's prompt must contain `{answer}`."""
    info = critique_service.update_critic(services(request), actor, critic_id,
                                          **body.model_dump(exclude_none=True))
    return info.to_dict()
