"""Feedback on answers (issue 23): rate an answer of `/api/ask` (its `message_id`) or of a
chatbot's `/api/chatbots/{slug}/ask` with a thumbs up or down and an optional note. Parse,
call backend/services/feedback.py (which decides who may rate what), serialise."""
from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request

from backend.api.deps import known_query, needs, services
from backend.api.errors import ERROR_RESPONSES
from backend.api.schemas import FeedbackOut, FeedbackRequest
from backend.security.access import Actor
from backend.services import feedback as feedback_service

router = APIRouter(prefix="/api/chat", tags=["feedback"], responses=ERROR_RESPONSES,
                   dependencies=[Depends(known_query)])
MessageId = Annotated[int, Path(ge=1, le=2**53, description="the answer's `message_id`")]


@router.post("/messages/{message_id}/feedback", response_model=FeedbackOut,
             summary="Rate an answer (thumbs up or down, optional note)")
def rate_answer(message_id: MessageId, body: FeedbackRequest, request: Request,
                actor: Actor = Depends(needs("read"))):
    """Your rating of an answer of your own session (`rating: null` withdraws it). An answer
    of another session, another visitor's chatbot conversation or a bot you no longer see is
    not found (404), as one that does not exist. Rating again replaces your rating."""
    fb = feedback_service.rate(services(request), actor, message_id, body.rating, body.note)
    return {"message_id": message_id, "rated": fb is not None,
            **(fb.to_dict() if fb is not None else {})}
