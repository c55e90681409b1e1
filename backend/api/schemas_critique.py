"""Request and response models of the critique routes (backend/api/routes_critique.py)."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from backend.api.schemas import Strict

CriticType = Literal["fact", "style", "structure", "format"]


class CritiqueSource(Strict):
    title: str = Field("", max_length=500)
    text: str = Field(..., min_length=1, max_length=50_000)


class CritiqueRequest(Strict):
    message_id: int | None = Field(None, ge=1, le=2**53, description="a stored answer "
                                   "(`message_id` of /api/ask); or give `text`")
    text: str | None = Field(None, min_length=1, max_length=100_000,
                             description="a text to critique instead (a summary, a draft)")
    question: str = Field("", max_length=4000, description="the question `text` answers")
    sources: list[CritiqueSource] = Field(default_factory=list, max_length=20,
                                          description="the numbered sources of `text`")
    rounds: int | None = Field(None, ge=0, le=10, description="revisions at most; default "
                               "RAGSCOPE_CRITIQUE_MAX_ROUNDS")
    style_rules: str | None = Field(None, max_length=20_000,
                                    description="the stylist's rules; default: the format "
                                    "checker's active rules")


class CritiqueOut(BaseModel):
    """Feedback in the seed's format per critic and round (docs/chat.md "Critics")."""

    id: int
    message_id: int | None
    kind: str
    status: Literal["running", "validated", "revised", "failed", "interrupted"]
    rounds: int
    max_rounds: int
    provider: str
    model: str
    original_text: str
    final_text: str
    error: str
    duration_ms: float | None
    created_at: str | None
    critique_rounds: list[dict]


class CriticOut(BaseModel):
    id: int
    name: str
    type: CriticType
    prompt: str
    rubric: str
    threshold: float
    active: bool
    position: int
    deterministic: bool


class CriticsOut(BaseModel):
    critics: list[CriticOut]


class CriticUpdate(Strict):
    name: str | None = Field(None, min_length=1, max_length=100)
    type: CriticType | None = None
    prompt: str | None = Field(None, max_length=20_000)
    rubric: str | None = Field(None, max_length=20_000)
    threshold: float | None = Field(None, ge=0, le=10)
    active: bool | None = None
    position: int | None = Field(None, ge=0, le=1000)
