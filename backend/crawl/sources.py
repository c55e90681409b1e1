"""Crawl sources: create, read, update, delete — with the validation rules of seed 003.

- URL: a valid http(s) URL, no credentials, not localhost/intranet (the SSRF guard decides,
  after DNS resolution; `RAGSCOPE_CRAWL_ALLOWED_HOSTS` opens chosen hosts)
- collection name: `^[a-z0-9-]+$`, at most 255 characters
- source name: `^[a-z0-9-]+$`, at most 100 characters, unique
- max pages 1–500 ("at most 500 pages allowed"), max depth 1–10 ("maximum depth is 10")
- schedule: none, an interval in minutes (5 – 525600) or a 5-field crontab
A watched folder is a source of kind "folder" whose start_url is the folder path (stored
resolved); it must be a folder inside an allowed root (RAGSCOPE_INGEST_ROOTS), not a system
path, not hidden and not in the data dir (`PathPolicy.check_watched`). Without a policy
(`SourceRepo(store, guard)`) folder sources are refused."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from urllib.parse import urlsplit

from sqlalchemy import select

from backend.crawl.guard import UrlGuard
from backend.errors import InvalidCrawlSource, NotFound, UrlRefused
from backend.ingest.paths import PathPolicy
from backend.store import Store
from backend.store.crawl_models import CrawlSource

NAME_RE = re.compile(r"^[a-z0-9-]+$")
MAX_PAGES, MAX_DEPTH = 500, 10
MIN_INTERVAL_MIN, MAX_INTERVAL_MIN = 5, 525_600


@dataclass
class SourceSpec:
    """What a user enters for a source (the dashboard form, the CLI)."""

    name: str
    start_url: str
    collection: str
    kind: str = "web"
    max_pages: int = 50
    max_depth: int = 3
    delay_s: float = 1.0
    concurrency: int = 2
    respect_robots: bool = True
    use_sitemap: bool = True
    include_subdomains: bool = False
    render_js: bool = False  # run the pages' JavaScript in Chromium (backend/crawl/render.py)
    schedule_kind: str = "none"
    schedule_value: str = ""
    enabled: bool = True


def slug(text: str, max_len: int = 100) -> str:
    """A valid name from any text: `https://www.Example.org/docs` -> `www-example-org-docs`,
    `Protokolle Ausschüsse` -> `protokolle-ausschuesse`."""
    text = text.lower()
    for a, b in (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("ß", "ss")):
        text = text.replace(a, b)
    s = re.sub(r"[^a-z0-9]+", "-", text).strip("-")
    return s[:max_len].strip("-") or "source"


def default_name(url: str, collection: str) -> str:
    host = urlsplit(url).hostname or url
    return slug(f"{host}-{collection}")


def _check_name(value: str, max_len: int, what: str) -> str | None:
    if not value:
        return f"{what} must not be empty"
    if len(value) > max_len:
        return f"{what} may have at most {max_len} characters"
    if not NAME_RE.match(value):
        return f"{what} may only contain lower-case letters, digits and hyphens"
    return None


def check_schedule(kind: str, value: str) -> str | None:
    if kind == "none":
        return None
    if kind == "interval":
        try:
            minutes = int(str(value).strip())
        except ValueError:
            return "interval must be a whole number of minutes"
        if not MIN_INTERVAL_MIN <= minutes <= MAX_INTERVAL_MIN:
            return f"interval must be between {MIN_INTERVAL_MIN} and {MAX_INTERVAL_MIN} minutes"
        return None
    if kind == "cron":
        from apscheduler.triggers.cron import CronTrigger

        try:
            CronTrigger.from_crontab(str(value).strip())
        except ValueError as e:
            return f"invalid crontab expression ({e})"
        return None
    return "schedule must be none, interval or cron"


def validate(spec: SourceSpec, guard: UrlGuard,
             folders: PathPolicy | None = None) -> dict[str, str]:
    """Field -> message for every rule the spec breaks (empty when valid)."""
    errors: dict[str, str] = {}
    for key, msg in (("name", _check_name(spec.name, 100, "name")),
                     ("collection", _check_name(spec.collection, 255, "collection name")),
                     ("schedule", check_schedule(spec.schedule_kind, spec.schedule_value))):
        if msg:
            errors[key] = msg
    if spec.kind == "web":
        if not 1 <= spec.max_pages <= MAX_PAGES:
            errors["max_pages"] = f"at most {MAX_PAGES} pages allowed (1–{MAX_PAGES})"
        if not 1 <= spec.max_depth <= MAX_DEPTH:
            errors["max_depth"] = f"maximum depth is {MAX_DEPTH} (1–{MAX_DEPTH})"
        if not 0 <= spec.delay_s <= 60:
            errors["delay_s"] = "delay must be between 0 and 60 seconds"
        if not 1 <= spec.concurrency <= 16:
            errors["concurrency"] = "concurrency must be between 1 and 16"
        try:
            guard.check(spec.start_url)
        except UrlRefused as e:
            errors["start_url"] = f"invalid or unreachable URL: {e.reason}"
    elif spec.kind == "folder":
        if folders is None:
            errors["start_url"] = "watched folders are not available here (no path policy)"
        elif not spec.start_url:
            errors["start_url"] = "enter the path of the folder to watch"
        elif (msg := folders.check_watched(spec.start_url)) is not None:
            errors["start_url"] = msg
    else:
        errors["kind"] = "kind must be web or folder"
    return errors


def _normalised(spec: SourceSpec) -> SourceSpec:
    d = asdict(spec)
    d["name"], d["collection"] = spec.name.strip(), spec.collection.strip()
    d["start_url"] = spec.start_url.strip()
    d["schedule_value"] = str(spec.schedule_value or "").strip()
    if spec.kind == "folder" and d["start_url"]:  # empty stays empty: "enter the path"
        d["start_url"] = str(Path(d["start_url"]).expanduser().resolve())
    return SourceSpec(**d)


class SourceRepo:
    def __init__(self, store: Store, guard: UrlGuard, folders: PathPolicy | None = None):
        self.store = store
        self.guard = guard
        self.folders = folders

    def create(self, spec: SourceSpec) -> CrawlSource:
        spec = _normalised(spec)
        errors = validate(spec, self.guard, self.folders)
        with self.store.session() as s:
            if s.scalar(select(CrawlSource).where(CrawlSource.name == spec.name)) is not None:
                errors.setdefault("name", f"a source named '{spec.name}' already exists")
            if errors:
                raise InvalidCrawlSource(errors)
            src = CrawlSource(**asdict(spec))
            s.add(src)
            s.flush()
            return src

    def update(self, source_id: int, **changes) -> CrawlSource:
        known = {f.name for f in fields(SourceSpec)}
        unknown = set(changes) - known
        if unknown:
            raise InvalidCrawlSource({k: "unknown field" for k in sorted(unknown)})
        with self.store.session() as s:
            src = self._get(s, source_id)
            spec = _normalised(SourceSpec(**{**spec_of(src).__dict__, **changes}))
            errors = validate(spec, self.guard, self.folders)
            clash = s.scalar(select(CrawlSource).where(CrawlSource.name == spec.name,
                                                       CrawlSource.id != source_id))
            if clash is not None:
                errors.setdefault("name", f"a source named '{spec.name}' already exists")
            if errors:
                raise InvalidCrawlSource(errors)
            for k, v in asdict(spec).items():
                setattr(src, k, v)
            s.flush()
            return src

    def delete(self, source_id: int) -> None:
        """Delete a source with its runs and page states; its documents stay."""
        with self.store.session() as s:
            s.delete(self._get(s, source_id))

    def get(self, ref: int | str) -> CrawlSource:
        with self.store.session() as s:
            return self._get(s, ref)

    def list(self) -> list[CrawlSource]:
        with self.store.session() as s:
            return list(s.scalars(select(CrawlSource).order_by(CrawlSource.name)))

    def find(self, start_url: str, collection: str) -> CrawlSource | None:
        with self.store.session() as s:
            return s.scalar(select(CrawlSource).where(CrawlSource.start_url == start_url,
                                                      CrawlSource.collection == collection))

    @staticmethod
    def _get(s, ref: int | str) -> CrawlSource:
        if isinstance(ref, int) or str(ref).isdigit():
            src = s.get(CrawlSource, int(ref))
        else:
            src = s.scalar(select(CrawlSource).where(CrawlSource.name == ref))
        if src is None:
            raise NotFound(f"crawl source '{ref}' not found")
        return src


def spec_of(src: CrawlSource) -> SourceSpec:
    return SourceSpec(**{f.name: getattr(src, f.name) for f in fields(SourceSpec)})
