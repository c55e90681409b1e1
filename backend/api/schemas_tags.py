"""Request and response models of the tag routes (backend/api/routes_tags.py)."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from backend.api.schemas import Strict

TagList = list[str]


class TagsBody(Strict):
    tags: TagList = Field(..., max_length=50, description="tag names (trimmed, matched "
                          "case-insensitively, at most 50 characters each: letters, digits, "
                          "spaces and - _ . / + & #)")


class AddTagsBody(TagsBody):
    source: Literal["user", "suggestion"] = Field(
        "user", description="`suggestion`: accepted suggestions (the one-click accept)")


class TagOut(BaseModel):
    name: str
    source: str
    created_by: str


class TagsOut(BaseModel):
    document_id: int
    tags: list[TagOut]
    suggestions: list[str] = Field(description="tags suggested from the document's type, "
                                   "category and traits that it does not carry yet")
    changed: list[str] = Field(description="tags the request added or removed")


class TagCount(BaseModel):
    name: str
    documents: int


class TagVocabulary(BaseModel):
    tags: list[TagCount]
