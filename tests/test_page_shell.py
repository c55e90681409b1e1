"""backend/ui/shell.py: the page shell Streamlit serves for every page address gets the
script that tells its frontend the server root; nothing else is changed. (In the browser:
tests/test_browser_page_load.py.)"""
from __future__ import annotations

import asyncio

from backend.ui.shell import BaseUrlHint, base_url_script, is_shell_request

SHELL = b"<!DOCTYPE html><html><head><title>Streamlit</title></head><body></body></html>"


def _serve(path: str, body: bytes, content_type: bytes = b"text/html; charset=utf-8",
           headers: list | None = None):
    """Run one GET through the middleware; returns (request headers the app saw, messages
    sent)."""
    seen, sent = [], []

    async def app(scope, receive, send):
        seen.extend(scope["headers"])
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", content_type), (b"content-length", str(len(body)).encode()),
            (b"etag", b'"abc"')]})
        await send({"type": "http.response.body", "body": body[:10], "more_body": True})
        await send({"type": "http.response.body", "body": body[10:]})

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": path, "headers": headers or [
        (b"accept-encoding", b"gzip"), (b"if-none-match", b'"abc"'), (b"accept", b"text/html")]}
    asyncio.run(BaseUrlHint(app, page_paths=["explorer", "chat"])(scope, None, send))
    return dict(seen), sent


def test_the_shell_of_a_page_address_carries_the_script_and_its_new_length():
    seen, sent = _serve("/explorer", SHELL)
    assert b"accept-encoding" not in seen and b"if-none-match" not in seen  # plain 200
    start, body = sent[0], sent[1]["body"]
    headers = dict(start["headers"])
    assert body.startswith(b"<!DOCTYPE html><html><head><script>")
    assert b"BACKEND_BASE_URL" in body and b'["chat", "explorer"]' in body
    assert body.endswith(SHELL[SHELL.index(b"<title>"):])
    assert headers[b"content-length"] == str(len(body)).encode() and b"etag" not in headers
    assert len(sent) == 2


def test_streamlit_routes_and_other_answers_pass_untouched():
    for path in ("/_stcore/health", "/static/js/index.js", "/component/x/index.html",
                 "/media/abc.png"):
        seen, sent = _serve(path, SHELL)
        assert seen[b"accept-encoding"] == b"gzip"
        assert b"".join(m.get("body", b"") for m in sent[1:]) == SHELL
    _, sent = _serve("/explorer", b'{"a": 1}', content_type=b"application/json")
    assert b"".join(m.get("body", b"") for m in sent[1:]) == b'{"a": 1}'
    assert dict(sent[0]["headers"])[b"etag"] == b'"abc"'


def test_only_page_gets_count_as_the_shell():
    assert is_shell_request({"type": "http", "method": "GET", "path": "/"})
    assert is_shell_request({"type": "http", "method": "GET", "path": "/rs/chat"}, "/rs")
    assert not is_shell_request({"type": "http", "method": "PUT", "path": "/explorer"})
    assert not is_shell_request({"type": "websocket", "path": "/_stcore/stream"})
    assert not is_shell_request({"type": "http", "method": "GET",
                                 "path": "/rs/_stcore/health"}, "/rs")
    assert base_url_script([]).startswith(b"<script>") and b"[]" in base_url_script([])


def test_the_script_finds_the_root_behind_every_page_address():
    """Run the script in node with a fake `location`: a page segment at the end is dropped,
    anything else (the root, a proxy's or baseUrlPath's prefix) kept."""
    import json
    import shutil
    import subprocess

    import pytest

    node = shutil.which("node")
    if node is None:
        pytest.skip("no node")
    script = base_url_script(["explorer", "chat"]).decode()[len("<script>"):-len("</script>")]
    cases = {"/": "/", "/explorer": "/", "/explorer/": "/", "/chat": "/", "/rs": "/rs/",
             "/rs/": "/rs/", "/rs/chat": "/rs/", "/rs/other": "/rs/other/"}
    for path, root in cases.items():
        js = (f"var window={{}};var location={{pathname:{json.dumps(path)},"
              f"origin:'http://h:1'}};{script};console.log(window.__streamlit.BACKEND_BASE_URL)")
        out = subprocess.run([node, "-e", js], capture_output=True, text=True, check=True)
        assert out.stdout.strip() == "http://h:1" + root, path
