"""In a real browser (Debian chromium via Playwright): a chat answer's citation `[n]` shows
the cited passage with the quote highlighted; "Open in document" shows the PDF page image
with the quote boxed (the image the browser received is decoded and the box's colour found
where the quote is); "retrieval trace" opens Query debug with the question filled in and
the cited sources listed. The dashboard runs under `streamlit run` on 127.0.0.1 with a
temporary data dir prepared in this process; it is stopped in teardown."""
from __future__ import annotations

import io
import os
import re
from urllib.parse import parse_qs, urlsplit

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

PASSWORD = "browser-citations-pw-1"
PDF = "lumen_handbuch.pdf"
QUESTION = "Welche Portnummer verwendet das Lumen Data Gateway standardmäßig?"

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="no /usr/bin/chromium")]


@pytest.fixture(scope="module")
def server(tmp_path_factory, shared_embedder):
    data = tmp_path_factory.mktemp("browser_citations") / "var"
    with ingested(data, shared_embedder) as ingestor:
        outs = ingestor.ingest_paths([SAMPLES / PDF, SAMPLES / "runbook_gateway_failover.md"])
    assert all(o.ok for o in outs), [o.error for o in outs]
    with streamlit_app(data, PASSWORD, "server_citations.log") as url:
        yield url


def _highlighted_pixels(png: bytes) -> int:
    from PIL import Image

    from backend.chat.preview import OUTLINE

    img = Image.open(io.BytesIO(png)).convert("RGB")
    return sum(1 for p in img.getdata() if all(abs(a - b) <= 40 for a, b in zip(p, OUTLINE)))


def test_citation_passage_document_page_and_trace(server):
    from playwright.sync_api import expect, sync_playwright

    url = server
    expect.set_options(timeout=180_000)  # a loaded machine: script runs take their time
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1100})
        page = context.new_page()
        page.set_default_timeout(180_000)
        try:
            page.goto(url)
            _settled(page)
            _sign_in(page, "admin", PASSWORD)
            expect(page.get_by_text("Signed in as")).to_be_visible()
            _wait_for_cookie(page, "admin", timeout=60)
            page.goto(f"{url}/chat")
            _settled(page)
            box = page.get_by_test_id("stChatInputTextArea")
            box.fill(QUESTION)
            box.press("Enter")
            _settled(page)
            # the answer: [n] inline is a link to the cited place; under it one button per
            # cited source
            answer = page.get_by_test_id("stChatMessage").nth(1)
            cite = answer.get_by_test_id("stPopover").first  # the first cited source
            expect(cite).to_be_visible()
            found = re.match(r"\[\d+\]", cite.get_by_role("button").inner_text().strip())
            assert found, cite.inner_text()
            label = found.group(0)
            inline = answer.locator("a", has_text=label).first
            expect(inline).to_be_visible()
            assert "quote_start=" in (inline.get_attribute("href") or "")
            cite.get_by_role("button").click()
            body = page.get_by_test_id("stPopoverBody")
            expect(body).to_be_visible()
            expect(body).to_contain_text("Lumen")
            mark = body.locator("span", has_text="8443").last
            expect(mark).to_be_visible()
            colour = mark.evaluate("e => getComputedStyle(e).backgroundColor")
            assert colour not in ("rgba(0, 0, 0, 0)", "transparent"), colour
            _shot(page, "citations_1_passage")
            trace_href = body.get_by_role("link", name="retrieval trace").get_attribute("href")
            # open in document: the PDF page image with the quote boxed
            body.get_by_role("link", name="Open in document").click()
            page.wait_for_url("**/document?*quote_start=*")
            _settled(page)
            img = page.get_by_test_id("stImage").locator("img").first
            expect(img).to_be_visible()
            expect(page.get_by_text("The quote is boxed in yellow.")).to_be_visible()
            src = img.get_attribute("src") or ""
            png = page.request.get(src if src.startswith("http") else url + src).body()
            assert png[:8] == b"\x89PNG\r\n\x1a\n"
            assert _highlighted_pixels(png) > 200, "no highlight box in the page image"
            _shot(page, "citations_2_document")
            # retrieval trace: Query debug with the question filled in, the cited sources
            qs = parse_qs(urlsplit(trace_href).query)
            assert qs["q"] == [QUESTION] and qs["trace"]
            page.goto(f"{url}/query_debug?{urlsplit(trace_href).query}")
            _settled(page)
            expect(page.get_by_role("textbox", name="Query", exact=True)).to_have_value(QUESTION)
            expect(page.get_by_text("Cited in the answer:")).to_be_visible()
            expect(page.get_by_role("heading", name="Final hits")).to_be_visible()
            _shot(page, "citations_3_trace")
        except Exception:
            _shot(page, "citations_failure")
            raise
        finally:
            context.close()
            browser.close()
