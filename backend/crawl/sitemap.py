"""sitemap.xml (urlset and sitemap index, optionally gzip-compressed): the URLs a site lists,
with their `lastmod`. Parsed with the standard library (no entity expansion beyond expat's
limits); nested indexes, sitemaps per crawl and URLs per crawl are bounded. Only sitemaps and
entries inside the crawl scope are used; the others are reported, never fetched."""
from __future__ import annotations

import gzip
import io
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable

from backend.crawl.fetch import Fetcher

MAX_SITEMAPS = 20
MAX_URLS = 10_000
MAX_DECOMPRESSED = 50 * 1024 * 1024


@dataclass(frozen=True)
class SitemapEntry:
    url: str
    lastmod: datetime | None = None


def parse_lastmod(value: str | None) -> datetime | None:
    """W3C datetime (`2024-05-01`, `2024-05-01T10:00:00+02:00`, `...Z`) as aware UTC."""
    if not value:
        return None
    v = value.strip().replace("Z", "+00:00")
    try:
        dt = datetime.fromisoformat(v)
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.astimezone(timezone.utc)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def parse_sitemap(data: bytes) -> tuple[list[SitemapEntry], list[str]]:
    """(page entries, child sitemap URLs). Malformed XML gives two empty lists."""
    if data[:2] == b"\x1f\x8b":
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as f:
            data = f.read(MAX_DECOMPRESSED)
    try:
        root = ET.fromstring(data)
    except ET.ParseError:
        return [], []
    pages: list[SitemapEntry] = []
    children: list[str] = []
    for node in root:
        fields = {_local(c.tag): (c.text or "").strip() for c in node}
        loc = fields.get("loc")
        if not loc:
            continue
        if _local(root.tag) == "sitemapindex":
            children.append(loc)
        else:
            pages.append(SitemapEntry(loc, parse_lastmod(fields.get("lastmod"))))
    return pages, children


@dataclass
class Discovered:
    entries: list[SitemapEntry] = field(default_factory=list)  # in scope, to be crawled
    problems: list[tuple[str, str]] = field(default_factory=list)  # (sitemap URL, reason)
    out_of_scope: list[tuple[str, str]] = field(default_factory=list)  # (URL, reason): dropped


def discover(fetcher: Fetcher, sitemap_urls: list[str],
             in_scope: Callable[[str], bool]) -> Discovered:
    """Fetch sitemaps breadth-first. Sitemaps (from robots.txt, the default, nested indexes)
    and entries outside the crawl scope are dropped unfetched and listed in `out_of_scope`;
    a sitemap redirecting out of the scope is refused by the fetcher and is a problem.
    Unreachable or unparsable sitemaps are problems; a missing default sitemap is not."""
    queue, seen = list(dict.fromkeys(sitemap_urls)), set()
    found = Discovered()
    entries: dict[str, SitemapEntry] = {}
    dropped: set[str] = set()
    listed = 0  # entries read, in scope or not: bounded by MAX_URLS
    while queue and len(seen) < MAX_SITEMAPS and listed < MAX_URLS:
        url = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        if not in_scope(url):
            found.out_of_scope.append((url, "sitemap outside the crawl scope (not fetched)"))
            continue
        res = fetcher.fetch(url)
        if not res.ok:
            if res.status != 404:
                found.problems.append((url, f"sitemap not read: {res.error}"))
            continue
        pages, children = parse_sitemap(res.content)
        for e in pages[: MAX_URLS - listed]:
            listed += 1
            if not in_scope(e.url):
                if e.url not in dropped:
                    dropped.add(e.url)
                    found.out_of_scope.append((e.url, "sitemap entry outside the crawl scope"))
            else:
                entries.setdefault(e.url, e)
        queue += [c for c in children if c not in seen]
    found.entries = list(entries.values())
    return found
