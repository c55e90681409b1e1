"""KeywordIndex on OpenSearch (official client `opensearch-py`; OpenSearch 2.x servers, e.g.
the node of `python -m backend search-node start`). The index logic and request bodies are
shared with Elasticsearch (`engine_index`, `engine_dsl`); this module is the thin adapter
for the `opensearchpy` client. A separate client is needed because the Elasticsearch 8.x
client refuses any server that does not say it is Elasticsearch (UnsupportedProductError)."""
from __future__ import annotations

from typing import Any, Iterable, Sequence

from opensearchpy import OpenSearch, helpers
from opensearchpy.exceptions import ConnectionError as OSConnectionError
from opensearchpy.exceptions import ImproperlyConfigured, RequestError, TransportError

from backend.config import Settings
from backend.errors import ConfigError
from backend.index.engine_dsl import analyzer_id, index_name, redact_url
from backend.index.engine_index import EngineConfig, EngineKeywordIndex, Failure

ANALYZER = analyzer_id("opensearch")


def _missing(resp: dict[str, Any]) -> bool:
    """An answer passed through with `ignore=404` that is the 404 error body."""
    return resp.get("status") == 404 and "error" in resp


class OpenSearchClient:
    """EngineClient over `opensearchpy.OpenSearch`."""

    product = "OpenSearch"

    def __init__(self, cfg: EngineConfig, request_timeout: float, max_retries: int):
        auth = {"http_auth": (cfg.username, cfg.password)} if cfg.username else {}
        tls = ({"verify_certs": cfg.verify_certs, "ssl_show_warn": cfg.verify_certs}
               if cfg.tls else {})
        self.os = OpenSearch(hosts=cfg.hosts, timeout=request_timeout, max_retries=max_retries,
                             retry_on_timeout=False, **auth, **tls)

    def get_meta(self, index: str) -> dict[str, Any] | None:
        resp = self.os.indices.get_mapping(index=index, ignore=404)
        if _missing(resp):
            return None
        return next(iter(resp.values()), {}).get("mappings", {}).get("_meta", {})

    def create_index(self, index: str, body: dict[str, Any]) -> None:
        resp = self.os.indices.create(index=index, body=body, ignore=400)
        if "error" in resp and "already_exists" not in str(resp["error"]):
            raise RequestError(400, str(resp["error"]), resp)

    def delete_index(self, index: str) -> None:
        self.os.indices.delete(index=index, ignore=404)

    def bulk(self, actions: Iterable[dict[str, Any]]) -> None:
        helpers.bulk(self.os, actions, refresh="wait_for", ignore_status=(404,),
                     chunk_size=500, max_chunk_bytes=20 * 1024 * 1024)

    def search(self, index: str, body: dict[str, Any]) -> dict[str, Any]:
        return self.os.search(index=index, body=body)

    def mget(self, index: str, ids: Sequence[str], fields: Sequence[str]) -> list[dict[str, Any]]:
        return self.os.mget(index=index, body={"ids": list(ids)},
                            _source_includes=",".join(fields))["docs"]

    def count(self, index: str) -> int:
        return int(self.os.count(index=index)["count"])

    def classify(self, exc: BaseException) -> Failure | None:
        if isinstance(exc, OSConnectionError):  # refused, timeout, TLS (status "N/A")
            return Failure("down", str(exc))
        if isinstance(exc, TransportError) and isinstance(exc.status_code, int):
            status = exc.status_code
            message = str(exc.error)
            if status in (401, 403) or status >= 500:
                return Failure("unavailable", message, status)
            return Failure("rejected", message, status)
        return None

    def close(self) -> None:
        self.os.close()


class OpenSearchKeywordIndex(EngineKeywordIndex):
    """BM25 over chunk texts in `<opensearch_index_prefix>-chunks`."""

    name = "opensearch"
    analyzer = ANALYZER

    def __init__(self, settings: Settings, *, request_timeout: float = 10.0, max_retries: int = 1,
                 field_boosts: dict[str, float] | None = None):
        cfg = EngineConfig.from_settings(settings, "opensearch")
        try:
            client = OpenSearchClient(cfg, request_timeout, max_retries)
        except (ValueError, ImproperlyConfigured) as exc:
            where = ",".join(map(redact_url, cfg.hosts))
            raise ConfigError(f"opensearch_url {where!r}: {exc}") from exc
        super().__init__(client, cfg.url, index_name(cfg.index_prefix, "opensearch_index_prefix"),
                         field_boosts)
