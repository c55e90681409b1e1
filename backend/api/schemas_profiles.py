"""Request and response bodies of `/api/profiles` (author profiles, issue 26). The field
rules themselves (choices, lengths, limits) are the service's (backend/chat/profile_rules.py):
its error names the field, and the API answers 422 with that field."""
from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from backend.chat.profile_rules import ADDRESSES, FORMALITIES, OUTPUT_FORMATS


class _Fields(BaseModel):
    model_config = ConfigDict(extra="forbid")

    description: str | None = Field(None, description="what the profile is for")
    tone: str | None = Field(None, description="free text, e.g. 'sachlich, präzise'")
    formality: str | None = Field(None, description=f"one of {', '.join(FORMALITIES)}")
    address: str | None = Field(None, description="form of address: "
                                                  f"{', '.join(ADDRESSES)} (sie/du: German)")
    max_sentence_words: int | None = Field(None, description="longest sentence in words "
                                                             "(5–100); null: no limit")
    forbidden_words: list[str] | None = Field(None, description="words and forms never used "
                                                                "(whole words, any case)")
    output_format: str | None = Field(None, description=f"{', '.join(OUTPUT_FORMATS)} "
                                                        "('reiner Text' means plain)")
    extra_rules: str | None = Field(None, description="more style rules, one a line")


class ProfileCreate(_Fields):
    name: str = Field(..., description="unique, 1–100 characters")


class ProfileUpdate(_Fields):
    """Only the fields given change."""

    name: str | None = Field(None, description="unique, 1–100 characters")


class ProfileOut(BaseModel):
    id: int
    name: str
    description: str
    tone: str
    formality: str
    address: str
    max_sentence_words: int | None
    forbidden_words: list[str]
    output_format: str
    extra_rules: str
    style_rules: dict[str, str] = Field(description="the rules as prompt text, by language")
    in_use: dict[str, int] = Field(description="chat sessions and chatbots that use it")
    created_by: str
    updated_by: str
    created_at: datetime | None
    updated_at: datetime | None


class ProfileList(BaseModel):
    profiles: list[ProfileOut]


class ProfileDeleted(BaseModel):
    deleted: int
    name: str
    sessions_reset: int = Field(description="chat sessions that now use no profile")
    chatbots_reset: int = Field(description="chatbots that now use no profile")
    message: str
