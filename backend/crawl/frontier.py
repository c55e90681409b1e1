"""The crawl's frontier entries and its per-host politeness gate (backend/crawl/crawler.py):
a queued URL with its depth and sitemap lastmod, saved with the run so a resume continues
where it stopped, and the limit of concurrent, spaced-out requests per host."""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Iterator

from backend.crawl.sitemap import parse_lastmod


@dataclass
class _Fetched:
    """What the crawler remembers about a page while it is being ingested."""
    task: "Task"
    state: dict
    sha: str
    status: int | None
    size: int


@dataclass
class Task:
    url: str
    depth: int
    lastmod: datetime | None = None

    def to_json(self) -> list:
        return [self.url, self.depth, self.lastmod.isoformat() if self.lastmod else None]

    @classmethod
    def from_json(cls, item: list) -> "Task":
        return cls(item[0], int(item[1]), parse_lastmod(item[2]) if len(item) > 2 else None)


class HostGate:
    """At most `per_host` requests to a host at once, starts at least `delay` apart."""

    def __init__(self, per_host: int):
        self.per_host = per_host
        self._lock = threading.Lock()
        self._sems: dict[str, threading.Semaphore] = {}
        self._next: dict[str, float] = {}

    @contextmanager
    def slot(self, host: str, delay: float) -> Iterator[None]:
        with self._lock:
            sem = self._sems.setdefault(host, threading.Semaphore(self.per_host))
        with sem:
            with self._lock:
                now = time.monotonic()
                start = max(now, self._next.get(host, now))
                self._next[host] = start + delay
            if start > now:
                time.sleep(start - now)
            yield
