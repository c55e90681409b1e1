"""A recording OpenAI-compatible LLM server on 127.0.0.1 for tests (critique rounds, the
chat page): POST /v1/chat/completions records each request body and answers with
`reply(body)` as an SSE stream of chat.completion.chunk events, as the `openai` provider
reads it. `recorder` (a fixture) starts one per call and stops them all after the test."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


class Recorder(ThreadingHTTPServer):
    def __init__(self, reply):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.reply, self.requests = reply, []

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}/v1"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        self.server.requests.append(body)
        text = self.server.reply(body)
        events = [{"id": "c", "object": "chat.completion.chunk", "model": "rec-model",
                   "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]},
                  {"id": "c", "object": "chat.completion.chunk", "model": "rec-model",
                   "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
        data = b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events) + \
            b"data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def last_prompt(body: dict) -> str:
    return body["messages"][-1]["content"]


@pytest.fixture
def recorder():
    servers = []

    def start(reply):
        srv = Recorder(reply)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        servers.append(srv)
        return srv

    yield start
    for srv in servers:
        srv.shutdown()
        srv.server_close()
