"""URL normalisation, the same-site scope of a crawl, and link extraction from HTML.

Same site: the start host and its www-variant (example.org and www.example.org are one site),
on the start port (http and https on their default ports count as one). When the start URL
itself redirects (example.org -> www.example.org, or to another host), the host it lands on is
adopted into the scope, so the crawl goes on there. Subdomains are in scope only when asked."""
from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit, urlunsplit

import lxml.html
from lxml import etree

from backend.crawl.guard import DEFAULT_PORTS

SKIP_EXTENSIONS = frozenset({
    ".jpg", ".jpeg", ".png", ".gif", ".svg", ".webp", ".ico", ".bmp", ".css", ".js", ".mjs",
    ".zip", ".gz", ".tgz", ".rar", ".7z", ".mp3", ".mp4", ".avi", ".mov", ".webm", ".woff",
    ".woff2", ".ttf", ".eot", ".exe", ".dmg", ".iso", ".xml", ".json", ".rss", ".atom"})


def normalize_url(url: str) -> str:
    """Lower-case scheme and host, no default port, no fragment, path at least '/'."""
    p = urlsplit(url.strip())
    scheme = p.scheme.lower()
    host = (p.hostname or "").lower().rstrip(".")
    if ":" in host:
        host = f"[{host}]"
    port = p.port
    netloc = host if port in (None, DEFAULT_PORTS.get(scheme)) else f"{host}:{port}"
    return urlunsplit((scheme, netloc, p.path or "/", p.query, ""))


def _site_host(host: str) -> str:
    host = host.lower().rstrip(".")
    return host[4:] if host.startswith("www.") else host


def _site_port(scheme: str, port: int | None) -> int | None:
    return None if port in (None, DEFAULT_PORTS.get(scheme)) else port


@dataclass
class Scope:
    include_subdomains: bool = False
    sites: set[tuple[str, int | None]] = field(default_factory=set)

    @classmethod
    def for_start(cls, url: str, include_subdomains: bool = False) -> "Scope":
        scope = cls(include_subdomains)
        scope.adopt(url)
        return scope

    def adopt(self, url: str) -> None:
        """Make the site of url part of the scope (used for the start URL's redirect target)."""
        p = urlsplit(url)
        self.sites.add((_site_host(p.hostname or ""), _site_port(p.scheme, p.port)))

    def contains(self, url: str) -> bool:
        p = urlsplit(url)
        if p.scheme not in DEFAULT_PORTS or not p.hostname:
            return False
        host, port = _site_host(p.hostname), _site_port(p.scheme, p.port)
        for site_host, site_port in self.sites:
            if port != site_port:
                continue
            if host == site_host or (self.include_subdomains and host.endswith("." + site_host)):
                return True
        return False


@dataclass
class PageLinks:
    links: list[str]
    nofollow: bool = False  # <meta name="robots" content="nofollow">
    noindex: bool = False  # <meta name="robots" content="noindex">


def extract_links(html: bytes, base_url: str) -> PageLinks:
    """Absolute, normalised http(s) links of a page (in order, once each); honours <base>,
    rel=nofollow on links and the robots meta tag. Scripts are never run."""
    try:
        doc = lxml.html.fromstring(html)
    except (ValueError, etree.ParserError):
        return PageLinks([])
    robots = " ".join(m.get("content", "") for m in doc.xpath(
        '//meta[translate(@name,"ROBTS","robts")="robots"]')).lower()
    base = next((b.get("href") for b in doc.xpath("//base[@href]")), None)
    base_url = urljoin(base_url, base) if base else base_url
    out: dict[str, None] = {}
    for a in doc.xpath("//a[@href]|//area[@href]"):
        if "nofollow" in (a.get("rel") or "").lower():
            continue
        href = a.get("href", "").strip()
        if not href or href.startswith(("#", "mailto:", "javascript:", "tel:", "data:")):
            continue
        url = urljoin(base_url, href)
        if urlsplit(url).scheme not in DEFAULT_PORTS:
            continue
        path = urlsplit(url).path.lower()
        if any(path.endswith(ext) for ext in SKIP_EXTENSIONS):
            continue
        out.setdefault(normalize_url(url), None)
    return PageLinks(list(out), nofollow="nofollow" in robots or "none" in robots,
                     noindex="noindex" in robots or "none" in robots)
