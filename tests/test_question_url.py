"""URLs in questions (issue 26 item 4, seed 004; backend/chat/question_url.py): the first URL of
a chat question is fetched through the crawler's SSRF guard, robots.txt and extractor, answers
as web source [1] (URL, title, quote; no page image) and is never indexed; a refused or failed
URL is named with its reason in the notice and the documents answer. Through the chat service
and POST /api/ask, against a site on 127.0.0.1 (tests/crawl_site_support.py) that the guard
lets through only when `crawl_allowed_hosts` names it, as in the crawl tests."""
from __future__ import annotations

import json
import re

import pytest

from backend.chat import question_url
from backend.chat.service import ChatService
from backend.ingest.service import Ingestor
from backend.security.access import Scope
from backend.store.models import Document, RetrievalTrace
from tests.crawl_site_support import Reply, Site, page
from tests.page_support import app, components  # noqa: F401  (fixtures)

PARKING = page("Parkhaus Am Markt", "Das Parkhaus Am Markt hat 420 Stellplätze. Die maximale "
               "Fahrzeughöhe beträgt 2,10 m. Geöffnet ist täglich von 6 bis 23 Uhr.")
ROBOTS = Reply(body=b"User-agent: *\nDisallow: /private/\n", ctype="text/plain")
DOC = (b"Pressemitteilung der Stadtwerke: Der neue Arbeitspreis fuer Trinkwasser betraegt ab "
       b"1. Januar 2025 2,37 EUR je Kubikmeter. Die Wartungsfenster liegen dienstags.")
HEIGHT_Q = "Fasse diese Seite zusammen: {url} und nenne die maximale Fahrzeughöhe"
PRICE_Q = "Wie hoch ist der Arbeitspreis für Trinkwasser laut {url}?"


@pytest.fixture
def site():
    with Site() as s:
        s.routes.update({"/info.html": Reply(body=PARKING), "/robots.txt": ROBOTS,
                         "/private/info.html": Reply(body=PARKING),
                         "/data.json": Reply(body=b'{"height": "2,10 m"}',
                                             ctype="application/json")})
        yield s


def _chat(make_rs, site, **settings):
    settings.setdefault("crawl_allowed_hosts", f"127.0.0.1:{site.port}")
    settings.setdefault("crawl_timeout_s", 2.0)
    rs = make_rs(**settings)
    out = Ingestor(rs).ingest_bytes(DOC, "pressemitteilung.txt", collection="public")
    assert out.ok, out.error
    svc = ChatService(rs)
    return rs, svc, svc.create_session("alice")


def _ask(svc, sess, q):
    return svc.ask(sess.uuid, q, scope=Scope.everything()).message


def _stages(rs, trace_id) -> dict:
    with rs.store.session() as s:
        return {x["name"]: x for x in s.get(RetrievalTrace, trace_id).trace["trace"]["stages"]}


def test_the_page_answers_as_a_cited_web_source_and_is_not_indexed(make_rs, site):
    rs, svc, sess = _chat(make_rs, site)
    url = site.base + "/info.html"
    m = _ask(svc, sess, HEIGHT_Q.format(url=url))
    assert "2,10 m" in m.content and "[1]" in m.content, m.content
    web = m.sources[0]
    assert web["kind"] == "web" and web["url"] == url and web["title"] == "Parkhaus Am Markt"
    assert web["cited"] and "2,10 m" in web["quote"] and web["preview_url"] is None
    assert web["document_id"] is None and not m.notice
    assert all(s["n"] == n for n, s in enumerate(m.sources, 1))  # documents after it
    st = _stages(rs, m.trace_id)
    assert st["route"]["params"]["path"] == "url"  # not hijacked by "Fasse … zusammen"
    assert st["question URL"]["params"]["outcome"] == "fetched"
    assert st["question URL"]["params"]["bytes"] == len(PARKING)
    assert st["question URL"]["params"]["status"] == 200
    with rs.store.session() as s:  # neither stored as a document nor indexed
        assert [d.filename for d in s.query(Document)] == ["pressemitteilung.txt"]
    assert not rs.keyword_index.search("Fahrzeughöhe", 10, _all())
    stored = svc.messages(sess.uuid, scope=Scope.everything())[-1]
    assert stored.sources[0]["url"] == url and stored.sources[0]["quote"] == web["quote"]


def _pdf() -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 8, "Tarifblatt Parkhaus Nord. Die Tageskarte kostet 14,50 EUR. "
                   "Die Einfahrt ist rund um die Uhr moeglich.")
    return bytes(pdf.output())


def test_a_pdf_answers_and_a_bare_summary_request_quotes_the_page(make_rs, site):
    site.routes["/tarif.pdf"] = Reply(body=_pdf(), ctype="application/pdf")
    rs, svc, sess = _chat(make_rs, site)
    m = _ask(svc, sess, f"Was kostet die Tageskarte laut {site.base}/tarif.pdf?")
    assert "14,50" in m.content and m.sources[0]["kind"] == "web", m.content
    assert m.sources[0]["file_type"] == "pdf" and m.sources[0]["cited"]
    m = _ask(svc, sess, f"Fasse diese Seite zusammen: {site.base}/info.html")
    assert m.sources[0]["cited"] and "Parkhaus Am Markt" in m.content, m.content


def test_a_model_gets_the_page_as_source_1_and_the_question_as_asked(make_rs, site):
    from tests.test_chat import FakeProvider

    rs, _, _ = _chat(make_rs, site)
    llm = FakeProvider("Die maximale Fahrzeughöhe beträgt 2,10 m [1].")
    svc = ChatService(rs, provider_factory=lambda name: llm)
    sess = svc.create_session("alice", provider="anthropic")
    q = HEIGHT_Q.format(url=site.base + "/info.html")
    m = _ask(svc, sess, q)
    req = llm.requests[-1]
    assert req.evidence[0].n == 1 and "2,10 m" in req.evidence[0].text
    assert req.evidence[0].document == "Parkhaus Am Markt"
    prompt = req.messages[-1].content
    assert q in prompt and 'id="1" document="Parkhaus Am Markt"' in prompt
    assert m.sources[0]["cited"] and "2,10 m" in m.sources[0]["quote"]


def _all():
    from backend.index.base import IndexFilter
    return IndexFilter()


@pytest.mark.parametrize("path,reason", [
    ("/private/info.html", "disallowed by robots.txt"),
    ("/missing.html", "HTTP 404"),
    ("/data.json", "not an HTML page or PDF (Content-Type 'application/json')"),
])
def test_a_failed_url_is_named_and_the_documents_answer(make_rs, site, path, reason):
    rs, svc, sess = _chat(make_rs, site)
    url = site.base + path
    m = _ask(svc, sess, PRICE_Q.format(url=url))
    assert m.notice and url in m.notice and reason in m.notice, m.notice
    assert "2,37" in m.content  # answered from the documents
    assert all(s.get("kind") != "web" for s in m.sources)
    stage = _stages(rs, m.trace_id)["question URL"]
    assert reason in stage["params"]["reason"]


def test_loopback_is_refused_by_the_guard_without_a_request(make_rs, site):
    rs, svc, sess = _chat(make_rs, site, crawl_allowed_hosts="")
    m = _ask(svc, sess, PRICE_Q.format(url=site.base + "/info.html"))
    assert "loopback address 127.0.0.1" in m.notice and "2,37" in m.content
    assert site.log == []  # not even robots.txt was asked for
    assert _stages(rs, m.trace_id)["question URL"]["params"]["outcome"] == "refused"


def test_a_too_large_page_is_named(make_rs, site):
    site.routes["/big.html"] = Reply(body=page("Big", "x " * 4000))
    rs, svc, sess = _chat(make_rs, site, crawl_max_response_mb=0.004)  # ~4 KiB
    m = _ask(svc, sess, PRICE_Q.format(url=site.base + "/big.html"))
    assert "over the limit" in m.notice and "2,37" in m.content


def test_a_too_slow_page_is_named(make_rs, site):
    site.routes["/slow.html"] = Reply(body=PARKING, delay=1.5)
    rs, svc, sess = _chat(make_rs, site, crawl_timeout_s=0.5)
    m = _ask(svc, sess, PRICE_Q.format(url=site.base + "/slow.html"))
    assert "timed out" in m.notice and "2,37" in m.content


def test_off_setting_fetches_nothing(make_rs, site):
    rs, svc, sess = _chat(make_rs, site, question_urls=False)
    m = _ask(svc, sess, HEIGHT_Q.format(url=site.base + "/info.html"))
    assert "RAGSCOPE_QUESTION_URLS=off" in m.notice and site.log == []


def test_ask_api_cites_the_page(make_rs, site):
    from fastapi.testclient import TestClient

    from backend.api.http import create_app
    from tests.api_support import grant_and_issue

    rs, _, _ = _chat(make_rs, site, api_rate_per_token=0, api_rate_per_address=0)
    token = grant_and_issue(rs, {}, {"root": ([], ["admin"])})["root"]
    url = site.base + "/info.html"
    with TestClient(create_app(rs)) as client:
        r = client.post("/api/ask", json={"question": HEIGHT_Q.format(url=url)},
                        headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200
    events = re.findall(r"event: (\w+)\ndata: (.*)\n\n", r.text)
    sources = json.loads(next(d for e, d in events if e == "sources"))["sources"]
    assert sources[0]["kind"] == "web" and sources[0]["url"] == url
    answer = json.loads(events[-1][1])
    assert events[-1][0] == "answer" and "2,10 m" in answer["text"]
    web = answer["sources"][0]
    assert web["cited"] and "2,10 m" in web["quote"] and "links" not in web


@pytest.mark.parametrize("q,url,query", [
    (HEIGHT_Q.format(url="https://example.org/info.html"), "https://example.org/info.html",
     "die maximale Fahrzeughöhe"),
    ("Summarize this page: https://x.org/a and tell me the opening hours.", "https://x.org/a",
     "the opening hours."),
    ("Gilt das auch für www.example.org/tarife?", "https://www.example.org/tarife",
     "Gilt das auch für?"),
    ("Wie hoch ist der Preis?", None, "Wie hoch ist der Preis?"),
])
def test_the_url_and_the_query_without_it(q, url, query):
    assert question_url.find_url(q) == url
    assert question_url.without_url(q) == query


def test_the_chat_page_shows_the_web_source_with_link_and_quote(tmp_path, monkeypatch, site,
                                                                 shared_embedder, app):
    from backend.config import Settings
    from backend.services.container import Ragscope
    from streamlit.testing.v1 import AppTest
    from tests.page_support import build_data_dir, login_as, open_page, plain

    data = tmp_path / "var"
    build_data_dir(data, shared_embedder, [])
    rs = Ragscope(Settings(data_dir=data, crawl_allowed_hosts=f"127.0.0.1:{site.port}"))
    rs.embedder = shared_embedder
    url = site.base + "/info.html"
    sess = ChatService(rs).create_session("viewer")
    msg = _ask(ChatService(rs), sess, HEIGHT_Q.format(url=url))
    rs.close()
    import backend.embed.embedder
    from pathlib import Path

    monkeypatch.setattr(backend.embed.embedder, "Embedder", lambda *a, **k: shared_embedder)
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(data))
    chat_page = Path(__file__).resolve().parent.parent / "pages" / "chat.py"
    at = AppTest.from_file(str(chat_page), default_timeout=90)
    login_as(at, "viewer")
    at.query_params["session"] = sess.uuid
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    shown = "\n".join(plain(m.value) for m in at.markdown)
    assert "web page from the question" in shown and url in shown
    assert "Die maximale Fahrzeughöhe beträgt 2,10 m" in shown
    at = app(data, "viewer")  # the query-debug page shows the stage and its outcome
    at.query_params["trace"] = msg.trace_id
    open_page(at, "query_debug")
    shown = "\n".join(plain(m.value) for m in at.markdown)
    assert "question URL" in shown and f"fetched {len(PARKING):,} bytes (HTTP 200)" in shown
