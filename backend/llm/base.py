"""One streaming protocol for every answer generator: LLM providers (Ollama, Anthropic,
OpenAI-compatible servers) and the built-in extractive answerer.

`provider.stream(request)` yields `TextDelta`s and ends with exactly one `StreamEnd` carrying
the usage the provider reported (None where it reported none). Every failure — connection
refused, timeout, HTTP 429/5xx, a stream that breaks off — is raised as `ProviderFailure`
(a `ProviderUnavailable`) with a short `kind`, never as a library exception."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Literal, Protocol, Union, runtime_checkable

from backend.errors import ProviderUnavailable

FailureKind = Literal["connection", "timeout", "rate_limited", "server_error", "bad_request",
                      "auth", "broken_stream", "config", "start"]


class ProviderFailure(ProviderUnavailable):
    """A provider could not answer. `kind` says why; `status` is the HTTP status if any."""

    def __init__(self, provider: str, kind: FailureKind, detail: str = "",
                 status: int | None = None):
        self.provider = provider
        self.kind = kind
        self.status = status
        self.detail = detail
        what = {"connection": "cannot be reached", "timeout": "timed out",
                "rate_limited": "is rate limiting requests (HTTP 429)",
                "server_error": f"answered with a server error (HTTP {status})",
                "bad_request": f"refused the request (HTTP {status})",
                "auth": "refused the credentials", "broken_stream": "broke off the answer stream",
                "config": "is not configured", "start": "could not be started"}[kind]
        msg = f"{provider} {what}"
        super().__init__(f"{msg}: {detail}" if detail else msg)


@dataclass(frozen=True)
class Message:
    role: Literal["user", "assistant"]
    content: str


@dataclass(frozen=True)
class Evidence:
    """One numbered source as the prompt shows it (n starts at 1)."""

    n: int
    text: str
    document: str = ""
    section: str = ""
    page: int | None = None
    score: float = 0.0


@dataclass
class GenerationRequest:
    """What a generator gets. LLM providers use `system` and `messages` (the last message is
    the user turn with the evidence block and the question); the extractive answerer uses
    `question` and `evidence` directly."""

    model: str
    system: str
    messages: list[Message]
    question: str = ""
    evidence: list[Evidence] = field(default_factory=list)
    temperature: float = 0.7
    max_tokens: int = 1024


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class StreamEnd:
    model: str
    input_tokens: int | None = None  # None: the provider reported no usage
    output_tokens: int | None = None
    stop_reason: str = ""


StreamEvent = Union[TextDelta, StreamEnd]


@runtime_checkable
class Provider(Protocol):
    name: str  # "extractive" | "ollama" | "anthropic" | "openai" | "local"
    local: bool  # runs on this machine / in the organisation: cost "local"
    default_model: str

    def stream(self, request: GenerationRequest) -> Iterator[StreamEvent]:
        """Yield text deltas, then one StreamEnd. Raises ProviderFailure."""
        ...


def openai_style_messages(request: GenerationRequest) -> list[dict]:
    """System + conversation as the chat-completions / Ollama message list."""
    out = [{"role": "system", "content": request.system}] if request.system else []
    return out + [{"role": m.role, "content": m.content} for m in request.messages]
