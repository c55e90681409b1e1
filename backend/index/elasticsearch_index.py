"""KeywordIndex on Elasticsearch (official client 8.x; works with Elasticsearch 8 and 9
servers, see docs/elasticsearch.md).

Behaves like the embedded tantivy backend: every chunk text is analysed twice, German
(`text.de`: german_normalization, asciifolding, light_german stemmer) and English
(`text.en`: possessive, asciifolding, english stemmer), both searched (BM25 scores add up);
title, section title and file name are extra fields with small boosts. Stop words are
dropped from the query unless nothing is left. User text only reaches `match` queries,
never `query_string`, so `AND ( ) : " * ~ ^ \\ /` etc. are just text.

The mapping and the request bodies are built by pure functions (`build_mapping`,
`build_query`) so they can be tested without a server."""
from __future__ import annotations

import logging
import re
import threading
import time
from typing import Any, Callable, Iterable, Mapping, Sequence, TypeVar
from urllib.parse import urlsplit, urlunsplit

from elasticsearch import ApiError, Elasticsearch, TransportError, UnsupportedProductError, helpers

from backend.config import Settings
from backend.errors import BackendUnavailable, ConfigError, IndexMismatch
from backend.index.base import IndexedChunk, IndexFilter, IndexHit

log = logging.getLogger(__name__)

T = TypeVar("T")

ANALYZER_VERSION = 2  # 2: the memberships field (an index of version 1 asks for reindex)
ANALYZER = (f"elasticsearch:de=german_normalization+light_german,en=possessive+english,"
            f"stop=_german_/_english_:v{ANALYZER_VERSION}")
TEXT_FIELDS = {"text.de": ("rs_de", "rs_de_search"), "text.en": ("rs_en", "rs_en_search")}
META_FIELDS = ("title", "section_title", "filename")
MEMBERSHIPS = "memberships"  # keyword, multi-valued: "<kind>:<id>" tokens
DEFAULT_BOOSTS = {"text.de": 1.0, "text.en": 1.0, "title": 0.5, "section_title": 0.5, "filename": 0.3}
PROBE_FIELD = "stopword_probe"  # mapped, never written: see _stop_fallback()
FUZZY_MIN_LEN = 5
FUZZY_BOOST = 0.5
FUZZINESS = f"AUTO:{FUZZY_MIN_LEN},100000"  # 0 edits below 5 chars, 1 edit from 5 on
MAX_QUERY_WORDS = 256
MAX_WORD_CHARS = 255
MAX_K = 10_000  # index.max_result_window
SNIPPET_CHARS = 200
_PAGE = 5000  # ids() page size
RETRY_AFTER_S = 5.0  # after a connection failure, fail fast for this long
_INDEX_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


# ---- pure functions: names, mapping, queries ------------------------------------------
def index_name(prefix: str) -> str:
    """`<prefix>-chunks`; Elasticsearch index names are lower case without `\\/*?"<>| ,#:`."""
    name = f"{prefix}-chunks"
    if not _INDEX_NAME.match(name) or len(name.encode()) > 255:
        raise ConfigError(f"elasticsearch_index_prefix {prefix!r} is not a valid index name prefix "
                          "(lower case letters, digits, '.', '_', '-'; not starting with '_', '-', '.')")
    return name


def redact_url(url: str) -> str:
    """The URL without user and password (for messages)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<invalid url>"
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit(parts._replace(netloc=netloc))


def build_mapping() -> dict[str, Any]:
    """Index settings and mappings (`indices.create(**build_mapping())`)."""
    de_chain = ["lowercase", "german_normalization", "asciifolding", "rs_de_stem"]
    en_chain = ["rs_en_possessive", "lowercase", "asciifolding", "rs_en_stem"]
    analysis = {
        "filter": {
            "rs_de_stop": {"type": "stop", "stopwords": "_german_"},
            "rs_de_stem": {"type": "stemmer", "language": "light_german"},
            "rs_en_stop": {"type": "stop", "stopwords": "_english_"},
            "rs_en_stem": {"type": "stemmer", "language": "english"},
            "rs_en_possessive": {"type": "stemmer", "language": "possessive_english"},
            "rs_max_len": {"type": "length", "max": MAX_WORD_CHARS},
        },
        "tokenizer": {  # metadata: split on anything but letters and digits ("ops-handbook.pdf")
            "rs_split": {"type": "pattern", "pattern": r"[^\p{L}\p{N}]+"},
        },
        "analyzer": {
            "rs_de": {"type": "custom", "tokenizer": "standard", "filter": de_chain},
            "rs_de_search": {"type": "custom", "tokenizer": "standard",
                             "filter": ["lowercase", "rs_de_stop", *de_chain[1:]]},
            "rs_en": {"type": "custom", "tokenizer": "standard", "filter": en_chain},
            "rs_en_search": {"type": "custom", "tokenizer": "standard",
                             "filter": [*en_chain[:2], "rs_en_stop", *en_chain[2:]]},
            "rs_plain": {"type": "custom", "tokenizer": "rs_split",
                         "filter": ["lowercase", "asciifolding", "rs_max_len"]},
        },
    }
    keyword = {"type": "keyword"}
    properties: dict[str, Any] = {
        "chunk_id": keyword, "document_id": keyword, "version_id": keyword,
        "doc_type": keyword, "language": keyword, MEMBERSHIPS: keyword,
        "text": {"type": "text", "index": False, "fields": {
            sub.split(".")[1]: {"type": "text", "analyzer": a, "search_analyzer": sa}
            for sub, (a, sa) in TEXT_FIELDS.items()}},
        PROBE_FIELD: {"type": "text", "analyzer": "rs_plain"},
    }
    properties.update({f: {"type": "text", "analyzer": "rs_plain"} for f in META_FIELDS})
    return {
        "settings": {"number_of_shards": 1, "analysis": analysis},
        "mappings": {"dynamic": "strict", "_meta": {"analyzer": ANALYZER}, "properties": properties},
    }


def normalize_query(text: str) -> str:
    """Whitespace-separated words, duplicates (case-insensitive) dropped, each cut to
    MAX_WORD_CHARS, at most MAX_QUERY_WORDS: bounds the number of query clauses."""
    seen: dict[str, str] = {}
    for word in (text or "").split():
        word = word[:MAX_WORD_CHARS]
        seen.setdefault(word.casefold(), word)
    return " ".join(list(seen.values())[:MAX_QUERY_WORDS])


def filter_clauses(flt: IndexFilter | None) -> list[dict[str, Any]] | None:
    """`terms` filters; None when a filter list is empty (nothing can match)."""
    if flt is None:
        return []
    groups = flt.membership_groups()
    if groups is None:
        return None
    out: list[dict[str, Any]] = [{"terms": {MEMBERSHIPS: toks}} for toks in groups]
    if flt.document_ids is not None:
        ids = sorted({int(i) for i in flt.document_ids})
        if not ids:
            return None
        out.append({"terms": {"document_id": [str(i) for i in ids]}})
    if flt.doc_types is not None:
        types = sorted({str(t) for t in flt.doc_types})
        if not types:
            return None
        out.append({"terms": {"doc_type": types}})
    return out


def _match(field: str, text: str, analyzer: str, boost: float, fuzzy: bool) -> dict[str, Any]:
    body: dict[str, Any] = {"query": text, "analyzer": analyzer, "boost": boost}
    if fuzzy:  # fuzzy clauses come next to the exact ones, at a lower boost: exact ranks first
        body.update(fuzziness=FUZZINESS, prefix_length=1, fuzzy_transpositions=True,
                    boost=FUZZY_BOOST * boost)
    return {"match": {field: body}}


def _text_clauses(field: str, text: str, analyzer: str, boost: float, fuzzy: bool) -> list[dict]:
    clauses = [_match(field, text, analyzer, boost, False)]
    if fuzzy:
        clauses.append(_match(field, text, analyzer, boost, True))
    return clauses


def _stop_fallback(field: str, text: str, analyzers: tuple[str, str], boost: float,
                   fuzzy: bool) -> dict[str, Any]:
    """The field searched with all words, active only when the search analyzer drops every
    word: a `match` on the never-written probe field with `zero_terms_query: all` is a
    match-all exactly then, and matches nothing otherwise."""
    index_analyzer, search_analyzer = analyzers
    probe = {"match": {PROBE_FIELD: {"query": text, "analyzer": search_analyzer,
                                     "zero_terms_query": "all"}}}
    return {"bool": {"filter": [probe], "minimum_should_match": 1,
                     "should": _text_clauses(field, text, index_analyzer, boost, fuzzy)}}


def build_query(text: str, k: int, flt: IndexFilter | None = None, fuzzy: bool = False,
                boosts: dict[str, float] | None = None) -> dict[str, Any] | None:
    """The search request body, or None when nothing can match (empty text, k <= 0, an
    empty filter list): the caller then answers [] without a request."""
    text = normalize_query(text)
    filters = filter_clauses(flt)
    if k <= 0 or not text or filters is None:
        return None
    boosts = {**DEFAULT_BOOSTS, **(boosts or {})}
    main: list[dict[str, Any]] = []  # stop words dropped
    fallbacks: list[dict[str, Any]] = []
    for field, analyzers in TEXT_FIELDS.items():
        b = boosts.get(field, 1.0)
        main += _text_clauses(field, text, analyzers[1], b, fuzzy)
        fallbacks.append(_stop_fallback(field, text, analyzers, b, fuzzy))
    should = main + fallbacks
    meta = [f"{f}^{boosts[f]}" for f in META_FIELDS if boosts.get(f, 0) > 0]
    if meta:
        should.append({"multi_match": {"query": text, "fields": meta, "type": "most_fields"}})
    query: dict[str, Any] = {"bool": {"should": should, "minimum_should_match": 1}}
    if filters:
        query["bool"]["filter"] = filters
    field_opts = {"number_of_fragments": 1, "fragment_size": SNIPPET_CHARS}
    return {
        "size": min(int(k), MAX_K), "query": query, "_source": False, "track_total_hits": False,
        # highlight_query: the fallback clauses' terms would mark stop words in every hit
        "highlight": {"encoder": "html", "pre_tags": ["<b>"], "post_tags": ["</b>"],
                      "highlight_query": {"bool": {"should": main}},
                      "require_field_match": True, "max_analyzed_offset": 1_000_000,
                      "fields": {f: dict(field_opts) for f in TEXT_FIELDS}},
    }


def best_highlight(highlight: dict[str, list[str]] | None) -> str:
    """The fragment with the most marked terms (German field first on ties)."""
    best, marks = "", 0
    for field in TEXT_FIELDS:
        for fragment in (highlight or {}).get(field, []):
            n = fragment.count("<b>")
            if n > marks:
                best, marks = fragment, n
    return best


def to_source(c: IndexedChunk) -> dict[str, Any]:
    return {"chunk_id": c.chunk_id, "document_id": str(int(c.document_id)),
            "version_id": str(int(c.version_id)), "doc_type": c.doc_type or "",
            "language": c.language or "", "text": c.text or "", "title": c.title or "",
            "section_title": c.section_title or "", "filename": c.filename or "",
            MEMBERSHIPS: c.membership_tokens}


# ---- the backend ----------------------------------------------------------------------
class ElasticsearchKeywordIndex:
    """BM25 over chunk texts in `<elasticsearch_index_prefix>-chunks`. The constructor does
    not contact the server; the index is created on first use. Connection and
    authentication failures raise BackendUnavailable (retrieval then goes semantic-only)."""

    name = "elasticsearch"
    analyzer = ANALYZER

    def __init__(self, settings: Settings, *, request_timeout: float = 10.0, max_retries: int = 1,
                 field_boosts: dict[str, float] | None = None):
        url = settings.elasticsearch_url
        if not url:
            raise ConfigError("keyword_backend=elasticsearch needs RAGSCOPE_ELASTICSEARCH_URL")
        self.url = redact_url(url)
        self.index = index_name(settings.elasticsearch_index_prefix)
        self.field_boosts = {**DEFAULT_BOOSTS, **(field_boosts or {})}
        auth: dict[str, Any] = {}
        if settings.elasticsearch_api_key:
            if settings.elasticsearch_username or settings.elasticsearch_password:
                raise ConfigError("set either elasticsearch_api_key or elasticsearch_username/password")
            auth["api_key"] = settings.elasticsearch_api_key
        elif settings.elasticsearch_username or settings.elasticsearch_password:
            if not (settings.elasticsearch_username and settings.elasticsearch_password):
                raise ConfigError("elasticsearch_username and elasticsearch_password go together")
            auth["basic_auth"] = (settings.elasticsearch_username, settings.elasticsearch_password)
        tls: dict[str, Any] = {}
        if url.lower().startswith("https"):
            tls = {"verify_certs": settings.elasticsearch_verify_certs,
                   "ssl_show_warn": settings.elasticsearch_verify_certs}
        try:
            self._es = Elasticsearch(url, request_timeout=request_timeout, max_retries=max_retries,
                                     retry_on_timeout=False, **auth, **tls)
        except ValueError as exc:
            raise ConfigError(f"elasticsearch_url {self.url!r}: {exc}") from exc
        self._lock = threading.Lock()
        self._ready = False
        self._down_until = 0.0
        self._closed = False

    # ---- plumbing ------------------------------------------------------------------
    def _call(self, fn: Callable[[], T]) -> T:
        """Run a request; unreachable server, auth failures and 5xx -> BackendUnavailable.
        After a connection failure, calls fail at once for RETRY_AFTER_S, so that a
        degraded (semantic-only) retrieval does not wait for a timeout on every query."""
        if self._closed:
            raise BackendUnavailable(f"Elasticsearch index {self.index} was closed")
        if time.monotonic() < self._down_until:
            raise BackendUnavailable(f"Elasticsearch at {self.url} is unreachable (retrying in "
                                     f"{self._down_until - time.monotonic():.1f} s)")
        try:
            return fn()
        except TransportError as exc:  # connection refused, timeout, TLS, ...
            self._down_until = time.monotonic() + RETRY_AFTER_S
            raise BackendUnavailable(f"Elasticsearch at {self.url} is unreachable: {exc}") from exc
        except ApiError as exc:
            status = exc.meta.status
            if status in (401, 403) or status >= 500 or isinstance(exc, UnsupportedProductError):
                raise BackendUnavailable(
                    f"Elasticsearch at {self.url} answered {status}: {exc.message}") from exc
            raise

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
        es = self._es.options(ignore_status=404)
        mapping = es.indices.get_mapping(index=self.index)
        if mapping.meta.status == 404:
            resp = self._es.options(ignore_status=400).indices.create(index=self.index, **build_mapping())
            if resp.meta.status == 400 and "already_exists" not in str(resp.body):
                raise ApiError(str(resp.body), meta=resp.meta, body=resp.body)
            return
        meta = next(iter(mapping.body.values()), {}).get("mappings", {}).get("_meta", {})
        if meta.get("analyzer") != ANALYZER:
            raise IndexMismatch(f"Elasticsearch index {self.index} was built with analyzer "
                                f"{meta.get('analyzer')!r}, not {ANALYZER!r}; run reindex")

    # ---- KeywordIndex: writing -----------------------------------------------------
    def add(self, chunks: Sequence[IndexedChunk]) -> None:
        if not chunks:
            return
        latest = {c.chunk_id: c for c in chunks}  # duplicate ids in one batch: last wins
        index = self._ensure()
        actions = ({"_op_type": "index", "_index": index, "_id": cid, "_source": to_source(c)}
                   for cid, c in latest.items())
        self._bulk(actions)

    def delete(self, chunk_ids: Sequence[str]) -> None:
        if not chunk_ids:
            return
        index = self._ensure()
        self._bulk({"_op_type": "delete", "_index": index, "_id": cid} for cid in dict.fromkeys(chunk_ids))

    def set_memberships(self, tokens: Mapping[str, Sequence[str]]) -> None:
        """Partial updates of the memberships field; ids not in the index are skipped."""
        if not tokens:
            return
        index = self._ensure()
        self._bulk({"_op_type": "update", "_index": index, "_id": cid,
                    "doc": {MEMBERSHIPS: sorted(set(toks))}} for cid, toks in tokens.items())

    def memberships(self, chunk_ids: Sequence[str]) -> dict[str, set[str]]:
        index = self._ensure()
        ids = list(dict.fromkeys(chunk_ids))
        out: dict[str, set[str]] = {}
        for start in range(0, len(ids), 1000):
            part = ids[start:start + 1000]
            res = self._call(lambda part=part: self._es.mget(index=index, ids=part,
                                                             source=[MEMBERSHIPS]))
            for d in res["docs"]:
                if d.get("found"):
                    out[d["_id"]] = set((d.get("_source") or {}).get(MEMBERSHIPS) or [])
        return out

    def _bulk(self, actions: Iterable[dict[str, Any]]) -> None:
        # refresh=wait_for: written chunks are searchable when this returns, like tantivy.
        self._call(lambda: helpers.bulk(self._es, actions, refresh="wait_for", ignore_status=(404,),
                                        chunk_size=500, max_chunk_bytes=20 * 1024 * 1024))

    def reset(self) -> None:
        """Delete and recreate the index (also repairs an IndexMismatch)."""
        with self._lock:
            self._ready = False
            self._call(lambda: self._es.options(ignore_status=404).indices.delete(index=self.index))
            self._call(self._create_or_check)
            self._ready = True

    def drop(self) -> None:
        """Delete the index (tests; a later call recreates it)."""
        with self._lock:
            self._ready = False
            self._call(lambda: self._es.options(ignore_status=404).indices.delete(index=self.index))

    def close(self) -> None:
        """Close the HTTP client (twice is harmless); use afterwards raises
        BackendUnavailable."""
        self._closed = True
        self._es.close()

    # ---- KeywordIndex: reading -----------------------------------------------------
    def count(self) -> int:
        index = self._ensure()
        return int(self._call(lambda: self._es.count(index=index))["count"])

    def ids(self) -> set[str]:
        index = self._ensure()
        out: set[str] = set()
        after: list[Any] | None = None
        while True:
            body: dict[str, Any] = {"size": _PAGE, "_source": False, "track_total_hits": False,
                                    "sort": [{"chunk_id": "asc"}], "query": {"match_all": {}}}
            if after is not None:
                body["search_after"] = after
            hits = self._call(lambda: self._es.search(index=index, **body))["hits"]["hits"]
            out.update(h["_id"] for h in hits)
            if len(hits) < _PAGE:
                return out
            after = hits[-1]["sort"]

    def texts(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """Stored text of the given chunks (missing ids are left out)."""
        index = self._ensure()
        ids = list(dict.fromkeys(chunk_ids))
        out: dict[str, str] = {}
        for start in range(0, len(ids), 1000):
            part = ids[start:start + 1000]
            res = self._call(lambda part=part: self._es.mget(index=index, ids=part,
                                                             source=["text"]))
            for d in res["docs"]:
                if d.get("found"):
                    out[d["_id"]] = (d.get("_source") or {}).get("text", "")
        return out

    def search(self, query: str, k: int, flt: IndexFilter | None = None, *,
               fuzzy: bool = False, highlight_limit: int | None = None) -> list[IndexHit]:
        # highlight_limit: the server highlights every hit in the same request; no saving.
        body = build_query(query, k, flt, fuzzy, self.field_boosts)
        if body is None:
            return []
        index = self._ensure()
        try:
            resp = self._call(lambda: self._es.search(index=index, **body))
        except ApiError as exc:  # 4xx left: never a user-visible error for query text
            log.warning("Elasticsearch rejected a search (%s): %s", exc.meta.status, exc.message)
            return []
        return [
            IndexHit(chunk_id=h["_id"], score=float(h["_score"] or 0.0), rank=rank,
                     highlights=[s] if (s := best_highlight(h.get("highlight"))) else [])
            for rank, h in enumerate(resp["hits"]["hits"], start=1)
        ]

    def __repr__(self) -> str:
        return f"ElasticsearchKeywordIndex({self.url!r}, index={self.index!r}, analyzer={ANALYZER!r})"
