"""Full loads of the dashboard's pages in a real browser (Debian chromium via Playwright),
signed in by the re-login cookie as a bookmark or a citation link would open them: the
browser sees no failed request (Streamlit's frontend used to probe `<page>/_stcore/health`
and `<page>/_stcore/host-config`, two 404s on every load of a page other than Home,
backend/ui/shell.py), and the cookie component is not loaded (it started a second run of
every page, backend/ui/cookies.py). Sign-out still deletes the cookie. How fast the pages
are is measured in bench/bench_page_load.py, not asserted here."""
from __future__ import annotations

import os

import pytest

from tests.browser_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    _settled,
    _shot,
    _signed_in,
    _wait_for_cookie,
    streamlit_app,
)

PASSWORD = "browser-page-load-pw-1"
# address -> text (or a field's label) the page shows once its content is there
PAGES = {"explorer": "Documents", "": "Recent jobs", "chat": "Ask a question",
         "query_debug": "Query debug", "upload": "Upload", "evaluation": "Evaluation",
         "admin_users": "Users"}

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="no /usr/bin/chromium")]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    data = tmp_path_factory.mktemp("browser_page_load") / "var"
    with streamlit_app(data, PASSWORD, "server_page_load.log") as url:
        yield url


def test_full_loads_have_no_failed_requests_and_sign_out_deletes_the_cookie(server):
    from playwright.sync_api import expect, sync_playwright

    url = server
    expect.set_options(timeout=180_000)  # a loaded machine: script runs take their time
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(180_000)
        try:
            page.goto(url)
            _settled(page)
            _signed_in(page, "admin", PASSWORD)
            _wait_for_cookie(page, "admin", timeout=60)
            page.close()
            for path, text in PAGES.items():
                page = _full_load(context, f"{url}/{path}", text)
                page.close()
            page = context.new_page()
            page.goto(f"{url}/explorer")
            _settled(page)
            page.get_by_role("button", name="Sign out").click()
            expect(page.get_by_label("Password", exact=True)).to_be_visible()
            _wait_for_no_cookie(page)
            page.goto(f"{url}/explorer")  # a new session: nothing signs it in any more
            _settled(page)
            expect(page.get_by_label("Password", exact=True)).to_be_visible()
        except Exception:
            if not page.is_closed():
                _shot(page, "page_load_failure")
            raise
        finally:
            context.close()
            browser.close()


def _full_load(context, address: str, text: str):
    """Open `address` in a new tab; its content shows, and every request succeeded."""
    from playwright.sync_api import expect

    page = context.new_page()
    page.set_default_timeout(180_000)
    failed, requested = [], []
    page.on("response", lambda r: r.status >= 400 and failed.append(f"{r.status} {r.url}"))
    page.on("request", lambda r: requested.append(r.url))
    page.on("websocket", lambda ws: ws.on(
        "framereceived", lambda _: requested.append("frame") if "frame" not in requested
        else None))
    page.goto(address)
    expect(page.get_by_text("Signed in as")).to_be_visible()
    shown = page.get_by_test_id("stMain").get_by_text(text).or_(page.get_by_label(text))
    expect(shown.first).to_be_visible()
    _settled(page)
    assert failed == [], (address, failed)
    assert not [u for u in requested if "cookie_manager" in u], (address, requested)
    _preloaded(address, requested)
    return page


def _preloaded(address: str, requested: list[str]) -> None:
    """The chunks the page shell preloads (backend/ui/preload.py) were asked for before the
    server's first frame (without it: only once a frame with a table had arrived), once."""
    from backend.ui import preload

    page = address.split("/", 3)[3]  # http://host:port/<page>
    for name in preload.PAGES.get(page, ()):
        file = preload.chunk_files()[name]
        asked = [i for i, u in enumerate(requested) if u.endswith(f"/static/js/{file}")]
        assert len(asked) == 1 and asked[0] < requested.index("frame"), (address, file,
                                                                          requested)


def _wait_for_no_cookie(page, timeout: float = 60) -> None:
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not [c for c in page.context.cookies() if c["name"] == "ragscope_auth"]:
            return
        time.sleep(0.2)
    raise TimeoutError(f"the sign-in cookie is still there: {page.context.cookies()}")
