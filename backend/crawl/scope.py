"""URL normalisation, the same-site scope of a crawl, and link extraction from HTML.

Same site: the start host and its www-variant (example.org and www.example.org are one site),
on the start port (http and https on their default ports count as one); subdomains only when
asked. The scope is fixed by the start URL: the crawler applies it to every link, every
redirect hop (the start URL's too, so example.org -> www.example.org is followed and a move to
another host is refused) and every sitemap. Nothing widens it — in particular not
`crawl_allowed_hosts`, which only lifts the SSRF guard's refusal of private addresses."""
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit, urlunsplit

import lxml.html
from lxml import etree

from backend.crawl.guard import DEFAULT_PORTS

SKIP_EXTENSIONS = frozenset({
    ".jpg", ".jpeg", ".png", ".gif", ".svg", ".webp", ".ico", ".bmp", ".css", ".js", ".mjs",
    ".zip", ".gz", ".tgz", ".rar", ".7z", ".mp3", ".mp4", ".avi", ".mov", ".webm", ".woff",
    ".woff2", ".ttf", ".eot", ".exe", ".dmg", ".iso", ".xml", ".json", ".rss", ".atom"})


def normalize_url(url: str) -> str:
    """Lower-case scheme and host, no default port, no fragment, path at least '/'. Credentials
    stay visible as such (`user:***@`, the password masked) so that the crawler refuses the
    URL (`has_credentials`) instead of fetching it without them."""
    p = urlsplit(url.strip())
    scheme = p.scheme.lower()
    host = (p.hostname or "").lower().rstrip(".")
    if ":" in host:
        host = f"[{host}]"
    port = p.port
    netloc = host if port in (None, DEFAULT_PORTS.get(scheme)) else f"{host}:{port}"
    if has_credentials(url):
        netloc = f"{p.username or ''}{':***' if p.password is not None else ''}@{netloc}"
    return urlunsplit((scheme, netloc, p.path or "/", p.query, ""))


def has_credentials(url: str) -> bool:
    """Does the URL carry a user name or password (`http://user:pw@host/`)?"""
    p = urlsplit(url.strip())
    return p.username is not None or p.password is not None or "@" in p.netloc


def _site_host(host: str) -> str:
    host = host.lower().rstrip(".")
    return host[4:] if host.startswith("www.") else host


def _site_port(scheme: str, port: int | None) -> int | None:
    return None if port in (None, DEFAULT_PORTS.get(scheme)) else port


@dataclass(frozen=True)
class Scope:
    host: str  # without "www."
    port: int | None  # None: the default port of http or https
    include_subdomains: bool = False

    @classmethod
    def for_start(cls, url: str, include_subdomains: bool = False) -> "Scope":
        p = urlsplit(url)
        return cls(_site_host(p.hostname or ""), _site_port(p.scheme, p.port),
                   include_subdomains)

    def contains(self, url: str) -> bool:
        """True when url is on the site (a malformed URL is not)."""
        try:
            p = urlsplit(url)
            port = _site_port(p.scheme, p.port)
        except ValueError:
            return False
        if p.scheme not in DEFAULT_PORTS or not p.hostname or port != self.port:
            return False
        host = _site_host(p.hostname)
        return host == self.host or (self.include_subdomains and host.endswith("." + self.host))


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
