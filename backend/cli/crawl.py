"""Crawl commands of `python -m backend`; `register(subparsers)` adds them to the main parser:

    crawl URL --collection NAME [--max-pages N --depth N --delay S --concurrency N ...]
    crawl-sources                      list sources, schedules and their last run
    recrawl SOURCE [--resume]          re-crawl a source (only changes are ingested)
    watch FOLDER --collection NAME [--every S]   synchronise a folder (once, or every S s)
    crawl-scheduler                    run scheduled crawls in this process (one leader)

Errors are RagscopeError subclasses; the main CLI prints them as one line."""
from __future__ import annotations

import argparse
import sys
import time

from backend.config import Settings
from backend.security.display import safe_text


def _service():
    from backend.crawl.service import CrawlService
    from backend.services.container import Ragscope

    return CrawlService(Ragscope(Settings()))


def crawl_progress_bar(quiet: bool):
    """A progress callback drawing a tqdm bar on stderr (pages done / total, current URL)."""
    from tqdm import tqdm

    bar = tqdm(total=0, unit="page", disable=quiet, file=sys.stderr)

    def update(p) -> None:
        bar.total = max(p.pages_total, p.pages_done)
        bar.n = p.pages_done
        bar.set_postfix_str(f"new {p.documents_created} linked {p.documents_linked} "
                            f"errors {p.errors} {p.current_url[-40:]}")
        bar.refresh()

    return bar, update


def _report(svc, p, verbose: bool) -> int:
    c = p.counters
    keys = ("new", "changed", "unchanged", "linked", "restored", "archived", "gone",
            "skipped", "refused", "failed")
    summary = ", ".join(f"{c[k]} {k}" for k in keys if c.get(k))
    print(f"run {p.run_id} {p.status}: {p.pages_done} pages; {summary or 'nothing to do'}")
    if c.get("limit_reached"):
        print(f"page limit reached; {p.frontier_left} URLs left in the frontier")
    shown = ("skipped", "refused", "failed") if not verbose else ()
    for e in svc.events(p.run_id, *shown):
        print(f"  {e.outcome:<9} {safe_text(e.url)}  {safe_text(e.reason)}", file=sys.stderr)
    if p.error:
        print(f"error: {safe_text(p.error)}", file=sys.stderr)
    return 0 if p.status == "done" else 1


def _check(svc, a, collection: str, action: str = "crawl", *, create: bool = True) -> None:
    """The actor (`--as`, default the operator) may crawl into the collection (`create`:
    a new one is made now, in `--knowledge-base`)."""
    from backend.cli.common import actor_of
    from backend.ui.crawl import check_target

    check_target(svc.rs, actor_of(a, svc.rs), collection, getattr(a, "knowledge_base", None),
                 action, create=create)


def cmd_crawl(a) -> int:
    svc = _service()
    _check(svc, a, a.collection, create=False)  # made once the source is valid
    opts = {k: v for k, v in dict(max_pages=a.max_pages, max_depth=a.depth, delay_s=a.delay,
                                  concurrency=a.concurrency).items() if v is not None}
    if a.no_robots:
        opts["respect_robots"] = False
    if a.no_sitemap:
        opts["use_sitemap"] = False
    if a.subdomains:
        opts["include_subdomains"] = True
    if a.render_js:
        opts["render_js"] = True
    bar, update = crawl_progress_bar(a.quiet)
    p = svc.crawl_url(a.url, a.collection, on_progress=update,
                      before_run=lambda: _check(svc, a, a.collection), **opts)
    bar.close()
    return _report(svc, p, a.verbose)


def cmd_sources(a) -> int:
    svc = _service()
    print(f"{'id':>3}  {'name':<28} {'kind':<6} {'collection':<18} {'pages':>5} {'depth':>5} "
          f"{'schedule':<16} last run")
    for s in svc.sources.list():
        last = svc.history(s.id, limit=1)
        last_s = (f"#{last[0].run_id} {last[0].status} {last[0].pages_done} pages"
                  if last else "-")
        sched = s.schedule_kind if s.schedule_kind == "none" else \
            f"{s.schedule_kind} {s.schedule_value}"
        print(f"{s.id:>3}  {s.name[:28]:<28} {s.kind:<6} {s.collection[:18]:<18} "
              f"{s.max_pages:>5} {s.max_depth:>5} {sched[:16]:<16} {last_s}")
        print(f"     {s.start_url}")
    return 0


def cmd_recrawl(a) -> int:
    from backend.errors import CrawlError

    svc = _service()
    _check(svc, a, svc.sources.get(a.source).collection)
    bar, update = crawl_progress_bar(a.quiet)
    if a.resume:
        resumable = [p for p in svc.history(a.source, limit=50)
                     if p.status in ("cancelled", "failed", "interrupted")]
        if not resumable:
            raise CrawlError(f"source '{a.source}' has no cancelled or interrupted run")
        p = svc.resume(resumable[0].run_id, on_progress=update)
    else:
        p = svc.run(a.source, on_progress=update)
    bar.close()
    return _report(svc, p, a.verbose)


def cmd_watch(a) -> int:
    svc = _service()
    _check(svc, a, a.collection, "watch_folder")
    while True:
        p = svc.watch_folder(a.folder, a.collection)
        code = _report(svc, p, a.verbose)
        if not a.every:
            return code
        time.sleep(a.every)


def cmd_scheduler(a) -> int:
    import signal

    from backend.crawl.schedule import CrawlScheduler

    def terminate(*_):  # SIGTERM stops like Ctrl-C: running crawls are cancelled cleanly
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    svc = _service()
    sched = CrawlScheduler(svc)
    leader = sched.start()
    print("running scheduled crawls" if leader else
          "another process runs the scheduler; standing by", file=sys.stderr)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 0
    finally:
        sched.stop()


def register(subparsers: argparse._SubParsersAction) -> None:
    x = subparsers.add_parser("crawl", help="crawl a web site into a collection")
    x.add_argument("url")
    x.add_argument("--collection", "-c", required=True,
                   help="collection name: lower-case letters, digits and hyphens")
    x.add_argument("--knowledge-base", "-k",
                   help="knowledge base of a new collection (default: "
                        "RAGSCOPE_DEFAULT_KNOWLEDGE_BASE)")
    x.add_argument("--max-pages", type=int, help="1-500 (default 50)")
    x.add_argument("--depth", type=int, help="link depth 1-10 (default 3)")
    x.add_argument("--delay", type=float, help="politeness delay between requests, seconds")
    x.add_argument("--concurrency", type=int, help="parallel requests per host")
    x.add_argument("--no-robots", action="store_true", help="ignore robots.txt")
    x.add_argument("--no-sitemap", action="store_true", help="do not read sitemap.xml")
    x.add_argument("--subdomains", action="store_true", help="include subdomains in the scope")
    x.add_argument("--render-js", action="store_true",
                   help="run each page's JavaScript in Chromium before extraction")
    _common(x, cmd_crawl)
    x = subparsers.add_parser("crawl-sources", help="list crawl sources and watched folders")
    x.set_defaults(fn=cmd_sources)
    x = subparsers.add_parser("recrawl", help="re-crawl a source: ingest only what changed")
    x.add_argument("source", help="source name or id")
    x.add_argument("--resume", action="store_true",
                   help="continue the last cancelled or interrupted run instead")
    _common(x, cmd_recrawl)
    x = subparsers.add_parser("watch", help="synchronise a folder into a collection")
    x.add_argument("folder")
    x.add_argument("--collection", "-c", required=True)
    x.add_argument("--knowledge-base", "-k",
                   help="knowledge base of a new collection (default: "
                        "RAGSCOPE_DEFAULT_KNOWLEDGE_BASE)")
    x.add_argument("--every", type=float, help="repeat every N seconds until interrupted")
    _common(x, cmd_watch)
    x = subparsers.add_parser("crawl-scheduler",
                              help="run scheduled crawls here (only one process leads)")
    x.set_defaults(fn=cmd_scheduler)


def _common(x: argparse.ArgumentParser, fn) -> None:
    x.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    x.add_argument("--verbose", "-v", action="store_true", help="list every URL's outcome")
    x.set_defaults(fn=fn)
