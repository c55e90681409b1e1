"""Any OpenAI-compatible server (vLLM, llama.cpp server, LM Studio, OpenAI itself) through
the official SDK with a base URL: chat completions with `stream: true` (server-sent events of
`chat.completion.chunk`, ended by `data: [DONE]`). Usage is asked for with
`stream_options.include_usage` (a last chunk with empty choices); servers that send none are
counted locally by the caller."""
from __future__ import annotations

from typing import Iterator

import openai

from backend.llm.base import (
    GenerationRequest,
    ProviderFailure,
    StreamEnd,
    StreamEvent,
    TextDelta,
    openai_style_messages,
)


class OpenAICompatProvider:
    name = "openai"
    local = True  # a self-hosted server; priced models are recognised by the pricing table

    def __init__(self, base_url: str, default_model: str, *, api_key: str | None = None,
                 connect_timeout_s: float = 5.0, read_timeout_s: float = 60.0,
                 max_retries: int = 1, stream_usage: bool = True):
        self.default_model = default_model
        self.base_url = base_url
        self.stream_usage = stream_usage
        # Local servers ignore the key, but the SDK insists on one: pass a placeholder
        # rather than letting it read OPENAI_API_KEY from the environment.
        self._client = openai.OpenAI(
            base_url=base_url, api_key=api_key or "not-needed", max_retries=max_retries,
            timeout=openai.Timeout(read_timeout_s, connect=connect_timeout_s))

    def stream(self, request: GenerationRequest) -> Iterator[StreamEvent]:
        model = request.model or self.default_model
        if not model:
            raise ProviderFailure(self.name, "config", "no model name (RAGSCOPE_OPENAI_MODEL)")
        kwargs = dict(model=model, messages=openai_style_messages(request), stream=True,
                      temperature=request.temperature, max_tokens=request.max_tokens)
        if self.stream_usage:
            kwargs["stream_options"] = {"include_usage": True}
        usage, finish, seen_model = None, None, model
        try:
            stream = self._client.chat.completions.create(**kwargs)
            with stream:
                for chunk in stream:
                    seen_model = chunk.model or seen_model
                    if chunk.usage is not None:
                        usage = chunk.usage
                    for choice in chunk.choices or []:
                        text = getattr(choice.delta, "content", None) if choice.delta else None
                        if text:
                            yield TextDelta(text)
                        if choice.finish_reason:
                            finish = choice.finish_reason
        except openai.APIStatusError as e:
            raise _status_failure(e, self.name) from e
        except openai.APITimeoutError as e:
            raise ProviderFailure(self.name, "timeout", type(e).__name__) from e
        except openai.APIConnectionError as e:
            raise ProviderFailure(self.name, "connection", f"{self.base_url}: {e}") from e
        except openai.OpenAIError as e:
            raise ProviderFailure(self.name, "broken_stream", f"{type(e).__name__}: {e}") from e
        except Exception as e:  # transport errors of the SDK's HTTP library mid-stream
            if not type(e).__module__.startswith(("httpx", "httpcore", "h11")):
                raise
            raise ProviderFailure(self.name, "broken_stream", f"{type(e).__name__}: {e}") from e
        if finish is None:
            raise ProviderFailure(self.name, "broken_stream",
                                  "the stream ended without a finish_reason")
        yield StreamEnd(model=seen_model,
                        input_tokens=usage.prompt_tokens if usage else None,
                        output_tokens=usage.completion_tokens if usage else None,
                        stop_reason=finish)


def _status_failure(e: "openai.APIStatusError", provider: str) -> ProviderFailure:
    code = e.status_code
    kind = ("rate_limited" if code == 429 else "server_error" if code >= 500
            else "auth" if code in (401, 403) else "bad_request")
    msg = e.message if isinstance(getattr(e, "message", None), str) else str(e)
    return ProviderFailure(provider, kind, msg[:300], code)
