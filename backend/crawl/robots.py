"""robots.txt, one per origin, fetched through the guarded Fetcher and cached per crawl.

Follows RFC 9309: a 4xx answer (no robots.txt) allows everything; a 5xx answer or an
unreachable server disallows everything until the next crawl."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

from backend.crawl.fetch import Fetcher


def origin(url: str) -> str:
    p = urlsplit(url)
    return f"{p.scheme}://{p.netloc}"


@dataclass
class RobotsRules:
    parser: RobotFileParser | None  # None: allow or deny everything (see `deny_reason`)
    deny_reason: str | None = None
    sitemaps: list[str] = field(default_factory=list)
    crawl_delay: float | None = None

    def allows(self, url: str, agent: str) -> bool:
        if self.deny_reason is not None:
            return False
        return self.parser is None or self.parser.can_fetch(agent, url)


class RobotsCache:
    def __init__(self, fetcher: Fetcher, user_agent: str):
        self.fetcher = fetcher
        self.agent = user_agent
        self._rules: dict[str, RobotsRules] = {}
        self._lock = threading.Lock()

    def rules(self, url: str) -> RobotsRules:
        key = origin(url)
        with self._lock:
            if key not in self._rules:
                self._rules[key] = self._load(key)
            return self._rules[key]

    def allowed(self, url: str) -> tuple[bool, str | None]:
        """(allowed, reason when not)."""
        r = self.rules(url)
        if r.allows(url, self.agent):
            return True, None
        return False, r.deny_reason or "disallowed by robots.txt"

    def _load(self, base: str) -> RobotsRules:
        res = self.fetcher.fetch(base + "/robots.txt")
        if res.status is not None and 400 <= res.status < 500:
            return RobotsRules(None)
        if not res.ok:
            return RobotsRules(None, deny_reason=f"robots.txt unavailable ({res.error}); "
                               "crawling disallowed (RFC 9309)")
        parser = RobotFileParser(base + "/robots.txt")
        lines = res.content.decode("utf-8", errors="replace").splitlines()
        parser.parse(lines)
        delay = parser.crawl_delay(self.agent)
        return RobotsRules(parser, sitemaps=list(parser.site_maps() or []),
                           crawl_delay=float(delay) if delay is not None else None)
