"""The chatbot builder in a real browser (Debian chromium via Playwright, never `playwright
install`): the dashboard runs under `streamlit run` on 127.0.0.1 with a temporary data dir
and the generated ferry site (tests/chatbot_site.py) allow-listed for crawling. An editor
enters the site's URL, the build crawls and embeds it, Generate fills the prompt and
messages, the test chat answers citing a crawled page, the bot is published; a viewer opens
the bot's page and its embedded form. Screenshots go to test-artifacts/browser/."""
from __future__ import annotations

import os
import re

import pytest

from tests.chatbot_site import build_ferry_site
from tests.browser_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    _nav,
    _settled,
    _shot,
    _signed_in,
    _wait_for_cookie,
    streamlit_app,
)
from tests.crawl_site_support import Site

ADMIN_PASSWORD = "browser-bots-admin-1"
EDITOR_PASSWORD = "browser-bots-editor-1"
VIEWER_PASSWORD = "browser-bots-viewer-1"
TIMEOUT = 120_000  # ms: a loaded machine makes script runs slow; nothing here waits longer

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="no /usr/bin/chromium")]


@pytest.fixture(scope="module")
def server(tmp_path_factory, shared_embedder):
    from backend.security import auth

    shared_embedder.warm_up()  # the ONNX export lands in the session's cache the server uses

    data = tmp_path_factory.mktemp("browser_bots") / "var"
    with Site() as site:
        build_ferry_site(site)
        auth.bootstrap(data, admin_password=ADMIN_PASSWORD)
        users = auth.UserStore(auth.AuthPaths.under(data))
        users.add("editor", "editor", password=EDITOR_PASSWORD)
        users.add("viewer", "viewer", password=VIEWER_PASSWORD)
        env = {"RAGSCOPE_CRAWL_ALLOWED_HOSTS": f"127.0.0.1:{site.port}"}
        with streamlit_app(data, ADMIN_PASSWORD, "server_chatbot.log", env) as url:
            yield url, site


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


def _new_page(browser):
    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    page.set_default_timeout(TIMEOUT)
    return page


def _enter(page, label: str, text: str) -> None:
    """Fill a text input and commit it (Enter), then wait for the script run."""
    box = page.get_by_label(label, exact=True)
    box.fill(text)
    box.press("Enter")
    _settled(page)


def test_url_to_published_bot_in_the_browser(server, browser):
    from playwright.sync_api import expect

    url, site = server
    expect.set_options(timeout=TIMEOUT)
    page = _new_page(browser)
    try:
        _build_and_publish(page, url, site)
    except Exception:
        _shot(page, "chatbot_failure")
        raise
    viewer = _new_page(browser)
    try:
        _viewer_asks(viewer, url)
    except Exception:
        _shot(viewer, "chatbot_viewer_failure")
        raise


def _build_and_publish(page, url: str, site) -> None:
    from playwright.sync_api import expect

    page.goto(url)
    _settled(page)
    _signed_in(page, "editor", EDITOR_PASSWORD)
    _nav(page, "Chatbot builder")

    # 1: the site's URL and a name; the build starts
    _enter(page, "URL of the site to crawl", site.base + "/")
    _enter(page, "Chatbot name (empty: derived from the URL)", "Ferry Helper")
    page.get_by_role("button", name="Create and start the build").click()
    expect(page.get_by_text("Chatbot Ferry Helper created")).to_be_visible()
    assert "bot=ferry-helper" in page.url  # a reload reconnects to this bot's build

    # 2: live progress until every page is crawled and embedded
    expect(page.get_by_text(re.compile(r"^done · 4 of \d+ pages"))).to_be_visible()
    nxt = page.get_by_role("button", name="Next: configure")
    expect(nxt).to_be_enabled()
    _shot(page, "chatbot_1_build")
    nxt.click()
    _settled(page)

    # 3: Generate fills the fields from the crawled pages
    for label in ("system prompt", "welcome message", "fallback message"):
        page.get_by_role("button", name=f"Generate {label}").click()
        expect(page.get_by_text(f"{label[0].upper()}{label[1:]} generated")).to_be_visible()
        _settled(page)
    _shot(page, "chatbot_2_configure")
    page.get_by_role("button", name="Save and test").click()
    _settled(page)

    # 4: the test chat answers from the crawled tickets page, citing it
    expect(page.get_by_role("heading", name="4. Test chat")).to_be_visible()
    page.get_by_label("Question", exact=True).fill("How much is a single ticket for adults?")
    page.get_by_role("button", name="Ask", exact=True).click()
    _settled(page)
    answer = page.get_by_test_id("stChatMessage").filter(has_text="7.50 euros")
    expect(answer).to_be_visible()
    expect(answer).to_contain_text("[1]")
    # the cited source under the answer: number, page title, URL and retrieval score
    # (md_escape puts an invisible word joiner after every ":" of the URL)
    line = page.get_by_text(re.compile(r"^\[1\] Tickets and fares \| Lindholm Ferry Service · "
                                       r".*/tickets · score \d\.\d\d$"))
    expect(line).to_be_visible()
    assert line.inner_text().replace("\u2060", "").split(" · ")[1] == site.base + "/tickets"
    _shot(page, "chatbot_3_test_chat")

    # 5: publish
    page.get_by_role("button", name="Next: publish").click()
    _settled(page)
    page.get_by_role("button", name="Publish", exact=True).click()
    expect(page.get_by_text("Published: viewers can open it now.")).to_be_visible()
    _shot(page, "chatbot_4_published")


def _submit(page, question: str) -> None:
    """Type the question into the chat input and send it; if a script run that was still
    under way replaced the input (the question never shows up as the user's message), send
    it again."""
    from playwright.sync_api import expect

    asked = page.get_by_test_id("stChatMessage").filter(has_text=question)
    for _ in range(3):
        box = page.get_by_test_id("stChatInputTextArea")
        box.fill(question)
        box.press("Enter")
        try:
            expect(asked).to_be_visible(timeout=30_000)
            return
        except AssertionError:
            _settled(page)
    expect(asked).to_be_visible()


def _viewer_asks(page, url: str) -> None:
    from playwright.sync_api import expect

    page.goto(url)
    _settled(page)
    _signed_in(page, "viewer", VIEWER_PASSWORD)
    _wait_for_cookie(page, "viewer", timeout=60)  # a new session is signed in by it
    page.goto(f"{url}/chatbot?bot=ferry-helper")
    _settled(page)
    expect(page.get_by_role("heading", name="Ferry Helper")).to_be_visible()
    expect(page.get_by_text("Welcome to Lindholm Ferry Service")).to_be_visible()
    _submit(page, "When does the last winter ferry leave Nordhafen?")
    # (md_escape puts an invisible word joiner after ":": "20:\u206010")
    answer = page.get_by_test_id("stChatMessage").filter(
        has_text=re.compile("the last crossing leaves Nordhafen at 20:\u2060?10"))
    expect(answer).to_be_visible()
    _settled(page)
    _shot(page, "chatbot_5_viewer")

    # embedded: no sidebar, no navigation; the welcome and the chat only
    page.goto(f"{url}/chatbot?bot=ferry-helper&embed=true")
    _settled(page)
    expect(page.get_by_text("Welcome to Lindholm Ferry Service")).to_be_visible()
    expect(page.get_by_test_id("stChatInputTextArea")).to_be_visible()
    expect(page.get_by_test_id("stSidebar")).to_have_count(0)
    expect(page.get_by_test_id("stSidebarNav")).to_have_count(0)
    expect(page.get_by_text("Signed in as")).to_have_count(0)
    _shot(page, "chatbot_6_embedded")
