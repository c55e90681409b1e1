"""The crawl of one web source: a breadth-first frontier with depth and page limits.

Worker threads only fetch (politeness delay and concurrency limit per host, see `HostGate`);
the coordinating thread admits URLs (robots.txt, sitemap lastmod), extracts links and hands
pages to ingest to one `Ingestor.ingest_many` call (the crawl loop is its source of items),
so pages are extracted, embedded in batches and published while the next ones are fetched;
every outcome is recorded with its reason when ingestion reports it. After every page the
run's progress, pending frontier (including requests in flight and pages not yet through
ingestion) and seen set are saved, so a cancelled or crashed run resumes where it stopped.
Cancelling lets the requests in flight finish and keeps what was fetched."""
from __future__ import annotations

import hashlib
import logging
import time
from collections import Counter, deque
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Iterator
from urllib.parse import urlsplit

from backend.security.access import collection_scope
from backend.crawl import runs
from backend.crawl.changes import GONE_STATUSES, KnownPage, PageStates
from backend.crawl import render
from backend.crawl.fetch import FetchResult, Fetcher, extension_for, filename_for
from backend.crawl.render import PageRenderer
from backend.crawl.guard import UrlGuard
from backend.crawl.robots import RobotsCache, origin
from backend.crawl.runs import Event, Progress
from backend.crawl.frontier import HostGate, Task, _Fetched
from backend.crawl.scope import Scope, extract_links, has_credentials, normalize_url
from backend.crawl.sitemap import discover
from backend.ingest.records import IngestItem, IngestProgress
from backend.ingest.service import Ingestor
from backend.store.crawl_models import CrawlSource
from backend.store.models import utcnow

log = logging.getLogger(__name__)
ProgressCallback = Callable[[Progress], None]
MAX_ROBOTS_DELAY_S = 30.0
FRONTIER_SAVE_S = 2.0


class CrawlRunner:
    """Executes (or resumes) one run of a web source."""

    def __init__(self, ingestor: Ingestor, guard: UrlGuard, run_id: int,
                 on_progress: ProgressCallback | None = None, **fetch_overrides):
        self.ingestor, self.store, self.run_id = ingestor, ingestor.store, run_id
        run, src = runs.load(self.store, run_id)
        self.src: CrawlSource = src
        self.settings = ingestor.settings
        self.on_progress = on_progress
        # every request of the run (pages, robots.txt, sitemaps), every hop, stays in scope
        self.scope = Scope.for_start(src.start_url, src.include_subdomains)
        self.fetcher = Fetcher.from_settings(self.settings, guard, src.concurrency,
                                             scope=self.scope.contains, **fetch_overrides)
        self.robots = RobotsCache(self.fetcher, self.settings.crawl_user_agent)
        self.renderer = PageRenderer(self.settings, guard) if src.render_js else None
        self.gate = HostGate(src.concurrency)
        self.states = PageStates(ingestor, src.id)
        self.known: dict[str, KnownPage] = self.states.load()
        self.frontier = deque(Task.from_json(t) for t in run.frontier)
        self.seen: set[str] = set(run.seen)
        self.counters: Counter[str] = Counter(run.counters)
        self.fresh = not run.counters
        start = self.known.get(normalize_url(src.start_url))
        self.lastmods: dict[str, datetime] = {t.url: t.lastmod for t in self.frontier if t.lastmod}
        # pages handled earlier in this run (before a cancel or crash) count as reached
        self.reached: set[str] = self.states.urls_of_run(run_id)
        self.events: list[Event] = []
        self.current_url = ""
        self.start_ok = start is not None and start.url in self.reached and start.usable
        self.job_id = 0
        self._frontier_saved = 0.0
        self.ingesting: dict[str, Task] = {}  # handed to ingestion, outcome not yet known
        self.cancelled = False

    # ---- the run ------------------------------------------------------------------------

    def execute(self) -> Progress:
        self.job_id = runs.begin(self.store, self.run_id, "crawl")
        status, error = "interrupted", "stopped by the user or the process"  # e.g. Ctrl-C
        inflight: dict[Future, Task] = {}
        try:
            self.ingestor.check_guardrails()
            cancelled = self._loop(inflight)
            limit_hit = bool(self.frontier)
            self.counters["limit_reached"] = int(limit_hit and not cancelled)
            if not cancelled and not limit_hit and self.start_ok:
                self._archive_missing()
            status, error = ("cancelled" if cancelled else "done"), None
        except Exception as e:  # recorded on the run; the frontier stays for a resume
            log.exception("crawl run %s failed", self.run_id)
            status, error = "failed", f"{type(e).__name__}: {e}"
        finally:
            self.frontier.extendleft(reversed(list(inflight.values())
                                              + list(self.ingesting.values())))
            self.ingesting.clear()
            self.current_url = ""
            self.events += render.finish(self.renderer, self.counters)
            self._save(final=True)
            runs.finish(self.store, self.run_id, status, error)
            self.fetcher.close()
        return runs.progress(self.store, self.run_id)

    def _loop(self, inflight: dict[Future, Task]) -> bool:
        """Fetch and handle pages; pages to ingest go through one `ingest_many` call, so
        extraction and embedding of fetched pages overlap the fetching of the next ones."""
        self.cancelled = False
        self.ingestor.ingest_many(self._pages(inflight), collection=self.src.collection,
                                  source_kind="crawl", job_id=self.job_id,
                                  on_progress=self._ingested,
                                  scope=collection_scope(self.ingestor.rs, self.src.collection))
        return self.cancelled

    def _pages(self, inflight: dict[Future, Task]) -> Iterator[IngestItem | None]:
        """The crawl loop as a source of pages to ingest (None: nothing to ingest now)."""
        conc = self.src.concurrency
        with ThreadPoolExecutor(max_workers=conc, thread_name_prefix="crawl") as pool:
            while True:
                while (not self.cancelled and len(inflight) < conc and self.frontier
                       and self.counters["pages"] + len(inflight) < self.src.max_pages):
                    task = self.frontier.popleft()
                    fut = self._admit(task, pool)
                    if fut is not None:
                        inflight[fut] = task
                if self.events and not inflight:
                    self.cancelled = self._save(inflight) or self.cancelled
                if not inflight:
                    if (self.cancelled or not self.frontier
                            or self.counters["pages"] >= self.src.max_pages):
                        return
                    continue
                done, _ = wait(list(inflight), return_when=FIRST_COMPLETED)
                for fut in done:
                    task = inflight.pop(fut)
                    item = self._handle(task, self._result(task, fut))
                    if item is not None:
                        self.ingesting[task.url] = task
                    self.cancelled = self._save(inflight) or self.cancelled
                    yield item

    def _admit(self, task: Task, pool: ThreadPoolExecutor) -> Future | None:
        """Start fetching a task, or settle it without a request (robots, sitemap lastmod)."""
        if self.src.respect_robots:
            ok, why = self.robots.allowed(task.url)
            if not ok:
                self._event(Event(task.url, "skipped", why or "disallowed by robots.txt"))
                return None
        known = self.known.get(task.url)
        lastmod = task.lastmod or self.lastmods.get(task.url)
        if self.states.unchanged_by_lastmod(known, lastmod):
            self.counters["pages"] += 1
            self.reached.add(task.url)
            self._event(Event(task.url, "unchanged", "sitemap lastmod not newer than last crawl",
                              document_id=known.document_id))
            self._enqueue(known.links, task.depth)
            self.states.record(task.url, self.run_id)
            return None
        headers = self.states.conditional_headers(known)
        return pool.submit(self._fetch, task.url, headers)

    def _fetch(self, url: str, headers: dict[str, str]) -> FetchResult:
        host = urlsplit(url).netloc
        with self.gate.slot(host, self._delay(url)):
            got = self.fetcher.fetch(url, headers)
        return self.renderer.render(got) if self.renderer is not None else got

    def _delay(self, url: str) -> float:
        delay = self.src.delay_s
        if self.src.respect_robots:
            robots_delay = self.robots.rules(url).crawl_delay or 0.0
            delay = max(delay, min(robots_delay, MAX_ROBOTS_DELAY_S))
        return delay

    @staticmethod
    def _result(task: Task, fut: Future) -> FetchResult:
        try:
            return fut.result()
        except Exception as e:  # a bug or an odd URL must not end the crawl
            log.exception("fetching %s failed", task.url)
            return FetchResult(task.url, task.url, error=f"{type(e).__name__}: {e}")

    # ---- one fetched page ---------------------------------------------------------------

    def _handle(self, task: Task, res: FetchResult) -> IngestItem | None:
        """Settle a fetched page, or return it as an item to ingest."""
        self.counters["pages"] += 1
        self.current_url = task.url
        self.reached.add(task.url)
        known = self.known.get(task.url)
        item = None
        if res.refused:
            self._event(Event(task.url, "refused", res.error or "refused"))
        elif res.not_modified and known is not None and known.usable:
            self._settle_unchanged(task, known, "not modified (HTTP 304)", res.status)
        elif not res.ok:
            self._handle_error(task, res, known)
        else:
            item = self._handle_content(task, res, known)
        if task.depth == 0 and self.fresh and self.src.use_sitemap and not res.refused:
            self._seed_sitemaps(res.final_url)
        return item

    def _settle_unchanged(self, task: Task, known: KnownPage, reason: str,
                          status: int | None) -> None:
        self.start_ok = self.start_ok or task.depth == 0
        self._event(Event(task.url, "unchanged", reason, status, known.document_id))
        self._enqueue(known.links, task.depth)
        self.states.record(task.url, self.run_id, http_status=status,
                           sitemap_lastmod=self.lastmods.get(task.url) or known.sitemap_lastmod)

    def _handle_error(self, task: Task, res: FetchResult, known: KnownPage | None) -> None:
        if res.status in GONE_STATUSES and known is not None and known.state == "active":
            self._event(self.states.remove(known, self.run_id, f"HTTP {res.status}"))
            return
        tries = f" after {res.attempts} attempts" if res.attempts > 1 else ""
        why = res.error or f"unexpected HTTP {res.status}"
        self._event(Event(task.url, "failed", f"{why}{tries}", res.status))
        if known is None:
            self.states.record(task.url, self.run_id, state="failed", http_status=res.status,
                               depth=task.depth)

    def _handle_content(self, task: Task, res: FetchResult, known: KnownPage | None
                        ) -> IngestItem | None:
        final = normalize_url(res.final_url)
        self.start_ok = self.start_ok or task.depth == 0
        self.reached.add(final)
        self.seen.add(final)
        ext = extension_for(final, res.content_type, res.content)
        links: list[str] = []
        if ext == ".html":
            page = extract_links(res.content, final)
            links = [] if page.nofollow else page.links
            self._enqueue(links, task.depth)
            if page.noindex:
                self._event(Event(task.url, "skipped", "robots meta tag says noindex",
                                  res.status))
                return None
        if ext is None:
            self._event(Event(task.url, "skipped", "unsupported content type "
                              f"'{res.content_type or 'none'}'", res.status))
            return None
        sha = hashlib.sha256(res.content).hexdigest()
        page_state = dict(final_url=final, etag=res.headers.get("etag", "")[:500],
                          last_modified=res.headers.get("last-modified", "")[:100],
                          sitemap_lastmod=self.lastmods.get(task.url), http_status=res.status,
                          depth=task.depth, links=links)
        if known is not None and known.usable and known.content_sha == sha:
            self._event(Event(task.url, "unchanged", "same content hash as last crawl",
                              res.status, known.document_id, len(res.content)))
            self.states.record(task.url, self.run_id, **page_state)
            return None
        return IngestItem(
            filename_for(final, ext), data=res.content, source_uri=final, source_kind="crawl",
            meta={"url": final, "requested_url": task.url, "content_type": res.content_type,
                  "crawl_source": self.src.name, "redirects": res.redirects},
            context=_Fetched(task, page_state, sha, res.status, len(res.content)))

    def _ingested(self, p: IngestProgress) -> None:
        """An ingested page's outcome: its event and what is known about it."""
        if p.item is None:
            return
        page: _Fetched = p.item.context
        out = p.outcome
        self.ingesting.pop(page.task.url, None)
        event = self.states.after_ingest(page.task.url, out)
        event.http_status, event.size_bytes = page.status, page.size
        self._event(event)
        changed = event.outcome in ("new", "changed", "restored")
        self.states.record(page.task.url, self.run_id, **page.state,
                           document_id=out.document_id, state="active" if out.ok else "failed",
                           content_sha=page.sha if out.ok else "",
                           **({"changed_at": utcnow()} if changed else {}))

    # ---- frontier -----------------------------------------------------------------------

    def _enqueue(self, links: list[str], parent_depth: int) -> None:
        depth = parent_depth + 1
        for url in links:
            if url in self.seen:
                continue
            self.seen.add(url)
            if has_credentials(url):  # never fetched, not even without them
                self._event(Event(url, "refused", "URLs with credentials are not crawled"))
            elif not self.scope.contains(url):
                self._event(Event(url, "skipped", "outside the site (scope)"))
            elif depth > self.src.max_depth:
                self._event(Event(url, "skipped", f"beyond max depth {self.src.max_depth}"))
            else:
                self.frontier.append(Task(url, depth, self.lastmods.get(url)))

    def _seed_sitemaps(self, start_url: str) -> None:
        """Queue the in-scope URLs of the site's sitemaps; sitemaps and entries outside the
        scope are recorded and dropped, never fetched."""
        self.fresh = False
        urls = [origin(start_url) + "/sitemap.xml"]
        if self.src.respect_robots:
            urls = self.robots.rules(start_url).sitemaps + urls
        found = discover(self.fetcher, urls, self.scope.contains)
        for url, problem in found.problems:
            self._event(Event(url, "skipped", problem))
        for url, reason in found.out_of_scope:
            self._event(Event(url, "skipped", reason))
            with suppress(ValueError):  # a malformed URL is out of scope too
                self.seen.add(normalize_url(url))
        entries = found.entries
        for e in entries:
            url = normalize_url(e.url)
            if e.lastmod:
                self.lastmods[url] = e.lastmod
            for task in self.frontier:  # already queued from a link: attach the lastmod
                if task.url == url and e.lastmod:
                    task.lastmod = e.lastmod
        self.counters["sitemap_urls"] = len(entries)
        self.counters["sitemap_out_of_scope"] = len(found.out_of_scope)
        self._enqueue([normalize_url(e.url) for e in entries], 0)

    def _archive_missing(self) -> None:
        reason = "not reached by this crawl (no longer linked, or excluded by robots.txt/limits)"
        for page in self.states.missing(self.known, self.reached):
            self._event(self.states.remove(page, self.run_id, reason))

    # ---- bookkeeping --------------------------------------------------------------------

    def _event(self, event: Event) -> None:
        self.events.append(event)
        self.counters[event.outcome] += 1

    def _pages_total(self, inflight: int) -> int:
        return min(self.src.max_pages, self.counters["pages"] + inflight + len(self.frontier))

    def _save(self, inflight: dict[Future, Task] | None = None, *, final: bool = False) -> bool:
        """Report progress, then persist it; the job's cancel flag is read last, so a cancel
        requested by the progress callback is seen at once. The frontier and seen set are
        written at most every FRONTIER_SAVE_S (and at the end): a resume after a crash may
        fetch a few pages again, which ingestion recognises as unchanged."""
        # pages fetched but not yet through ingestion are fetched again after a crash
        pending = (list((inflight or {}).values()) + list(self.ingesting.values())
                   + list(self.frontier))
        total = self._pages_total(len(inflight or {}))
        if self.on_progress is not None:
            self.on_progress(Progress(self.run_id, self.src.id, "running",
                                      self.counters["pages"], total, self.current_url,
                                      dict(self.counters), len(pending), self.job_id))
        state: dict = {}
        if final or time.monotonic() - self._frontier_saved >= FRONTIER_SAVE_S:
            state = dict(frontier=[t.to_json() for t in pending], seen=sorted(self.seen))
            self._frontier_saved = time.monotonic()
        cancel = runs.save(self.store, self.run_id, events=self.events,
                           current_url=self.current_url, counters=dict(self.counters),
                           pages_total=total, **state)
        self.events = []
        return cancel
