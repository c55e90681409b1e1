"""Ollama through its HTTP API: POST /api/chat with `stream: true` answers with NDJSON lines
`{"message": {"content": ...}, "done": false}` and a last line `{"done": true,
"prompt_eval_count": N, "eval_count": M, ...}`; an error is `{"error": "..."}`."""
from __future__ import annotations

import json
from typing import Iterator

import httpx

from backend.llm.base import (
    GenerationRequest,
    ProviderFailure,
    StreamEnd,
    StreamEvent,
    TextDelta,
    openai_style_messages,
)


class OllamaProvider:
    name = "ollama"
    local = True

    def __init__(self, base_url: str, default_model: str, *, connect_timeout_s: float = 5.0,
                 read_timeout_s: float = 60.0):
        if not base_url.startswith(("http://", "https://")):
            raise ProviderFailure(self.name, "config", f"base URL {base_url!r} is not http(s)")
        self.base_url = base_url.rstrip("/")
        self.default_model = default_model
        self.timeout = httpx.Timeout(read_timeout_s, connect=connect_timeout_s)

    def stream(self, request: GenerationRequest) -> Iterator[StreamEvent]:
        model = request.model or self.default_model
        body = {"model": model, "messages": openai_style_messages(request), "stream": True,
                "options": {"temperature": request.temperature,
                            "num_predict": request.max_tokens}}
        try:
            with httpx.Client(timeout=self.timeout) as client, client.stream(
                    "POST", f"{self.base_url}/api/chat", json=body) as resp:
                if resp.status_code != 200:
                    resp.read()
                    raise _status_failure(resp)
                yield from self._lines(resp, model)
        except ProviderFailure:
            raise
        except httpx.TimeoutException as e:
            raise ProviderFailure(self.name, "timeout", type(e).__name__) from e
        except httpx.ConnectError as e:
            raise ProviderFailure(self.name, "connection", f"{self.base_url}: {e}") from e
        except (httpx.HTTPError, json.JSONDecodeError) as e:
            raise ProviderFailure(self.name, "broken_stream", f"{type(e).__name__}: {e}") from e

    def _lines(self, resp: httpx.Response, model: str) -> Iterator[StreamEvent]:
        for line in resp.iter_lines():
            if not line.strip():
                continue
            data = json.loads(line)
            if data.get("error"):
                raise ProviderFailure(self.name, "server_error", str(data["error"])[:300], 200)
            text = (data.get("message") or {}).get("content") or ""
            if text:
                yield TextDelta(text)
            if data.get("done"):
                yield StreamEnd(model=data.get("model") or model,
                                input_tokens=data.get("prompt_eval_count"),
                                output_tokens=data.get("eval_count"),
                                stop_reason=data.get("done_reason") or "stop")
                return
        raise ProviderFailure(self.name, "broken_stream", "the stream ended without done=true")


def _status_failure(resp: httpx.Response) -> ProviderFailure:
    try:
        detail = str(resp.json().get("error", ""))[:300]
    except ValueError:
        detail = resp.text[:300]
    code = resp.status_code
    kind = ("rate_limited" if code == 429 else "server_error" if code >= 500
            else "auth" if code in (401, 403) else "bad_request")
    return ProviderFailure(OllamaProvider.name, kind, detail, code)
