"""The SSRF guard: schemes, credentials, v4/v6 non-public ranges, metadata endpoints,
the allow-list with ports, and the connect-time re-check against DNS rebinding. No network:
names are resolved by injected resolvers, connections go to a fake backend."""
from __future__ import annotations

import httpcore
import pytest

from backend.crawl.fetch import Fetcher, GuardedBackend, GuardedTransport
from backend.crawl.guard import AllowList, UrlGuard, address_problem
from backend.errors import UrlRefused

PUBLIC = "93.184.216.34"


def resolver(table: dict[str, list[str]]):
    def resolve(host: str, port: int) -> list[str]:
        if host not in table:
            raise UrlRefused(host, "host name cannot be resolved (test)")
        return table[host]
    return resolve


def refused(guard: UrlGuard, url: str) -> str:
    with pytest.raises(UrlRefused) as e:
        guard.check(url)
    return e.value.reason


@pytest.mark.parametrize("url", ["ftp://example.org/x", "file:///etc/passwd",
                                 "javascript:alert(1)", "gopher://example.org/", "example.org",
                                 "data:text/html,hi"])
def test_only_http_and_https(url):
    assert "scheme" in refused(UrlGuard(resolver={}.get), url)


@pytest.mark.parametrize("url", ["http://user:pw@example.org/", "https://user@example.org/",
                                 "http://:pw@example.org/"])
def test_credentials_refused(url):
    guard = UrlGuard(resolver=resolver({"example.org": [PUBLIC]}))
    assert "credentials" in refused(guard, url)


def test_public_address_passes():
    guard = UrlGuard(resolver=resolver({"example.org": [PUBLIC, "2606:2800:220:1::1"]}))
    t = guard.check("https://example.org/a?b=1")
    assert (t.host, t.port, t.allow_listed) == ("example.org", 443, False)
    assert t.addresses == (PUBLIC, "2606:2800:220:1::1")


@pytest.mark.parametrize("ip,kind", [
    ("127.0.0.1", "loopback"), ("127.8.9.10", "loopback"), ("10.1.2.3", "private"),
    ("172.16.0.1", "private"), ("172.31.255.254", "private"), ("192.168.1.1", "private"),
    ("0.0.0.0", "unspecified"), ("169.254.10.1", "link-local"), ("224.0.0.1", "multicast"),
    ("239.255.255.250", "multicast"), ("240.0.0.1", "reserved"), ("100.64.0.1", "non-public"),
    ("198.18.0.1", "private"), ("::1", "loopback"), ("::", "unspecified"),
    ("fe80::1", "link-local"), ("fd12:3456::1", "private"), ("fc00::1", "private"),
    ("ff02::1", "multicast"), ("::ffff:127.0.0.1", "loopback"), ("::ffff:10.0.0.1", "private"),
    ("64:ff9b::7f00:1", "loopback"), ("2002:7f00:1::", "loopback"), ("fec0::1", "site-local"),
])
def test_non_public_addresses(ip, kind):
    from ipaddress import ip_address

    assert kind in address_problem(ip_address(ip))
    guard = UrlGuard(resolver=resolver({"evil.test": [ip]}))
    assert kind in refused(guard, "http://evil.test/")
    host = f"[{ip}]" if ":" in ip else ip
    assert kind in refused(guard, f"http://{host}/")


@pytest.mark.parametrize("ip", ["169.254.169.254", "fd00:ec2::254", "100.100.100.200"])
def test_metadata_addresses_refused_even_when_allow_listed(ip):
    host = f"[{ip}]" if ":" in ip else ip
    guard = UrlGuard(f"{host},meta.test", resolver=resolver({"meta.test": [ip]}))
    assert "metadata" in refused(guard, f"http://{host}/latest/meta-data/")
    assert "metadata" in refused(guard, "http://meta.test/")


def test_metadata_host_names_refused():
    guard = UrlGuard("metadata.google.internal",
                     resolver=resolver({"metadata.google.internal": [PUBLIC]}))
    assert "metadata" in refused(guard, "http://metadata.google.internal/computeMetadata/v1/")
    assert "metadata" in refused(guard, "http://METADATA.google.internal./x")


def test_one_bad_answer_refuses_the_host():
    guard = UrlGuard(resolver=resolver({"mixed.test": [PUBLIC, "10.0.0.5"]}))
    assert "private address 10.0.0.5" in refused(guard, "http://mixed.test/")


def test_numeric_ip_spellings_are_resolved_then_refused():
    from backend.crawl.guard import system_resolver

    guard = UrlGuard(resolver=system_resolver)
    # inet_aton spellings of 127.0.0.1; getaddrinfo parses them without a DNS query
    for url in ("http://2130706433/", "http://0x7f000001/", "http://127.1/"):
        assert "loopback" in refused(guard, url)


def test_allow_list_with_ports():
    allow = AllowList.parse(" 127.0.0.1:8123 , intranet.local,[::1]:8080, Wiki.Corp ")
    assert allow.allows("127.0.0.1", 8123)
    assert not allow.allows("127.0.0.1", 8124)
    assert allow.allows("intranet.local", 80) and allow.allows("INTRANET.local", 9999)
    assert allow.allows("::1", 8080) and not allow.allows("::1", 80)
    assert allow.allows("wiki.corp", 443)
    guard = UrlGuard(allow, resolver=resolver({"intranet.local": ["10.0.0.7"]}))
    assert guard.check("http://127.0.0.1:8123/x").allow_listed
    assert "loopback" in refused(guard, "http://127.0.0.1:8124/x")
    assert guard.check("https://intranet.local:8443/").addresses == ("10.0.0.7",)
    assert guard.check("http://[::1]:8080/").allow_listed


def test_allow_list_rejects_garbage():
    with pytest.raises(ValueError):
        AllowList.parse("host:notaport")


class FakeBackend(httpcore.NetworkBackend):
    """Records where a connection would go and never opens a socket."""

    def __init__(self):
        self.calls: list[tuple[str, int]] = []

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        self.calls.append((host, port))
        raise httpcore.ConnectError("fake backend: no sockets in this test")


def test_connect_time_check_refuses_rebinding():
    """First answer public (passes the URL check), second answer loopback (at connect):
    refused before any socket is opened."""
    answers = iter([[PUBLIC], ["127.0.0.1"]])
    guard = UrlGuard(resolver=lambda host, port: next(answers))
    fake = FakeBackend()
    fetcher = Fetcher(guard, user_agent="t", timeout_s=1, max_bytes=1000, retries=0,
                      transport=GuardedTransport(guard, inner=fake))
    res = fetcher.fetch("http://rebind.test/")
    fetcher.close()
    assert res.refused and "loopback" in res.error
    assert fake.calls == []


def test_backend_connects_to_the_checked_address():
    guard = UrlGuard("named.test", resolver=resolver({"named.test": ["127.0.0.1"]}))
    fake = FakeBackend()
    with pytest.raises(httpcore.ConnectError):
        GuardedBackend(guard, fake).connect_tcp("named.test", 81)
    assert fake.calls == [("127.0.0.1", 81)]
    with pytest.raises(UrlRefused):
        GuardedBackend(guard, fake).connect_tcp("127.0.0.1", 81)
    assert len(fake.calls) == 1
