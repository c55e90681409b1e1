"""A model that holds its answer: an OpenAI-compatible server (/v1/chat/completions, SSE)
on 127.0.0.1 in the test process that sends its first words at once and the rest only when
the test sets `go` — so a test can reload a page or reconnect a stream while an answer is
being made (tests/test_browser_chat_reload.py, tests/test_ask_jobs_two_workers.py). Point
the dashboard or the API at it with `held_env(server)`."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

FIRST, REST = "The Lumen gateway listens on ", "port 8443 by default [1]."
DOC = (b"Lumen gateway notes. The Lumen gateway listens on port 8443 by default; the admin "
       b"console uses port 9443. Restart the gateway after changing the port.")
QUESTION = "Which port does the Lumen gateway listen on by default?"


class HeldModel(ThreadingHTTPServer):
    """/v1/chat/completions as SSE: FIRST at once, REST after `go` is set (at most 150 s)."""

    daemon_threads = True

    def __init__(self):
        self.go, self.requests = threading.Event(), []
        super().__init__(("127.0.0.1", 0), _Handler)


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append((self.path, body))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()

        def send(delta: dict, finish=None, usage=None):
            chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 1,
                     "model": "m-test", "choices": [] if usage else
                     [{"index": 0, "delta": delta, "finish_reason": finish}]}
            if usage:
                chunk["usage"] = usage
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()

        send({"role": "assistant", "content": FIRST})
        self.server.go.wait(150)
        send({"content": REST})
        send({}, "stop")
        send({}, usage={"prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def held_env(srv: "HeldModel") -> dict[str, str]:
    """RAGSCOPE_* settings that make new chat sessions answer through `srv`."""
    return {"RAGSCOPE_CHAT_DEFAULT_PROVIDER": "openai", "RAGSCOPE_OPENAI_MODEL": "m-test",
            "RAGSCOPE_OPENAI_BASE_URL": f"http://127.0.0.1:{srv.server_port}/v1",
            "RAGSCOPE_LLM_TIMEOUT_S": "180", "RAGSCOPE_LLM_MAX_RETRIES": "0"}


@pytest.fixture
def held():
    srv = HeldModel()
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield srv
    finally:
        srv.go.set()
        srv.shutdown()
        srv.server_close()
