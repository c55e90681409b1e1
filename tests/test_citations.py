"""Verifiable citations (issue 23): every source of an answer carries the cited passage, the
supporting quote with its offsets in the version text, page, section and (PDFs) a
preview_url — in the stored chat message, the ask stream, the MCP tool and the chatbots'
schema — and the preview route renders the PDF page with the quote highlighted, within the
caller's scope only."""
from __future__ import annotations

import asyncio
import io
import json
import re

import pytest
from sqlalchemy import select

from backend.security.access import Scope
from backend.chat.citations import best_quote, candidate_spans
from backend.chat.preview import OUTLINE, SCALE, find_chars
from backend.chat.service import ChatService
from backend.store.models import Chunk, DocumentVersion
from tests.api_support import SAMPLES, LiveServer, grant_and_issue

PORT_Q = "Welche Portnummer verwendet das Lumen Data Gateway standardmäßig?"
CORPUS = {"manual": ["lumen_handbuch.pdf"], "ops": ["runbook_gateway_failover.md"]}
GROUPS = {"g-manual": ("kb-manual", "read"), "g-ops": ("kb-ops", "read")}
PRINCIPALS = {"manual-reader": (["g-manual"], ["read"]), "ops-reader": (["g-ops"], ["read"]),
              "root": ([], ["admin"])}
PREVIEW = re.compile(r"^/api/documents/(\d+)/versions/(\d+)/pages/(\d+)\.png"
                     r"\?quote_start=(\d+)&quote_end=(\d+)$")


class Env:
    def __init__(self, rs, client, tokens, docs):
        self.rs, self.client, self.tokens, self.docs = rs, client, tokens, docs

    def headers(self, who: str) -> dict:
        return {"Authorization": f"Bearer {self.tokens[who]}"}


@pytest.fixture(scope="module")
def env(tmp_path_factory, shared_embedder):
    from fastapi.testclient import TestClient

    from backend.security import acl
    from backend.security.access import Actor
    from backend.api.http import create_app
    from backend.config import Settings
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope

    rs = Ragscope(Settings(data_dir=tmp_path_factory.mktemp("cite") / "var"))
    rs.embedder = shared_embedder
    docs = {}
    for coll, files in CORPUS.items():
        for o in Ingestor(rs).ingest_paths([SAMPLES / f for f in files], collection=coll):
            assert o.ok, o.error
            docs[o.filename] = o.document_id
    system = Actor.system("tests")
    for kb in ("kb-manual", "kb-ops"):
        acl.create_knowledge_base(rs, system, kb)
        acl.assign_collection(rs, system, kb.removeprefix("kb-"), kb)
    tokens = grant_and_issue(rs, GROUPS, PRINCIPALS)
    app = create_app(rs)
    yield Env(rs, TestClient(app, raise_server_exceptions=False), tokens, docs)
    rs.close()


def _version_text(rs, source: dict) -> str:
    with rs.store.session() as s:
        return s.scalar(select(DocumentVersion.text).where(
            DocumentVersion.id == source["version_id"]))


def _check_cited(rs, source: dict, must_contain: str) -> None:
    """The contract of a cited source: the quote is the version text at its offsets and
    lies inside the passage, which is the chunk's text."""
    text = _version_text(rs, source)
    a, b = source["quote_offsets"]
    assert source["quote"] == text[a:b] and must_contain in source["quote"]
    with rs.store.session() as s:
        chunk = s.get(Chunk, source["chunk_id"])
        assert source["passage"] == chunk.text == text[chunk.start:chunk.end]
        assert chunk.start <= a < b <= chunk.end
    assert source["section"]["path"] == source["section_path"]
    assert source["section"]["id"] is not None and source["section"]["title"]
    assert isinstance(source["page"], int) and source["file_type"] == "pdf"
    m = PREVIEW.match(source["preview_url"])
    assert m and m.groups() == (str(source["document_id"]), str(source["version"]),
                                str(source["page"]), str(a), str(b))


# ---- the quote within a passage --------------------------------------------------------

def test_quote_is_the_passage_sentence_that_supports_the_answer():
    passage = ("2.3 Ports\nDas Gateway lauscht standardmäßig auf Port 8443 (HTTPS). "
               "Der Admin-Port ist 9443.\nport | 8443 | HTTPS")
    a, b = best_quote(passage, ["Der Admin-Port ist 9443 "])
    assert passage[a:b] == "Der Admin-Port ist 9443."
    a, b = best_quote(passage, ["Das Lumen Data Gateway verwendet Port 8443 "])
    assert passage[a:b].startswith("Das Gateway lauscht")
    assert best_quote(passage, ["Völlig anderes Thema ohne Bezug"]) is None
    spans = candidate_spans(passage)
    assert [passage[x:y] for x, y in spans][0] == "2.3 Ports"  # headings and rows: lines


def test_find_chars_matches_reflowed_text_by_letters():
    page = "Die Konfigu-\r\nrationsdatei liegt unter /etc/lumen/gateway.yaml. Ein \ufb01x"
    a, b = find_chars(page, "Die Konfigu- rationsdatei liegt")
    assert page[a:b] == "Die Konfigu-\r\nrationsdatei liegt"
    a, b = find_chars(page, "Ein fix")
    assert page[a:b] == "Ein \ufb01x"
    assert find_chars(page, "nicht da") is None


# ---- the fields on every interface ----------------------------------------------------

def test_stored_answer_sources_carry_passage_quote_offsets_page_and_preview(env):
    svc = ChatService(env.rs)
    sess = svc.create_session("alice", collections=["manual"])
    ans = svc.ask(sess.uuid, PORT_Q, scope=Scope.everything())
    cited = [s for s in ans.message.sources if s["cited"]]
    assert cited, ans.message.content
    _check_cited(env.rs, cited[0], "8443")
    for s in ans.message.sources:  # uncited sources: the passage, no quote
        assert s["passage"] and ("quote" in s and "preview_url" in s)
        if not s["cited"]:
            assert s["quote"] is None and s["quote_offsets"] is None
    stored = svc.messages(sess.uuid, scope=Scope.everything())[-1].sources
    assert stored == ans.message.sources  # what the page reads back is the same


def _sse_answer(body: str) -> dict:
    events = re.findall(r"event: (\w+)\ndata: (.*)\n\n", body)
    assert events[-1][0] == "answer", events
    return json.loads(events[-1][1])


def test_ask_stream_answer_event_carries_the_citation_fields(env):
    r = env.client.post("/api/ask", json={"question": PORT_Q},
                        headers=env.headers("manual-reader"))
    assert r.status_code == 200
    answer = _sse_answer(r.text)
    cited = [s for s in answer["sources"] if s["cited"]]
    assert cited and answer["trace_id"]
    _check_cited(env.rs, cited[0], "8443")
    assert "original_path" not in cited[0]
    hint = answer["confidence"]  # issue 22: every answer carries its confidence hint
    assert hint["passages"] == len(answer["sources"]) and hint["text"].startswith("Konfidenz: ")
    png = env.client.get(cited[0]["preview_url"], headers=env.headers("manual-reader"))
    assert png.status_code == 200 and png.headers["content-type"] == "image/png"
    assert int(png.headers["x-highlight-boxes"]) >= 1


def test_mcp_answer_question_tool_returns_the_citation_fields(env):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def go(url):
        http = httpx2.AsyncClient(headers=env.headers("manual-reader"),
                                  timeout=httpx2.Timeout(30, read=300))
        async with Client(streamable_http_client(f"{url}/mcp", http_client=http)) as c:
            return await c.call_tool("answer_question", {"question": PORT_Q})

    with LiveServer(env.client.app) as live:
        res = asyncio.run(asyncio.wait_for(go(live.url), 240))
    assert not res.is_error, res
    data = res.structured_content or json.loads(res.content[0].text)
    data = data.get("result", data)
    cited = [s for s in data["sources"] if s["cited"]]
    assert cited
    _check_cited(env.rs, cited[0], "8443")
    assert data["confidence"]["passages"] == len(data["sources"])
    assert data["confidence"]["level"] in ("high", "medium", "low")


def test_chatbot_answer_schema_keeps_the_citation_fields(env):
    from backend.api.schemas_chatbots import BotSourceOut

    svc = ChatService(env.rs)
    sess = svc.create_session("bob", collections=["manual"])
    src = next(s for s in svc.ask(sess.uuid, PORT_Q, scope=Scope.everything()).message.sources
               if s["cited"])
    out = BotSourceOut.model_validate(src).model_dump()
    for key in ("passage", "quote", "quote_offsets", "page", "section", "preview_url"):
        assert out[key] == src[key], key


# ---- the page preview ------------------------------------------------------------------

def _cited_pdf_source(env) -> dict:
    svc = ChatService(env.rs)
    sess = svc.create_session("carol", collections=["manual"])
    return next(s for s in svc.ask(sess.uuid, PORT_Q, scope=Scope.everything()).message.sources
                if s["cited"])


def test_preview_png_has_the_highlight_box_over_the_quote(env):
    import pypdfium2 as pdfium
    from PIL import Image

    src = _cited_pdf_source(env)
    r = env.client.get(src["preview_url"], headers=env.headers("manual-reader"))
    assert r.status_code == 200, r.text
    img = Image.open(io.BytesIO(r.content)).convert("RGB")
    # where the quote is, found independently: pdfium's own search for its first words
    pdf = pdfium.PdfDocument(str(SAMPLES / "lumen_handbuch.pdf"))
    page = pdf[src["page"] - 1]
    assert img.size == tuple(round(x * SCALE) for x in page.get_size())
    tp = page.get_textpage()
    words = " ".join(src["quote"].split()[:3])
    found = tp.search(words).get_next()
    assert found, words
    left, bottom, right, top = tp.get_charbox(found[0])
    _, _, _, top0 = page.get_bbox()
    x, y = int(left * SCALE), int((top0 - top) * SCALE)
    tp.close(), page.close(), pdf.close()
    region = [(i, j) for i in range(max(0, x - 30), x + 400) for j in range(max(0, y - 12),
                                                                           y + 40)]
    outline = [p for p in region if _near(img.getpixel(p), OUTLINE[:3])]
    assert len(outline) > 50, "no highlight outline around the quote's first line"
    everywhere = sum(1 for p in img.getdata() if _near(p, OUTLINE[:3]))
    assert everywhere < 20 * len(outline)  # the box is where the quote is, not all over
    plain = env.client.get(src["preview_url"].split("?")[0], headers=env.headers("manual-reader"))
    assert plain.status_code == 200 and plain.headers["x-highlight-boxes"] == "0"
    bare = Image.open(io.BytesIO(plain.content)).convert("RGB")
    assert not [p for p in region if _near(bare.getpixel(p), OUTLINE[:3])]


def _near(p, q, tol=40) -> bool:
    return all(abs(a - b) <= tol for a, b in zip(p, q))


def test_preview_is_404_outside_the_callers_scope_and_for_bad_pages(env):
    src = _cited_pdf_source(env)
    url = src["preview_url"]
    r = env.client.get(url, headers=env.headers("ops-reader"))
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    missing = re.sub(r"/documents/\d+/", "/documents/999999/", url)
    other = env.client.get(missing, headers=env.headers("ops-reader")).json()
    assert other["error"]["message"].replace("999999", str(src["document_id"])) == \
        r.json()["error"]["message"]  # outside the scope reads like a missing document
    assert env.client.get(url).status_code == 401
    bad_page = re.sub(r"/pages/\d+\.png", "/pages/99.png", url)
    r = env.client.get(bad_page, headers=env.headers("manual-reader"))
    assert r.status_code == 404 and "no page 99" in r.json()["error"]["message"]
    r = env.client.get(re.sub(r"/pages/\d+\.png", "/pages/0.png", url),
                       headers=env.headers("manual-reader"))
    assert r.status_code == 422 and r.json()["error"]["field"] == "page"
    r = env.client.get(url.replace("quote_end=", "quote_end=9999"),
                       headers=env.headers("manual-reader"))
    assert r.status_code == 422 and "outside the version's text" in r.json()["error"]["message"]


def test_preview_of_a_non_pdf_is_422_naming_the_format(env):
    doc = env.docs["runbook_gateway_failover.md"]
    r = env.client.get(f"/api/documents/{doc}/versions/1/pages/1.png",
                       headers=env.headers("ops-reader"))
    assert r.status_code == 422
    assert "PDF documents only" in r.json()["error"]["message"] and "MD" in \
        r.json()["error"]["message"]


def test_a_deleted_or_hidden_documents_source_keeps_nothing_of_its_text(env):
    from backend.store.redact import OUTSIDE_LABEL, scrub_sources

    src = _cited_pdf_source(env)
    for label in ({}, {"label": OUTSIDE_LABEL}):
        out = scrub_sources([src], {src["document_id"]}, **label)[0]
        assert out["n"] == src["n"] and (out.get("deleted") or out.get("hidden"))
        for key in ("passage", "quote", "quote_offsets", "preview_url", "section", "page"):
            assert not out[key], key
