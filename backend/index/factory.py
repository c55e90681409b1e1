"""Pick the index backends from settings. Backends are imported lazily so that a
deployment without Elasticsearch/OpenSearch (or a test that needs only one index) does not pay
for the others' imports."""
from __future__ import annotations

from backend.config import Settings
from backend.errors import ConfigError
from backend.index.base import KeywordIndex, VectorIndex
from backend.index.writelock import IndexWriteLock


def make_vector_index(settings: Settings, lock: IndexWriteLock | None = None) -> VectorIndex:
    """Chroma: the embedded persistent client, or a server when `chroma_url` is set."""
    from backend.index.chroma_index import ChromaVectorIndex

    return ChromaVectorIndex(settings, lock)


def make_keyword_index(settings: Settings, lock: IndexWriteLock | None = None) -> KeywordIndex:
    backend = settings.keyword_backend
    if backend == "tantivy":
        from backend.index.tantivy_index import TantivyKeywordIndex

        return TantivyKeywordIndex(settings, lock=lock)
    if backend == "elasticsearch":
        from backend.index.elasticsearch_index import ElasticsearchKeywordIndex

        return ElasticsearchKeywordIndex(settings)
    if backend == "opensearch":
        from backend.index.opensearch_index import OpenSearchKeywordIndex

        return OpenSearchKeywordIndex(settings)
    raise ConfigError(f"unknown keyword_backend {backend!r}")  # pragma: no cover
