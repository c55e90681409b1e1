"""Anthropic through the official SDK: `client.messages.stream(...)` (server-sent events
message_start … content_block_delta … message_delta … message_stop). Usage comes from the
final message (input tokens from message_start, output tokens from message_delta).
The API key and base URL come from the settings only (never from the SDK's own environment
lookup). The temperature is always sent: as the SDK's parameter where the installed SDK
still has it, else in the request body through `extra_body` (SDK 2.15's `messages.stream`
dropped the parameter; the Messages API still takes `temperature`, 0.0–1.0)."""
from __future__ import annotations

import inspect
from typing import Iterator

import anthropic

from backend.llm.base import GenerationRequest, ProviderFailure, StreamEnd, StreamEvent, TextDelta


_SDK_HAS_TEMPERATURE = "temperature" in inspect.signature(
    anthropic.resources.messages.Messages.stream).parameters


class AnthropicProvider:
    name = "anthropic"
    local = False

    def __init__(self, api_key: str | None, default_model: str, *, base_url: str,
                 connect_timeout_s: float = 5.0, read_timeout_s: float = 60.0,
                 max_retries: int = 1):
        self.default_model = default_model
        self._api_key = api_key
        self._client = None
        if api_key:
            self._client = anthropic.Anthropic(
                api_key=api_key, base_url=base_url, max_retries=max_retries,
                timeout=anthropic.Timeout(read_timeout_s, connect=connect_timeout_s))

    def stream(self, request: GenerationRequest) -> Iterator[StreamEvent]:
        if self._client is None:
            raise ProviderFailure(self.name, "config", "set RAGSCOPE_ANTHROPIC_API_KEY")
        model = request.model or self.default_model
        kwargs = dict(model=model, max_tokens=request.max_tokens, system=request.system,
                      messages=[{"role": m.role, "content": m.content}
                                for m in request.messages])
        if _SDK_HAS_TEMPERATURE:
            kwargs["temperature"] = request.temperature
        else:
            kwargs["extra_body"] = {"temperature": request.temperature}
        if not request.system:
            kwargs.pop("system")
        ended = opened = False
        try:
            with self._client.messages.stream(**kwargs) as stream:
                opened = True  # the response's head has arrived
                for text in _texts(stream):
                    yield TextDelta(text)
                final = stream.get_final_message()
                ended = True
        except anthropic.APIStatusError as e:
            raise _status_failure(e) from e
        except anthropic.APITimeoutError as e:
            raise ProviderFailure(self.name, "timeout", type(e).__name__) from e
        except anthropic.APIConnectionError as e:
            # the SDK (2.x) wraps a transport error mid-stream in its connection error too:
            # after the head arrived, the answer's stream broke off
            kind = "broken_stream" if opened else "connection"
            raise ProviderFailure(self.name, kind, str(e)[:300]) from e
        except anthropic.AnthropicError as e:
            raise ProviderFailure(self.name, "broken_stream", f"{type(e).__name__}: {e}") from e
        except Exception as e:  # transport errors of the SDK's HTTP library mid-stream
            if not type(e).__module__.startswith(("httpx", "httpcore", "anyio", "h11")):
                raise
            raise ProviderFailure(self.name, "broken_stream", f"{type(e).__name__}: {e}") from e
        if not ended or final.stop_reason is None:
            raise ProviderFailure(self.name, "broken_stream", "the stream ended without "
                                  "message_stop")
        usage = final.usage
        yield StreamEnd(model=final.model or model, input_tokens=usage.input_tokens,
                        output_tokens=usage.output_tokens, stop_reason=final.stop_reason or "")


def _texts(stream) -> Iterator[str]:
    for event in stream:
        if event.type == "content_block_delta" and getattr(event.delta, "type", "") == "text_delta":
            yield event.delta.text
        elif event.type == "error":  # pragma: no cover - an error event inside the stream
            raise ProviderFailure(AnthropicProvider.name, "server_error", str(event)[:300])


def _status_failure(e: "anthropic.APIStatusError") -> ProviderFailure:
    code = e.status_code
    kind = ("rate_limited" if code == 429 else "server_error" if code >= 500
            else "auth" if code in (401, 403) else "bad_request")
    return ProviderFailure(AnthropicProvider.name, kind, _message(e), code)


def _message(e: Exception) -> str:
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        err = body.get("error")
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])[:300]
    return str(e)[:300]
