"""The Elasticsearch/OpenSearch query DSL of ragscope's keyword index, built once for both
engines (backend/index/engine_index.py runs it through either client; docs/elasticsearch.md).

Every chunk text is analysed twice, German (`text.de`: german_normalization, asciifolding,
light_german stemmer) and English (`text.en`: possessive, asciifolding, porter2 stemmer),
both searched (BM25 scores add up); title, section title and file name are extra fields with
small boosts. Stop words are dropped from the query unless nothing is left. User text only
reaches `match` queries, never `query_string`, so `AND ( ) : " * ~ ^ \\ /` etc. are just text.

Pure functions only (`build_mapping`, `build_query`, ...), so they can be tested without a
server; both engines accept the same bodies (Elasticsearch 8/9, OpenSearch 2.x)."""
from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from backend.errors import ConfigError
from backend.index.base import IndexedChunk, IndexFilter

# 2: the memberships field; 3: English stemmer `porter2` (Snowball English, as tantivy)
# instead of `english` (Porter: "deploy" -> "deploi" but "deployment" -> "deploy", so the
# query "deploy" missed "Deployment" on a real server). An older index asks for reindex.
ANALYZER_VERSION = 3
ANALYZER_SPEC = (f"de=german_normalization+light_german,en=possessive+porter2,"
                 f"stop=_german_/_english_:v{ANALYZER_VERSION}")


def analyzer_id(engine: str) -> str:
    """What `_meta.analyzer` and the guardrails record: engine and analyzer definitions
    ("elasticsearch:de=...:v2"); the Elasticsearch string is unchanged since version 2."""
    return f"{engine}:{ANALYZER_SPEC}"

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
# Highlight only the first 1,000,000 characters of a chunk instead of failing the search
# (index.highlight.max_analyzed_offset). The one key spelled differently: OpenSearch 2.x
# rejects Elasticsearch's name ("unknown field [max_analyzed_offset] did you mean
# [max_analyzer_offset]?", seen against OpenSearch 2.19.6).
MAX_HIGHLIGHT_OFFSET = 1_000_000
HIGHLIGHT_OFFSET_KEY = {"elasticsearch": "max_analyzed_offset", "opensearch": "max_analyzer_offset"}
_INDEX_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


# ---- pure functions: names, mapping, queries ------------------------------------------
def index_name(prefix: str, setting: str = "elasticsearch_index_prefix") -> str:
    """`<prefix>-chunks`; index names are lower case without `\\/*?"<>| ,#:` (both engines)."""
    name = f"{prefix}-chunks"
    if not _INDEX_NAME.match(name) or len(name.encode()) > 255:
        raise ConfigError(f"{setting} {prefix!r} is not a valid index name prefix "
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


def build_mapping(analyzer: str | None = None) -> dict[str, Any]:
    """Index settings and mappings (`indices.create(**build_mapping())`); `analyzer` is
    recorded in `_meta` (default: the Elasticsearch one)."""
    de_chain = ["lowercase", "german_normalization", "asciifolding", "rs_de_stem"]
    en_chain = ["rs_en_possessive", "lowercase", "asciifolding", "rs_en_stem"]
    analysis = {
        "filter": {
            "rs_de_stop": {"type": "stop", "stopwords": "_german_"},
            "rs_de_stem": {"type": "stemmer", "language": "light_german"},
            "rs_en_stop": {"type": "stop", "stopwords": "_english_"},
            "rs_en_stem": {"type": "stemmer", "language": "porter2"},
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
        "mappings": {"dynamic": "strict", "properties": properties,
                     "_meta": {"analyzer": analyzer or analyzer_id("elasticsearch")}},
    }


def normalize_query(text: str, max_words: int = MAX_QUERY_WORDS) -> str:
    """Whitespace-separated words, duplicates (case-insensitive) dropped, each cut to
    MAX_WORD_CHARS, at most MAX_QUERY_WORDS: bounds the number of query clauses."""
    seen: dict[str, str] = {}
    for word in (text or "").split():
        word = word[:MAX_WORD_CHARS]
        seen.setdefault(word.casefold(), word)
    return " ".join(list(seen.values())[:max_words])


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


def _stop_fallback(field: str, text: str, analyzers: tuple[str, str], boost: float) -> dict[str, Any]:
    """The field searched with all words, active only when the search analyzer drops every
    word: a `match` on the never-written probe field with `zero_terms_query: all` is a
    match-all exactly then, and matches nothing otherwise. No fuzzy clause: stop words
    need none, and each clause counts against the server's max clause count."""
    index_analyzer, search_analyzer = analyzers
    probe = {"match": {PROBE_FIELD: {"query": text, "analyzer": search_analyzer,
                                     "zero_terms_query": "all"}}}
    return {"bool": {"filter": [probe], "minimum_should_match": 1,
                     "should": _text_clauses(field, text, index_analyzer, boost, False)}}


def build_query(text: str, k: int, flt: IndexFilter | None = None, fuzzy: bool = False,
                boosts: dict[str, float] | None = None, engine: str = "elasticsearch",
                max_words: int = MAX_QUERY_WORDS) -> dict[str, Any] | None:
    """The search request body, or None when nothing can match (empty text, k <= 0, an
    empty filter list): the caller then answers [] without a request. `engine` only picks
    the spelling of the one key the engines name differently (HIGHLIGHT_OFFSET_KEY)."""
    text = normalize_query(text, max_words)
    filters = filter_clauses(flt)
    if k <= 0 or not text or filters is None:
        return None
    boosts = {**DEFAULT_BOOSTS, **(boosts or {})}
    main: list[dict[str, Any]] = []  # stop words dropped
    fallbacks: list[dict[str, Any]] = []
    for field, analyzers in TEXT_FIELDS.items():
        b = boosts.get(field, 1.0)
        main += _text_clauses(field, text, analyzers[1], b, fuzzy)
        fallbacks.append(_stop_fallback(field, text, analyzers, b))
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
                      "require_field_match": True, HIGHLIGHT_OFFSET_KEY[engine]: MAX_HIGHLIGHT_OFFSET,
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
