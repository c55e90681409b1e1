"""What the browser tests share (tests/test_browser*.py, tests/test_upload_gate.py): the
dashboard under `streamlit run` on 127.0.0.1 with a temporary data dir (`streamlit_app`), a
data dir with documents ingested before the server starts (`ingested`), Debian's chromium
(driven by Playwright, never `playwright install`) and the steps every test takes in it:
sign in, wait for the sign-in cookie, open a page from the sidebar, wait until a script run
has settled, find the uploader, take a screenshot (test-artifacts/browser/)."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts" / "browser"
CHROMIUM = "/usr/bin/chromium"
# without the background-networking flags chromium keeps calling out of the closed network
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise TimeoutError("streamlit did not become healthy")


@contextmanager
def ingested(data: Path, embedder) -> Iterator:
    """An `Ingestor` on the data dir `data` with the session's embedder (no second model
    load); the store and indexes are closed afterwards, before a server opens the dir."""
    from backend.config import Settings
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope

    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = embedder
    try:
        yield Ingestor(rs)
    finally:
        rs.close()


@contextmanager
def streamlit_app(data: Path, admin_password: str, log_name: str,
                  env_extra: dict[str, str] | None = None) -> Iterator[str]:
    """`streamlit run app.py` (behind the upload gate app.py declares) on a free port of
    127.0.0.1 with `data` as its data dir (and `env_extra`, e.g. RAGSCOPE_* settings);
    yields its URL and stops it afterwards."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGSCOPE_")}
    if os.environ.get("RAGSCOPE_EMBEDDING_CACHE_DIR"):  # the session's ONNX export (conftest):
        env["RAGSCOPE_EMBEDDING_CACHE_DIR"] = os.environ["RAGSCOPE_EMBEDDING_CACHE_DIR"]
        # without it the server exported the model again inside a chatbot build (minutes
        # on a loaded 2-core machine: the build's "chunks embedded" stayed 0 past the wait)
    env.update(RAGSCOPE_DATA_DIR=str(data), RAGSCOPE_ADMIN_PASSWORD=admin_password,
               HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONUNBUFFERED="1")
    env.update(env_extra or {})
    with open(ARTIFACTS / log_name, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.address",
             "127.0.0.1", "--server.port", str(port), "--server.headless", "true",
             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_healthy(url, proc)
            yield url
        finally:
            stop(proc)


def stop(proc: subprocess.Popen, timeout: float = 15) -> None:
    """End a server the test started: terminate, and kill it when it has not ended within
    `timeout` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _settled(page) -> None:
    """Wait until no script run is in progress (the status widget says 'Running')."""
    from playwright.sync_api import expect

    page.get_by_test_id("stApp").wait_for()
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=180_000)


def _nav(page, title: str) -> None:
    """Open a page from the sidebar. A click that lands while a script run is re-rendering
    the app (e.g. the one the sign-in cookie starts) can be lost: click again until the
    address is the link's."""
    link = page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True)
    target = (link.get_attribute("href") or "").split("?")[0].rstrip("/")

    def arrived(url: str) -> bool:
        return url.split("?")[0].rstrip("/") == target

    for _ in range(3):
        link.click()
        try:
            page.wait_for_url(arrived, timeout=30_000)
            break
        except Exception:  # playwright's TimeoutError: not there yet, click again
            _settled(page)
    else:
        page.wait_for_url(arrived, timeout=30_000)
    _settled(page)


def _wait_for_cookie(page, username: str, timeout: float = 30) -> None:
    import base64
    import json

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for c in page.context.cookies():
            if c["name"] == "ragscope_auth":
                payload = c["value"].split(".")[1]
                claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
                if claims.get("username") == username:
                    return
        time.sleep(0.2)
    raise TimeoutError(f"no sign-in cookie for {username}: {page.context.cookies()}")


def _sign_in(page, username: str, password: str) -> None:
    page.get_by_label("Username", exact=True).fill(username)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_role("button", name="Sign in").click()


def _uploader(page):
    """The upload page's file input. If the page's script run was lost (the input never
    appears), load the page again, as a user would."""
    from playwright.sync_api import expect

    uploader = page.locator("input[type=file]")
    try:
        expect(uploader).to_be_attached(timeout=60_000)
    except AssertionError:
        page.reload()
        _settled(page)
        if "/upload" not in page.url:  # a loaded CI run once landed on Home here: open it again
            _nav(page, "Upload")
    expect(uploader).to_be_attached()
    return uploader


def _signed_in(page, username: str, password: str) -> None:
    """Sign in and wait until the app says so. Typing and clicking while the first script
    run is still replacing the form can be lost: sign in again while the form is there."""
    from playwright.sync_api import expect

    done = page.get_by_text("Signed in as")
    for _ in range(3):
        if page.get_by_label("Username", exact=True).count():
            _sign_in(page, username, password)
        try:
            expect(done).to_be_visible(timeout=45_000)
            return
        except AssertionError:
            _settled(page)
    expect(done).to_be_visible()


@contextmanager
def admin_page(p, url: str, password: str, timeout_ms: int = 180_000):
    """A chromium page (1300 × 1000) signed in as admin on the dashboard at `url`, the
    sign-in cookie written; the browser is closed afterwards. `p`: a sync_playwright()."""
    browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    page = browser.new_context(viewport={"width": 1300, "height": 1000}).new_page()
    page.set_default_timeout(timeout_ms)
    try:
        page.goto(url)
        _settled(page)
        _signed_in(page, "admin", password)
        _wait_for_cookie(page, "admin", timeout=60)
        yield page
    finally:
        browser.close()
