"""Settings of what comes in and how: upload and extraction limits, default collection and
knowledge base, OCR, classification, versions by name, Git sources, the crawler and its
scheduler (docs/ingestion.md, docs/crawling.md)."""
from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings

class IngestSettings(BaseSettings):
    """A group of `Settings`' fields (use `backend.config.Settings`, which reads them from the
    environment): ingestion, OCR, Git, crawl."""

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
