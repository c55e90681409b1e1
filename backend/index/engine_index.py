"""KeywordIndex on a search engine server, one implementation for Elasticsearch and
OpenSearch (docs/elasticsearch.md). The request bodies come from `engine_dsl`; what differs
between the two official Python clients (how a call is spelled, which exceptions mean what)
sits behind the small `EngineClient` protocol, one adapter per client
(`elasticsearch_index.py`, `opensearch_index.py`).

Behaves like the embedded tantivy backend. The constructor does not contact the server;
the index is created on first use. Connection and authentication failures raise
BackendUnavailable (retrieval then goes semantic-only), and for RETRY_AFTER_S after a
connection failure every call fails at once instead of waiting for a timeout."""
from __future__ import annotations

import logging
import re
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Collection, Iterable, Mapping, Protocol, Sequence, TypeVar

from backend.config import Settings
from backend.errors import BackendUnavailable, ConfigError, IndexMismatch, RagscopeError
from backend.index.base import IndexedChunk, IndexFilter, IndexHit
from backend.index.engine_dsl import (
    DEFAULT_BOOSTS, MAX_QUERY_WORDS, MEMBERSHIPS, best_highlight, build_mapping, build_query,
    index_name, redact_url, to_source,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

_PAGE = 5000  # ids() page size
_MGET = 1000  # ids per mget request
RETRY_AFTER_S = 5.0  # after a connection failure, fail fast for this long


class RequestRejected(RagscopeError):
    """The server refused a request with a 4xx other than 401/403 (a bad request)."""

    def __init__(self, status: int, message: str):
        super().__init__(f"{status}: {message}")
        self.status = status


class QueryTooComplex(RequestRejected):
    """The query has more clauses than the server allows (`indices.query.bool.
    max_clause_count`, 1024 in OpenSearch 2.x); `search` retries with fewer words."""


# how both engines word a query over the clause limit (OpenSearch 2.19.6 answers 500
# "Query contains too many nested clauses; maxClauseCount is set to 1024")
TOO_MANY_CLAUSES = re.compile(
    r"maxClauseCount|too_many_(nested_)?clauses|too many (nested )?clauses", re.IGNORECASE)
MIN_RETRY_WORDS = 8  # below this a query over the limit is given up (logged, no hits)


@dataclass(frozen=True)
class Failure:
    """How an adapter classifies a client exception: `down` (unreachable: starts the
    fail-fast window), `unavailable` (reachable but unusable: auth, 5xx, wrong product) or
    `rejected` (4xx)."""

    kind: str  # "down" | "unavailable" | "rejected" | "too_complex"
    message: str
    status: int = 0


class EngineClient(Protocol):
    """One request kind per method; implemented by each client adapter."""

    product: str  # "Elasticsearch" | "OpenSearch" (for messages)

    def get_meta(self, index: str) -> dict[str, Any] | None:
        """The index mapping's `_meta`, or None when the index does not exist."""

    def create_index(self, index: str, body: dict[str, Any]) -> None:
        """Create the index; an index that already exists is not an error."""

    def delete_index(self, index: str) -> None:
        """Delete the index; a missing index is not an error."""

    def bulk(self, actions: Iterable[dict[str, Any]]) -> None:
        """`_bulk` with refresh=wait_for; 404 items (deleting a missing id) are no error."""

    def search(self, index: str, body: dict[str, Any]) -> dict[str, Any]: ...

    def mget(self, index: str, ids: Sequence[str], fields: Sequence[str]) -> list[dict[str, Any]]:
        """The `docs` of an mget with only `fields` in each `_source`."""

    def count(self, index: str) -> int: ...

    def classify(self, exc: BaseException) -> Failure | None:
        """Failure for the client's own exceptions, None for anything else."""

    def close(self) -> None: ...


@dataclass(frozen=True)
class EngineConfig:
    """Connection settings of one engine, read from its `<engine>_*` settings."""

    url: str
    index_prefix: str
    username: str | None = None
    password: str | None = None
    api_key: str | None = None
    verify_certs: bool = True

    @classmethod
    def from_settings(cls, settings: Settings, engine: str) -> "EngineConfig":
        """Checks the combination: a URL, basic auth both-or-neither, not with an API key."""
        get = lambda name: getattr(settings, f"{engine}_{name}", None)  # noqa: E731
        url = get("url")
        if not url:
            raise ConfigError(f"keyword_backend={engine} needs RAGSCOPE_{engine.upper()}_URL")
        user, password, api_key = get("username"), get("password"), get("api_key")
        if api_key and (user or password):
            raise ConfigError(f"set either {engine}_api_key or {engine}_username/password")
        if (user or password) and not (user and password):
            raise ConfigError(f"{engine}_username and {engine}_password go together")
        prefix = get("index_prefix")
        index_name(prefix, f"{engine}_index_prefix")  # checked here, named after the setting
        return cls(url=url, index_prefix=prefix, username=user, password=password,
                   api_key=api_key, verify_certs=bool(get("verify_certs")))

    @property
    def hosts(self) -> list[str]:
        """The nodes to talk to: `url` may list several, comma-separated (a cluster: the
        client spreads requests over them and retries on another when one is down)."""
        return [u.strip() for u in self.url.split(",") if u.strip()]

    @property
    def tls(self) -> bool:
        return self.hosts[0].lower().startswith("https")


class EngineKeywordIndex:
    """BM25 over chunk texts in `<prefix>-chunks` on an Elasticsearch or OpenSearch server."""

    name = "engine"
    analyzer = ""

    def __init__(self, client: EngineClient, url: str, index: str,
                 field_boosts: dict[str, float] | None = None):
        self._client = client
        self.product = client.product
        self.url = ",".join(redact_url(u.strip()) for u in url.split(","))
        self.index = index
        self.field_boosts = {**DEFAULT_BOOSTS, **(field_boosts or {})}
        self._lock = threading.Lock()
        self._ready = False
        self._down_until = 0.0
        self._closed = False

    # ---- plumbing ------------------------------------------------------------------
    def _call(self, fn: Callable[[], T]) -> T:
        """Run a request; unreachable server, auth failures and 5xx -> BackendUnavailable,
        other 4xx -> RequestRejected. After a connection failure, calls fail at once for
        RETRY_AFTER_S, so that a degraded (semantic-only) retrieval does not wait for a
        timeout on every query."""
        if self._closed:
            raise BackendUnavailable(f"{self.product} index {self.index} was closed")
        if time.monotonic() < self._down_until:
            raise BackendUnavailable(f"{self.product} at {self.url} is unreachable (retrying in "
                                     f"{self._down_until - time.monotonic():.1f} s)")
        try:
            return fn()
        except Exception as exc:
            failure = self._client.classify(exc)
            if failure is None:
                raise
            if failure.kind == "down":
                self._down_until = time.monotonic() + RETRY_AFTER_S
                raise BackendUnavailable(
                    f"{self.product} at {self.url} is unreachable: {failure.message}") from exc
            if failure.kind == "too_complex" or TOO_MANY_CLAUSES.search(str(exc)):
                raise QueryTooComplex(failure.status, failure.message) from exc
            if failure.kind == "unavailable":
                raise BackendUnavailable(f"{self.product} at {self.url} answered "
                                         f"{failure.status}: {failure.message}") from exc
            raise RequestRejected(failure.status, failure.message) from exc

    def _ensure(self) -> str:
        """Create the index on first use; check an existing one was built by this code."""
        if self._ready:
            return self.index
        with self._lock:
            if not self._ready:
                self._call(self._create_or_check)
                self._ready = True
        return self.index

    def _create_or_check(self) -> None:
        meta = self._client.get_meta(self.index)
        if meta is None:
            self._client.create_index(self.index, build_mapping(self.analyzer))
            return
        if meta.get("analyzer") != self.analyzer:
            raise IndexMismatch(f"{self.product} index {self.index} was built with analyzer "
                                f"{meta.get('analyzer')!r}, not {self.analyzer!r}; run reindex")

    # ---- KeywordIndex: writing -----------------------------------------------------
    def add(self, chunks: Sequence[IndexedChunk]) -> None:
        if not chunks:
            return
        latest = {c.chunk_id: c for c in chunks}  # duplicate ids in one batch: last wins
        index = self._ensure()
        self._bulk({"_op_type": "index", "_index": index, "_id": cid, "_source": to_source(c)}
                   for cid, c in latest.items())

    def delete(self, chunk_ids: Sequence[str]) -> None:
        if not chunk_ids:
            return
        index = self._ensure()
        self._bulk({"_op_type": "delete", "_index": index, "_id": cid}
                   for cid in dict.fromkeys(chunk_ids))

    def set_memberships(self, tokens: Mapping[str, Sequence[str]]) -> None:
        """Partial updates of the memberships field; ids not in the index are skipped."""
        if not tokens:
            return
        index = self._ensure()
        self._bulk({"_op_type": "update", "_index": index, "_id": cid,
                    "doc": {MEMBERSHIPS: sorted(set(toks))}} for cid, toks in tokens.items())

    def _bulk(self, actions: Iterable[dict[str, Any]]) -> None:
        # refresh=wait_for: written chunks are searchable when this returns, like tantivy.
        self._call(lambda: self._client.bulk(actions))

    def reset(self) -> None:
        """Delete and recreate the index (also repairs an IndexMismatch)."""
        with self._lock:
            self._ready = False
            self._call(lambda: self._client.delete_index(self.index))
            self._call(self._create_or_check)
            self._ready = True

    def drop(self) -> None:
        """Delete the index (tests; a later call recreates it)."""
        with self._lock:
            self._ready = False
            self._call(lambda: self._client.delete_index(self.index))

    def close(self) -> None:
        """Close the HTTP client (twice is harmless); use afterwards raises
        BackendUnavailable."""
        self._closed = True
        self._client.close()

    # ---- KeywordIndex: reading -----------------------------------------------------
    def count(self) -> int:
        index = self._ensure()
        return int(self._call(lambda: self._client.count(index)))

    def ids(self) -> set[str]:
        index = self._ensure()
        out: set[str] = set()
        after: list[Any] | None = None
        while True:
            body: dict[str, Any] = {"size": _PAGE, "_source": False, "track_total_hits": False,
                                    "sort": [{"chunk_id": "asc"}], "query": {"match_all": {}}}
            if after is not None:
                body["search_after"] = after
            hits = self._call(lambda: self._client.search(index, body))["hits"]["hits"]
            out.update(h["_id"] for h in hits)
            if len(hits) < _PAGE:
                return out
            after = hits[-1]["sort"]

    def _sources(self, chunk_ids: Sequence[str], field: str) -> dict[str, Any]:
        """{chunk_id: _source[field]} of the stored chunks among `chunk_ids`."""
        index = self._ensure()
        ids = list(dict.fromkeys(chunk_ids))
        out: dict[str, Any] = {}
        for start in range(0, len(ids), _MGET):
            part = ids[start:start + _MGET]
            docs = self._call(lambda part=part: self._client.mget(index, part, [field]))
            for d in docs:
                if d.get("found"):
                    out[d["_id"]] = (d.get("_source") or {}).get(field)
        return out

    def texts(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """Stored text of the given chunks (missing ids are left out)."""
        return {cid: t or "" for cid, t in self._sources(chunk_ids, "text").items()}

    def memberships(self, chunk_ids: Sequence[str]) -> dict[str, set[str]]:
        return {cid: set(t or []) for cid, t in self._sources(chunk_ids, MEMBERSHIPS).items()}

    def search(self, query: str, k: int, flt: IndexFilter | None = None, *,
               fuzzy: bool = False, highlight_limit: int | None = None,
               highlight_skip: Collection[str] = ()) -> list[IndexHit]:
        """A query over the server's clause limit (a long pasted paragraph, more so with
        fuzzy terms, whose expansions count too) is retried with half the words, until
        MIN_RETRY_WORDS; the first words are kept (normalize_query)."""
        # highlight_limit: the server highlights every hit in the same request; no saving.
        words = MAX_QUERY_WORDS
        while True:
            body = build_query(query, k, flt, fuzzy, self.field_boosts, self.name, words)
            if body is None:
                return []
            try:
                return self._search(body)
            except QueryTooComplex as exc:
                if words // 2 < MIN_RETRY_WORDS:
                    log.warning("%s: query too complex even with %d words (%s)", self.product,
                                words, exc)
                    return []
                words //= 2
            except RequestRejected as exc:  # other 4xx: never a user-visible error for query text
                log.warning("%s rejected a search (%s)", self.product, exc)
                return []

    def _search(self, body: dict[str, Any]) -> list[IndexHit]:
        index = self._ensure()
        resp = self._call(lambda: self._client.search(index, body))
        return [
            IndexHit(chunk_id=h["_id"], score=float(h["_score"] or 0.0), rank=rank,
                     highlights=[s] if (s := best_highlight(h.get("highlight"))) else [])
            for rank, h in enumerate(resp["hits"]["hits"], start=1)
        ]

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.url!r}, index={self.index!r}, "
                f"analyzer={self.analyzer!r})")
