"""In a real browser (Debian chromium via Playwright; issue 26.3): a reload of the chat page
while the answer is being made follows the ask job on and shows the answer once it is done,
without asking again. The model is an OpenAI-compatible server on 127.0.0.1 in this process
that sends its first words and then holds the stream until the test has reloaded the page;
the dashboard runs under `streamlit run` on 127.0.0.1 and is stopped in teardown."""
from __future__ import annotations

import os

import pytest

from tests.browser_support import (
    CHROMIUM,
    _settled,
    _shot,
    admin_page,
    ingested,
    streamlit_app,
)
from tests.held_model_support import DOC, FIRST, QUESTION, held, held_env  # noqa: F401

PASSWORD = "browser-reload-pw-1"

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="no /usr/bin/chromium")]


def _messages(data) -> list[tuple[str, str]]:
    from sqlalchemy import select

    from backend.store.chat_models import ChatMessage
    from backend.store.store import Store

    store = Store(f"sqlite:///{data / 'ragscope.db'}", migrate=False)
    try:
        with store.session() as s:
            return [(m.role, m.content) for m in s.scalars(select(ChatMessage)
                                                             .order_by(ChatMessage.id))]
    finally:
        store.dispose()


def test_a_reload_mid_answer_shows_the_answer_without_asking_again(tmp_path, shared_embedder,
                                                                   held):
    from playwright.sync_api import expect, sync_playwright

    data = tmp_path / "var"
    with ingested(data, shared_embedder) as ingestor:
        assert ingestor.ingest_bytes(DOC, "gateway.txt").ok
    env = held_env(held)
    expect.set_options(timeout=180_000)
    with streamlit_app(data, PASSWORD, "server_chat_reload.log", env) as url, \
            sync_playwright() as p, admin_page(p, url, PASSWORD) as page:
        page.goto(f"{url}/chat")
        _settled(page)
        box = page.get_by_test_id("stChatInputTextArea")
        box.fill(QUESTION)
        box.press("Enter")
        # the job is in the address and the model's first words are on the page
        page.wait_for_url(lambda u: "job=" in u, timeout=180_000)
        expect(page.get_by_text(FIRST.strip(), exact=False).first).to_be_visible()
        assert not held.go.is_set()
        page.reload()  # mid-answer: the old script run is gone
        page.get_by_test_id("stApp").wait_for()
        held.go.set()  # now the model finishes
        answer = page.get_by_test_id("stChatMessage").filter(has_text="8443")
        expect(answer.first).to_be_visible()
        _settled(page)
        page.wait_for_url(lambda u: "job=" not in u, timeout=60_000)
        _shot(page, "chat_reload_mid_answer")
    assert len(held.requests) == 1  # asked once: the reload followed the job
    msgs = _messages(data)
    assert [r for r, _ in msgs] == ["user", "assistant"], msgs
    assert msgs[0][1] == QUESTION and "8443" in msgs[1][1]
