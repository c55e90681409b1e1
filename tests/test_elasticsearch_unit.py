"""Elasticsearch backend without a server: the pure mapping/query builders, configuration
errors, an unreachable server, and the client's requests as seen by a small recording
HTTP server. Behaviour against a real server is the contract suite's job
(tests/test_index_contract.py, RAGSCOPE_ELASTICSEARCH_URL)."""
from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from backend.config import Settings
from backend.errors import BackendUnavailable, ConfigError
from backend.index import engine_dsl as esi
from backend.index import engine_index
from backend.index.base import IndexedChunk, IndexFilter, KeywordIndex
from backend.index.elasticsearch_index import ANALYZER, ElasticsearchKeywordIndex
from backend.index.engine_dsl import (
    FUZZINESS, PROBE_FIELD, best_highlight, build_mapping, build_query, filter_clauses,
    index_name, normalize_query, redact_url, to_source,
)
from tests.test_index_contract import SYNTAX_QUERIES

QUERY_TYPES = {"bool", "match", "multi_match", "terms"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _settings(url: str, **kw) -> Settings:
    return Settings(keyword_backend="elasticsearch", elasticsearch_url=url, **kw)


def _query_nodes(q, out=None):
    """(type, body) of every query node in a query tree."""
    out = [] if out is None else out
    ((kind, body),) = q.items()
    out.append((kind, body))
    if kind == "bool":
        for occur in ("must", "should", "filter", "must_not"):
            for sub in body.get(occur, []):
                _query_nodes(sub, out)
    return out


def _auto_distance(spec: str, term: str) -> int:
    """Edit distance Elasticsearch derives from `AUTO:low,high` for a term (Fuzziness.asDistance)."""
    low, high = (int(x) for x in spec.split(":")[1].split(","))
    n = len(term)
    return 0 if n < low else 1 if n < high else 2


# ---- mapping ----------------------------------------------------------------------------
def test_mapping_has_german_and_english_analyzers():
    m = build_mapping()
    analysis = m["settings"]["analysis"]
    analyzers, filters = analysis["analyzer"], analysis["filter"]
    stems = {name: f.get("language") for name, f in filters.items() if f["type"] == "stemmer"}
    de, en = analyzers["rs_de"]["filter"], analyzers["rs_en"]["filter"]
    assert "german_normalization" in de and "lowercase" in de and "asciifolding" in de
    assert [stems[f] for f in de if f in stems] == ["light_german"]
    assert [stems[f] for f in en if f in stems] == ["possessive_english", "porter2"]
    # search analyzers: the same chain plus stop words
    assert [f for f in analyzers["rs_de_search"]["filter"] if f != "rs_de_stop"] == de
    assert [f for f in analyzers["rs_en_search"]["filter"] if f != "rs_en_stop"] == en
    assert filters["rs_de_stop"]["stopwords"] == "_german_"
    assert filters["rs_en_stop"]["stopwords"] == "_english_"
    builtin = {"lowercase", "asciifolding", "german_normalization"}
    for a in analyzers.values():
        assert all(f in filters or f in builtin for f in a["filter"])
        assert a["tokenizer"] in analysis.get("tokenizer", {}) or a["tokenizer"] == "standard"


def test_mapping_fields():
    m = build_mapping()["mappings"]
    props = m["properties"]
    assert m["_meta"]["analyzer"] == ANALYZER and "v3" in ANALYZER  # v2: memberships, v3: porter2
    assert m["dynamic"] == "strict"
    for f in ("chunk_id", "document_id", "version_id", "doc_type", "language", "memberships"):
        assert props[f] == {"type": "keyword"}
    sub = props["text"]["fields"]
    assert (sub["de"]["analyzer"], sub["de"]["search_analyzer"]) == ("rs_de", "rs_de_search")
    assert (sub["en"]["analyzer"], sub["en"]["search_analyzer"]) == ("rs_en", "rs_en_search")
    for f in ("title", "section_title", "filename", PROBE_FIELD):
        assert props[f]["type"] == "text"
    analyzers = build_mapping()["settings"]["analysis"]["analyzer"]
    used = {v for p in [*props.values(), *sub.values()] for k, v in p.items() if "analyzer" in k}
    assert used <= set(analyzers)


def test_documents_match_the_mapping_and_never_fill_the_probe():
    src = to_source(IndexedChunk("c1", "Text", 7, 70, "manual", "T", "f.pdf", "S", "de"))
    assert set(src) <= set(build_mapping()["mappings"]["properties"])
    assert PROBE_FIELD not in src
    assert src["document_id"] == "7" and src["version_id"] == "70"
    assert src["memberships"] == []
    src = to_source(IndexedChunk("c1", "Text", 7, 70, memberships={"collection": (4, 2)}))
    assert src["memberships"] == ["collection:2", "collection:4"]


# ---- queries ----------------------------------------------------------------------------
@pytest.mark.parametrize("query", SYNTAX_QUERIES, ids=lambda q: repr(q[:20]))
@pytest.mark.parametrize("fuzzy", [False, True])
def test_syntax_characters_only_reach_match_queries(query, fuzzy):
    body = build_query(query, 5, None, fuzzy)
    if body is None:
        assert not query.strip()
        return
    assert "query_string" not in json.dumps(body)
    nodes = _query_nodes(body["query"]) + _query_nodes(body["highlight"]["highlight_query"])
    assert {kind for kind, _ in nodes} <= QUERY_TYPES
    for kind, node in nodes:
        if kind == "match":
            ((_, opts),) = node.items()
            assert opts["query"] == normalize_query(query)
            assert opts.get("zero_terms_query", "none") in ("none", "all")


def test_empty_or_whitespace_query_and_k_zero_need_no_request():
    assert build_query("", 5) is None and build_query(" \t\n", 5) is None
    assert build_query("budget", 0) is None
    assert build_query("budget", 50_000)["size"] == esi.MAX_K


def test_query_shape_fields_boosts_highlight():
    body = build_query("Beschluss committee", 7)
    assert body["size"] == 7 and body["_source"] is False
    q = body["query"]["bool"]
    assert q["minimum_should_match"] == 1 and "filter" not in q
    matches = [n for k, n in _query_nodes(body["query"]) if k == "match"]
    fields = {next(iter(n)) for n in matches}
    assert {"text.de", "text.en", PROBE_FIELD} == fields
    multi = [n for k, n in _query_nodes(body["query"]) if k == "multi_match"][0]
    assert multi["fields"] == ["title^0.5", "section_title^0.5", "filename^0.3"]
    hl = body["highlight"]
    assert hl["encoder"] == "html" and hl["pre_tags"] == ["<b>"] and hl["post_tags"] == ["</b>"]
    assert set(hl["fields"]) == {"text.de", "text.en"}
    # highlights come from the stop-word-free clauses only
    hl_matches = [next(iter(n.values())) for k, n in _query_nodes(hl["highlight_query"]) if k == "match"]
    assert hl_matches and all(m["analyzer"].endswith("_search") for m in hl_matches)
    assert all(next(iter(n)) != PROBE_FIELD for k, n in _query_nodes(hl["highlight_query"]) if k == "match")


def test_stop_word_fallback_is_gated_by_the_probe():
    body = build_query("der die das", 5)
    fallbacks = [n for k, n in _query_nodes(body["query"]) if k == "bool" and "filter" in n]
    assert len(fallbacks) == 2  # one per text field
    for fb in fallbacks:
        ((probe_field, probe),) = fb["filter"][0]["match"].items()
        assert probe_field == PROBE_FIELD and probe["zero_terms_query"] == "all"
        assert probe["analyzer"].endswith("_search")  # the analyzer that drops stop words
        inner = [next(iter(c["match"].values())) for c in fb["should"]]
        assert all(not o["analyzer"].endswith("_search") for o in inner)  # all words kept
        assert fb["minimum_should_match"] == 1


def test_filters():
    assert filter_clauses(None) == [] and filter_clauses(IndexFilter()) == []
    assert filter_clauses(IndexFilter(document_ids=[3, 1, 3])) == [{"terms": {"document_id": ["1", "3"]}}]
    assert filter_clauses(IndexFilter(doc_types=["b", "a"])) == [{"terms": {"doc_type": ["a", "b"]}}]
    both = build_query("x", 5, IndexFilter(document_ids=[1], doc_types=["manual"]))["query"]["bool"]
    assert both["filter"] == [{"terms": {"document_id": ["1"]}}, {"terms": {"doc_type": ["manual"]}}]
    assert both["minimum_should_match"] == 1  # a filter must not make the text optional
    assert build_query("budget", 5, IndexFilter(document_ids=[])) is None
    assert build_query("budget", 5, IndexFilter(doc_types=[])) is None
    assert build_query("budget", 5, IndexFilter(document_ids=[1], doc_types=[])) is None
    members = IndexFilter(memberships={"collection": [3, 1]}, doc_types=["manual"])
    assert filter_clauses(members) == [{"terms": {"memberships": ["collection:1", "collection:3"]}},
                                       {"terms": {"doc_type": ["manual"]}}]
    assert build_query("budget", 5, IndexFilter(memberships={"collection": []})) is None


def test_fuzzy_only_with_long_terms_and_below_exact():
    plain = json.dumps(build_query("Konfigurtion", 5))
    assert "fuzziness" not in plain
    body = build_query("Konfigurtion", 5, fuzzy=True)
    matches = [next(iter(n.values())) for k, n in _query_nodes(body["query"]) if k == "match"]
    fuzzy = [m for m in matches if "fuzziness" in m]
    exact = [m for m in matches if "fuzziness" not in m and "zero_terms_query" not in m]
    assert fuzzy and all(m["fuzziness"] == FUZZINESS and m["prefix_length"] == 1 for m in fuzzy)
    assert max(m["boost"] for m in fuzzy) < min(m["boost"] for m in exact)
    assert _auto_distance(FUZZINESS, "abcd") == 0
    assert _auto_distance(FUZZINESS, "abcde") == 1
    assert _auto_distance(FUZZINESS, "x" * 255) == 1  # longest token of the standard tokenizer


def test_normalize_query_bounds_the_clauses():
    assert normalize_query("  Budget budget BUDGET plan ") == "Budget plan"
    assert normalize_query(("budget " * 1500)[:10_000]) == "budget budg"
    assert len(normalize_query("x" * 10_000)) == esi.MAX_WORD_CHARS
    many = normalize_query(" ".join(f"w{i}" for i in range(1000)))
    assert len(many.split()) == esi.MAX_QUERY_WORDS


def test_best_highlight_prefers_more_marks():
    assert best_highlight(None) == ""
    two = "<b>a</b> <b>b</b>"
    assert best_highlight({"text.de": ["<b>a</b> b"], "text.en": [two]}) == two
    assert best_highlight({"text.de": ["<b>a</b>"], "text.en": ["<b>a</b>"]}) == "<b>a</b>"


# ---- configuration and errors -----------------------------------------------------------
def test_index_name_and_redaction():
    assert index_name("ragscope") == "ragscope-chunks"
    for bad in ("Rag", "-x", "_x", "a b", "a/b", "a*", ""):
        with pytest.raises(ConfigError):
            index_name(bad)
    assert redact_url("https://elastic:s3cret@es.example:9243") == "https://es.example:9243"
    assert redact_url("http://127.0.0.1:9200") == "http://127.0.0.1:9200"


def test_configuration_errors():
    url = "http://127.0.0.1:9200"
    with pytest.raises(ConfigError):
        ElasticsearchKeywordIndex(Settings())  # no URL
    with pytest.raises(ConfigError):
        ElasticsearchKeywordIndex(_settings(url, elasticsearch_api_key="k", elasticsearch_username="u",
                                            elasticsearch_password="p"))
    with pytest.raises(ConfigError):
        ElasticsearchKeywordIndex(_settings(url, elasticsearch_username="u"))
    with pytest.raises(ConfigError):
        ElasticsearchKeywordIndex(_settings(url, elasticsearch_index_prefix="UPPER"))
    ElasticsearchKeywordIndex(_settings("https://es.example:9243", elasticsearch_api_key="k",
                                        elasticsearch_verify_certs=False))


def test_factory_builds_it_without_contacting_the_server():
    from backend.index.factory import make_keyword_index

    ix = make_keyword_index(_settings(f"http://127.0.0.1:{_free_port()}"))
    assert isinstance(ix, ElasticsearchKeywordIndex) and isinstance(ix, KeywordIndex)
    assert ix.name == "elasticsearch" and ix.analyzer == ANALYZER


def test_unreachable_server_raises_backend_unavailable_quickly():
    url = f"http://elastic:s3cret@127.0.0.1:{_free_port()}"
    ix = ElasticsearchKeywordIndex(_settings(url), request_timeout=2, max_retries=0)
    calls = (ix.count, ix.ids, lambda: ix.search("budget", 5), lambda: ix.add([IndexedChunk("a", "t", 1, 1)]))
    for call in calls:
        start = time.monotonic()
        with pytest.raises(BackendUnavailable) as err:
            call()
        assert time.monotonic() - start < 5
        assert "127.0.0.1" in str(err.value) and "s3cret" not in str(err.value)
    # nothing to ask the server: no request, no error
    assert ix.search("", 5) == [] and ix.search("budget", 5, IndexFilter(document_ids=[])) == []
    ix.add([]), ix.delete([])


def test_after_a_connection_failure_calls_fail_fast_for_a_while(monkeypatch):
    ix = ElasticsearchKeywordIndex(_settings(f"http://127.0.0.1:{_free_port()}"), max_retries=0)
    with pytest.raises(BackendUnavailable, match="unreachable: "):
        ix.count()
    with pytest.raises(BackendUnavailable, match="retrying in"):  # no request this time
        ix.count()
    ix._down_until = 0.0  # the window is over: the server is asked again
    with pytest.raises(BackendUnavailable, match="unreachable: "):
        ix.count()


# ---- requests as the server sees them ---------------------------------------------------
class _Recorder(BaseHTTPRequestHandler):
    """Answers like Elasticsearch would for an empty cluster; records every request."""

    log: list[tuple[str, str, dict, str]] = []
    mapping_status = 404
    search_hits: list[dict] = []

    def _reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("X-Elastic-Product", "Elasticsearch")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _any(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        self.log.append((self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, raw))
        if self.path.endswith("/_mapping"):
            old = {"x-chunks": {"mappings": {"_meta": {"analyzer": "old"}}}}
            return self._reply(self.mapping_status, old)
        if self.path.startswith("/_bulk"):
            ops = [json.loads(line) for line in raw.splitlines() if line.strip()]
            items = [{op: {"_id": a[op]["_id"], "status": 404 if op == "delete" else 201}}
                     for a in ops for op in ("index", "delete") if op in a]
            return self._reply(200, {"errors": False, "items": items})
        if self.path.endswith("/_search"):
            req = json.loads(raw)
            ids = [h["_id"] for h in self.search_hits]
            start = ids.index(req["search_after"][0]) + 1 if "search_after" in req else 0
            hits = self.search_hits[start:start + req["size"]]
            return self._reply(200, {"hits": {"hits": hits}})
        return self._reply(200, {"acknowledged": True})

    do_GET = do_PUT = do_POST = do_DELETE = _any

    def log_message(self, *args):
        pass


@pytest.fixture
def recorder():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    _Recorder.log, _Recorder.mapping_status, _Recorder.search_hits = [], 404, []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def test_requests_sent_by_the_client(recorder, monkeypatch):
    ix = ElasticsearchKeywordIndex(_settings(recorder, elasticsearch_index_prefix="x"))
    ix.add([IndexedChunk("a", "first", 1, 10), IndexedChunk("a", "second", 1, 10),
            IndexedChunk("b", "b", 2, 20)])
    ix.delete(["a", "missing"])  # a 404 item is not an error
    (create,) = [r for r in _Recorder.log if r[0] == "PUT" and r[1] == "/x-chunks"]
    assert json.loads(create[3]) == build_mapping()
    bulks = [r for r in _Recorder.log if r[1].startswith("/_bulk")]
    assert all("refresh=wait_for" in r[1] for r in bulks)
    docs = [json.loads(line) for line in bulks[0][3].splitlines()[1::2]]
    assert [d["text"] for d in docs] == ["second", "b"]  # duplicate ids: the last one wins
    # client 8.x asks for the 8 REST API: Elasticsearch 8 and 9 both accept that
    assert all("compatible-with=8" in r[2]["accept"] for r in _Recorder.log)

    _Recorder.search_hits = [{"_id": c, "_score": 1.0, "sort": [c]} for c in "abc"]
    monkeypatch.setattr(engine_index, "_PAGE", 2)
    assert ix.ids() == {"a", "b", "c"}
    pages = [json.loads(r[3]) for r in _Recorder.log if r[1] == "/x-chunks/_search"]
    assert [p.get("search_after") for p in pages] == [None, ["b"]] and not pages[0]["_source"]
    assert pages[0]["sort"] == [{"chunk_id": "asc"}]

    _Recorder.search_hits = [{"_id": "a", "_score": 2.5, "highlight": {"text.en": ["&lt;<b>a</b>&gt;"]}},
                             {"_id": "b", "_score": 1.5}]
    hits = ix.search("a:b (c)", 5, IndexFilter(doc_types=["manual"]))
    assert [(h.chunk_id, h.rank, h.score, h.highlights) for h in hits] == [
        ("a", 1, 2.5, ["&lt;<b>a</b>&gt;"]), ("b", 2, 1.5, [])]
    sent = json.loads(_Recorder.log[-1][3])
    assert sent == build_query("a:b (c)", 5, IndexFilter(doc_types=["manual"]))


def test_index_built_by_other_analyzer_needs_reset(recorder):
    from backend.errors import IndexMismatch

    _Recorder.mapping_status = 200
    ix = ElasticsearchKeywordIndex(_settings(recorder, elasticsearch_index_prefix="x"))
    with pytest.raises(IndexMismatch):
        ix.count()
    _Recorder.mapping_status = 404
    ix.reset()
    assert [r[0] for r in _Recorder.log[-3:]] == ["DELETE", "GET", "PUT"]
