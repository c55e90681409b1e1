"""The settings registry: one `Settings` object whose fields are the groups of this package
(indexing, ingest, chat, serving, analysis; their order is the order of docs/settings.md),
with the checks that span groups and the paths derived from the data dir."""
from __future__ import annotations

from pathlib import Path

from pydantic import model_validator
from pydantic_settings import SettingsConfigDict

from backend.config.analysis import AnalysisSettings
from backend.config.chat import ChatSettings
from backend.config.indexing import IndexingSettings
from backend.config.ingest import IngestSettings
from backend.config.serving import ServingSettings


# pydantic collects the fields of the bases from the last to the first: indexing comes first
class Settings(AnalysisSettings, ServingSettings, ChatSettings, IngestSettings, IndexingSettings):
    """Every setting, read from RAGSCOPE_* environment variables; frozen once built."""

    model_config = SettingsConfigDict(env_prefix="RAGSCOPE_", extra="ignore", frozen=True)

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
        SQLite file 0600, and tighten a data dir made before (backend/security/private_files.py)."""
        from backend.security.private_files import ensure_private_data_dir

        ensure_private_data_dir(self)
