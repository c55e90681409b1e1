"""The provider clients against a local HTTP server on 127.0.0.1 that speaks each wire
format: Ollama /api/chat (NDJSON stream), OpenAI /v1/chat/completions (SSE) and Anthropic
/v1/messages (SSE) — with a normal answer, HTTP 429, HTTP 500, a server that stays silent
(timeout), a stream cut off mid-transfer, a stream that ends without its final event, and a
port nobody listens on. Every failure must come out as ProviderFailure with the right kind."""
from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from backend.errors import ProviderUnavailable
from backend.llm.anthropic_provider import AnthropicProvider
from backend.llm.base import GenerationRequest, Message, ProviderFailure, StreamEnd, TextDelta
from backend.llm.ollama import OllamaProvider
from backend.llm.openai_compat import OpenAICompatProvider

PIECES = ["Port ", "8443", " [1]."]
ANSWER = "".join(PIECES)


def _ollama_events(final: bool = True) -> list[bytes]:
    out = [json.dumps({"model": "llama-test", "message": {"role": "assistant", "content": p},
                       "done": False}).encode() + b"\n" for p in PIECES]
    if final:
        out.append(json.dumps({"model": "llama-test", "message": {"role": "assistant",
                                                                  "content": ""},
                               "done": True, "done_reason": "stop", "prompt_eval_count": 42,
                               "eval_count": 7}).encode() + b"\n")
    return out


def _sse(data: dict | str, event: str | None = None) -> bytes:
    body = data if isinstance(data, str) else json.dumps(data)
    return ((f"event: {event}\n" if event else "") + f"data: {body}\n\n").encode()


def _openai_events(final: bool = True, usage: bool = True) -> list[bytes]:
    def chunk(delta, finish=None):
        return {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m-test",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    out = [_sse(chunk({"role": "assistant", "content": ""}))]
    out += [_sse(chunk({"content": p})) for p in PIECES]
    if final:
        out.append(_sse(chunk({}, "stop")))
        if usage:
            out.append(_sse({"id": "c1", "object": "chat.completion.chunk", "created": 1,
                             "model": "m-test", "choices": [],
                             "usage": {"prompt_tokens": 42, "completion_tokens": 7,
                                       "total_tokens": 49}}))
        out.append(_sse("[DONE]"))
    return out


def _anthropic_events(final: bool = True) -> list[bytes]:
    out = [_sse({"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 42, "output_tokens": 1}}}, "message_start"),
        _sse({"type": "content_block_start", "index": 0,
              "content_block": {"type": "text", "text": ""}}, "content_block_start")]
    out += [_sse({"type": "content_block_delta", "index": 0,
                  "delta": {"type": "text_delta", "text": p}}, "content_block_delta")
            for p in PIECES]
    if final:
        out += [_sse({"type": "content_block_stop", "index": 0}, "content_block_stop"),
                _sse({"type": "message_delta", "delta": {"stop_reason": "end_turn",
                                                         "stop_sequence": None},
                      "usage": {"output_tokens": 7}}, "message_delta"),
                _sse({"type": "message_stop"}, "message_stop")]
    return out


WIRE = {"/api/chat": ("application/x-ndjson", _ollama_events),
        "/v1/chat/completions": ("text/event-stream", _openai_events),
        "/v1/messages": ("text/event-stream", _anthropic_events)}
ERRORS = {"/api/chat": lambda code, msg: {"error": msg},
          "/v1/chat/completions": lambda code, msg: {"error": {"message": msg, "type": "x",
                                                               "code": code}},
          "/v1/messages": lambda code, msg: {"type": "error", "error": {"type": "x",
                                                                        "message": msg}}}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # keep the test output clean
        pass

    def do_POST(self):
        srv = self.server
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        srv.requests.append((self.path, body, dict(self.headers)))
        mode = srv.mode
        if mode == "silent":
            srv.release.wait(10)
            return self._json(200, {})
        if mode in ("429", "500"):
            return self._json(int(mode), ERRORS[self.path](int(mode), f"mode {mode}"),
                              {"Retry-After": "0"} if mode == "429" else {})
        ctype, events = WIRE[self.path]
        kwargs = {"usage": False} if mode == "no_usage" and self.path.startswith("/v1/chat") \
            else {}
        chunks = events(final=mode != "truncated", **kwargs)
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if mode == "broken":
            chunks = chunks[:2]
        for c in chunks:
            self.wfile.write(f"{len(c):x}\r\n".encode() + c + b"\r\n")
            self.wfile.flush()
        if mode == "broken":  # cut off mid-transfer: no terminating chunk, socket closed
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.wfile.write(b"0\r\n\r\n")

    def _json(self, code: int, data: dict, headers: dict | None = None):
        raw = json.dumps(data).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(raw)


@pytest.fixture
def server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.mode, srv.requests, srv.release = "ok", [], threading.Event()
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.release.set()
    srv.shutdown()
    srv.server_close()
    thread.join(5)


def _url(srv) -> str:
    return f"http://127.0.0.1:{srv.server_address[1]}"


MAKERS = {
    "ollama": lambda url: OllamaProvider(url, "llama-test", read_timeout_s=0.5),
    "openai": lambda url: OpenAICompatProvider(f"{url}/v1", "m-test", max_retries=0,
                                               read_timeout_s=0.5),
    "anthropic": lambda url: AnthropicProvider("test-key", "claude-test", base_url=url,
                                               max_retries=0, read_timeout_s=0.5),
}
PATHS = {"ollama": "/api/chat", "openai": "/v1/chat/completions", "anthropic": "/v1/messages"}


def _request() -> GenerationRequest:
    return GenerationRequest(model="", system="SYSTEM RULES",
                             messages=[Message("user", "Q1"), Message("assistant", "A1 [1]"),
                                       Message("user", "<evidence>…</evidence> Which port?")],
                             temperature=0.2, max_tokens=99)


def _run(provider) -> tuple[str, StreamEnd]:
    events = list(provider.stream(_request()))
    assert all(isinstance(e, TextDelta) for e in events[:-1])
    assert isinstance(events[-1], StreamEnd)
    return "".join(e.text for e in events[:-1]), events[-1]


def _failure(provider) -> ProviderFailure:
    with pytest.raises(ProviderFailure) as info:
        list(provider.stream(_request()))
    assert isinstance(info.value, ProviderUnavailable)
    return info.value


@pytest.mark.parametrize("name", list(MAKERS))
def test_streams_text_and_reports_usage(server, name):
    text, end = _run(MAKERS[name](_url(server)))
    assert text == ANSWER
    assert (end.input_tokens, end.output_tokens) == (42, 7)
    assert end.stop_reason in ("stop", "end_turn")
    path, body, _ = server.requests[-1]
    assert path == PATHS[name]
    assert body["stream"] is True
    if name == "anthropic":
        assert body["system"] == "SYSTEM RULES"
        assert body["max_tokens"] == 99
        assert body["temperature"] == 0.2  # via extra_body: SDK 2.15's stream() lacks it
        assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    else:
        assert body["messages"][0] == {"role": "system", "content": "SYSTEM RULES"}
        assert [m["role"] for m in body["messages"][1:]] == ["user", "assistant", "user"]
    if name == "ollama":
        assert body["options"] == {"temperature": 0.2, "num_predict": 99}
        assert body["model"] == "llama-test"
    if name == "openai":
        assert body["max_tokens"] == 99 and body["stream_options"] == {"include_usage": True}


def test_anthropic_sends_the_key_from_the_settings_only(server):
    _run(MAKERS["anthropic"](_url(server)))
    headers = {k.lower(): v for k, v in server.requests[-1][2].items()}
    # older SDKs send x-api-key, newer ones a bearer token
    assert "test-key" in (headers.get("x-api-key", ""), headers.get("authorization", "")[7:])


def test_openai_compatible_server_without_usage_leaves_tokens_to_the_caller(server):
    server.mode = "no_usage"
    text, end = _run(MAKERS["openai"](_url(server)))
    assert text == ANSWER
    assert end.input_tokens is None and end.output_tokens is None


@pytest.mark.parametrize("name", list(MAKERS))
def test_rate_limit_429(server, name):
    server.mode = "429"
    f = _failure(MAKERS[name](_url(server)))
    assert f.kind == "rate_limited" and f.status == 429
    assert "429" in str(f)


@pytest.mark.parametrize("name", list(MAKERS))
def test_server_error_500(server, name):
    server.mode = "500"
    f = _failure(MAKERS[name](_url(server)))
    assert f.kind == "server_error" and f.status == 500


@pytest.mark.parametrize("name", list(MAKERS))
def test_timeout_when_the_server_stays_silent(server, name):
    server.mode = "silent"
    f = _failure(MAKERS[name](_url(server)))
    assert f.kind == "timeout"
    assert "timed out" in str(f)


@pytest.mark.parametrize("name", list(MAKERS))
def test_stream_broken_off_mid_transfer(server, name):
    server.mode = "broken"
    f = _failure(MAKERS[name](_url(server)))
    assert f.kind == "broken_stream"


@pytest.mark.parametrize("name", list(MAKERS))
def test_stream_ending_without_its_final_event(server, name):
    server.mode = "truncated"
    f = _failure(MAKERS[name](_url(server)))
    assert f.kind == "broken_stream"


@pytest.mark.parametrize("name", list(MAKERS))
def test_unreachable_server(name):
    with socket.socket() as s:  # a port that was free a moment ago and has no listener
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    f = _failure(MAKERS[name](f"http://127.0.0.1:{port}"))
    assert f.kind == "connection"
    assert "cannot be reached" in str(f)


def test_anthropic_without_key_is_not_configured():
    f = _failure(AnthropicProvider(None, "claude-test", base_url="http://127.0.0.1:9"))
    assert f.kind == "config"


def test_factory_builds_every_provider_from_settings(tmp_path):
    from backend.config import Settings
    from backend.llm import PROVIDERS, make_provider

    s = Settings(data_dir=tmp_path, anthropic_api_key="k", openai_model="m")
    for name in PROVIDERS:
        p = make_provider(s, name)
        assert p.name == name and isinstance(p.local, bool)


# ---- pricing, local token counting, the extractive answerer (no server needed) ------------

def test_pricing_table_from_the_config_file(tmp_path):
    from backend.errors import ConfigError
    from backend.llm.pricing import DEFAULT_PRICING_FILE, PricingTable, pricing_table

    t = pricing_table()
    assert t.prices_taken and DEFAULT_PRICING_FILE.name == "pricing.yaml"
    c = t.cost("anthropic", "claude-sonnet-4-5-20250929", 1_000_000, 100_000)
    assert (c.label, c.price_key) == ("priced", "claude-sonnet-4-5")
    assert c.usd == pytest.approx(3.0 + 1.5)
    assert t.lookup("gpt-4o-mini-2024-07-18").key == "gpt-4o-mini"  # longest prefix wins
    assert t.cost("ollama", "llama3.2", 10, 10).display() == "local"
    assert t.cost("extractive", "extractive", 10, 10).usd == 0.0
    assert t.cost("openai", "qwen2.5-7b", 10, 10, provider_is_local=True).label == "local"
    unknown = t.cost("anthropic", "claude-unknown-9", 10, 10)
    assert unknown.usd is None and unknown.display() == "n/a"
    bad = tmp_path / "p.yaml"
    bad.write_text("models:\n  m: {input: 1}\nprices_taken: 2025-01-01\n")
    with pytest.raises(ConfigError, match="numeric"):
        PricingTable.load(bad)
    bad.write_text("models: {}\n")
    with pytest.raises(ConfigError, match="prices_taken"):
        PricingTable.load(bad)


def test_local_token_count_needs_no_download():
    from backend.llm.tokens import count_tokens

    assert count_tokens("") == 0
    assert 5 <= count_tokens("Das Gateway lauscht standardmäßig auf Port 8443.") <= 20
    assert count_tokens("word " * 5000) == 5000  # no truncation at the model's 512


def test_extractive_answerer_picks_cited_sentences():
    from backend.llm.base import Evidence
    from backend.answer.extractive import ExtractiveProvider, answer_text, split_sentences

    ev = [Evidence(1, "2.2 Konfiguration\n\nDie Datei liegt unter /etc/lumen. Das Gateway "
                      "lauscht standardmäßig auf Port 8443, z. B. hinter einem Proxy."),
          Evidence(2, "Release notes\n\nVersion 3.2 adds metrics. Nothing about ports here.")]
    assert split_sentences(ev[0].text.split("\n\n")[1]) == [
        "Die Datei liegt unter /etc/lumen.",
        "Das Gateway lauscht standardmäßig auf Port 8443, z. B. hinter einem Proxy."]
    text = answer_text("Welche Portnummer nutzt das Gateway standardmäßig?", ev)
    assert text.startswith("Das Gateway lauscht standardmäßig auf Port 8443") and "[1]" in text
    req = GenerationRequest(model="", system="", messages=[], question="Welcher Port?",
                            evidence=ev)
    events = list(ExtractiveProvider().stream(req))
    assert isinstance(events[-1], StreamEnd) and events[-1].input_tokens is None
    assert "".join(e.text for e in events[:-1]).strip().endswith("]")
    assert "keine Quellen" in answer_text("Welcher Port gilt?", [])
    assert "no sources" in answer_text("Which port?", [])
    # nothing matches: no quote of the best-ranked source, but "nothing found"
    assert answer_text("zzz qqq", ev) == "I found nothing on this in the documents."
    assert answer_text("Wer ist der Bürgermeister von Paris?", ev) == \
        "Dazu habe ich in den Dokumenten nichts gefunden."
