"""Types of the chat: the input error, per-session settings (validated), session and
message views, and the events `ChatService.ask_stream` yields."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime

from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from backend.chat.format_check import PROFILES
from backend.errors import RagscopeError
from backend.llm import PROVIDERS
from backend.llm.limits import TEMPERATURE_CAP, temperature_error
from backend.retrieval import POLICIES
from backend.store.chat_models import DEFAULT_TITLE

CONTEXT_LIMITS = (3, 5, 10, 15)
CONTEXT_MODES = ("regular", "full")
CONTEXT_LABELS = {"regular": "Regular (last 25 lines)", "full": "Full context (500 lines)"}
MAX_OUTPUT_TOKENS = 8192
TITLE_CHARS = 60


class ChatInputError(RagscopeError):
    """A chat message or session setting is not acceptable (empty, too long, bad value)."""


class SessionSettings(BaseModel):
    """What a session may configure; validated on create and update."""

    model_config = {"extra": "forbid"}

    provider: str = "extractive"
    model: str = Field("", max_length=200)
    collections: list[str] = Field(default_factory=list)
    context_limit: int = 5
    # 0–2 where the provider allows it (Anthropic 1.0; backend/llm/limits.py)
    temperature: float = Field(0.7, ge=0.0, le=TEMPERATURE_CAP)
    max_tokens: int = Field(1024, ge=1, le=MAX_OUTPUT_TOKENS)
    policy: str = "hybrid"
    system_prompt: str = Field("", max_length=20_000)
    answer_profile: str = "markdown"
    # how much of the conversation answers see: regular (RAGSCOPE_CHAT_CONTEXT_LINES, 25) or
    # full (RAGSCOPE_CHAT_FULL_CONTEXT_LINES, 500), seed 004
    context_mode: Literal["regular", "full"] = "regular"
    # the author profile (style rules) answers write by (backend/chat/profiles.py); None: none
    profile_id: int | None = Field(None, ge=1)
    tags: list[str] = Field(default_factory=list, max_length=50,
                            description="answer only from documents with one of these tags")

    @field_validator("provider")
    @classmethod
    def _provider(cls, v: str) -> str:
        if v not in PROVIDERS:
            raise ValueError(f"unknown provider {v!r}; choose one of {', '.join(PROVIDERS)}")
        return v

    @field_validator("context_limit")
    @classmethod
    def _limit(cls, v: int) -> int:
        if v not in CONTEXT_LIMITS:
            raise ValueError(f"context limit must be one of {CONTEXT_LIMITS}")
        return v

    @field_validator("policy")
    @classmethod
    def _policy(cls, v: str) -> str:
        if v not in POLICIES:
            raise ValueError(f"unknown retrieval policy {v!r}")
        return v

    @field_validator("answer_profile")
    @classmethod
    def _profile(cls, v: str) -> str:
        if v not in PROFILES:
            raise ValueError(f"unknown answer profile {v!r}; choose one of {', '.join(PROFILES)}")
        return v

    @model_validator(mode="after")
    def _temperature(self):
        if self.provider in PROVIDERS and (msg := temperature_error(self.provider,
                                                                     self.temperature)):
            raise ValueError(f"temperature: {msg}")
        return self

    @field_validator("tags")
    @classmethod
    def _tags(cls, v: list[str]) -> list[str]:
        from backend.store.tags import normalise_all

        try:
            return sorted(normalise_all(v, "tags").values(), key=str.casefold)
        except RagscopeError as e:  # a ValueError, so that it reads like the others
            raise ValueError(str(e)) from e

    @field_validator("collections")
    @classmethod
    def _collections(cls, v: list[str]) -> list[str]:
        return sorted({c.strip() for c in v if c and c.strip()})


SETTING_FIELDS = tuple(SessionSettings.model_fields)


@dataclass
class SessionInfo:
    uuid: str
    title: str
    user: str | None
    settings: SessionSettings
    created_at: datetime
    last_activity: datetime
    messages: int = 0
    tokens_input: int = 0
    tokens_output: int = 0
    cost_usd: float = 0.0
    cost_unknown: bool = False  # some answer's model had no price
    chatbot_id: int | None = None  # a chatbot's conversation: the `chatbots` system prompt


@dataclass
class MessageInfo:
    id: int
    role: str
    content: str
    created_at: datetime
    sources: list[dict] = field(default_factory=list)
    citations: dict = field(default_factory=dict)
    format_check: dict = field(default_factory=dict)
    collections: list[str] = field(default_factory=list)
    provider: str = ""
    model: str = ""
    tokens_input: int | None = None
    tokens_output: int | None = None
    tokens_counted_locally: bool = False
    cost_usd: float | None = None
    cost_label: str = "local"
    latency_ms: float | None = None
    first_token_ms: float | None = None
    retrieval_ms: float | None = None
    trace_id: str | None = None
    fallback: bool = False
    notice: str | None = None
    rewrite: dict | None = None  # a follow-up's retrieval query and why (chat/followup.py)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["created_at"] = self.created_at.isoformat()
        return d


@dataclass(frozen=True)
class Retrieved:
    sources: list[dict]
    trace_id: str
    retrieval_ms: float


@dataclass(frozen=True)
class Delta:
    text: str


@dataclass(frozen=True)
class Fallback:
    notice: str


@dataclass(frozen=True)
class Critiquing:
    """The stored answer `message_id` is being critiqued (RAGSCOPE_CRITIQUE_AUTO); an
    `Answered` with the final text follows."""

    message_id: int


@dataclass(frozen=True)
class Answered:
    message: MessageInfo
    session: SessionInfo


@dataclass
class Generated:
    """An answer before it is stored (`ChatService.answer_stream`'s last event). `mode`:
    "answer", "abstained" (the evidence was too weak: the "nothing found" message, no model
    asked) or "inventory" (a document list from the retrieval module's inventory mode)."""

    text: str
    sources: list[dict]
    evidence: list  # [Evidence] as given to the answerer
    citations: dict
    format_check: dict
    provider: str
    model: str
    tokens_input: int
    tokens_output: int
    tokens_counted_locally: bool
    cost_usd: float | None
    cost_label: str
    latency_ms: float
    first_token_ms: float | None
    retrieval_ms: float
    trace_id: str | None
    fallback: bool = False
    notice: str | None = None
    mode: str = "answer"


def make_title(question: str) -> str:
    text = " ".join(question.split())
    if len(text) <= TITLE_CHARS:
        return text or DEFAULT_TITLE
    cut = text[:TITLE_CHARS].rsplit(" ", 1)[0] or text[:TITLE_CHARS]
    return cut.rstrip(" ,;:") + "…"
