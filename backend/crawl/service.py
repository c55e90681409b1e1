"""CrawlService: the one entry point of the CLI, the dashboard and the scheduler.

    svc = CrawlService(rs)
    src = svc.sources.create(SourceSpec(name="docs", start_url="https://example.org",
                                        collection="example-docs", max_pages=50))
    progress = svc.run(src.id)                      # in the foreground
    run_id = svc.start(src.id)                      # in a background thread
    svc.cancel(run_id); svc.resume(run_id)          # fetched pages stay; the frontier is kept
    svc.progress(run_id); svc.history(src.id); svc.last_changes(src.id)
"""
from __future__ import annotations

import threading

from backend.crawl import runs
from backend.crawl.crawler import CrawlRunner, ProgressCallback
from backend.crawl.guard import UrlGuard
from backend.crawl.runs import RESUMABLE, Event, Progress
from backend.crawl.scope import normalize_url
from backend.crawl.sources import SourceRepo, SourceSpec, default_name
from backend.crawl.watch import FolderSync
from backend.errors import CrawlError
from backend.ingest.service import Ingestor
from backend.services.jobs import request_cancel
from backend.services.container import Ragscope


class CrawlService:
    def __init__(self, rs: Ragscope, *, guard: UrlGuard | None = None,
                 ingestor: Ingestor | None = None, **fetch_overrides):
        """`fetch_overrides` go to the Fetcher (e.g. `backoff_s`, `timeout_s` in tests)."""
        self.rs = rs
        self.store = rs.store
        self.guard = guard or UrlGuard(rs.settings.crawl_allowed_hosts)
        self.ingestor = ingestor or Ingestor(rs)
        self.sources = SourceRepo(self.store, self.guard, rs.path_policy)
        self.fetch_overrides = fetch_overrides
        self._threads: dict[int, threading.Thread] = {}
        self._ingest_lock = threading.Lock()

    # ---- running ------------------------------------------------------------------------

    def crawl_url(self, url: str, collection: str, *, on_progress: ProgressCallback | None = None,
                  before_run=None, **options) -> Progress:
        """Crawl a URL into a collection now. The source (found by URL and collection, or
        created with a derived name) is kept, so `recrawl` and schedules can reuse it.
        `before_run()` is called once the source is valid and stored (the CLI makes a new
        collection there, so a refused source leaves none behind)."""
        src = self.sources.find(url.strip(), collection.strip())
        if src is None:
            spec = SourceSpec(name=default_name(url, collection), start_url=url,
                              collection=collection, **options)
            src = self.sources.create(spec)
        elif options:
            src = self.sources.update(src.id, **options)
        if before_run is not None:
            before_run()
        return self.run(src.id, on_progress=on_progress)

    def prepare(self, source_ref: int | str, trigger: str = "manual") -> int:
        """Create a queued run of a source with its start frontier; returns the run id."""
        src = self.sources.get(source_ref)
        if not src.enabled and trigger == "schedule":
            raise CrawlError(f"crawl source '{src.name}' is disabled")
        frontier = [] if src.kind == "folder" else [[normalize_url(src.start_url), 0, None]]
        return runs.new_run(self.store, src.id, trigger, frontier,
                            src.max_pages if src.kind == "web" else 0)

    def run(self, source_ref: int | str, trigger: str = "manual", *,
            on_progress: ProgressCallback | None = None) -> Progress:
        """Run a source (crawl or folder sync) in this thread."""
        return self.execute(self.prepare(source_ref, trigger), on_progress)

    def execute(self, run_id: int, on_progress: ProgressCallback | None = None) -> Progress:
        _run, src = runs.load(self.store, run_id)
        with self._ingest_lock:  # one run at a time per process: ingestion is sequential
            if src.kind == "folder":
                return FolderSync(self.ingestor, run_id, on_progress).execute()
            return CrawlRunner(self.ingestor, self.guard, run_id, on_progress,
                               **self.fetch_overrides).execute()

    def start(self, source_ref: int | str, trigger: str = "manual") -> int:
        """Run a source in a background thread; returns the run id at once."""
        run_id = self.prepare(source_ref, trigger)
        self._spawn(run_id)
        return run_id

    def resume(self, run_id: int, *, background: bool = False,
               on_progress: ProgressCallback | None = None) -> Progress | int:
        """Continue a cancelled, failed or interrupted run from its saved frontier."""
        runs.mark_interrupted(self.store)
        p = runs.progress(self.store, run_id)
        if p.status not in RESUMABLE:
            raise CrawlError(f"crawl run {run_id} is {p.status}; only "
                             f"{', '.join(RESUMABLE)} runs can be resumed")
        if background:
            runs.requeue(self.store, run_id)  # a progress read right after says "queued"
            self._spawn(run_id)
            return run_id
        return self.execute(run_id, on_progress)

    def cancel(self, run_id: int) -> None:
        """Ask a running crawl to stop; requests in flight finish and their pages stay."""
        p = runs.progress(self.store, run_id)
        if p.job_id is None or p.status != "running":
            raise CrawlError(f"crawl run {run_id} is not running ({p.status})")
        request_cancel(self.store, p.job_id)

    def wait(self, run_id: int, timeout: float | None = None) -> Progress:
        t = self._threads.get(run_id)
        if t is not None:
            t.join(timeout)
        return self.progress(run_id)

    def _spawn(self, run_id: int) -> None:
        t = threading.Thread(target=self.execute, args=(run_id,), name=f"crawl-run-{run_id}",
                             daemon=True)
        self._threads[run_id] = t
        t.start()

    # ---- reading ------------------------------------------------------------------------

    def progress(self, run_id: int) -> Progress:
        return runs.progress(self.store, run_id)

    def history(self, source_ref: int | str | None = None, limit: int = 20) -> list[Progress]:
        runs.mark_interrupted(self.store)
        sid = self.sources.get(source_ref).id if source_ref is not None else None
        return runs.history(self.store, sid, limit)

    def events(self, run_id: int, *outcomes: str) -> list[Event]:
        return runs.events(self.store, run_id, outcomes or None)

    def last_changes(self, source_ref: int | str) -> dict[str, list[str]]:
        return runs.last_changes(self.store, self.sources.get(source_ref).id)

    def watch_folder(self, folder: str, collection: str, *,
                     on_progress: ProgressCallback | None = None) -> Progress:
        """Synchronise a folder into a collection now (the source is created on first use)."""
        from pathlib import Path

        path = str(Path(folder).expanduser().resolve())
        src = self.sources.find(path, collection.strip())
        if src is None:
            src = self.sources.create(SourceSpec(
                name=default_name("folder-" + Path(path).name, collection), kind="folder",
                start_url=path, collection=collection))
        return self.run(src.id, on_progress=on_progress)
