"""Store lookups for retrieval: candidate chunk rows with their document, section paths for
the final hits, and small-to-big expansion. Few queries, each on indexed keys."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from backend.store.models import Chunk, Document, DocumentVersion, Section


@dataclass
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


_SECTIONS = (
    select(Section.id, Section.parent_id, Section.title, Section.kind, Section.start,
           Section.end).where(Section.version_id.in_(bindparam("versions", expanding=True)))
)


def section_paths(s: Session, version_ids: set[int], section_ids: set[int] | None = None
                  ) -> dict[int, tuple[list[str], str, int, int]]:
    """section id -> (breadcrumb titles without the root, title, start, end), for every
    section of the versions or only `section_ids` among them (the hits'); one query."""
    if not version_ids:
        return {}
    rows = s.connection().execute(_SECTIONS, {"versions": sorted(version_ids)}).all()
    by_id = {r[0]: r for r in rows}
    wanted = by_id if section_ids is None else [i for i in section_ids if i in by_id]
    out: dict[int, tuple[list[str], str, int, int]] = {}
    for sid in wanted:
        _, _, title, _, start, end = by_id[sid]
        path = []
        cur = by_id.get(sid)
        while cur is not None:
            if cur[3] != "document":
                path.append(cur[2])
            cur = by_id.get(cur[1]) if cur[1] is not None else None
        out[sid] = (list(reversed(path)), title, start, end)
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
