"""KeywordIndex on Elasticsearch (official client 8.x; works with Elasticsearch 8 and 9
servers, see docs/elasticsearch.md). The index logic and request bodies are shared with
OpenSearch (`engine_index`, `engine_dsl`); this module is the thin adapter that spells each
request for the `elasticsearch` client and tells its exceptions apart."""
from __future__ import annotations

from typing import Any, Iterable, Sequence

from elasticsearch import ApiError, Elasticsearch, TransportError, UnsupportedProductError, helpers

from backend.config import Settings
from backend.errors import ConfigError
from backend.index.engine_dsl import analyzer_id, index_name, redact_url
from backend.index.engine_index import EngineConfig, EngineKeywordIndex, Failure

ANALYZER = analyzer_id("elasticsearch")


class ElasticsearchClient:
    """EngineClient over `elasticsearch.Elasticsearch` (8.x)."""

    product = "Elasticsearch"

    def __init__(self, cfg: EngineConfig, request_timeout: float, max_retries: int):
        auth: dict[str, Any] = {}
        if cfg.api_key:
            auth["api_key"] = cfg.api_key
        elif cfg.username:
            auth["basic_auth"] = (cfg.username, cfg.password)
        tls = ({"verify_certs": cfg.verify_certs, "ssl_show_warn": cfg.verify_certs}
               if cfg.tls else {})
        self.es = Elasticsearch(cfg.hosts, request_timeout=request_timeout, max_retries=max_retries,
                                retry_on_timeout=False, **auth, **tls)

    def get_meta(self, index: str) -> dict[str, Any] | None:
        mapping = self.es.options(ignore_status=404).indices.get_mapping(index=index)
        if mapping.meta.status == 404:
            return None
        return next(iter(mapping.body.values()), {}).get("mappings", {}).get("_meta", {})

    def create_index(self, index: str, body: dict[str, Any]) -> None:
        resp = self.es.options(ignore_status=400).indices.create(index=index, **body)
        if resp.meta.status == 400 and "already_exists" not in str(resp.body):
            raise ApiError(str(resp.body), meta=resp.meta, body=resp.body)

    def delete_index(self, index: str) -> None:
        self.es.options(ignore_status=404).indices.delete(index=index)

    def bulk(self, actions: Iterable[dict[str, Any]]) -> None:
        helpers.bulk(self.es, actions, refresh="wait_for", ignore_status=(404,),
                     chunk_size=500, max_chunk_bytes=20 * 1024 * 1024)

    def search(self, index: str, body: dict[str, Any]) -> dict[str, Any]:
        return self.es.search(index=index, **body).body

    def mget(self, index: str, ids: Sequence[str], fields: Sequence[str]) -> list[dict[str, Any]]:
        return self.es.mget(index=index, ids=list(ids), source=list(fields))["docs"]

    def count(self, index: str) -> int:
        return int(self.es.count(index=index)["count"])

    def classify(self, exc: BaseException) -> Failure | None:
        if isinstance(exc, TransportError):  # connection refused, timeout, TLS, ...
            return Failure("down", str(exc))
        if isinstance(exc, ApiError):
            status = exc.meta.status
            if status in (401, 403) or status >= 500 or isinstance(exc, UnsupportedProductError):
                return Failure("unavailable", exc.message, status)
            return Failure("rejected", exc.message, status)
        return None

    def close(self) -> None:
        self.es.close()


class ElasticsearchKeywordIndex(EngineKeywordIndex):
    """BM25 over chunk texts in `<elasticsearch_index_prefix>-chunks`."""

    name = "elasticsearch"
    analyzer = ANALYZER

    def __init__(self, settings: Settings, *, request_timeout: float = 10.0, max_retries: int = 1,
                 field_boosts: dict[str, float] | None = None):
        cfg = EngineConfig.from_settings(settings, "elasticsearch")
        try:
            client = ElasticsearchClient(cfg, request_timeout, max_retries)
        except ValueError as exc:
            where = ",".join(map(redact_url, cfg.hosts))
            raise ConfigError(f"elasticsearch_url {where!r}: {exc}") from exc
        super().__init__(client, cfg.url, index_name(cfg.index_prefix), field_boosts)
        self._es = client.es
