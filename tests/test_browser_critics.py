"""In a real browser (Debian chromium via Playwright; issue 26.1): under a stored chat answer
the analyst opens "Critiques", clicks "Critique this answer" and sees the rounds — the
critics' ratings and issues, the revision and the run's status. The critics and the
revision are the `openai` provider pointed at a recording OpenAI-compatible server on
127.0.0.1 in this process; the dashboard runs under `streamlit run` on 127.0.0.1 and is
stopped in teardown."""
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
from tests.fake_llm_support import last_prompt, recorder  # noqa: F401  (fixture)

PASSWORD = "browser-critics-pw-1"
SOURCE = "The gateway listens on port 8443 by default. Port 80 only redirects."
WRONG = "The gateway listens on port 9000 by default. [1]"
RIGHT = "The gateway listens on port 8443 by default. [1]"

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="no /usr/bin/chromium")]


def _reply(body) -> str:
    """The fact checker rates the wrong port low, every critic the right one high; a
    revision writes the right port."""
    p = last_prompt(body)
    if "Critiques:" in p:
        return RIGHT
    if "port 9000" in p.split("Answer to check:")[-1]:
        return '{"rating": 2, "issues": ["port 9000 is not in source 1"], ' \
               '"suggestions": ["say 8443"]}'
    return '{"rating": 9, "issues": [], "suggestions": []}'


def _stored_answer(data, embedder) -> tuple[str, int]:
    from backend.chat.service import ChatService
    from backend.chat.types import SessionSettings
    from backend.store.models import Chunk

    with ingested(data, embedder) as ingestor:
        assert ingestor.ingest_bytes(f"# Gateway\n\n{SOURCE}\n".encode(), "gateway.md").ok
        rs = ingestor.rs
        with rs.store.session() as s:
            chunk = s.query(Chunk).first()
            src = {"n": 1, "chunk_id": chunk.id, "document_id": chunk.document_id,
                   "title": "gateway.md", "filename": "gateway.md", "cited": True,
                   "score": 0.91}
        chat = ChatService(rs)
        sess = chat.create_session("admin", provider="openai")
        mid = chat.store_turn(sess.uuid, "Which port does the gateway use?", SessionSettings(),
                              content=WRONG, sources=[src], citations={}, provider="openai",
                              model="rec-model").message.id
        return sess.uuid, mid


def test_an_answer_is_critiqued_from_the_chat_and_its_rounds_are_shown(
        tmp_path, shared_embedder, recorder):
    from playwright.sync_api import expect, sync_playwright

    data = tmp_path / "var"
    uuid, mid = _stored_answer(data, shared_embedder)
    srv = recorder(_reply)
    env = {"RAGSCOPE_OPENAI_BASE_URL": srv.base_url, "RAGSCOPE_OPENAI_MODEL": "rec-model",
           "RAGSCOPE_LLM_MAX_RETRIES": "0", "RAGSCOPE_LLM_TIMEOUT_S": "180"}
    expect.set_options(timeout=180_000)
    with streamlit_app(data, PASSWORD, "server_critics.log", env) as url, \
            sync_playwright() as p, admin_page(p, url, PASSWORD) as page:
        page.goto(f"{url}/chat?session={uuid}")
        _settled(page)
        expect(page.get_by_text("port 9000", exact=False).first).to_be_visible()
        page.get_by_test_id("stExpander").filter(has_text="Critiques").first.click()
        page.get_by_role("button", name="Critique this answer").click()
        expect(page.get_by_text("revised after 2 round(s)", exact=False).first
               ).to_be_visible()
        _settled(page)
        critiques = page.get_by_test_id("stExpander").filter(has_text="Critiques").first
        if not critiques.get_by_text("Round 2", exact=False).first.is_visible():
            critiques.get_by_text("revised after 2 round(s)", exact=False).first.click()
        for shown in ("Fact checker", "port 9000 is not in source 1", "say 8443",
                      "Round 1", "Round 2", "port 8443"):
            expect(critiques.get_by_text(shown, exact=False).first).to_be_visible()
        _shot(page, "chat_critique_rounds")
    # round 1: three critics, the revision, round 2: three critics — the exact flow
    assert len(srv.requests) == 7, [last_prompt(b)[:60] for b in srv.requests]
    assert WRONG.split(" [")[0] in last_prompt(srv.requests[0])
    assert "Critiques:" in last_prompt(srv.requests[3])
