"""A chatbot's build against a generated site on 127.0.0.1: crawl + ingestion as a persisted
background job whose progress another service instance (a page reload) reads back from the
store; cancel and resume without duplicate chunks (counts equal an uninterrupted build, the
consistency check is clean); an unreachable site and a site without pages say why."""
from __future__ import annotations

import socket
import time

import pytest
from sqlalchemy import func, select

from backend.chatbots.service import ChatbotService
from backend.errors import ChatbotError
from backend.ingest.service import Ingestor
from backend.store.models import Document
from tests.chatbot_site import EDITOR, QUICK, bot_service, build_ferry_site
from tests.crawl_site_support import Reply, Site


@pytest.fixture
def site():
    with Site() as s:
        yield s


def test_build_runs_in_background_and_a_reload_reconnects(make_rs, site):
    paths = build_ferry_site(site, extra_pages=6)
    for p in paths[1:]:  # slow enough to watch it run
        site.routes[p].delay = 0.15
    rs = make_rs(crawl_allowed_hosts=f"127.0.0.1:{site.port}")
    svc = bot_service(rs)
    bot = svc.create(EDITOR, url=site.base + "/", name="Ferry Bot", crawl_options=QUICK)
    assert svc.build_progress(bot.slug).status == "none"
    svc.start_build(EDITOR, bot.slug)
    with pytest.raises(ChatbotError, match="already running"):
        svc.start_build(EDITOR, bot.slug)
    reloaded = ChatbotService(rs)  # a new page run: only the store is shared
    seen_running = None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # chunks may follow later: embedding is pipelined
        p = reloaded.build_progress(bot.slug)
        if p.status == "running" and p.pages_done >= 2:
            seen_running = p
            break
        time.sleep(0.05)
    assert seen_running is not None, "never saw the build running"
    assert 0 < seen_running.fraction < 1 and seen_running.eta_s is not None
    # pages still to fetch give a positive ETA; with pipelined ingestion the crawl may have
    # fetched every page while the last chunks are still embedded (ETA 0, fraction below 1)
    assert seen_running.eta_s > 0 or seen_running.pages_done == seen_running.pages_total
    done = svc.wait_build(bot.slug, timeout=120)
    assert done.status == "done" and done.pages_done == len(paths) and done.problem is None
    assert done.documents == len(paths) and done.eta_s is None and done.chunks_embedded > 0
    again = reloaded.build_progress(bot.slug)
    assert (again.status, again.chunks_embedded) == ("done", done.chunks_embedded)


def _cancel_after(svc, slug, n):
    def cb(p):
        if p.pages_done == n and p.status == "running":
            svc.cancel_build(EDITOR, slug)
    return cb


def test_cancel_and_resume_without_duplicate_chunks(make_rs, tmp_path, site):
    paths = build_ferry_site(site, extra_pages=5)
    rs = make_rs(crawl_allowed_hosts=f"127.0.0.1:{site.port}")
    svc = bot_service(rs)
    bot = svc.create(EDITOR, url=site.base + "/", name="Ferry Bot", crawl_options=QUICK)
    svc.start_build(EDITOR, bot.slug, background=False,
                    on_progress=_cancel_after(svc, bot.slug, 3))
    p = svc.build_progress(bot.slug)
    assert p.status == "cancelled" and p.pages_done == 3 and p.resumable
    assert p.chunks_embedded > 0  # what was fetched stays, embedded
    with pytest.raises(ChatbotError, match="not running"):
        svc.cancel_build(EDITOR, bot.slug)
    svc.resume_build(EDITOR, bot.slug, background=False)
    p = svc.build_progress(bot.slug)
    assert p.status == "done" and p.pages_done == len(paths)
    with rs.store.session() as s:
        assert s.scalar(select(func.count(Document.id))) == len(paths)
    report = Ingestor(rs).check(full=True)
    assert report.ok, report.problems()
    assert report.active_chunks == p.chunks_embedded
    # the same site built in one go holds exactly as many chunks
    other = bot_service(make_rs(data_dir=tmp_path / "other",
                                crawl_allowed_hosts=f"127.0.0.1:{site.port}"))
    b2 = other.create(EDITOR, url=site.base + "/", name="Ferry Bot", crawl_options=QUICK)
    other.start_build(EDITOR, b2.slug, background=False)
    assert other.build_progress(b2.slug).chunks_embedded == p.chunks_embedded
    with pytest.raises(ChatbotError, match="only a cancelled"):
        svc.resume_build(EDITOR, bot.slug)


def test_unreachable_site_says_why(make_rs):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    svc = bot_service(make_rs(crawl_allowed_hosts=f"127.0.0.1:{port}"))
    bot = svc.create(EDITOR, url=f"http://127.0.0.1:{port}/", name="Nobody",
                     crawl_options=QUICK)
    svc.start_build(EDITOR, bot.slug, background=False)
    p = svc.build_progress(bot.slug)
    assert p.chunks_embedded == 0 and p.problem is not None
    assert "No page with content could be crawled" in p.problem
    assert "failed" in p.problem and ("refused" in p.problem.lower()
                                      or "connect" in p.problem.lower())


def test_site_without_pages_says_why(make_rs, site):
    site.routes["/"] = Reply(404, b"nothing here", "text/plain")
    svc = bot_service(make_rs(crawl_allowed_hosts=f"127.0.0.1:{site.port}"))
    bot = svc.create(EDITOR, url=site.base + "/", name="Empty", crawl_options=QUICK)
    svc.start_build(EDITOR, bot.slug, background=False)
    p = svc.build_progress(bot.slug)
    assert p.status == "done" and p.chunks_embedded == 0
    assert "HTTP 404" in p.problem


def test_bot_without_url_has_nothing_to_build(make_rs):
    rs = make_rs()
    with rs.store.session() as s:
        from backend.store import repo
        repo.get_or_create_collection(s, "handbook")  # default knowledge base
    svc = bot_service(rs)
    bot = svc.create(EDITOR, name="Handbook bot", collections=["handbook"])
    with pytest.raises(ChatbotError, match="no URL to build from"):
        svc.start_build(EDITOR, bot.slug)
