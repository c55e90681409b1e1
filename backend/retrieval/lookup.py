"""Store lookups for retrieval: candidate chunk rows with their document, section paths for
the final hits, and small-to-big expansion. Few queries, each on indexed keys.

A search's candidate rows (`current_chunk_infos`) are kept in the process while the store's
`content` generation is unchanged (migration 0030: the database bumps it with every change
of a document, version or chunk row, whoever makes it; backend/store/generation_cache.py):
reading ~76 rows with their document and version cost ~1 ms CPU of each search, mostly
SQLite's own work."""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Sequence

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from backend.store import generation_cache
from backend.store.models import Chunk, Document, DocumentVersion, Section

_CONTENT_GENERATION = generation_cache.store_counter("content")


@dataclass(frozen=True)  # shared by the searches of a process (current_chunk_infos)
class ChunkInfo:
    chunk_id: str
    document_id: int
    version_id: int
    section_id: int | None
    ordinal: int
    start: int
    end: int
    page: int | None
    page_end: int | None
    text: str
    title: str
    filename: str
    doc_type: str
    file_type: str
    source_uri: str
    version_number: int
    original_path: str | None
    active: bool


_CHUNK_INFO = (
    select(Chunk.id, Chunk.document_id, Chunk.version_id, Chunk.section_id, Chunk.ordinal,
           Chunk.start, Chunk.end, Chunk.page, Chunk.page_end, Chunk.text,
           Document.title, Document.filename, Document.doc_type, Document.file_type,
           Document.source_uri, DocumentVersion.number, DocumentVersion.original_path,
           DocumentVersion.is_active)
    .join(Document, Document.id == Chunk.document_id)
    .join(DocumentVersion, DocumentVersion.id == Chunk.version_id)
    .where(Chunk.id.in_(bindparam("ids", expanding=True)))
)


def chunk_infos(s: Session, ids: Sequence[str]) -> dict[str, ChunkInfo]:
    """One Core query per 500 ids (no ORM objects: this is on the query hot path)."""
    out: dict[str, ChunkInfo] = {}
    ids = list(ids)
    conn = s.connection()
    for i in range(0, len(ids), 500):
        for row in conn.execute(_CHUNK_INFO, {"ids": ids[i:i + 500]}):
            out[row[0]] = ChunkInfo(*row)
    return out


def current_chunk_infos(engine, ids: Sequence[str]) -> dict[str, ChunkInfo]:
    """`chunk_infos` as of the store's current content generation (cached; see the module
    doc). Missing rows are read in a transaction begun after the counter was read."""
    def read(missing: list[str]) -> dict[str, ChunkInfo]:
        with Session(engine) as s:
            return chunk_infos(s, missing)

    return generation_cache.for_engine(engine, _CONTENT_GENERATION).get_many(ids, read)


_SECTIONS = (
    select(Section.id, Section.parent_id, Section.title, Section.kind, Section.start,
           Section.end, Section.version_id)
    .where(Section.version_id.in_(bindparam("versions", expanding=True)))
)

SectionPath = tuple[list[str], str, int, int]  # breadcrumb titles without the root, title, start, end


def _read_paths(s: Session, version_ids: set[int]) -> dict[int, dict[int, SectionPath]]:
    """version id -> section id -> path, for every section of the versions; one query."""
    rows = s.connection().execute(_SECTIONS, {"versions": sorted(version_ids)}).all()
    by_id = {r[0]: r for r in rows}
    out: dict[int, dict[int, SectionPath]] = {v: {} for v in version_ids}
    for sid, (_, _, title, _, start, end, version) in by_id.items():
        path = []
        cur = by_id.get(sid)
        while cur is not None:
            if cur[3] != "document":
                path.append(cur[2])
            cur = by_id.get(cur[1]) if cur[1] is not None else None
        out.setdefault(version, {})[sid] = (list(reversed(path)), title, start, end)
    return out


def section_paths(s: Session, version_ids: set[int], section_ids: set[int] | None = None
                  ) -> dict[int, SectionPath]:
    """section id -> (breadcrumb titles without the root, title, start, end), for every
    section of the versions or only `section_ids` among them (the hits'); one query."""
    if not version_ids:
        return {}
    out: dict[int, SectionPath] = {}
    for secs in _read_paths(s, set(version_ids)).values():
        out.update(secs if section_ids is None else
                   {sid: secs[sid] for sid in section_ids if sid in secs})
    return out


class SectionPathCache:
    """The section paths of recently retrieved versions, so a query's breadcrumbs cost no
    store read when its versions were seen before (0.7-0.9 ms per query at 100k chunks
    otherwise: docs/benchmarks.md). A version's sections never change once indexed; the cache
    is emptied whenever the data dir's index generation changes (every ingest, delete or
    reindex bumps it), so a deleted version's id that SQLite reuses never meets an old entry
    (PostgreSQL never reuses ids)."""

    def __init__(self, generation: Callable[[], str], max_versions: int = 4096):
        self._generation = generation
        self._max = max_versions
        self._seen: str | None = None
        self._versions: OrderedDict[int, dict[int, SectionPath]] = OrderedDict()
        self._lock = threading.Lock()

    def paths(self, session_factory: Callable, version_ids: set[int], section_ids: set[int]
              ) -> dict[int, SectionPath]:
        """section id -> path for `section_ids` of `version_ids`; versions not cached are
        read in one query (and only then is a session opened)."""
        gen = self._generation()
        with self._lock:
            if gen != self._seen:
                self._versions.clear()
                self._seen = gen
            known = {v: self._versions[v] for v in version_ids if v in self._versions}
            for v in known:
                self._versions.move_to_end(v)
        missing = set(version_ids) - set(known)
        if missing:
            with session_factory() as s:
                fresh = _read_paths(s, missing)
            known.update(fresh)
            with self._lock:
                if gen == self._seen:  # not if a write came in between
                    self._versions.update(fresh)
                    while len(self._versions) > self._max:
                        self._versions.popitem(last=False)
        out: dict[int, SectionPath] = {}
        for secs in known.values():
            out.update({sid: secs[sid] for sid in section_ids if sid in secs})
        return out


def neighbour_chunks(s: Session, version_id: int, ordinal: int, radius: int) -> list[Chunk]:
    return list(s.scalars(
        select(Chunk).where(Chunk.version_id == version_id,
                            Chunk.ordinal.between(ordinal - radius, ordinal + radius))
        .order_by(Chunk.ordinal)))


def section_chunks(s: Session, section_id: int) -> list[Chunk]:
    return list(s.scalars(select(Chunk).where(Chunk.section_id == section_id)
                          .order_by(Chunk.ordinal)))


def version_slice(s: Session, version_id: int, start: int, end: int) -> str:
    text = s.scalar(select(DocumentVersion.text).where(DocumentVersion.id == version_id)) or ""
    return text[start:end]
