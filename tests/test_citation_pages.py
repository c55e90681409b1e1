"""The dashboard's verifiable citations through AppTest (issue 23): the chat page's `[n]`
button holds the passage with the quote highlighted, "Open in document" on a Markdown
document shows the text around the quote with the quote highlighted, and a trace link
fills Query debug's question and lists the cited sources. (The PDF page image and the
clicks themselves: tests/test_browser_citations.py.)"""
from __future__ import annotations

import pytest

from backend.security.access import Scope
from backend.chat.service import ChatService
from backend.config import Settings
from backend.security.safe_markdown import md_escape
from backend.services.container import Ragscope
from backend.ui import state as K
from backend.ui.citations import document_params, trace_params
from tests.page_support import (  # noqa: F401  (fixtures)
    app,
    build_data_dir,
    components,
    open_page,
    shared_model,
)

QUESTION = "How long does the automatic failover take to switch to the standby node?"


@pytest.fixture(scope="module")
def asked(tmp_path_factory, shared_embedder):
    """A corpus of one Markdown runbook and one answer of the viewer that cites it."""
    data = tmp_path_factory.mktemp("citation_pages") / "var"
    build_data_dir(data, shared_embedder, ["runbook_gateway_failover.md"])
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = shared_embedder
    svc = ChatService(rs)
    sess = svc.create_session("viewer")
    msg = svc.ask(sess.uuid, QUESTION, scope=Scope.everything()).message
    rs.close()
    src = next((s for s in msg.sources if s["cited"] and s["filename"].endswith(".md")), None)
    assert src is not None, (msg.content, msg.sources)
    return data, sess.uuid, msg, src


def _markdown(at) -> list[str]:
    return [m.value for m in at.markdown]


def test_chat_citation_button_holds_the_passage_with_the_quote_highlighted(app, asked,
                                                                            shared_model):
    data, uuid, msg, src = asked
    assert src["quote"] and src["quote"] in src["passage"] and src["preview_url"] is None
    at = app(data, "viewer")
    at.query_params["session"] = uuid
    open_page(at, "chat")
    highlight = ":orange-background[**" + md_escape(src["quote"]) + "**]"
    assert any(highlight in m for m in _markdown(at)), _markdown(at)
    assert any(f"**{md_escape(src['title'])}**" in m for m in _markdown(at))


def test_open_in_document_shows_the_text_around_the_quote_highlighted(app, asked,
                                                                       shared_model):
    data, _, _, src = asked
    at = app(data, "viewer")
    for k, v in document_params(src).items():
        at.query_params[k] = v
    open_page(at, "document")
    highlight = ":orange-background[**" + md_escape(src["quote"]) + "**]"
    shown = [m for m in _markdown(at) if highlight in m]
    assert shown, _markdown(at)
    assert not at.get("imgs")  # not a PDF: text, no page image


def test_trace_link_fills_the_question_and_lists_the_cited_sources(app, asked, shared_model):
    data, _, msg, src = asked
    at = app(data, "viewer")
    for k, v in trace_params(msg.trace_id, QUESTION).items():
        at.query_params[k] = v
    open_page(at, "query_debug")
    assert at.text_input(key=K.DEBUG_QUERY).value == QUESTION
    cited = [m for m in _markdown(at) if m.startswith("**Cited in the answer:**")]
    assert cited and f"\\[{src['n']:d}\\] {md_escape(src['title'])}" in cited[0]


def test_a_crawled_page_opens_as_its_stored_copy_with_the_web_link(asked, shared_embedder):
    from backend.security.access import Actor
    from backend.ingest.service import Ingestor
    from backend.ui.citations import cited_place

    data = asked[0]
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = shared_embedder
    page = (b"<html><body><main><h1>Fares</h1><p>A day ticket costs 7.90 euros.</p>"
            b"<p>Children under six travel free.</p></main></body></html>")
    out = Ingestor(rs).ingest_bytes(page, "fares.html", collection="web", source_kind="crawl",
                                    source_uri="https://transit.example/fares")
    assert out.ok, out.error
    with rs.store.session() as s:
        from backend.store.models import DocumentVersion

        text = s.get(DocumentVersion, out.version_id).text
    a = text.index("Children under six")
    place = cited_place(rs, Actor.system("tests"), out.document_id, None, a,
                        a + len("Children under six travel free."))
    rs.close()
    assert place.kind == "web" and place.web_url == "https://transit.example/fares"
    assert ":orange-background[**Children under six travel free\\.**]" in place.excerpt_md
    assert "A day ticket costs 7\\.90 euros\\." in place.excerpt_md  # the text around it
