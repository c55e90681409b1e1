"""Three forms of issue 23's defect list in a real browser (Debian chromium via Playwright,
never `playwright install`), on one dashboard under `streamlit run` on 127.0.0.1 with a
temporary data dir prepared in this process and stopped in teardown:

- upload of a file whose content is stored already names the stored document, says where
  it is, and links to it (the link opens the document page);
- the crawl form of a watched folder shows no web-only field, one schedule choice at a time,
  and a missing folder in words;
- the chatbot builder starts from an existing collection, its name derived from it.
Screenshots go to test-artifacts/browser/."""
from __future__ import annotations

import os

import pytest

from tests.test_browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    _settled,
    _shot,
    _signed_in,
    _wait_for_cookie,
    streamlit_app,
)

PASSWORD = "browser-forms-admin-1"
DOC = b"# Pump handbook\n\nThe intake pump is checked every morning by the shift.\n"
TIMEOUT = 120_000  # ms: a loaded machine makes script runs slow; nothing here waits longer

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="no /usr/bin/chromium")]


@pytest.fixture(scope="module")
def server(tmp_path_factory, shared_embedder):
    from backend.config import Settings
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope

    base = tmp_path_factory.mktemp("browser_forms")
    data, roots = base / "var", base / "folders"
    roots.mkdir()
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = shared_embedder
    out = Ingestor(rs).ingest_bytes(DOC, "pumps.md", collection="handbook")
    assert out.ok
    rs.close()
    env = {"RAGSCOPE_INGEST_ROOTS": str(roots)}
    with streamlit_app(data, PASSWORD, "server_forms.log", env) as url:
        yield url, out.document_id, roots


@pytest.fixture(scope="module")
def page(server):
    from playwright.sync_api import expect, sync_playwright

    url = server[0]
    expect.set_options(timeout=TIMEOUT)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        pg = context.new_page()
        pg.set_default_timeout(TIMEOUT)
        try:
            pg.goto(url)
            _settled(pg)
            _signed_in(pg, "admin", PASSWORD)
            _wait_for_cookie(pg, "admin", timeout=60)
            yield pg
        finally:
            context.close()
            browser.close()


def _open(page, url: str) -> None:
    """A page opened by URL: a new session, signed in by the cookie."""
    page.goto(url)
    _settled(page)


def test_duplicate_upload_names_and_links_the_stored_document(server, page, tmp_path):
    from playwright.sync_api import expect

    url, doc_id, _ = server
    try:
        _open(page, f"{url}/upload")
        copy = tmp_path / "pumps_copy.md"
        copy.write_bytes(DOC)
        uploader = page.locator("input[type=file]")
        expect(uploader).to_be_attached()
        uploader.set_input_files(str(copy))
        expect(page.get_by_text("pumps_copy.md").first).to_be_visible()
        page.get_by_role("button", name="Ingest").click()
        expect(page.get_by_text(f"already stored (same content) as document {doc_id}").first
               ).to_be_visible()
        expect(page.get_by_text("0 of 1 files ingested, 1 already stored")).to_be_visible()
        expect(page.get_by_text("added it to collection").first).to_be_visible()
        _shot(page, "forms_1_duplicate")
        link = page.get_by_role("link", name=f"Open document {doc_id} (pumps_copy.md)").first
        expect(link).to_be_visible()
        link.click()
        page.wait_for_url(f"**/document?doc={doc_id}*")
        _settled(page)
        expect(page.get_by_role("heading", name="Document", exact=True)).to_be_visible()
    except Exception:
        _shot(page, "forms_failure_upload")
        raise


def test_watched_folder_form_shows_its_own_fields(server, page):
    from playwright.sync_api import expect

    url, _, roots = server
    try:
        _open(page, f"{url}/crawl")
        expect(page.get_by_label("Max pages", exact=True)).to_be_visible()  # a web site: its limits
        page.get_by_text("watched folder", exact=True).click()
        folder = page.get_by_label("Folder", exact=True)
        expect(folder).to_be_visible()
        for web_only in ("Max pages", "Max depth", "Delay (s)", "Concurrency"):
            expect(page.get_by_label(web_only, exact=True)).to_have_count(0)
        expect(page.get_by_text("Respect robots.txt")).to_have_count(0)
        expect(page.get_by_label("Interval (minutes)", exact=True)).to_have_count(0)
        page.get_by_text("every N minutes", exact=True).click()
        expect(page.get_by_label("Interval (minutes)", exact=True)).to_be_visible()
        expect(page.get_by_label("Cron expression", exact=True)).to_have_count(0)
        page.get_by_label("Name", exact=True).fill("Board Minutes")
        page.get_by_label("Collection", exact=True).fill("minutes")
        folder.fill(str(roots / "missing"))
        page.get_by_role("button", name="Create source").click()
        expect(page.get_by_text(f"folder {roots / 'missing'} does not exist")).to_be_visible()
        expect(page.get_by_text("Errno")).to_have_count(0)
        _shot(page, "forms_2_folder")
    except Exception:
        _shot(page, "forms_failure_crawl")
        raise


def test_chatbot_builder_starts_from_an_existing_collection(server, page):
    from playwright.sync_api import expect

    url = server[0]
    try:
        _open(page, f"{url}/chatbot_builder")
        page.get_by_text("existing collections only", exact=True).click()
        expect(page.get_by_label("URL of the site to crawl", exact=True)).to_have_count(0)
        expect(page.get_by_label("Chatbot name (empty: derived from the collections)", exact=True)
               ).to_be_visible()
        page.get_by_test_id("stMultiSelect").filter(has_text="Collections").click()
        page.get_by_role("option", name="handbook").click()
        page.keyboard.press("Escape")
        page.get_by_role("button", name="Create", exact=True).click()
        expect(page.get_by_text("Chatbot Chatbot for handbook created; it answers from the "
                                "chosen collections.")).to_be_visible()
        expect(page.get_by_text("name must not be empty")).to_have_count(0)
        _shot(page, "forms_3_chatbot")
    except Exception:
        _shot(page, "forms_failure_chatbot")
        raise
