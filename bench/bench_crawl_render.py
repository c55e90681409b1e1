"""What JavaScript rendering costs a crawl (backend/crawl/render.py): N pages of a site on
127.0.0.1 whose text their script fetches and writes, each fetched (guarded Fetcher) and then
rendered in Chromium (page.route answering every request through the guarded fetcher);
reports the browser start, the median fetch and the median render per page, and the load.

    OPENBLAS_NUM_THREADS=1 nice -n 10 python -m bench.bench_crawl_render [N]"""
from __future__ import annotations

import statistics
import sys
import time

from backend.config import Settings
from backend.crawl.fetch import Fetcher
from backend.crawl.guard import UrlGuard
from backend.crawl.render import PageRenderer
from bench.machine import uptime
from tests.crawl_site_support import Reply, Site

APP = (b"<html><head><title>Facts</title></head><body><div id=root></div>"
       b"<script src='/app.js'></script></body></html>")
JS = (b"fetch('/facts.json').then(r => r.json()).then(d => {"
      b"document.getElementById('root').innerHTML = '<p>' + d.text + '</p>'; });")


def main(n: int = 10) -> None:
    with Site() as site:
        site.routes.update({"/app.js": Reply(body=JS, ctype="text/javascript"),
                            "/facts.json": Reply(body=b'{"text": "The lighthouse is 42 m."}',
                                                 ctype="application/json")})
        for i in range(n):
            site.routes[f"/p{i}"] = Reply(body=APP)
        settings = Settings(crawl_allowed_hosts=f"127.0.0.1:{site.port}")
        guard = UrlGuard(settings.crawl_allowed_hosts)
        fetcher, renderer = Fetcher.from_settings(settings, guard), PageRenderer(settings, guard)
        fetch_ms, render_ms = [], []
        t0 = time.perf_counter()
        renderer.render(fetcher.fetch(site.base + "/p0"))  # starts Chromium
        start_ms = (time.perf_counter() - t0) * 1000
        for i in range(n):
            t0 = time.perf_counter()
            got = fetcher.fetch(f"{site.base}/p{i}")
            t1 = time.perf_counter()
            out = renderer.render(got)
            t2 = time.perf_counter()
            assert b"42 m" in out.content, out.content[:200]
            fetch_ms.append((t1 - t0) * 1000)
            render_ms.append((t2 - t1) * 1000)
        renderer.close()
        fetcher.close()
    print(f"pages {n}; first page incl. Chromium start {start_ms:.0f} ms; "
          f"median fetch {statistics.median(fetch_ms):.1f} ms, median render "
          f"{statistics.median(render_ms):.0f} ms (max {max(render_ms):.0f}); {uptime()}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
