"""Repository functions over a Session. Callers own the transaction (Store.session())."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from sqlalchemy import and_, bindparam, delete, exists, func, or_, select
from sqlalchemy.orm import Session

from backend.errors import NotFound
from backend.store.acl_models import DEFAULT_KNOWLEDGE_BASE, KnowledgeBase
from backend.store.models import (
    Chunk,
    Collection,
    CollectionDocument,
    Document,
    DocumentVersion,
    IndexMeta,
    Section,
)

# ---- collections ----------------------------------------------------------------------


def get_or_create_knowledge_base(s: Session, name: str = DEFAULT_KNOWLEDGE_BASE,
                                 description: str = "") -> KnowledgeBase:
    kb = s.scalar(select(KnowledgeBase).where(KnowledgeBase.name == name))
    if kb is None:
        kb = KnowledgeBase(name=name, description=description)
        s.add(kb)
        s.flush()
    return kb


def get_or_create_collection(s: Session, name: str, description: str = "", *,
                             knowledge_base: str | None = None) -> Collection:
    """The collection of this name; a new one goes into `knowledge_base` (default: the
    knowledge base `default`, created when missing). An existing collection stays where it
    is (backend/security/acl.py moves collections)."""
    name = name.strip()
    if not name:
        raise ValueError("collection name must not be empty")
    c = s.scalar(select(Collection).where(Collection.name == name))
    if c is None:
        kb = get_or_create_knowledge_base(s, knowledge_base or DEFAULT_KNOWLEDGE_BASE)
        c = Collection(name=name, description=description, knowledge_base_id=kb.id)
        s.add(c)
        s.flush()
    return c


def find_collection(s: Session, name: str) -> Collection | None:
    return s.scalar(select(Collection).where(Collection.name == name))


def get_collection(s: Session, name: str) -> Collection:
    c = s.scalar(select(Collection).where(Collection.name == name))
    if c is None:
        known = ", ".join(s.scalars(select(Collection.name).order_by(Collection.name))) or "none"
        raise NotFound(f"unknown collection '{name}' (known: {known})")
    return c


def list_collections(s: Session) -> list[tuple[Collection, int]]:
    q = (
        select(Collection, func.count(CollectionDocument.document_id))
        .outerjoin(CollectionDocument, CollectionDocument.collection_id == Collection.id)
        .group_by(Collection.id)
        .order_by(Collection.name)
    )
    return [(c, n) for c, n in s.execute(q)]


def link(s: Session, collection: Collection, document_id: int) -> bool:
    """Put a document into a collection; False if it was already there."""
    if s.get(CollectionDocument, (collection.id, document_id)) is not None:
        return False
    s.add(CollectionDocument(collection_id=collection.id, document_id=document_id))
    s.flush()
    return True


def memberships(s: Session, document_ids: Sequence[int]) -> dict[int, dict[str, tuple[int, ...]]]:
    """What the indexes store per chunk of these documents ({doc: {"collection": (ids)}});
    every kind of `backend.index.base.MEMBERSHIP_KINDS` is answered here."""
    out: dict[int, dict[str, list[int]]] = {int(d): {"collection": []} for d in document_ids}
    ids = list(out)
    for i in range(0, len(ids), 500):
        rows = s.execute(select(CollectionDocument.document_id, CollectionDocument.collection_id)
                         .where(CollectionDocument.document_id.in_(ids[i:i + 500])))
        for doc_id, coll_id in rows:
            out[doc_id]["collection"].append(coll_id)
    return {d: {k: tuple(sorted(v)) for k, v in m.items()} for d, m in out.items()}


_COLLECTIONS_BY_NAME = (
    select(Collection.name, Collection.id,
           exists().where(CollectionDocument.collection_id == Collection.id))
    .where(Collection.name.in_(bindparam("names", expanding=True)))
)


def collections_by_name(s: Session, names: Sequence[str]) -> dict[str, tuple[int, bool]]:
    """name -> (id, has documents) of the named collections that exist, in one query
    (unknown names are left out). Retrieval's filter calls it on every search."""
    names = list(dict.fromkeys(names))
    if not names:
        return {}
    return {name: (cid, bool(has)) for name, cid, has in
            s.connection().execute(_COLLECTIONS_BY_NAME, {"names": names})}


def collection_ids_by_name(s: Session, names: Sequence[str]) -> dict[str, int]:
    """name -> id of the named collections that exist (one query)."""
    return {n: cid for n, (cid, _) in collections_by_name(s, names).items()}


def collection_ids(s: Session, names: Sequence[str]) -> list[int]:
    """Ids of the named collections (one query); NotFound (naming the known ones) for an
    unknown name."""
    found = collection_ids_by_name(s, names)
    for n in names:
        if n not in found:
            get_collection(s, n)  # raises NotFound with the known names
    return [found[n] for n in names]


def collections_have_documents(s: Session, collection_ids: Sequence[int]) -> bool:
    q = select(CollectionDocument.document_id).where(
        CollectionDocument.collection_id.in_(list(collection_ids))).limit(1)
    return s.scalar(q) is not None


def active_chunks_of_documents(s: Session, document_ids: Sequence[int]) -> dict[int, list[str]]:
    """Chunk ids of the active versions of these documents."""
    out: dict[int, list[str]] = {}
    ids = list(document_ids)
    for i in range(0, len(ids), 500):
        q = (select(Document.id, Chunk.id)  # via the active version (chunks by version_id)
             .join(Chunk, Chunk.version_id == Document.active_version_id)
             .join(DocumentVersion, DocumentVersion.id == Chunk.version_id)
             .where(Document.id.in_(ids[i:i + 500]), DocumentVersion.is_active.is_(True),
                    DocumentVersion.status == "indexed"))
        for doc_id, cid in s.execute(q):
            out.setdefault(doc_id, []).append(cid)
    return out


def document_collections(s: Session, document_id: int) -> list[str]:
    q = (
        select(Collection.name)
        .join(CollectionDocument, CollectionDocument.collection_id == Collection.id)
        .where(CollectionDocument.document_id == document_id)
        .order_by(Collection.name)
    )
    return list(s.scalars(q))


# ---- documents and versions -----------------------------------------------------------


def version_by_sha(s: Session, sha256: str) -> DocumentVersion | None:
    """The version whose key is `sha256` (the content hash of the first version holding
    these bytes; backend/ingest/dedup.py)."""
    return s.scalar(select(DocumentVersion).where(DocumentVersion.sha256 == sha256))


def versions_with_content(s: Session, content_sha: str) -> list[DocumentVersion]:
    """Every version holding these bytes (content hash), oldest first."""
    return list(s.scalars(select(DocumentVersion)
                          .where(DocumentVersion.content_sha256 == content_sha)
                          .order_by(DocumentVersion.id)))


def document_by_source(s: Session, source_uri: str) -> Document | None:
    return s.scalar(select(Document).where(Document.source_uri == source_uri))


def get_document(s: Session, ref: int | str) -> Document:
    """By id, or by exact title / file name / source URI."""
    doc = None
    if isinstance(ref, int) or (isinstance(ref, str) and ref.isdigit()):
        doc = s.get(Document, int(ref))
    else:
        doc = s.scalar(
            select(Document)
            .where(or_(Document.title == ref, Document.filename == ref, Document.source_uri == ref))
            .order_by(Document.id)
            .limit(1)
        )
    if doc is None:
        raise NotFound(f"document '{ref}' not found")
    return doc


def get_version(s: Session, version_id: int) -> DocumentVersion:
    v = s.get(DocumentVersion, version_id)
    if v is None:
        raise NotFound(f"document version {version_id} not found")
    return v


def next_version_number(s: Session, document_id: int) -> int:
    n = s.scalar(select(func.max(DocumentVersion.number)).where(
        DocumentVersion.document_id == document_id))
    return (n or 0) + 1


@dataclass
class DocumentFilter:
    collections: Sequence[str] | None = None
    file_types: Sequence[str] | None = None
    doc_types: Sequence[str] | None = None
    source_kinds: Sequence[str] | None = None
    statuses: Sequence[str] | None = None
    document_ids: Sequence[int] | None = None
    title_contains: str | None = None
    languages: Sequence[str] | None = None  # of the active version ("de", "en")


def _document_query(f: DocumentFilter):
    q = select(Document)
    if f.collections is not None:
        sub = (
            select(CollectionDocument.document_id)
            .join(Collection, Collection.id == CollectionDocument.collection_id)
            .where(Collection.name.in_(list(f.collections)))
        )
        q = q.where(Document.id.in_(sub))
    if f.file_types is not None:
        q = q.where(Document.file_type.in_(list(f.file_types)))
    if f.doc_types is not None:
        q = q.where(Document.doc_type.in_(list(f.doc_types)))
    if f.source_kinds is not None:
        q = q.where(Document.source_kind.in_(list(f.source_kinds)))
    if f.statuses is not None:
        q = q.where(Document.status.in_(list(f.statuses)))
    if f.document_ids is not None:
        q = q.where(Document.id.in_(list(f.document_ids)))
    if f.languages is not None:
        q = q.where(Document.id.in_(select(DocumentVersion.document_id).where(
            DocumentVersion.is_active.is_(True),
            DocumentVersion.language.in_(list(f.languages)))))
    if f.title_contains:
        needle = f.title_contains.lower()  # a substring: `%` and `_` match themselves
        q = q.where(or_(func.lower(Document.title).contains(needle, autoescape=True),
                        func.lower(Document.filename).contains(needle, autoescape=True)))
    return q


def list_documents(
    s: Session, f: DocumentFilter | None = None, *, offset: int = 0, limit: int | None = 50
) -> tuple[list[Document], int]:
    """One page of documents (newest first) and the total count matching the filter."""
    q = _document_query(f or DocumentFilter())
    total = s.scalar(select(func.count()).select_from(q.subquery())) or 0
    q = q.order_by(Document.id.desc()).offset(offset)
    if limit is not None:
        q = q.limit(limit)
    return list(s.scalars(q)), total


def document_ids(s: Session, f: DocumentFilter) -> list[int]:
    q = _document_query(f).with_only_columns(Document.id)
    return list(s.scalars(q))


# ---- sections and chunks --------------------------------------------------------------


def sections_of(s: Session, version_id: int) -> list[Section]:
    return list(s.scalars(select(Section).where(Section.version_id == version_id)
                          .order_by(Section.ordinal)))


def chunks_of(s: Session, version_id: int) -> list[Chunk]:
    return list(s.scalars(select(Chunk).where(Chunk.version_id == version_id)
                          .order_by(Chunk.ordinal)))


def chunks_by_ids(s: Session, ids: Sequence[str]) -> dict[str, Chunk]:
    out: dict[str, Chunk] = {}
    ids = list(ids)
    for i in range(0, len(ids), 500):
        for c in s.scalars(select(Chunk).where(Chunk.id.in_(ids[i:i + 500]))):
            out[c.id] = c
    return out


def delete_version_content(s: Session, version_id: int) -> None:
    s.execute(delete(Chunk).where(Chunk.version_id == version_id))
    # children first (self-referencing FK)
    s.execute(delete(Section).where(Section.version_id == version_id,
                                    Section.parent_id.is_not(None)))
    s.execute(delete(Section).where(Section.version_id == version_id))


def active_chunk_ids(s: Session) -> set[str]:
    q = (
        select(Chunk.id)
        .join(DocumentVersion, DocumentVersion.id == Chunk.version_id)
        .where(and_(DocumentVersion.is_active.is_(True), DocumentVersion.status == "indexed"))
    )
    return set(s.scalars(q))


def active_versions(s: Session) -> list[DocumentVersion]:
    return list(s.scalars(select(DocumentVersion).where(
        DocumentVersion.is_active.is_(True), DocumentVersion.status == "indexed")
        .order_by(DocumentVersion.id)))


def active_chunk_count(s: Session) -> int:
    return s.scalar(
        select(func.count(Chunk.id)).join(DocumentVersion, DocumentVersion.id == Chunk.version_id)
        .where(DocumentVersion.is_active.is_(True), DocumentVersion.status == "indexed")) or 0


def counts(s: Session) -> dict[str, int]:
    return {
        "collections": s.scalar(select(func.count(Collection.id))) or 0,
        "documents": s.scalar(select(func.count(Document.id))) or 0,
        "versions": s.scalar(select(func.count(DocumentVersion.id))) or 0,
        "failed_versions": s.scalar(select(func.count(DocumentVersion.id)).where(
            DocumentVersion.status == "failed")) or 0,
        "active_chunks": s.scalar(
            select(func.count(Chunk.id)).join(DocumentVersion, DocumentVersion.id == Chunk.version_id)
            .where(DocumentVersion.is_active.is_(True), DocumentVersion.status == "indexed")) or 0,
        "sections": s.scalar(select(func.count(Section.id))) or 0,
    }


# ---- index metadata -------------------------------------------------------------------


def get_index_meta(s: Session, name: str) -> IndexMeta | None:
    return s.get(IndexMeta, name)


_INDEX_SHAPE = select(IndexMeta.chunk_count, IndexMeta.params).where(
    IndexMeta.name == bindparam("name"))


def index_shape(s: Session, name: str) -> tuple[int, dict] | None:
    """(chunk count, build parameters) of an index's guardrail record, None when there is
    none; a light read for the query path (no ORM object)."""
    row = s.connection().execute(_INDEX_SHAPE, {"name": name}).first()
    return None if row is None else (int(row[0] or 0), dict(row[1] or {}))


def put_index_meta(s: Session, name: str, backend: str, params: dict, chunk_count: int,
                   *, rebuilt: bool) -> IndexMeta:
    from backend.store.models import utcnow

    m = s.get(IndexMeta, name)
    if m is None:
        m = IndexMeta(name=name, backend=backend, params=params, chunk_count=chunk_count)
        s.add(m)
    else:
        m.backend, m.params, m.chunk_count = backend, params, chunk_count
        m.updated_at = utcnow()
        if rebuilt:
            m.built_at = utcnow()
    s.flush()
    return m
