"""sitemap.xml (urlset and sitemap index, optionally gzip-compressed): the URLs a site lists,
with their `lastmod`. Parsed with the standard library (no entity expansion beyond expat's
limits); nested indexes, sitemaps per crawl and URLs per crawl are bounded."""
from __future__ import annotations

import gzip
import io
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from datetime import datetime, timezone

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


def discover(fetcher: Fetcher, sitemap_urls: list[str]) -> tuple[list[SitemapEntry], list[str]]:
    """Fetch sitemaps breadth-first. Returns (entries, problems) — problems are one line each
    (unreachable or unparsable sitemaps); a missing default sitemap is not a problem."""
    queue, seen = list(dict.fromkeys(sitemap_urls)), set()
    entries: dict[str, SitemapEntry] = {}
    problems: list[str] = []
    while queue and len(seen) < MAX_SITEMAPS and len(entries) < MAX_URLS:
        url = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        res = fetcher.fetch(url)
        if not res.ok:
            if res.status != 404:
                problems.append(f"sitemap {url}: {res.error}")
            continue
        pages, children = parse_sitemap(res.content)
        for e in pages[: MAX_URLS - len(entries)]:
            entries.setdefault(e.url, e)
        queue += [c for c in children if c not in seen]
    return list(entries.values()), problems
