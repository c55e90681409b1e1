"""In a real browser (Debian chromium via Playwright): the Analysis page shows the decisions
of the Werkausschuss minutes, and a decision's section link opens that section on the
document page. The dashboard runs under `streamlit run` on 127.0.0.1 with a temporary data
dir prepared in this process; it is stopped in teardown."""
from __future__ import annotations

import os

import pytest

from tests.conftest import SAMPLES
from tests.browser_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    _settled,
    _shot,
    _sign_in,
    _wait_for_cookie,
    ingested,
    streamlit_app,
)

PASSWORD = "browser-analysis-pw-1"
MINUTES = "protokoll_werkausschuss_2024-03-12.txt"

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="no /usr/bin/chromium")]


@pytest.fixture(scope="module")
def server(tmp_path_factory, shared_embedder):
    data = tmp_path_factory.mktemp("browser_analysis") / "var"
    with ingested(data, shared_embedder) as ingestor:
        out = ingestor.ingest_bytes((SAMPLES / MINUTES).read_bytes(), MINUTES)
    assert out.ok
    with streamlit_app(data, PASSWORD, "server_analysis.log") as url:
        yield url, out.document_id


def test_analysis_page_shows_decisions_with_working_section_links(server):
    from playwright.sync_api import expect, sync_playwright

    url, doc_id = server
    expect.set_options(timeout=180_000)  # a loaded machine: script runs take their time
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1500, "height": 1100})
        page = context.new_page()
        page.set_default_timeout(180_000)
        try:
            page.goto(url)
            _settled(page)
            _sign_in(page, "admin", PASSWORD)
            expect(page.get_by_text("Signed in as")).to_be_visible()
            _wait_for_cookie(page, "admin", timeout=60)
            page.goto(f"{url}/analysis?doc={doc_id}")  # a new session, signed in by the cookie
            _settled(page)
            expect(page.get_by_role("heading", name="Analysis")).to_be_visible()
            expect(page.get_by_role("tab", name="Decisions (4)")).to_be_visible()
            grid = page.get_by_test_id("stDataFrame").first
            expect(grid).to_be_visible()
            assert grid.locator("canvas").count() >= 1
            # the table is a canvas: the item picker below it names the same decisions
            picker = page.get_by_test_id("stSelectbox").filter(has_text="Open the section of").first
            picker.click()
            options = page.get_by_role("option")
            expect(options).to_have_count(4)
            expect(options.nth(1)).to_contain_text("Beschluss 2024/17")
            expect(options.nth(2)).to_contain_text("Beschluss 2024/18")
            options.nth(1).click()
            _settled(page)
            link = page.get_by_role("link", name="Open TOP 3: Wasserpreise ab 1. Januar 2025")
            expect(link).to_be_visible()
            _shot(page, "analysis_1_decisions")
            link.click()
            _settled(page)
            page.wait_for_url(f"**/document?doc={doc_id}*section=*")
            doc_page = page
            expect(doc_page.get_by_role("heading", name="Document", exact=True)).to_be_visible()
            code = doc_page.locator(".st-key-document-text").get_by_test_id("stText")
            expect(code).to_contain_text("TOP 3: Wasserpreise ab 1. Januar 2025")
            expect(code).to_contain_text("Beschluss 2024/17")
            expect(code).not_to_contain_text("TOP 4:")
            _shot(doc_page, "analysis_2_section")
        except Exception:
            _shot(page, "analysis_failure")
            raise
        finally:
            context.close()
            browser.close()
