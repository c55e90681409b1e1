"""The crawl scope holds on every redirect hop and every sitemap entry: two servers on
127.0.0.1 (different ports, both allow-listed), one the crawled site, the other an internal
host. Redirects and sitemaps of the site point at the internal host; it must get no request
and nothing of it may land in the site's collection. The allow-list only lifts the
private-address refusal of the SSRF guard; it never widens a crawl's scope."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from backend.crawl.guard import UrlGuard
from backend.store.models import Document
from tests.crawl_site_support import Reply, Site, by_url, page, redirect, service

SECRET = "Internal payroll figures of the harbour staff, not for publication."


@pytest.fixture
def sites():
    with Site() as site, Site() as internal:
        internal.routes.update({
            "/secret": Reply(200, page("Secret", SECRET)),
            "/robots.txt": Reply(200, b"User-agent: *\nAllow: /\n", "text/plain"),
            "/sitemap.xml": Reply(200, urlset(f"{internal.base}/secret"), "application/xml"),
        })
        yield site, internal


def urlset(*locs: str) -> bytes:
    urls = "".join(f"<url><loc>{u}</loc></url>" for u in locs)
    return (f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/'
            f'schemas/sitemap/0.9">{urls}</urlset>').encode()


def sitemapindex(*locs: str) -> bytes:
    maps = "".join(f"<sitemap><loc>{u}</loc></sitemap>" for u in locs)
    return (f'<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps'
            f'.org/schemas/sitemap/0.9">{maps}</sitemapindex>').encode()


def crawl(make_rs, site: Site, internal: Site, url: str, **options):
    rs = make_rs(crawl_allowed_hosts=f"127.0.0.1:{site.port},127.0.0.1:{internal.port}")
    svc = service(rs, UrlGuard(rs.settings.crawl_allowed_hosts))
    return svc, svc.crawl_url(url, "public-site", delay_s=0, **options)


def stored_sources(svc) -> list[str]:
    with svc.store.session() as s:
        return sorted(d.source_uri for d in s.scalars(select(Document)).all())


def test_redirect_to_internal_host_is_refused(make_rs, sites):
    site, internal = sites
    site.routes.update({
        "/": Reply(200, page("Home", "Public home of the harbour authority.", "/go", "/ok")),
        "/go": redirect(f"{internal.base}/secret"),
        "/ok": Reply(200, page("Tides", "Public tide tables for the outer basin.")),
    })
    svc, p = crawl(make_rs, site, internal, site.base + "/")
    ev = by_url(svc, p.run_id, site.base)
    assert p.status == "done", p.error
    assert ev["/go"] == ("refused", f"redirect to {internal.base}/secret leaves the crawl scope")
    assert ev["/ok"][0] == "new"
    assert internal.log == []
    assert stored_sources(svc) == [site.base + "/", site.base + "/ok"]


def test_start_url_redirecting_to_another_host_is_refused(make_rs, sites):
    """The start URL may move within its site (www-variant, see test_crawl_site) but not to
    another host: the crawl would otherwise adopt the internal host as its site."""
    site, internal = sites
    site.routes["/"] = redirect(f"{internal.base}/secret", 302)
    svc, p = crawl(make_rs, site, internal, site.base + "/")
    (event,) = svc.events(p.run_id)
    assert (event.outcome, event.reason) == (
        "refused", f"redirect to {internal.base}/secret leaves the crawl scope")
    assert internal.log == []
    assert stored_sources(svc) == []


def test_sitemap_entries_outside_the_scope_are_dropped(make_rs, sites):
    site, internal = sites
    b, i = site.base, internal.base
    site.routes.update({
        "/": Reply(200, page("Home", "Public home of the harbour authority.")),
        "/robots.txt": Reply(200, (f"User-agent: *\nAllow: /\nSitemap: {i}/sitemap.xml\n"
                                   f"Sitemap: {b}/index.xml\n").encode(), "text/plain"),
        "/index.xml": Reply(200, sitemapindex(f"{b}/pages.xml", f"{i}/nested.xml",
                                              f"{b}/moved.xml"), "application/xml"),
        "/pages.xml": Reply(200, urlset(f"{b}/listed", f"{i}/secret"), "application/xml"),
        "/moved.xml": redirect(f"{i}/sitemap.xml"),
        "/sitemap.xml": Reply(200, urlset(f"{i}/other"), "application/xml"),
        "/listed": Reply(200, page("Pilotage", "Pilotage rules that only the sitemap lists.")),
    })
    svc, p = crawl(make_rs, site, internal, b + "/")
    ev = by_url(svc, p.run_id, b)
    assert p.status == "done", p.error
    assert internal.log == []
    assert ev["/listed"][0] == "new"
    assert ev[f"{i}/sitemap.xml"] == ("skipped", "sitemap outside the crawl scope (not fetched)")
    assert ev[f"{i}/nested.xml"] == ("skipped", "sitemap outside the crawl scope (not fetched)")
    assert ev[f"{i}/secret"] == ("skipped", "sitemap entry outside the crawl scope")
    assert ev[f"{i}/other"] == ("skipped", "sitemap entry outside the crawl scope")
    assert ev["/moved.xml"] == ("skipped", "sitemap not read: redirect to "
                                f"{i}/sitemap.xml leaves the crawl scope")
    assert p.counters["sitemap_urls"] == 1 and p.counters["sitemap_out_of_scope"] == 4
    assert stored_sources(svc) == [b + "/", b + "/listed"]


def test_robots_txt_redirect_out_of_the_scope_is_not_followed(make_rs, sites):
    """The rules behind the redirect cannot be read without leaving the scope: the site is
    treated as having an unreachable robots.txt (nothing crawled, RFC 9309 §2.3.1.4)."""
    site, internal = sites
    site.routes.update({"/robots.txt": redirect(f"{internal.base}/robots.txt"),
                        "/": Reply(200, page("Home", "Public home of the harbour authority."))})
    svc, p = crawl(make_rs, site, internal, site.base + "/", use_sitemap=False)
    (event,) = svc.events(p.run_id)
    assert event.outcome == "skipped"
    assert event.reason == (f"robots.txt unavailable (redirect to {internal.base}/robots.txt "
                            "leaves the crawl scope); crawling disallowed (RFC 9309)")
    assert internal.log == [] and stored_sources(svc) == []


@pytest.mark.parametrize("url,inside", [
    ("http://example.org:8080/a", True), ("https://example.org:8080/", True),
    ("http://www.example.org:8080/b?q=1", True), ("http://example.org/", False),
    ("http://docs.example.org:8080/", False), ("http://example.org.evil.test:8080/", False),
    ("http://evilexample.org:8080/", False), ("ftp://example.org:8080/", False),
    ("http://example.org:99999/", False), ("http://127.0.0.1:8080/", False),
])
def test_scope_is_the_start_site(url, inside):
    from backend.crawl.scope import Scope

    assert Scope.for_start("http://example.org:8080/start").contains(url) is inside
    assert Scope.for_start("https://www.example.org/").contains("http://example.org/x")
    subdomains = Scope.for_start("https://example.org/", include_subdomains=True)
    assert subdomains.contains("https://docs.example.org/")
    assert not subdomains.contains("https://docs.example.org.evil.test/")
