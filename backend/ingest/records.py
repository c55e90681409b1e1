"""Plain records and pure helpers of ingestion: outcomes, stable ids, file discovery."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from backend.index.base import IndexedChunk
from backend.ingest.extract import SUPPORTED_EXTENSIONS


@dataclass
class IngestOutcome:
    filename: str
    status: str  # new | new_version | duplicate | unchanged | failed
    document_id: int | None = None
    version_id: int | None = None
    chunks: int = 0
    error: str | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status != "failed"


@dataclass
class _Pending:
    """A version stored with status "indexing", waiting for its chunks to be embedded and
    added to both indexes (batched across files by ingest_many)."""

    outcome: IngestOutcome
    old_active: int | None
    chunks: list[IndexedChunk]


# Files are embedded together until this many chunks (or files) are waiting.
FLUSH_CHUNKS = 128
FLUSH_FILES = 16


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def chunk_id(version_sha: str, size: int, overlap: int, ordinal: int) -> str:
    """Stable: the same version content, chunking parameters and position give the same id."""
    h = hashlib.sha256(f"{version_sha}:{size}:{overlap}:{ordinal}".encode()).hexdigest()
    return h[:32]


def _first_line_title(text: str) -> str | None:
    """A short first line followed by more text reads as a title (plain-text files)."""
    first, _, rest = text.strip().partition("\n")
    first = first.strip()
    if 3 <= len(first) <= 150 and rest.strip() and not first.endswith((".", ",", ";")):
        return first
    return None


def iter_files(paths: Iterable[str | Path]) -> list[Path]:
    """Files named directly, and the supported files below named folders (sorted)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(f for f in p.rglob("*") if f.is_file()
                          and f.suffix.lower() in SUPPORTED_EXTENSIONS
                          and not any(part.startswith(".") for part in f.relative_to(p).parts))
        else:
            out.append(p)
    return out
