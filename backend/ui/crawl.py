"""What the crawl page needs from the crawl service, as plain Python (no Streamlit here):
one `CrawlConsole` per process and Ragscope (service + scheduler), form values <-> sources,
and the rows of the sources table, live progress, run history, "what changed" and events.

The dashboard keeps one console per configuration in `st.cache_resource`
(pages/_crawl_common.py); every dashboard process starts a `CrawlScheduler` there, and the
scheduler lease makes sure only one of them runs scheduled crawls (docs/crawling.md).

Every action that changes something takes the acting `Actor` (backend/security/access.py), resolved
by the caller at the moment of the action, and checks its role here: `crawl` (editor) for
sources, schedules and runs, and `watch_folder` (admin) for creating or editing a watched
folder, which reads the server's file system. Page order cannot skip these checks.
Each also checks the source's collection against the actor's scope (`check_target`): a
source is saved, run, resumed, cancelled or deleted only by an actor who may write its
collection, and the sources table lists only sources of readable collections."""
from __future__ import annotations

import logging
import threading
from dataclasses import asdict, dataclass, fields
from datetime import datetime
from typing import Any

from backend.security import access
from backend.security.access import Actor
from backend.crawl.runs import OUTCOMES, RESUMABLE, Progress
from backend.crawl.schedule import CrawlScheduler
from backend.security.display import safe_text
from backend.crawl.service import CrawlService
from backend.crawl.sources import MAX_DEPTH, MAX_PAGES, SourceSpec, spec_of
from backend.errors import CrawlError, InvalidCrawlSource
from backend.services.container import Ragscope
from backend.store.crawl_models import CrawlSource

ACTIVE = ("queued", "running")
COUNT_COLUMNS = ("new", "changed", "unchanged", "linked", "restored", "skipped", "refused",
                 "failed", "archived", "gone")
PROBLEM_OUTCOMES = ("skipped", "refused", "failed")
SCHEDULE_KINDS = ("none", "interval", "cron")
KINDS = ("web", "folder")
# Form fields in display order (the keys of `form_values` / `spec_from_form`).
FORM_FIELDS = ("name", "kind", "start_url", "collection", "max_pages", "max_depth", "delay_s",
               "concurrency", "respect_robots", "use_sitemap", "include_subdomains",
               "render_js", "schedule_kind", "interval_min", "cron", "enabled")
# Validation error field -> the form field it is shown under.
ERROR_FIELD = {"schedule": "schedule_kind"}

log = logging.getLogger(__name__)
_lock = threading.Lock()
_open: list["CrawlConsole"] = []


@dataclass
class CrawlConsole:
    service: CrawlService
    scheduler: CrawlScheduler | None = None

    @property
    def db_url(self) -> str:
        return self.service.rs.settings.db_url


def open_console(rs: Ragscope, *, start_scheduler: bool = True) -> CrawlConsole:
    """A crawl service on `rs`, with this process's scheduler candidate started (it runs
    scheduled crawls only while it holds the database's scheduler lease)."""
    svc = CrawlService(rs)
    sched = CrawlScheduler(svc) if start_scheduler else None
    if sched is not None:
        sched.start()
    console = CrawlConsole(svc, sched)
    with _lock:
        _open.append(console)
    return console


def console_for(db_url: str) -> CrawlConsole | None:
    """The console opened in this process for a database (tests wait on its runs)."""
    with _lock:
        return next((c for c in reversed(_open) if c.db_url == db_url), None)


def shutdown_all() -> None:
    """Stop every scheduler started here and wait for background runs (tests, shutdown)."""
    with _lock:
        consoles, _open[:] = list(_open), []
    for c in consoles:
        for t in list(c.service._threads.values()):
            t.join(timeout=30)
        if c.scheduler is not None:
            c.scheduler.stop()


# ---- sources ------------------------------------------------------------------------------


def form_values(src: CrawlSource | None) -> dict[str, Any]:
    """The form's initial values: a source's, or the defaults for a new one."""
    spec = spec_of(src) if src is not None else SourceSpec(name="", start_url="",
                                                            collection="")
    d = asdict(spec)
    kind, value = d.pop("schedule_kind"), d.pop("schedule_value")
    d["schedule_kind"] = kind
    d["interval_min"] = int(value) if kind == "interval" and str(value).isdigit() else 60
    d["cron"] = value if kind == "cron" else "0 3 * * *"
    d["max_pages"], d["max_depth"] = int(d["max_pages"]), int(d["max_depth"])
    d["delay_s"], d["concurrency"] = float(d["delay_s"]), int(d["concurrency"])
    return {k: d[k] for k in FORM_FIELDS}


def spec_from_form(values: dict[str, Any]) -> SourceSpec:
    kind = values.get("schedule_kind") or "none"
    if kind == "interval":
        iv = values.get("interval_min")
        schedule_value = "" if iv is None else str(int(iv))
    elif kind == "cron":
        schedule_value = str(values.get("cron") or "").strip()
    else:
        schedule_value = ""
    known = {f.name for f in fields(SourceSpec)}
    d = {k: v for k, v in values.items() if k in known}
    for k in ("name", "start_url", "collection"):
        d[k] = str(d.get(k) or "").strip()
    d["name"] = form_name(d["name"])
    for k in ("max_pages", "max_depth", "concurrency"):
        d[k] = int(d[k]) if d.get(k) is not None else 0
    d["delay_s"] = float(d["delay_s"]) if d.get("delay_s") is not None else -1.0
    return SourceSpec(**{**d, "schedule_kind": kind, "schedule_value": schedule_value})


def form_name(entered: str) -> str:
    """The source name a user typed, made a valid one ("Protokolle Ausschüsse" ->
    "protokolle-ausschuesse"); empty stays empty (the form then says it is required)."""
    from backend.crawl.sources import slug

    entered = (entered or "").strip()
    return slug(entered) if entered else ""


def saved_message(entered: str | None, src: CrawlSource, created: bool) -> str:
    """The line after saving, with the name the source got when it differs from the typed one."""
    msg = f"{'Created' if created else 'Saved'} source {src.name}"
    typed = (entered or "").strip()
    if typed and typed != src.name:
        msg += f" (the name “{typed}” became {src.name}: lower-case letters, digits, hyphens)"
    return msg + "."


def form_errors(e: InvalidCrawlSource) -> dict[str, str]:
    """Validation errors keyed by the form field they belong under."""
    return {ERROR_FIELD.get(k, k): v for k, v in e.errors.items()}


def check_target(rs: Ragscope, actor: Actor | None, collection: str,
                 knowledge_base: str | None = None, action: str = "crawl", *,
                 create: bool = True) -> None:
    """The actor may crawl into `collection` (created in `knowledge_base` when new and
    `create`, see backend/security/acl.py `writable_collection`). A name the crawl rules refuse is
    left to the source's own validation (InvalidCrawlSource), so nothing is created for it."""
    from backend.security.acl import writable_collection
    from backend.crawl.sources import _check_name

    access.require(actor, action)
    if _check_name((collection or "").strip(), 255, "collection name") is None:
        writable_collection(rs, actor, collection.strip(), knowledge_base, action=action,
                            create=create)


def _existing_collections(rs: Ragscope) -> set[str]:
    from sqlalchemy import select

    from backend.store.models import Collection

    with rs.store.session() as s:
        return set(s.scalars(select(Collection.name)))


def _may(rs: Ragscope, scope: access.Scope, collection: str, write: bool,
         existing: set[str] | None = None) -> bool:
    """Whether `scope` may read (write) a source's collection. One that does not exist
    yet (its first run creates it) counts as part of RAGSCOPE_DEFAULT_KNOWLEDGE_BASE."""
    existing = _existing_collections(rs) if existing is None else existing
    if collection in existing:
        return scope.can_write(collection) if write else scope.can_read(collection)
    kb = rs.settings.default_knowledge_base
    return scope.can_write_kb(kb) if write else scope.can_read_kb(kb)


def _require_source(console: CrawlConsole, actor: Actor | None, source_id: int,
                    action: str = "crawl") -> CrawlSource:
    access.require(actor, action)
    src = console.service.sources.get(source_id)
    rs = console.service.rs
    if not _may(rs, access.scope_of(rs, actor), src.collection, write=True):
        raise access.auth.PermissionDenied(
            f"{actor.username} may not change collection '{src.collection}' of crawl source "
            f"'{src.name}'")
    return src


def save_source(console: CrawlConsole, actor: Actor | None, source_id: int | None,
                values: dict[str, Any]) -> CrawlSource:
    """Create (source_id None) or update a source from form values. Raises
    InvalidCrawlSource with the field errors, PermissionDenied for a role without the
    right or a collection the actor may not write; nothing is stored then (a new
    collection the actor may create is made once the source is valid and stored, in
    `values["knowledge_base"]`: a rejected source leaves no empty collection)."""
    access.require(actor, "crawl")
    spec = spec_from_form(values)
    repo = console.service.sources
    if spec.kind == "folder" or (source_id is not None and repo.get(source_id).kind == "folder"):
        access.require(actor, "watch_folder")
    if source_id is not None:
        _require_source(console, actor, source_id)
    rs, kb = console.service.rs, values.get("knowledge_base")
    check_target(rs, actor, spec.collection, kb, create=False)
    src = repo.create(spec) if source_id is None else repo.update(source_id, **asdict(spec))
    check_target(rs, actor, src.collection, kb)  # checked above: now made
    _sync_schedule(console)
    return src


def delete_source(console: CrawlConsole, actor: Actor | None, source_id: int) -> str:
    """Delete a source (runs and page states go, its documents stay); not while it runs."""
    src = _require_source(console, actor, source_id)
    if any(p.source_id == src.id for p in active_runs(console)):
        raise CrawlError(f"crawl source '{src.name}' has a run in progress; cancel it first")
    console.service.sources.delete(src.id)
    _sync_schedule(console)
    return src.name


def _sync_schedule(console: CrawlConsole) -> None:
    """A changed schedule takes effect now in the leader (otherwise within its sync period)."""
    if console.scheduler is not None and console.scheduler.is_leader:
        try:
            console.scheduler.sync()
        except Exception:  # the leader's own sync loop retries
            log.exception("scheduler sync after a source change failed")


def list_sources(console: CrawlConsole, scope: access.Scope | None = None) -> list[CrawlSource]:
    """Every source, or those of collections `scope` may read."""
    sources = console.service.sources.list()
    if scope is None or scope.unrestricted:
        return sources
    rs = console.service.rs
    existing = _existing_collections(rs)
    return [s for s in sources if _may(rs, scope, s.collection, False, existing)]


def schedule_text(src: CrawlSource) -> str:
    if src.schedule_kind == "interval":
        return f"every {src.schedule_value} min"
    if src.schedule_kind == "cron":
        return f"cron {src.schedule_value} (UTC)"
    return "manual only"


def source_rows(console: CrawlConsole, scope: access.Scope) -> list[dict[str, Any]]:
    """One row per source of a readable collection: settings, schedule, next and last run."""
    svc = console.service
    nexts = next_runs(console)
    last = {}
    for p in svc.history(None, limit=200):
        last.setdefault(p.source_id, p)
    rows = []
    for s in list_sources(console, scope):
        p = last.get(s.id)
        rows.append({"name": s.name, "kind": s.kind, "start URL / folder": s.start_url,
                     "collection": s.collection, "max pages": s.max_pages,
                     "depth": s.max_depth, "schedule": schedule_text(s),
                     "enabled": s.enabled, "next run": nexts.get(s.id),
                     "last run": p.status if p else "", "last started": p.started_at if p else None,
                     "id": s.id})
    return rows


def next_runs(console: CrawlConsole) -> dict[int, datetime | None]:
    if console.scheduler is None:
        return {}
    try:
        return console.scheduler.next_runs()
    except Exception:  # the job store is APScheduler's; never break the page over it
        return {}


def scheduler_status(console: CrawlConsole) -> str:
    sched = console.scheduler
    if sched is None:
        return "No scheduler runs in this dashboard process."
    if sched.is_leader:
        return "This dashboard process runs the scheduled crawls."
    holder = sched.lease.holder()
    if holder is None:
        return "No process runs scheduled crawls right now (this one will take over shortly)."
    return f"Scheduled crawls run in another process ({holder[0]})."


# ---- runs ---------------------------------------------------------------------------------


def run_now(console: CrawlConsole, actor: Actor | None, source_id: int) -> int:
    """Start a manual run of a source in the background; returns the run id."""
    src = _require_source(console, actor, source_id)
    if any(p.source_id == src.id for p in active_runs(console)):
        raise CrawlError(f"crawl source '{src.name}' is already running")
    check_target(console.service.rs, actor, src.collection)  # a new one: made where allowed
    return console.service.start(src.id)


def cancel_run(console: CrawlConsole, actor: Actor | None, run_id: int) -> None:
    access.require(actor, "crawl")
    _require_source(console, actor, console.service.progress(run_id).source_id)
    console.service.cancel(run_id)


def resume_run(console: CrawlConsole, actor: Actor | None, run_id: int) -> int:
    access.require(actor, "crawl")
    _require_source(console, actor, console.service.progress(run_id).source_id)
    return console.service.resume(run_id, background=True)


def active_runs(console: CrawlConsole, scope: access.Scope | None = None) -> list[Progress]:
    """Queued and running runs of every source (also those another process runs), or of
    the sources of collections `scope` may read."""
    runs = [p for p in console.service.history(None, limit=50) if p.status in ACTIVE]
    if scope is None or scope.unrestricted:
        return runs
    readable = {s.id for s in list_sources(console, scope)}
    return [p for p in runs if p.source_id in readable]


@dataclass
class LiveRun:
    run_id: int
    source: str
    status: str
    pages_done: int
    pages_total: int
    fraction: float
    current_url: str
    created: int
    linked: int
    errors: int
    counters: dict[str, int]


def live(console: CrawlConsole, p: Progress) -> LiveRun:
    names = {s.id: s.name for s in list_sources(console)}
    total = max(p.pages_total, p.pages_done)
    frac = min(1.0, p.pages_done / total) if total else 0.0
    return LiveRun(p.run_id, names.get(p.source_id, str(p.source_id)), p.status, p.pages_done,
                   total, frac, p.current_url, p.documents_created, p.documents_linked,
                   p.errors, dict(p.counters))


def history_rows(console: CrawlConsole, source_id: int | None,
                 limit: int = 20) -> list[dict[str, Any]]:
    rows = []
    for p in console.service.history(source_id, limit=limit):
        c = p.counters
        rows.append({"run": p.run_id, "status": p.status, "started": p.started_at,
                     "finished": p.finished_at, "pages": c.get("pages", 0),
                     **{k: c.get(k, 0) for k in COUNT_COLUMNS},
                     "errors": p.errors, "error": p.error or ""})
    return rows


def resumable(console: CrawlConsole, source_id: int) -> Progress | None:
    """The source's latest run when it can be resumed (cancelled, failed, interrupted)."""
    hist = console.service.history(source_id, limit=1)
    return hist[0] if hist and hist[0].status in RESUMABLE else None


def last_changes(console: CrawlConsole, source_id: int) -> dict[str, list[str]]:
    return console.service.last_changes(source_id)


def run_ids(console: CrawlConsole, source_id: int, limit: int = 20) -> list[int]:
    return [p.run_id for p in console.service.history(source_id, limit=limit)]


def event_rows(console: CrawlConsole, run_id: int,
               outcomes: list[str] | tuple[str, ...] = PROBLEM_OUTCOMES) -> list[dict[str, Any]]:
    """Per-URL events of a run (by default the skipped, refused and failed URLs)."""
    return [{"outcome": e.outcome, "url": safe_text(e.url), "reason": safe_text(e.reason),
             "HTTP": e.http_status, "document": e.document_id}
            for e in console.service.events(run_id, *outcomes)]


__all__ = ["ACTIVE", "CrawlConsole", "KINDS", "MAX_DEPTH", "MAX_PAGES", "OUTCOMES",
           "PROBLEM_OUTCOMES", "SCHEDULE_KINDS", "open_console"]
