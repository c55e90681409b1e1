"""OpenSearch backend without a server: configuration, an unreachable server (fail fast,
credentials redacted), auth and server errors, and the requests the opensearch-py client
sends, seen by a small HTTP server. Against a real node: the contract suite
(tests/test_index_contract.py, RAGSCOPE_OPENSEARCH_URL)."""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from backend.config import Settings
from backend.errors import BackendUnavailable, ConfigError
from backend.index.base import IndexedChunk, IndexFilter, KeywordIndex
from backend.index.engine_dsl import build_mapping, build_query
from backend.index.opensearch_index import ANALYZER, OpenSearchKeywordIndex
from backend.index.search_node import free_port


def _settings(url: str, **kw) -> Settings:
    return Settings(keyword_backend="opensearch", opensearch_url=url, **kw)


def test_configuration_errors_name_the_setting():
    url = "http://127.0.0.1:9200"
    with pytest.raises(ValueError, match="RAGSCOPE_OPENSEARCH_URL"):
        Settings(keyword_backend="opensearch")
    with pytest.raises(ConfigError, match="RAGSCOPE_OPENSEARCH_URL"):
        OpenSearchKeywordIndex(Settings())
    with pytest.raises(ConfigError, match="opensearch_username and opensearch_password"):
        OpenSearchKeywordIndex(_settings(url, opensearch_username="u"))
    with pytest.raises(ConfigError, match="opensearch_index_prefix 'UPPER'"):
        OpenSearchKeywordIndex(_settings(url, opensearch_index_prefix="UPPER"))
    OpenSearchKeywordIndex(_settings("https://os.example:9200", opensearch_username="u",
                                     opensearch_password="p", opensearch_verify_certs=False))


def test_factory_builds_it_without_contacting_the_server():
    from backend.index.factory import make_keyword_index

    ix = make_keyword_index(_settings(f"http://127.0.0.1:{free_port()}"))
    assert isinstance(ix, OpenSearchKeywordIndex) and isinstance(ix, KeywordIndex)
    assert ix.name == "opensearch" and ix.analyzer == ANALYZER
    assert ANALYZER.startswith("opensearch:") and ANALYZER.endswith(":v3")


def test_unreachable_server_fails_fast_without_credentials_in_messages():
    url = f"http://admin:s3cret@127.0.0.1:{free_port()}"
    ix = OpenSearchKeywordIndex(_settings(url), request_timeout=2, max_retries=0)
    for call in (ix.count, ix.ids, lambda: ix.search("budget", 5),
                 lambda: ix.add([IndexedChunk("a", "t", 1, 1)])):
        start = time.monotonic()
        with pytest.raises(BackendUnavailable) as err:
            call()
        assert time.monotonic() - start < 5
        assert "OpenSearch at http://127.0.0.1:" in str(err.value)
        assert "s3cret" not in str(err.value)
    assert "retrying in" in str(err.value)  # calls after the first failure: no request
    ix._down_until = 0.0
    with pytest.raises(BackendUnavailable, match="unreachable: "):
        ix.count()
    assert ix.search("", 5) == [] and ix.search("x", 5, IndexFilter(document_ids=[])) == []


class _Server(BaseHTTPRequestHandler):
    """Answers like OpenSearch for an empty cluster (or with `status` for everything)."""

    log: list[tuple[str, str, str]] = []
    status = 200

    def _reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _any(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        self.log.append((self.command, self.path, raw))
        if self.status != 200:
            return self._reply(self.status, {"error": "denied", "status": self.status})
        if self.path.endswith("/_mapping"):
            return self._reply(404, {"error": {"type": "index_not_found_exception"}, "status": 404})
        if self.path.startswith("/_bulk"):
            ops = [json.loads(line) for line in raw.splitlines() if line.strip()]
            items = [{"index": {"_id": a["index"]["_id"], "status": 201}} for a in ops if "index" in a]
            return self._reply(200, {"errors": False, "items": items})
        if self.path.split("?")[0].endswith("/_search"):
            return self._reply(200, {"hits": {"hits": [
                {"_id": "a", "_score": 2.0, "highlight": {"text.de": ["<b>x</b>"]}}]}})
        if self.path.split("?")[0].endswith("/_mget"):
            return self._reply(200, {"docs": [{"_id": "a", "found": True,
                                               "_source": {"text": "T"}}]})
        return self._reply(200, {"acknowledged": True})

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _any

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Server)
    _Server.log, _Server.status = [], 200
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_port}"
    srv.shutdown()
    srv.server_close()


def test_requests_sent_by_the_client(server):
    ix = OpenSearchKeywordIndex(_settings(server, opensearch_index_prefix="x"))
    ix.add([IndexedChunk("a", "first", 1, 10), IndexedChunk("a", "second", 1, 10)])
    (create,) = [r for r in _Server.log if r[0] == "PUT" and r[1] == "/x-chunks"]
    assert json.loads(create[2]) == build_mapping(ANALYZER)
    (bulk,) = [r for r in _Server.log if r[1].startswith("/_bulk")]
    assert "refresh=wait_for" in bulk[1]
    assert [json.loads(x)["text"] for x in bulk[2].splitlines()[1::2]] == ["second"]
    hits = ix.search("x (y)", 5, IndexFilter(doc_types=["manual"]))
    assert [(h.chunk_id, h.rank, h.score, h.highlights) for h in hits] == [("a", 1, 2.0, ["<b>x</b>"])]
    sent = json.loads(_Server.log[-1][2])
    assert sent == build_query("x (y)", 5, IndexFilter(doc_types=["manual"]), engine="opensearch")
    assert "max_analyzer_offset" in sent["highlight"]
    assert ix.texts(["a"]) == {"a": "T"}
    assert "_source_includes=text" in _Server.log[-1][1]


@pytest.mark.parametrize("status", [401, 403, 503])
def test_auth_and_server_errors_are_backend_unavailable(server, status):
    _Server.status = status
    ix = OpenSearchKeywordIndex(_settings(server), max_retries=0)
    with pytest.raises(BackendUnavailable, match=f"answered {status}"):
        ix.count()
