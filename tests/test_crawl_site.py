"""End-to-end crawls of a site served by the test on 127.0.0.1 (allow-listed by port):
nested pages, sitemap, robots.txt disallow, redirect chain and loop, a 500, a page slower
than the timeout, a PDF, two identical pages; then a re-crawl after one page changed and one
disappeared; redirect safety; the www-variant scope; cancel and resume."""
from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler

import pytest
from sqlalchemy import select

from backend.crawl.guard import UrlGuard
from backend.store import repo
from backend.store.models import Document, DocumentVersion
from tests.crawl_site_support import Reply, Route, Site, by_url, page, redirect, service


def pdf_bytes() -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 8, "Quarterly report on crawler safety. The crawler respects robots "
                   "rules and refuses private addresses in every redirect hop.")
    return bytes(pdf.output())


def docx_bytes() -> bytes:
    import io

    from docx import Document as Docx

    d = Docx()
    d.add_heading("Boarding guide", level=1)
    d.add_paragraph("Passengers board the ferry through gate four after the safety briefing.")
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


def etag_page(body: bytes, etag: str) -> Route:
    def handle(h: BaseHTTPRequestHandler) -> Reply:
        if h.headers.get("If-None-Match") == etag:
            return Reply(304, b"", headers={"ETag": etag})
        return Reply(200, body, headers={"ETag": etag})
    return handle


def build_site(site: Site) -> None:
    b = site.base
    dup = page("Twin", "Identical twin pages share this exact content about duplicate "
               "detection by content hash across collections.")
    site.routes.update({
        "/robots.txt": Reply(200, f"User-agent: *\nDisallow: /private/\nSitemap: {b}/sitemap.xml\n"
                             .encode(), "text/plain"),
        "/sitemap.xml": Reply(200, (
            '<?xml version="1.0" encoding="UTF-8"?>'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            f"<url><loc>{b}/</loc></url>"
            f"<url><loc>{b}/orphan</loc><lastmod>2024-05-01</lastmod></url>"
            "</urlset>").encode(), "application/xml"),
        "/": Reply(200, page("Home", "Welcome to the harbour authority knowledge base.",
                             "/docs/", "/about", "/private/secret", "/redirect-1", "/loop-a",
                             "/error", "/slow", "/files/report.pdf", "/files/guide", "/dup-1",
                             "/dup-2", "/gone-later", "http://example.com/elsewhere", "mailto:x@y.z")),
        "/docs/": Reply(200, page("Docs", "Documentation index of ferry timetables.",
                                  "/docs/a")),
        "/docs/a": Reply(200, page("Docs A", "Anchoring rules for small boats, version one.",
                                   "/docs/a/b")),
        "/docs/a/b": Reply(200, page("Docs B", "Berth allocation in the inner basin.",
                                     "/docs/a/b/c")),
        "/docs/a/b/c": Reply(200, page("Docs C", "Too deep to be crawled at depth three.")),
        "/about": etag_page(page("About", "About the harbour authority and its history."),
                            '"about-v1"'),
        "/private/secret": Reply(200, page("Secret", "Robots.txt keeps crawlers out.")),
        "/redirect-1": redirect("/redirect-2"),
        "/redirect-2": redirect(f"{b}/target", 302),
        "/target": Reply(200, page("Target", "The end of a redirect chain: tide tables.")),
        "/loop-a": redirect("/loop-b"),
        "/loop-b": redirect("/loop-a"),
        "/error": Reply(500, b"boom", "text/plain"),
        "/slow": Reply(200, page("Slow", "Too slow."), delay=1.5),
        "/files/report.pdf": Reply(200, pdf_bytes(), "application/pdf"),
        "/files/guide": Reply(200, docx_bytes(), "application/vnd.openxmlformats-"
                              "officedocument.wordprocessingml.document"),
        "/dup-1": Reply(200, dup),
        "/dup-2": Reply(200, dup),
        "/gone-later": Reply(200, page("Gone later", "Lighthouse maintenance schedule.")),
        "/orphan": Reply(200, page("Orphan", "Only the sitemap lists this pilotage page.")),
    })


@pytest.fixture
def site():
    with Site() as s:
        build_site(s)
        yield s


def test_crawl_then_recrawl(make_rs, site):
    rs = make_rs(crawl_allowed_hosts=f"127.0.0.1:{site.port}")
    svc = service(rs, UrlGuard(rs.settings.crawl_allowed_hosts))
    p = svc.crawl_url(site.base + "/", "harbour", max_pages=50, max_depth=3, delay_s=0,
                      concurrency=2)
    ev = by_url(svc, p.run_id, site.base)
    assert p.status == "done", p.error
    new = {u for u, (o, _) in ev.items() if o == "new"}
    assert {"/", "/docs/", "/docs/a", "/docs/a/b", "/about", "/redirect-1", "/gone-later",
            "/files/report.pdf", "/files/guide", "/orphan"} <= new
    twins = sorted(ev[u][0] for u in ("/dup-1", "/dup-2"))
    assert twins == ["linked", "new"]
    assert ev["/private/secret"] == ("skipped", "disallowed by robots.txt")
    assert ev["http://example.com/elsewhere"] == ("skipped", "outside the site (scope)")
    assert ev["/docs/a/b/c"] == ("skipped", "beyond max depth 3")
    assert ev["/loop-a"][0] == "failed" and "redirect loop" in ev["/loop-a"][1]
    assert ev["/error"] == ("failed", "HTTP 500 after 2 attempts")
    assert ev["/slow"][0] == "failed" and "timed out" in ev["/slow"][1]
    assert p.documents_created == len(new) and p.documents_linked == 1
    assert p.pages_done == 15 and p.errors == 3
    assert not any(path.startswith("/private") for _h, path in site.log)

    with rs.store.session() as s:
        target = repo.document_by_source(s, site.base + "/target")
        pdf = repo.document_by_source(s, site.base + "/files/report.pdf")
        assert target is not None and target.source_kind == "crawl"
        assert pdf.file_type == "pdf" and "crawler safety" in pdf.versions[0].text
        guide = repo.document_by_source(s, site.base + "/files/guide")
        assert guide.filename == "guide.docx" and "gate four" in guide.versions[0].text
        twin_doc = s.get(Document, next(e.document_id for e in svc.events(p.run_id)
                                        if e.outcome == "linked"))
        assert repo.document_collections(s, twin_doc.id) == ["harbour"]

    q = service(rs, UrlGuard(rs.settings.crawl_allowed_hosts))
    with rs.store.session() as s:
        n_docs = len(s.scalars(select(Document)).all())

    # --- change one page, remove one, unlink one; then re-crawl ---------------------------
    site.routes["/docs/a"] = Reply(200, page("Docs A", "Anchoring rules, version two: "
                                             "mooring buoys are mandatory."))
    site.routes.pop("/gone-later")
    site.log.clear()
    p2 = q.run(p.source_id)
    ev2 = by_url(svc, p2.run_id, site.base)
    assert p2.status == "done", p2.error
    changed = sorted(u for u, (o, _) in ev2.items() if o in ("new", "changed"))
    assert changed == ["/docs/a"]
    assert ev2["/gone-later"] == ("archived", "HTTP 404")
    assert ev2["/docs/a/b"][0] == "archived" and "not reached" in ev2["/docs/a/b"][1]
    assert ev2["/about"] == ("unchanged", "not modified (HTTP 304)")
    assert ev2["/orphan"] == ("unchanged", "sitemap lastmod not newer than last crawl")
    assert ev2["/"] == ("unchanged", "same content hash as last crawl")
    assert ("127.0.0.1", "/orphan") not in site.log
    assert svc.last_changes(p2.source_id) == {
        "new": [], "changed": [site.base + "/docs/a"],
        "removed": sorted([site.base + "/gone-later", site.base + "/docs/a/b"],
                          key=[e.url for e in svc.events(p2.run_id)].index)}

    with rs.store.session() as s:
        assert len(s.scalars(select(Document)).all()) == n_docs
        docs_a = repo.document_by_source(s, site.base + "/docs/a")
        assert [v.number for v in docs_a.versions] == [1, 2]
        assert docs_a.active_version_id == docs_a.versions[1].id
        gone = repo.document_by_source(s, site.base + "/gone-later")
        assert gone.status == "archived" and gone.active_version_id is None
        gone_version = gone.versions[0].id
        active = repo.active_chunk_ids(s)
        gone_chunks = {c.id for c in repo.chunks_of(s, gone_version)}
    assert gone_chunks and not gone_chunks & active
    assert not gone_chunks & rs.keyword_index.ids()
    assert not gone_chunks & rs.vector_index.ids()
    report = svc.ingestor.check(full=True)
    assert report.ok, report.problems()

    # --- the page comes back with the same content: restored, not duplicated -------------
    site.routes["/gone-later"] = Reply(200, page("Gone later", "Lighthouse maintenance schedule."))
    p3 = q.run(p2.source_id)
    ev3 = by_url(svc, p3.run_id, site.base)
    assert ev3["/gone-later"] == ("restored", "back after being archived")
    with rs.store.session() as s:
        back = repo.document_by_source(s, site.base + "/gone-later")
        assert back.status == "active" and back.active_version_id == gone_version
        assert s.get(DocumentVersion, gone_version).is_active


def test_redirect_to_loopback_refused_without_allow_list(make_rs, site):
    """allowed.test is allow-listed (the resolver maps it and www.allowed.test to 127.0.0.1);
    its redirect to www.allowed.test is inside the crawl scope (www-variant) but that host is
    not allow-listed, so the SSRF guard refuses the hop and it is never requested."""
    rs = make_rs()
    names = {"allowed.test": ["127.0.0.1"], "www.allowed.test": ["127.0.0.1"]}
    guard = UrlGuard(f"allowed.test:{site.port}", resolver=lambda host, port: names[host])
    site.hosts["allowed.test"] = lambda h: redirect(f"http://www.allowed.test:{site.port}/")
    svc = service(rs, guard)
    p = svc.crawl_url(f"http://allowed.test:{site.port}/start", "redirects", delay_s=0,
                      respect_robots=False, use_sitemap=False)
    (event,) = svc.events(p.run_id)
    assert event.outcome == "refused"
    assert "www.allowed.test resolves to loopback address 127.0.0.1" in event.reason
    assert "RAGSCOPE_CRAWL_ALLOWED_HOSTS" in event.reason
    assert site.log == [("allowed.test", "/start")]
    assert p.documents_created == 0


def test_www_variant_stays_in_scope(make_rs, site):
    names = {"site.test": ["127.0.0.1"], "www.site.test": ["127.0.0.1"]}
    guard = UrlGuard(f"site.test:{site.port},www.site.test:{site.port}",
                     resolver=lambda host, port: names[host])
    www = f"http://www.site.test:{site.port}"
    site.hosts["site.test"] = lambda h: redirect(www + h.path)
    pages = {"/": page("WWW home", "Canonical www home of the ferry company.", "/w1",
                       f"http://site.test:{site.port}/w2"),
             "/w1": page("W1", "Ferry fares for cars and bicycles."),
             "/w2": page("W2", "Ferry fares for foot passengers and pets.")}
    site.hosts["www.site.test"] = lambda h: Reply(200, pages[h.path]) if h.path in pages \
        else Reply(404, b"", "text/plain")
    svc = service(make_rs(), guard)
    p = svc.crawl_url(f"http://site.test:{site.port}/", "ferries", delay_s=0)
    created = sorted(e.url for e in svc.events(p.run_id) if e.outcome == "new")
    assert created == sorted([f"http://site.test:{site.port}/", f"{www}/w1",
                              f"http://site.test:{site.port}/w2"])
    with svc.store.session() as s:
        assert repo.document_by_source(s, f"{www}/w2") is not None  # final URL kept


def test_cancel_keeps_pages_and_resume_continues(make_rs, site):
    n = 5
    site.routes.clear()
    site.routes["/"] = Reply(200, page("Index", "Index of numbered notices.",
                                       *[f"/n{i}" for i in range(n)]))
    for i in range(n):
        site.routes[f"/n{i}"] = Reply(200, page(f"Notice {i}", f"Notice number {i} about "
                                                f"berth {i * 7} and pier {i * 3}."))
    rs = make_rs(crawl_allowed_hosts=f"127.0.0.1:{site.port}")
    svc = service(rs, UrlGuard(rs.settings.crawl_allowed_hosts))

    def cancel_after_two(p):
        if p.pages_done == 2 and p.status == "running":
            svc.cancel(p.run_id)

    p = svc.crawl_url(site.base + "/", "notices", delay_s=0, concurrency=1,
                      use_sitemap=False, on_progress=cancel_after_two)
    assert p.status == "cancelled" and p.pages_done == 2 and p.frontier_left == n + 1 - 2
    with rs.store.session() as s:
        assert len(s.scalars(select(Document)).all()) == 2  # fetched pages stay
    done = svc.resume(p.run_id)
    assert done.status == "done" and done.pages_done == n + 1
    new = [e.url for e in svc.events(p.run_id) if e.outcome == "new"]
    assert len(new) == len(set(new)) == n + 1
    assert sum(1 for _h, path in site.log if path.startswith("/n")) == n


def test_response_size_limit(make_rs, site):
    rs = make_rs(crawl_allowed_hosts=f"127.0.0.1:{site.port}", crawl_max_response_mb=0.01)
    site.routes["/big"] = Reply(200, b"<html><body>" + b"x" * 20000 + b"</body></html>")
    svc = service(rs, UrlGuard(rs.settings.crawl_allowed_hosts))
    p = svc.crawl_url(site.base + "/big", "big", delay_s=0, use_sitemap=False,
                      respect_robots=False)
    (event,) = svc.events(p.run_id)
    assert event.outcome == "failed" and "over the limit of 0.01 MiB" in event.reason


def test_cli_commands(make_rs, site, monkeypatch, capsys):
    import argparse

    from backend.cli import crawl as cli_crawl

    rs = make_rs(crawl_allowed_hosts=f"127.0.0.1:{site.port}")
    svc = service(rs, UrlGuard(rs.settings.crawl_allowed_hosts))
    monkeypatch.setattr(cli_crawl, "_service", lambda: svc)
    parser = argparse.ArgumentParser()
    cli_crawl.register(parser.add_subparsers(dest="cmd"))
    site.routes.pop("/slow")  # keep this test quick
    a = parser.parse_args(["crawl", site.base + "/docs/", "-c", "cli-docs", "--max-pages", "2",
                           "--depth", "1", "--delay", "0", "--concurrency", "1", "-q"])
    assert a.fn(a) == 0
    out = capsys.readouterr()
    assert "done: 2 pages; 2 new" in out.out
    a = parser.parse_args(["crawl-sources"])
    assert a.fn(a) == 0
    listing = capsys.readouterr().out
    assert "127-0-0-1-cli-docs" in listing and "#1 done 2 pages" in listing
    a = parser.parse_args(["recrawl", "127-0-0-1-cli-docs", "-q"])
    assert a.fn(a) == 0
    assert "2 unchanged" in capsys.readouterr().out
    a = parser.parse_args(["crawl", site.base + "/", "-c", "cli-docs", "--max-pages", "501"])
    from backend.errors import InvalidCrawlSource

    with pytest.raises(InvalidCrawlSource, match="at most 500 pages"):
        a.fn(a)


def test_stopping_the_scheduler_cancels_its_running_crawl(make_rs):
    """A scheduler stopped mid-crawl (Ctrl-C, SIGTERM, dashboard shutdown) cancels its run:
    it ends `cancelled` and resumable, not `failed` with an interpreter-shutdown error."""
    import threading

    from backend.crawl import schedule
    from backend.crawl.schedule import CrawlScheduler
    from backend.crawl.sources import SourceSpec

    with Site() as site:
        links = [f"/p{i}" for i in range(12)]
        site.routes["/"] = Reply(200, page("Start", "Slow harbour pages.", *links))
        for i, href in enumerate(links):
            site.routes[href] = Reply(200, page(f"P{i}", f"Page {i} about buoys."), delay=0.4)
        rs = make_rs(crawl_allowed_hosts=f"127.0.0.1:{site.port}")
        svc = service(rs, UrlGuard(rs.settings.crawl_allowed_hosts))
        src = svc.sources.create(SourceSpec(name="slow", start_url=site.base + "/",
                                            collection="slow", delay_s=0, concurrency=1))
        sched = CrawlScheduler(svc, sync_s=3600)
        assert sched.start()
        job = threading.Thread(target=schedule.run_scheduled_source, args=(src.id,))
        job.start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            runs = svc.history(src.id)
            if runs and runs[0].status == "running" and runs[0].pages_done >= 2:
                break
            time.sleep(0.05)
        sched.stop()
        job.join(60)
        run = svc.history(src.id)[0]
        assert run.status == "cancelled", (run.status, run.error)
        assert 2 <= run.pages_done < 13


def test_links_with_credentials_are_refused_never_fetched_without_them(make_rs, site):
    """docs/crawling.md says URLs with credentials are refused; an in-page link
    `http://user:pw@host/x` used to be fetched as `http://host/x` (credentials stripped)."""
    b = site.base
    host = b.split("//", 1)[1]
    site.routes["/"] = Reply(200, page("Start", "Harbour start page with two links.",
                                       f"http://ops:Geheim123@{host}/intern", "/offen"))
    site.routes["/intern"] = Reply(200, page("Intern", "Internal dredging schedule."))
    site.routes["/offen"] = Reply(200, page("Offen", "Public ferry timetable."))
    rs = make_rs(crawl_allowed_hosts=f"127.0.0.1:{site.port}")
    svc = service(rs, UrlGuard(rs.settings.crawl_allowed_hosts))
    p = svc.crawl_url(b + "/", "creds", max_pages=10, max_depth=2, delay_s=0,
                      respect_robots=False, use_sitemap=False)
    events = {e.url: (e.outcome, e.reason) for e in svc.events(p.run_id)}
    assert events[f"http://ops:***@{host}/intern"] == ("refused",
                                                        "URLs with credentials are not crawled")
    assert events[b + "/offen"][0] == "new"
    assert ("127.0.0.1", "/intern") not in site.log
    assert not any("Geheim123" in u for u in events)  # the password is not stored either
