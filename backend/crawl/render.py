"""JavaScript rendering of crawled pages (issue 26.8, seed 003; per crawl source,
`render_js`, off by default): a fetched HTML page is loaded in Debian's Chromium through
Playwright (`executable_path=/usr/bin/chromium`; never `playwright install`), its scripts
run, and the rendered DOM (`page.content()`) is what gets extracted.

The SSRF guard sees every request the page makes: Chromium resolves no host itself
(`--host-resolver-rules=MAP * ~NOTFOUND`), and `page.route` answers every request from
here — the page's own document from the body already fetched (no second request), every
script, stylesheet, XHR/fetch and frame through a guarded `Fetcher` (backend/crawl/fetch.py:
the guard on every hop and at connect time, the overall deadline, the size limit). A request
the guard refuses is aborted and counted (`refused`, with its URL and reason); images,
fonts and media are not loaded (they add no text); requests other than GET are aborted.
Service workers are blocked, and a WebSocket cannot connect (no host resolves).

All Playwright calls run in one thread the renderer owns (Playwright's sync API is bound to
the thread that started it); crawl worker threads hand pages to it. A page that fails to
render (timeout, crash) keeps its fetched HTML and is counted (`failed`)."""
from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from backend.config import Settings
from backend.crawl.fetch import FetchResult, Fetcher
from backend.crawl.guard import UrlGuard

log = logging.getLogger("backend.crawl.render")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-domain-reliability",
                 "--host-resolver-rules=MAP * ~NOTFOUND"]  # nothing but page.route gets out
SKIPPED_TYPES = ("image", "media", "font")  # no text in them
IDLE_WAIT_MS = 2_000  # after `load`: scripts' own requests settle (network idle) or not
REFUSED_KEPT = 50  # refused URLs remembered per crawl (for the run's record)


@dataclass
class RenderStats:
    pages: int = 0
    requests: int = 0  # subresource requests answered through the guarded fetcher
    refused: int = 0  # aborted: the SSRF guard refused them
    failed: int = 0  # pages kept unrendered (timeout, browser error)
    refused_urls: list[str] = field(default_factory=list)


def is_html(result: FetchResult) -> bool:
    return result.ok and "html" in (result.content_type or "")


class PageRenderer:
    """Renders fetched HTML pages with their scripts; `close()` stops the browser."""

    def __init__(self, settings: Settings, guard: UrlGuard, *, executable: str = CHROMIUM):
        self.settings, self.executable = settings, executable
        self.timeout_ms = int(settings.crawl_timeout_s * 2000)
        # no crawl scope for subresources (scripts come from CDNs); the guard still decides
        self.fetcher = Fetcher.from_settings(settings, guard, retries=0)
        self.stats = RenderStats()
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="crawl-render")
        self._pw = self._browser = None
        self._lock = threading.Lock()

    def render(self, result: FetchResult) -> FetchResult:
        """`result` with the rendered HTML as its content; non-HTML results unchanged."""
        if not is_html(result):
            return result
        return self._pool.submit(self._render, result).result()

    def close(self) -> None:
        self._pool.submit(self._stop).result()
        self._pool.shutdown()
        self.fetcher.close()

    # ---- the render thread ---------------------------------------------------------------

    def _start(self):
        if self._browser is None:
            from playwright.sync_api import sync_playwright

            self._pw = sync_playwright().start()
            self._browser = self._pw.chromium.launch(executable_path=self.executable,
                                                     args=CHROMIUM_ARGS)
        return self._browser

    def _stop(self) -> None:
        if self._browser is not None:
            self._browser.close()
            self._pw.stop()
            self._browser = self._pw = None

    def _render(self, result: FetchResult) -> FetchResult:
        try:
            html = self._load(result)
        except Exception as e:  # noqa: BLE001 - the page stays as fetched
            self.stats.failed += 1
            log.warning("rendering %s failed (%s: %s); its fetched HTML is used",
                        result.final_url, type(e).__name__, e)
            return result
        self.stats.pages += 1
        headers = {**result.headers, "content-type": "text/html; charset=utf-8"}
        return replace(result, content=html.encode("utf-8"), headers=headers)

    def _load(self, result: FetchResult) -> str:
        ctx = self._start().new_context(service_workers="block",
                                        user_agent=self.settings.crawl_user_agent)
        try:
            page = ctx.new_page()
            served = {"main": False}
            page.route("**/*", lambda route, request: self._answer(route, request, result,
                                                                   served, page))
            page.goto(result.final_url, wait_until="load", timeout=self.timeout_ms)
            try:
                page.wait_for_load_state("networkidle", timeout=IDLE_WAIT_MS)
            except Exception:  # noqa: BLE001 - still busy: render what is there
                pass
            return page.content()
        finally:
            ctx.close()

    def _answer(self, route, request, result: FetchResult, served: dict, page) -> None:
        """Every request of the page: its document from `result`, the rest guarded."""
        if (not served["main"] and request.is_navigation_request()
                and request.frame == page.main_frame):
            served["main"] = True
            route.fulfill(status=result.status or 200, body=result.content,
                          content_type=result.headers.get("content-type", "text/html"))
            return
        if request.resource_type in SKIPPED_TYPES or request.method != "GET":
            route.abort("blockedbyclient")
            return
        got = self.fetcher.fetch(request.url)
        if got.refused:
            self.stats.refused += 1
            if len(self.stats.refused_urls) < REFUSED_KEPT:
                self.stats.refused_urls.append(f"{request.url}: {got.error}")
            route.abort("blockedbyclient")
            return
        self.stats.requests += 1
        if got.status is None:  # no answer (timeout, connection, too large)
            route.abort("failed")
            return
        route.fulfill(status=got.status, body=got.content,
                      content_type=got.headers.get("content-type") or "application/octet-stream")


def finish(renderer: PageRenderer | None, counters) -> list:
    """Stop `renderer` and add its figures to a run's counters (`js_rendered`,
    `js_requests`, `js_refused`, `js_failed`); returns one `js_refused` event per refused
    request (its URL and the guard's reason; at most REFUSED_KEPT)."""
    from backend.crawl.runs import Event

    if renderer is None:
        return []
    renderer.close()
    st = renderer.stats
    for key, n in (("js_rendered", st.pages), ("js_requests", st.requests),
                   ("js_refused", st.refused), ("js_failed", st.failed)):
        counters[key] += n
    return [Event(u.split(": ", 1)[0], "js_refused", "requested by a page's JavaScript, "
                  f"refused: {u.split(': ', 1)[-1]}") for u in st.refused_urls]


__all__ = ["PageRenderer", "RenderStats", "finish", "is_html"]
