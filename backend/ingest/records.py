"""Plain records and pure helpers of ingestion: outcomes, stable ids. (Finding files:
backend/ingest/paths.py.)"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from backend.index.base import IndexedChunk


@dataclass
class IngestOutcome:
    filename: str
    # new | new_version | duplicate | unchanged | failed, or (a path that is not read)
    # refused (symlink out of the folder, data dir, system path) | skipped (symlink within)
    status: str
    document_id: int | None = None
    version_id: int | None = None
    chunks: int = 0
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    note: str | None = None  # how the document was chosen (a version by file name, ...)
    read_back: int = 0  # chunks searched for by their own vector after the write
    unretrievable: list[str] = field(default_factory=list)  # ... and not found in the top 10
    title: str | None = None  # of the stored document a duplicate/unchanged file matched
    collection: str | None = None  # the collection the file was uploaded into
    added_to_collection: bool = False  # the matched document joined `collection` just now

    @property
    def ok(self) -> bool:
        return self.status not in ("failed", "refused")

    def for_job(self) -> dict:
        """What a job's result keeps of it (the API's job status lists these). A duplicate
        names the stored document it matched and whether it joined the upload's collection,
        as the dashboard's upload page does, so an API uploader can find it too."""
        return {"filename": self.filename, "status": self.status,
                "document_id": self.document_id, "version_id": self.version_id,
                "chunks": self.chunks, "error": self.error, "title": self.title,
                "note": self.note, "warnings": list(self.warnings),
                "collection": self.collection,
                "added_to_collection": self.added_to_collection}


def linked_outcome(filename: str, status: str, doc, version, collection: str | None,
                   added: bool) -> IngestOutcome:
    """A file whose content is stored already (`duplicate`, or `unchanged` from the same
    source): nothing new is extracted or embedded. The outcome names the stored document and
    says whether it joined the upload's collection, so the uploader can find it (a bare
    "ingested" with a green check read as if a new document had been made). An unchanged
    file gets no note: a folder ingested again would print one line per file."""
    title = doc.title or doc.filename
    where = (f"added it to collection {collection}" if added else
             f"it is in collection {collection} already") if collection else ""
    note = (f"Nothing new stored: the same content as document {doc.id} ({title}, version "
            f"{version.number})" + (f"; {where}." if where else ".")
            if status == "duplicate" else None)
    return IngestOutcome(filename, status, doc.id, version.id, 0, note=note, title=title,
                         collection=collection, added_to_collection=added)


@dataclass
class _Pending:
    """A version stored with status "indexing", waiting for its chunks to be embedded and
    added to both indexes (batched across files by ingest_many)."""

    outcome: IngestOutcome
    old_active: int | None
    chunks: list[IndexedChunk]


# Files are embedded together until this many chunks (or files) are waiting, or the first of
# them has waited FLUSH_AFTER_S (a slow crawl still publishes every few seconds).
FLUSH_CHUNKS = 128
FLUSH_FILES = 16
FLUSH_AFTER_S = 2.0

SOURCE_KINDS = ("file", "upload", "crawl", "sync", "beir", "git")
MAX_TITLE = 500  # Document.title
MAX_NAME = 500  # Document.filename
MAX_SOURCE_URI = 2000  # Document.source_uri
MAX_META_BYTES = 64 * 1024


@dataclass
class IngestItem:
    """One thing for `Ingestor.ingest_many`: bytes (`data`) or a file to read (`path`; a
    `FoundFile` from the path policy, or a path it checks), named `name` (its extension
    decides the format). Per item: where it comes from (`source_uri`, the document's identity:
    the same URI again makes a new version; default `<source_kind>://<name>`, or the file's
    path), its `title` (default: from the content), `meta` (a JSON object stored on the
    document) and `identity` (backend.ingest.identity.Identity: how a file from a new source
    finds its document; default: the batch's). `context` is the caller's own and comes back
    with the item's outcome."""

    name: str
    data: bytes | None = None
    path: Any = None  # FoundFile | Path | str
    source_uri: str | None = None
    source_kind: str | None = None  # default: the batch's
    title: str | None = None
    meta: dict | None = None
    context: Any = None
    identity: Any = None  # backend.ingest.identity.Identity | None (the batch's)

    @property
    def filename(self) -> str:
        return self.name

    @classmethod
    def of(cls, raw: "IngestItem | tuple") -> "IngestItem":
        """An item, or an old-style `(path, data)` pair (data None: read the path)."""
        if isinstance(raw, IngestItem):
            return raw
        if isinstance(raw, tuple) and len(raw) == 2 and isinstance(raw[0], IngestItem) \
                and raw[1] is None:  # an item in the pair's place
            return raw[0]
        if not isinstance(raw, tuple) or len(raw) != 2:
            raise TypeError(f"ingest_many takes IngestItem or (path, data) pairs, not {raw!r:.80}")
        path, data = raw
        name = getattr(path, "name", None) or Path(str(path)).name
        return cls(name=name, data=data, path=path if data is None else None)

    def problem(self) -> str | None:
        """What is wrong with this item (naming the field), or None. Checked before anything
        is stored; a bad item fails alone."""
        if not isinstance(self.name, str) or not self.name.strip() or "\x00" in self.name:
            return "name: must be a non-empty file name"
        if "/" in self.name or len(self.name) > MAX_NAME:
            return f"name: must be a file name without '/' of at most {MAX_NAME} characters"
        if (self.data is None) == (self.path is None):
            return "data/path: give exactly one of data (bytes) and path"
        if self.data is not None and not isinstance(self.data, (bytes, bytearray, memoryview)):
            return f"data: must be bytes, not {type(self.data).__name__}"
        if self.source_uri is not None and (not isinstance(self.source_uri, str)
                                            or not self.source_uri.strip()
                                            or len(self.source_uri) > MAX_SOURCE_URI):
            return f"source_uri: must be a non-empty string of at most {MAX_SOURCE_URI} characters"
        if self.source_kind is not None and self.source_kind not in SOURCE_KINDS:
            return (f"source_kind: {self.source_kind!r} is not one of "
                    f"{', '.join(SOURCE_KINDS)}")
        if self.title is not None and not isinstance(self.title, str):
            return f"title: must be text, not {type(self.title).__name__}"
        if self.meta is not None:
            if not isinstance(self.meta, dict) or not all(isinstance(k, str) for k in self.meta):
                return "meta: must be a JSON object (a dict with string keys)"
            try:
                size = len(json.dumps(self.meta, allow_nan=False).encode())
            except (TypeError, ValueError) as e:
                return f"meta: not storable as JSON ({e})"
            if size > MAX_META_BYTES:
                return f"meta: {size} bytes as JSON, at most {MAX_META_BYTES}"
        if self.identity is not None:
            from backend.ingest.identity import Identity

            if not isinstance(self.identity, Identity):
                return f"identity: must be an Identity, not {type(self.identity).__name__}"
        return None

    def clean_title(self) -> tuple[str | None, list[str]]:
        """The title to store (cut to MAX_TITLE characters, with a warning)."""
        t = " ".join((self.title or "").split())
        if not t:
            return None, []
        if len(t) > MAX_TITLE:
            return t[:MAX_TITLE], [f"title cut to {MAX_TITLE} characters (was {len(t)})"]
        return t, []


@dataclass
class IngestProgress:
    """Where a batch stands; handed to `ingest_many`'s `on_progress` after every outcome
    (`item` and `outcome` set) and after every embedded batch (both None)."""

    files_done: int
    files_total: int | None
    failed: int
    chunks_embedded: int
    chunks_waiting: int  # stored, not yet embedded and published
    elapsed_s: float
    embed_s: float  # time spent embedding (in the embedding thread)
    item: IngestItem | None = None
    outcome: IngestOutcome | None = None

    @property
    def chunks_per_s(self) -> float | None:
        return self.chunks_embedded / self.elapsed_s if self.chunks_embedded and \
            self.elapsed_s > 0 else None

    @property
    def eta_s(self) -> float | None:
        """Seconds left, assuming the remaining files are like the ones done so far; None
        while nothing is done or the total is unknown (a crawl)."""
        if not self.files_total or not self.files_done or self.elapsed_s <= 0:
            return None
        left = max(0, self.files_total - self.files_done)
        return left * self.elapsed_s / self.files_done

    def summary(self) -> str:
        """"12/40 files, 1,234 chunks embedded (85/s), ETA 1 min 20 s"."""
        total = f"/{self.files_total}" if self.files_total else ""
        parts = [f"{self.files_done}{total} files"]
        if self.failed:
            parts.append(f"{self.failed} failed")
        rate = self.chunks_per_s
        parts.append(f"{self.chunks_embedded:,} chunks embedded"
                     + (f" ({rate:.0f}/s)" if rate else ""))
        eta = self.eta_s
        if eta is not None and self.files_done < (self.files_total or 0):
            parts.append(f"ETA {format_duration(eta)}")
        return ", ".join(parts)


def format_duration(seconds: float) -> str:
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def chunk_id(version_sha: str, size: int, overlap: int, ordinal: int, variant: str = "") -> str:
    """Stable: the same version content, chunking parameters (a processing profile other than
    generic_text adds its `variant`) and position give the same id."""
    key = f"{version_sha}:{size}:{overlap}:{ordinal}" + (f":{variant}" if variant else "")
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def write_sections(s, version_id: int, nodes) -> list:
    """Insert a version's section tree (flat list, parents first); returns the rows."""
    from backend.store.models import Section

    rows: list = []
    for i, n in enumerate(nodes):
        row = Section(version_id=version_id, ordinal=i, level=n.level, kind=n.kind,
                      title=n.title[:1000], number=n.number, start=n.start, end=n.end,
                      page_start=n.page_start, page_end=n.page_end)
        if n.parent is not None:
            row.parent_id = rows[n.parent].id
        s.add(row)
        s.flush()
        rows.append(row)
    return rows


def _first_line_title(text: str) -> str | None:  # kept for callers; titles: classify.py
    """A short first line followed by more text reads as a title (plain-text files)."""
    first, _, rest = text.strip().partition("\n")
    first = first.strip()
    if 3 <= len(first) <= 150 and rest.strip() and not first.endswith((".", ",", ";")):
        return first
    return None


def mark_failed(store, version_id: int, error: str, *, drop_content: bool = False) -> None:
    """A version that could not be stored or published: status failed with the reason (its
    document too while no other version is active)."""
    from backend.store import repo
    from backend.store.models import DocumentVersion

    with store.session() as s:
        if drop_content:  # chunks and sections of a version that was never published
            repo.delete_version_content(s, version_id)
        v = s.get(DocumentVersion, version_id)
        v.status, v.error, v.is_active = "failed", error, False
        doc = v.document
        if doc.active_version_id is None:
            doc.status = "failed"
