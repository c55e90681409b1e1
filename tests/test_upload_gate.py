"""Finding 12: Streamlit's upload endpoint accepts nothing before sign-in, and its size limit
is the ingestion limit. Unit tests drive the ASGI middleware directly; the server tests
start the dashboard exactly as `python -m backend up` does (`streamlit run app.py`, on
127.0.0.1) and talk to Streamlit's real upload endpoint."""
from __future__ import annotations

import asyncio
import http.cookiejar
import importlib.util
import os
import subprocess
import time
import tomllib
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from backend.security import auth, upload_gate
from backend.cli.main import main
from backend.config import Settings
from backend.security.sessions import Session
from backend.deploy.stack import dashboard_command
from backend.ui import state as K
from tests.browser_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    _free_port,
    _nav,
    _signed_in,
    _uploader,
    _wait_healthy,
    stop,
)
from tests.page_support import (  # noqa: F401  (fixtures)
    PASSWORDS,
    ROOT,
    add_users,
    app,
    bare,
    components,
    shared_model,
)

# ---- the limit -----------------------------------------------------------------------------


def test_streamlits_upload_limit_is_the_ingestion_limit(monkeypatch):
    monkeypatch.delenv("RAGSCOPE_MAX_UPLOAD_MB", raising=False)
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["maxUploadSize"] == upload_gate.upload_limit_mb(Settings()) == 50

    def flag(settings: Settings) -> str:
        cmd = dashboard_command("127.0.0.1", 8501, settings)
        assert cmd[cmd.index("run") + 1] == str(ROOT / "app.py")  # behind the gate
        return cmd[cmd.index("--server.maxUploadSize") + 1]

    assert flag(Settings(max_upload_mb=120)) == "120"
    assert flag(Settings(max_upload_mb=50.5)) == "51"  # whole MB, rounded up
    assert flag(Settings(max_upload_mb=0.002)) == "1"  # at least 1


def test_up_starts_the_gated_dashboard_with_the_configured_limit(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("RAGSCOPE_MAX_UPLOAD_MB", "7")
    started: list[list[str]] = []
    monkeypatch.setattr(os, "execvp", lambda file, argv: started.append(argv))
    assert main(["up", "--no-samples", "--no-api", "--port", "8600"]) == 0
    (argv,) = started
    assert argv == dashboard_command("127.0.0.1", 8600)
    assert argv[argv.index("--server.maxUploadSize") + 1] == "7"


def test_streamlit_run_app_py_serves_the_dashboard_behind_the_gate():
    """`streamlit run app.py`, the obvious command, is gated too: Streamlit reads app.py,
    finds the `st.App` it declares and serves through it (import string `app:app`); the
    App has the gate as middleware and runs app.py itself as the script."""
    import streamlit as st
    from streamlit import config
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(ROOT / "app.py")
    assert found.is_asgi_app and found.import_string == "app:app"
    spec = importlib.util.spec_from_file_location("app", ROOT / "app.py")
    module = importlib.util.module_from_spec(spec)
    pinned = config._main_script_path  # st.App pins it for the process
    try:
        spec.loader.exec_module(module)  # what uvicorn does; the dashboard does not run
    finally:
        config._main_script_path = pinned
    assert isinstance(module.app, st.App)
    assert module.app.script_path.resolve() == ROOT / "app.py"
    from backend.ui.shell import BaseUrlHint

    # the gate first, in front of everything; then the page-shell hint (backend/ui/shell.py)
    assert [m.cls for m in module.app._user_middleware] == [upload_gate.UploadGate, BaseUrlHint]


# ---- the gate ------------------------------------------------------------------------------


def _call(gate: upload_gate.UploadGate, method: str, path: str) -> int:
    """One request through the gate; returns the status the client gets (200 when it was
    passed on to the app behind it)."""
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"x" * 10, "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(gate({"type": "http", "method": method, "path": path, "headers": []},
                     receive, send))
    return next(m["status"] for m in sent if m["type"] == "http.response.start")


@pytest.fixture
def gate(tmp_path):
    async def streamlit(scope, receive, send):  # stands in for Streamlit's routes
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"stored"})

    data = tmp_path / "var"
    add_users(data)
    yield upload_gate.UploadGate(streamlit, data_dir=data), auth.UserStore(
        auth.AuthPaths.under(data))
    for s in ("s-editor", "s-viewer", "s-admin"):
        upload_gate.revoke(s)


def test_gate_lets_only_signed_in_editors_upload(gate):
    g, users = gate
    path = "/_stcore/upload_file/{}/" + str(uuid.uuid4())
    assert upload_gate.installed()
    assert _call(g, "PUT", path.format("s-unknown")) == 403  # e.g. the sign-in page
    now = time.time()
    upload_gate.admit("s-viewer", Session("viewer", now))
    upload_gate.admit("s-editor", Session("editor", now))
    upload_gate.admit("s-admin", Session("admin", now))
    assert _call(g, "PUT", path.format("s-viewer")) == 403  # viewers cannot upload
    assert _call(g, "PUT", path.format("s-editor")) == 200
    assert _call(g, "PUT", "/base" + path.format("s-admin")) == 200  # behind a base URL
    assert _call(g, "DELETE", path.format("s-unknown")) == 403
    assert _call(g, "OPTIONS", path.format("s-unknown")) == 200  # CORS preflight
    assert _call(g, "GET", "/_stcore/health") == 200  # everything else passes
    users.end_sessions("editor")  # sign-out elsewhere, reset, disable, role change ...
    assert _call(g, "PUT", path.format("s-editor")) == 403
    upload_gate.revoke("s-admin")
    assert _call(g, "PUT", path.format("s-admin")) == 403


def test_the_dashboard_admits_its_signed_in_sessions(app, bare):
    from tests.page_support import open_page

    data = bare[0]
    signed_out = app(data)
    signed_out.run()
    assert not signed_out.get("file_uploader")  # no uploader before sign-in
    before = set(upload_gate.admitted())
    at = open_page(app(data, "editor"), "upload")
    assert at.file_uploader
    session = Session("editor", at.session_state[K.AUTH_BEGAN])
    assert session in set(upload_gate.admitted()) - before
    auth.UserStore(auth.AuthPaths.under(data)).set_disabled("editor", True)
    at.run()
    assert not at.file_uploader and session not in upload_gate.admitted()


# ---- the real endpoint ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory):
    """The dashboard started as `python -m backend up` starts it (`streamlit run app.py`,
    behind the gate), with a 1 MiB ingestion limit; on a free port of 127.0.0.1, stopped
    afterwards."""
    data = tmp_path_factory.mktemp("gate") / "var"
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGSCOPE_")}
    env.update(RAGSCOPE_DATA_DIR=str(data), RAGSCOPE_ADMIN_PASSWORD=PASSWORDS["admin"],
               RAGSCOPE_MAX_UPLOAD_MB="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    cmd = dashboard_command("127.0.0.1", port, Settings(max_upload_mb=1))
    log = open(tmp_path_factory.mktemp("gate-log") / "server.log", "w")
    proc = subprocess.Popen(cmd + ["--server.fileWatcherType", "none"], cwd=ROOT, env=env,
                            stdout=log, stderr=subprocess.STDOUT)
    base = f"127.0.0.1:{port}"
    try:
        _wait_healthy(f"http://{base}", proc, timeout=90)
        yield base, data
    finally:
        stop(proc, timeout=20)
        log.close()


CLOSED = "connection closed while sending"  # refused before the body was read


class Client:
    """A scripted client: Streamlit's XSRF cookie, and a browser session over its
    websocket (which the sign-in page gets before anyone signs in)."""

    def __init__(self, base: str):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.http = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.http.open(f"http://{base}/_stcore/health").read()
        self.xsrf = next(c.value for c in self.jar if c.name == "_streamlit_xsrf")

    def new_session(self):
        """Open the app like a browser does; returns (websocket, session id)."""
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
        from websockets.sync.client import connect

        ws = connect(f"ws://{self.base}/_stcore/stream", subprotocols=["streamlit", self.xsrf],
                     additional_headers={"Cookie": f"_streamlit_xsrf={self.xsrf}",
                                         "Origin": f"http://{self.base}"})
        msg = BackMsg()
        msg.rerun_script.query_string = ""
        ws.send(msg.SerializeToString())
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            fwd = ForwardMsg()
            fwd.ParseFromString(ws.recv(timeout=60))
            if fwd.WhichOneof("type") == "new_session":
                return ws, fwd.new_session.initialize.session_id
        raise TimeoutError("no new_session message")

    def request(self, method: str, session_id: str, size: int = 1000) -> int:
        boundary = "ragscope-test-boundary"
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
                f"filename=\"notes.txt\"\r\nContent-Type: text/plain\r\n\r\n").encode() \
            + b"x" * size + f"\r\n--{boundary}--\r\n".encode()
        req = urllib.request.Request(
            f"http://{self.base}/_stcore/upload_file/{session_id}/{uuid.uuid4()}",
            data=body if method == "PUT" else None, method=method,
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}",
                     "X-Xsrftoken": self.xsrf})
        try:
            with self.http.open(req, timeout=30) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code
        except (urllib.error.URLError, ConnectionError) as e:
            # A server refusing an oversized body may answer and close before the client has
            # sent it all: the client sees a broken pipe / reset instead of the 413.
            reason = getattr(e, "reason", e)
            if isinstance(reason, (BrokenPipeError, ConnectionResetError)):
                return CLOSED
            raise


@pytest.mark.slow
def test_the_upload_endpoint_refuses_sessions_that_are_not_signed_in(dashboard):
    base, _data = dashboard
    client = Client(base)
    ws, session_id = client.new_session()  # the sign-in page's session: valid, not signed in
    try:
        assert client.request("PUT", session_id) == 403
        assert client.request("PUT", session_id, size=900_000) == 403
        assert client.request("DELETE", session_id) == 403
    finally:
        ws.close()




def _wait_for_cookie(context, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for c in context.cookies():
            if c["name"] == auth.COOKIE_NAME:
                return c
        time.sleep(0.2)
    raise TimeoutError(f"no {auth.COOKIE_NAME} cookie")


def _open_with_cookie(browser, base: str, cookie: dict):
    """A fresh browser profile that has only this cookie."""
    context = browser.new_context()
    context.add_cookies([{k: cookie[k] for k in ("name", "value", "domain", "path")}])
    page = context.new_page()
    page.set_default_timeout(180_000)
    page.goto(f"http://{base}/")
    return page


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="no /usr/bin/chromium")
def test_a_signed_in_editor_uploads_within_the_configured_limit(dashboard, tmp_path):
    """Through a real browser: the gate lets the signed-in user's uploads through, and
    Streamlit refuses files over the limit `up` passed (1 MiB here); after sign-out the
    same browser session can upload nothing, and a copy of its re-login cookie signs no one
    in any more."""
    from playwright.sync_api import expect, sync_playwright

    base, _data = dashboard
    expect.set_options(timeout=180_000)  # a loaded machine: first page loads import a lot
    doc = tmp_path / "gate_notes.md"
    doc.write_bytes(b"# Gate notes\n\nUploads pass the gate after sign-in.\n")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_context().new_page()
            page.set_default_timeout(180_000)
            uploads: list[tuple[str, int]] = []
            page.on("response", lambda r: uploads.append((r.url, r.status))
                    if "/_stcore/upload_file/" in r.url and r.request.method == "PUT" else None)
            page.goto(f"http://{base}/")
            _signed_in(page, "admin", PASSWORDS["admin"])
            _nav(page, "Upload")
            _uploader(page).set_input_files(str(doc))
            expect(page.get_by_text("gate_notes.md").first).to_be_visible()
            deadline = time.monotonic() + 30
            while not uploads and time.monotonic() < deadline:
                page.wait_for_timeout(200)
            ((url, status),) = uploads
            assert status == 204
            session_id = url.split("/_stcore/upload_file/")[1].split("/")[0]

            client = Client(base)  # the same browser session, scripted
            assert client.request("PUT", session_id, size=100_000) == 204
            assert client.request("PUT", session_id, size=2 * 1024 * 1024) in (413, CLOSED)  # > 1 MiB

            cookie = _wait_for_cookie(page.context)
            copy = _open_with_cookie(browser, base, cookie)  # e.g. a copied cookie
            expect(copy.get_by_text("Signed in as")).to_be_visible()

            page.get_by_role("button", name="Sign out").click()
            expect(page.get_by_label("Password", exact=True)).to_be_visible()
            assert client.request("PUT", session_id, size=1000) == 403
            later = _open_with_cookie(browser, base, cookie)
            expect(later.get_by_label("Password", exact=True)).to_be_visible()
            expect(later.get_by_text("Signed in as")).to_have_count(0)
            copy.reload()  # the tab opened with the copy is signed out too
            expect(copy.get_by_label("Password", exact=True)).to_be_visible()
        finally:
            browser.close()
