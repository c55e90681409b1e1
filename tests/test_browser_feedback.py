"""In a real browser (Debian chromium via Playwright): an answer on the chat page is rated
thumbs down with a note; the rating is stored with the answer (and its trace id), and the
Evaluation page lists it with the note, ready to become a goldenset question. The dashboard
runs under `streamlit run` on 127.0.0.1 with a temporary data dir prepared in this process;
it is stopped in teardown."""
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
    streamlit_app,
)

PASSWORD = "browser-feedback-pw-1"
QUESTION = "Which configuration key replaced gateway.maxConn?"
NOTE = "The key was renamed again in 3.3"

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="no /usr/bin/chromium")]


@pytest.fixture(scope="module")
def server(tmp_path_factory, shared_embedder):
    from backend.config import Settings
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope

    data = tmp_path_factory.mktemp("browser_feedback") / "var"
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = shared_embedder
    outs = Ingestor(rs).ingest_paths([SAMPLES / "lumen_release_notes.md"])
    assert all(o.ok for o in outs), [o.error for o in outs]
    rs.close()
    with streamlit_app(data, PASSWORD, "server_feedback.log") as url:
        yield url, data


def _stored(data):
    from backend.config import Settings
    from backend.security.access import Actor
    from backend.services import feedback
    from backend.services.container import Ragscope

    rs = Ragscope(Settings(data_dir=data))
    try:
        return feedback.rated_answers(rs, Actor.system())
    finally:
        rs.close()


def test_feedback_in_the_chat_is_stored_and_listed_on_the_evaluation_page(server):
    from playwright.sync_api import expect, sync_playwright

    url, data = server
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
            answer = page.get_by_test_id("stChatMessage").nth(1)
            expect(answer).to_contain_text("gateway.max_connections")
            expect(answer.get_by_text("Was this answer helpful?")).to_be_visible()
            answer.get_by_role("radio", name="Thumbs down").click()
            _settled(page)
            expect(answer.get_by_text("your feedback is stored")).to_be_visible()
            expect(answer.get_by_role("radio", name="Thumbs down")).to_have_attribute(
                "aria-checked", "true")
            answer.get_by_role("button", name="Note", exact=True).click()
            body = page.get_by_test_id("stPopoverBody")
            note = body.get_by_label("What was right or wrong? (optional)")
            note.fill(NOTE)
            note.press("Tab")  # the text area's value reaches the app before the click
            body.get_by_role("button", name="Save note").click()
            _settled(page)
            _shot(page, "feedback_1_chat")
            (row,) = _stored(data)
            assert (row.feedback.rating, row.feedback.note, row.question) == (
                "down", NOTE, QUESTION)
            assert row.trace_id and row.feedback.user == "admin"
            # the Evaluation page lists it and drafts a goldenset question from it
            page.goto(f"{url}/evaluation")
            _settled(page)
            expect(page.get_by_text("1 rated answer(s)")).to_be_visible()
            expect(page.get_by_text(f"The rater's note: {NOTE}")).to_be_visible()
            expect(page.get_by_label("Question", exact=True)).to_have_value(QUESTION)
            expect(page.get_by_label("Relevant documents (one per line)")).to_have_value(
                "lumen_release_notes.md")
            _shot(page, "feedback_2_evaluation")
        except Exception:
            _shot(page, "feedback_failure")
            raise
        finally:
            context.close()
            browser.close()
