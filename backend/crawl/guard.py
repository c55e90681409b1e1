"""SSRF guard: which URLs and addresses the crawler may contact.

A URL is refused when its scheme is not http(s), when it carries credentials, or when its
host resolves to an address that is not globally routable (loopback, private, link-local,
shared, multicast, reserved, unspecified, documentation, ...) or to a cloud-metadata
endpoint. The check is made after DNS resolution, for every redirect hop (fetch.py), and once
more at connect time on the very address the socket is opened to (`GuardedBackend`), so a
DNS answer that changes between check and connect (rebinding) cannot slip through.

`RAGSCOPE_CRAWL_ALLOWED_HOSTS` opens chosen hosts: `127.0.0.1:8123,intranet.local`. An entry
matches the URL's host name (or literal address) and, when it has one, the port. Metadata
endpoints are refused even for allow-listed hosts."""
from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from typing import Callable, Iterable
from urllib.parse import urlsplit

from backend.errors import UrlRefused

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], list[str]]

ALLOWED_SCHEMES = ("http", "https")
DEFAULT_PORTS = {"http": 80, "https": 443}
METADATA_HOSTS = frozenset({"metadata.google.internal", "metadata.goog", "metadata",
                            "instance-data", "instance-data.ec2.internal"})
METADATA_IPS = frozenset(ipaddress.ip_address(a) for a in (
    "169.254.169.254", "169.254.170.2", "169.254.169.253", "fd00:ec2::254",
    "100.100.100.200", "192.0.0.192"))
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def system_resolver(host: str, port: int) -> list[str]:
    """All addresses the system resolver returns for host (IPv4 and IPv6)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as e:  # in words, not "[Errno -2] Name or service not known"
        missing = e.errno in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", None))
        raise UrlRefused(host, f"the host {host} does not exist, it has no DNS entry" if missing
                         else f"the host {host} cannot be looked up now (DNS: "
                              f"{e.strerror or e})") from None
    except UnicodeError:
        raise UrlRefused(host, f"the host name {host} is not a valid name") from None
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _embedded_v4(ip: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address hidden in a v4-mapped, 6to4, Teredo or NAT64 IPv6 address."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.ipv4_mapped:
        return ip.ipv4_mapped
    if ip.sixtofour:
        return ip.sixtofour
    if ip.teredo:
        return ip.teredo[1]
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def address_problem(ip: IPAddress) -> str | None:
    """Why an address must not be contacted, or None when it is a public unicast address."""
    inner = _embedded_v4(ip)
    if inner is not None:
        why = address_problem(inner)
        return f"{why} (embedded in {ip})" if why else None
    if ip in METADATA_IPS:
        return f"cloud metadata address {ip}"
    checks = (("loopback", ip.is_loopback), ("unspecified", ip.is_unspecified),
              ("link-local", ip.is_link_local), ("multicast", ip.is_multicast),
              ("reserved", ip.is_reserved),
              ("site-local", isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local),
              ("private", ip.is_private))
    for name, hit in checks:
        if hit:
            return f"{name} address {ip}"
    if not ip.is_global:
        return f"non-public address {ip}"
    return None


def _split_host_port(entry: str) -> tuple[str, int | None]:
    entry = entry.strip().lower()
    if entry.startswith("["):  # [v6]:port
        host, _, rest = entry[1:].partition("]")
        return host, int(rest[1:]) if rest.startswith(":") and rest[1:] else None
    if entry.count(":") == 1:
        host, port = entry.split(":")
        return host, int(port)
    return entry, None  # a name, an IPv4 address or a bare IPv6 address


def _norm_host(host: str) -> str:
    host = host.strip().strip("[]").rstrip(".").lower()
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return host


@dataclass(frozen=True)
class AllowList:
    entries: frozenset[tuple[str, int | None]] = frozenset()

    @classmethod
    def parse(cls, spec: str | Iterable[str]) -> "AllowList":
        items = spec.split(",") if isinstance(spec, str) else list(spec)
        out: set[tuple[str, int | None]] = set()
        for item in items:
            if not item.strip():
                continue
            try:
                host, port = _split_host_port(item)
            except ValueError:
                raise ValueError(f"bad entry in RAGSCOPE_CRAWL_ALLOWED_HOSTS: {item.strip()!r}") from None
            out.add((_norm_host(host), port))
        return cls(frozenset(out))

    def allows(self, host: str, port: int) -> bool:
        h = _norm_host(host)
        return (h, None) in self.entries or (h, port) in self.entries


@dataclass(frozen=True)
class Target:
    """A checked URL: where it may be fetched and which addresses were found acceptable."""

    url: str
    scheme: str
    host: str
    port: int
    addresses: tuple[str, ...]
    allow_listed: bool


# Said where a private or loopback address is refused: the setting a user can ask for (by its
# environment name, which is how deployments set it), not the internal field name.
_ALLOW_HINT = "; not allowed unless an admin lists it in RAGSCOPE_CRAWL_ALLOWED_HOSTS"


class UrlGuard:
    def __init__(self, allowed: AllowList | str = "", resolver: Resolver | None = None):
        self.allowed = allowed if isinstance(allowed, AllowList) else AllowList.parse(allowed)
        self.resolver = resolver or system_resolver

    def check(self, url: str) -> Target:
        """Validate a URL and resolve its host; raises UrlRefused with the reason."""
        scheme, host, port = self._parse(url)
        addresses = self.resolve(host, port, url=url)
        return Target(url, scheme, host, port, tuple(addresses), self.allowed.allows(host, port))

    def resolve(self, host: str, port: int, *, url: str | None = None) -> list[str]:
        """Addresses of host that may be contacted; raises UrlRefused if any answer is bad.
        One bad answer refuses the host: an attacker controls which answer is used."""
        shown = url or f"{host}:{port}"
        name = _norm_host(host)
        if name in METADATA_HOSTS:
            raise UrlRefused(shown, f"cloud metadata host {name}")
        allow_listed = self.allowed.allows(host, port)
        if (name == "localhost" or name.endswith(".localhost")) and not allow_listed:
            raise UrlRefused(shown, f"{name} is a loopback name{_ALLOW_HINT}")
        try:
            literal: IPAddress | None = ipaddress.ip_address(name)
        except ValueError:
            literal = None
        if literal is not None:
            answers = [str(literal)]
        else:
            try:
                answers = self.resolver(name, port)
            except UrlRefused as e:
                raise UrlRefused(shown, e.reason) from None
        if not answers:
            raise UrlRefused(shown, "host name has no addresses")
        for a in answers:
            ip = ipaddress.ip_address(a.split("%")[0])
            why = address_problem(ip)
            if why and (not allow_listed or ip in METADATA_IPS
                        or (_embedded_v4(ip) or ip) in METADATA_IPS):
                suffix = "" if allow_listed else _ALLOW_HINT
                raise UrlRefused(shown, f"{name} resolves to {why}{suffix}")
        return answers

    def _parse(self, url: str) -> tuple[str, str, int]:
        try:
            parts = urlsplit(url.strip())
            port = parts.port
        except ValueError as e:
            raise UrlRefused(url, f"malformed URL ({e})") from None
        scheme = parts.scheme.lower()
        if scheme not in ALLOWED_SCHEMES:
            raise UrlRefused(url, f"scheme '{scheme or '(none)'}' is not http or https")
        if parts.username is not None or parts.password is not None or "@" in parts.netloc:
            raise UrlRefused(url, "URLs with credentials are not crawled")
        host = parts.hostname or ""
        if not host:
            raise UrlRefused(url, "URL has no host")
        return scheme, _norm_host(host), port or DEFAULT_PORTS[scheme]
