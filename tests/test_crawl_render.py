"""JavaScript rendering of crawled pages (issue 26.8; backend/crawl/render.py): a source with
`render_js` crawls a loopback page whose text its script writes (from a JSON request) —
the rendered text is indexed, the page itself is fetched once; the script's request to a
private address is refused by the SSRF guard, aborted and counted. Without `render_js`
the script's text is not there. Debian's chromium via Playwright."""
from __future__ import annotations

import os

import pytest
from sqlalchemy import select

from backend.crawl.service import CrawlService
from backend.store.models import Chunk
from tests.crawl_site_support import Reply, Site

FACT = "The Lindholm lighthouse is 42 metres tall and was built in 1887."
APP = b"""<html><head><title>Harbour facts</title></head><body><main>
<h1>Harbour facts</h1><p>Facts about Lindholm harbour, written by the page's script.</p>
<div id="root"></div></main><script src="/app.js"></script></body></html>"""
JS = b"""fetch("http://10.1.2.3:8081/secret").catch(() => {});
fetch("/facts.json").then(r => r.json()).then(d => {
  document.getElementById("root").innerHTML = "<h2>Lighthouse</h2><p>" + d.text + "</p>";
});"""

pytestmark = pytest.mark.skipif(not os.path.exists("/usr/bin/chromium"),
                                reason="no /usr/bin/chromium")


def _texts(rs, collection: str) -> str:
    from backend.store import repo

    with rs.store.session() as s:
        ids = repo.document_ids(s, repo.DocumentFilter(collections=[collection]))
        assert ids, collection
        return " ".join(s.scalars(select(Chunk.text).where(Chunk.document_id.in_(ids))))


def _routes(site: Site) -> None:
    site.routes.update({
        "/": Reply(body=APP), "/app.js": Reply(body=JS, ctype="text/javascript"),
        "/facts.json": Reply(body=f'{{"text": "{FACT}"}}'.encode(), ctype="application/json")})


def test_render_js_indexes_script_text_and_guards_every_request(make_rs):
    with Site() as site, Site() as other:
        _routes(site)
        _routes(other)
        rs = make_rs(crawl_allowed_hosts=f"127.0.0.1:{site.port},127.0.0.1:{other.port}",
                     crawl_timeout_s=5.0)
        svc = CrawlService(rs, retries=0, backoff_s=0.01)
        quick = dict(delay_s=0, concurrency=1, use_sitemap=False, max_depth=1)

        p = svc.crawl_url(site.base + "/", "rendered", render_js=True, **quick)
        assert p.status == "done", p.error
        assert p.counters["js_rendered"] == 1 and p.counters["js_refused"] == 1, p.counters
        assert FACT in _texts(rs, "rendered")
        paths = [path for _, path in site.log]
        assert paths.count("/") == 1 and "/app.js" in paths and "/facts.json" in paths
        (ev,) = svc.events(p.run_id, "js_refused")
        assert ev.url == "http://10.1.2.3:8081/secret" and "private" in ev.reason, ev

        plain = svc.crawl_url(other.base + "/", "plain", render_js=False, **quick)
        assert plain.status == "done" and not plain.counters.get("js_rendered")
        text = _texts(rs, "plain")
        assert "Facts about Lindholm harbour" in text and FACT not in text
        assert [p for _, p in other.log if p != "/robots.txt"] == ["/"]  # no script ran
