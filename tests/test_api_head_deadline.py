"""The head-deadline protocols (backend/api/head_deadline.py), both of them: a half-sent head
is closed at the deadline, also after a previous response on the same connection; a request
running longer than the deadline is not cut off; pipelined requests are all answered; a head
beyond h11's size bound gets 400, and a pipelined one sent while a request runs ends too; a
streamed response longer than the deadline arrives whole. A tiny ASGI app on uvicorn in a
thread, raw sockets."""
from __future__ import annotations

import asyncio
import socket
import threading
import time

import pytest
import uvicorn

from backend.api.head_deadline import GuardedHttpTools, guarded_protocol
from tests.api_support import free_port

DEADLINE = 0.5
PARSERS = ["h11"] + (["httptools"] if GuardedHttpTools is not None else [])


async def _app(scope, receive, send):
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    if scope["path"] == "/slow":
        await asyncio.sleep(DEADLINE * 2)
    if scope["path"] == "/stream":  # chunked, longer than the deadline in all
        await send({"type": "http.response.start", "status": 200, "headers": []})
        for part in (b"one ", b"two ", b"three"):
            await asyncio.sleep(DEADLINE / 2)
            await send({"type": "http.response.body", "body": part, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
        return
    body = scope["path"].encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


@pytest.fixture(scope="module", params=PARSERS)
def port(request):
    proto = guarded_protocol(DEADLINE, request.param)
    assert proto.__mro__[1].__name__ == ("GuardedH11" if request.param == "h11"
                                         else "GuardedHttpTools")
    p = free_port()
    server = uvicorn.Server(uvicorn.Config(_app, host="127.0.0.1", port=p, http=proto,
                                           log_config=None, log_level="warning",
                                           lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    yield p
    server.should_exit = True
    thread.join(10)


def _get(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode()


def _read(sock, responses: int, seconds: float = 5) -> bytes:
    """Bytes until `responses` complete responses arrived (or the server closed)."""
    sock.settimeout(seconds)
    got = b""
    while got.count(b"HTTP/1.1 ") < responses or not got.endswith(
            tuple(f"/{w}".encode() for w in ("a", "b", "c", "slow", "ok"))):
        chunk = sock.recv(65536)
        if not chunk:
            break
        got += chunk
    return got


def _closed_within(sock, seconds: float) -> bytes:
    sock.settimeout(seconds)
    got = b""
    while chunk := sock.recv(65536):  # socket.timeout: the connection stayed open
        got += chunk
    return got


def test_a_half_sent_head_is_closed_at_the_deadline(port):
    with socket.create_connection(("127.0.0.1", port)) as s:
        t0 = time.monotonic()
        s.sendall(b"GET /a HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        assert _closed_within(s, 5) == b""
        assert DEADLINE * 0.8 <= time.monotonic() - t0 < DEADLINE * 4


def test_the_deadline_starts_again_after_each_response(port):
    with socket.create_connection(("127.0.0.1", port)) as s:
        for path in ("/a", "/b"):  # in time, each well after the connection's first deadline
            time.sleep(DEADLINE * 0.6)
            s.sendall(_get(path))
            assert _read(s, 1).endswith(path.encode())
        s.sendall(b"GET /c HTTP/1.1\r\n")  # then stalls
        assert _closed_within(s, 5) == b""


def test_a_request_running_past_the_deadline_is_answered(port):
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(_get("/slow"))
        assert _read(s, 1).endswith(b"/slow")
        s.sendall(_get("/ok"))  # the connection is still usable
        assert _read(s, 1).endswith(b"/ok")


def test_pipelined_requests_are_all_answered(port):
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(_get("/slow") + _get("/b") + _get("/c"))
        got = _read(s, 3)
        assert got.count(b"HTTP/1.1 200") == 3 and got.endswith(b"/c"), got


def test_a_head_beyond_the_size_bound_gets_400(port):
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"GET /a HTTP/1.1\r\nHost: x\r\nX-Big: " + b"v" * 40_000)
        got = _closed_within(s, 5)
        assert got.startswith(b"HTTP/1.1 400"), got[:200]


def test_a_pipelined_oversize_head_sent_while_a_request_runs_ends_the_connection(port):
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(_get("/slow") + b"GET /a HTTP/1.1\r\nHost: x\r\nX-Big: ")
        time.sleep(DEADLINE / 2)  # the request runs: more of the next head arrives meanwhile
        s.sendall(b"v" * 40_000)
        s.settimeout(10)
        got = b""
        while b"/slow" not in got:
            chunk = s.recv(65536)
            assert chunk, got
            got += chunk
        assert got.startswith(b"HTTP/1.1 200")
        try:  # then 400 (h11 parses the rest) or closed at the deadline: never held open
            _closed_within(s, 5)
        except ConnectionResetError:
            pass


def test_a_streamed_response_longer_than_the_deadline_arrives_whole(port):
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(_get("/stream"))
        s.settimeout(10)
        got = b""
        while not got.endswith(b"0\r\n\r\n"):
            chunk = s.recv(65536)
            assert chunk, got
            got += chunk
        assert b"one " in got and b"three" in got
        s.sendall(_get("/ok"))  # the connection is still usable
        assert _read(s, 1).endswith(b"/ok")
