"""What the dashboard's explorer, document and structure pages read: thin wrappers over the
repository that return plain dataclasses (picklable for st.cache_data; no ORM objects,
sessions or index clients reach the pages). Changing documents (upload, activate, delete,
reindex) is backend/services/document_actions.py; the home page's status
backend/services/system.py; a DOC argument to an id `access.resolve_document`.

ACL before retrieval: every read takes the caller's `Scope` (backend/security/access.py) and
applies it in the query itself: listings, counts and facets cover only documents in readable
collections, and an id outside the scope raises the NotFound of a missing one."""
from __future__ import annotations

import mimetypes
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Iterable, Sequence

from sqlalchemy import distinct, func, select

from backend.security import access
from backend.security.access import Scope
from backend.errors import NotFound
from backend.ingest.dedup import base_source
from backend.services.container import Ragscope
from backend.store import repo
from backend.store import tags as store_tags
from backend.store.models import (
    Chunk,
    Collection,
    CollectionDocument,
    Document,
    DocumentVersion,
)

PAGE_SIZES = (10, 25, 50, 100)


@dataclass(frozen=True)
class ExplorerFilter:
    """Widget values of the explorer. Empty tuples mean "no restriction"."""

    collections: tuple[str, ...] = ()
    file_types: tuple[str, ...] = ()
    doc_types: tuple[str, ...] = ()
    source_kinds: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    title: str = ""
    text: str = ""  # substring of the active version's text
    tags: tuple[str, ...] = ()  # any of these tags (docs/tags.md)


@dataclass
class FilterOptions:
    collections: list[str]
    file_types: list[str]
    doc_types: list[str]
    source_kinds: list[str]
    statuses: list[str]


@dataclass
class DocumentRow:
    id: int
    title: str
    filename: str
    file_type: str
    doc_type: str
    source_kind: str
    status: str
    active_version: int | None
    versions: int
    collections: list[str]
    updated_at: datetime | None
    tags: list[str] = field(default_factory=list)


@dataclass
class DocumentPage:
    rows: list[DocumentRow]
    total: int
    page: int
    page_size: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.page_size))


@dataclass
class VersionInfo:
    id: int
    number: int
    status: str
    is_active: bool
    size_bytes: int
    sha256: str
    filename: str
    page_count: int | None
    language: str
    chunks: int
    created_at: datetime | None
    error: str | None
    has_original: bool


@dataclass
class DocumentDetail:
    id: int
    title: str
    filename: str
    file_type: str
    doc_type: str
    source_kind: str
    source_uri: str
    status: str
    meta: dict
    collections: list[str]
    active_version_id: int | None
    versions: list[VersionInfo]
    created_at: datetime | None
    updated_at: datetime | None


def _names_number(title: str, number: str) -> bool:
    """Does the title's beginning carry the heading's number ("1" of "Item 1", "3.2" of
    "3.2")? Compared as the number's last token, whole, within the first words."""
    if title.startswith(number):
        return True
    core = number.split()[-1].strip(".:)") if number.split() else ""
    if not core:
        return False
    head = " ".join(title.split()[:4])
    return re.search(rf"(?<![\w.]){re.escape(core)}(?!\w|\.\d)", head) is not None


@dataclass
class SectionNode:
    """One node of a version's section tree, with its children nested."""

    id: int
    parent_id: int | None
    level: int
    kind: str
    title: str
    number: str | None
    start: int
    end: int
    page_start: int | None
    page_end: int | None
    chunks: int  # chunks whose section is this one
    subtree_chunks: int = 0  # ... or one below it
    children: list["SectionNode"] = field(default_factory=list)

    @property
    def chars(self) -> int:
        return max(0, self.end - self.start)

    @property
    def label(self) -> str:
        """The title, with the number in front unless the title names it already: "Item 1"
        before "Agenda item 1: Budget" read "Item 1 Agenda item 1: Budget" (issue 23)."""
        title = self.title or self.kind
        if not self.number or _names_number(title, self.number):
            return title.strip()
        return f"{self.number} {title}".strip()

    def walk(self) -> Iterable["SectionNode"]:
        yield self
        for c in self.children:
            yield from c.walk()


@dataclass
class ChunkInfo:
    id: str
    ordinal: int
    section_id: int | None
    section: str
    start: int
    end: int
    page: int | None
    page_end: int | None
    text: str


@dataclass
class Original:
    filename: str
    mime: str
    data: bytes


# ---- listing ------------------------------------------------------------------------------


def filter_options(rs: Ragscope, *, scope: Scope) -> FilterOptions:
    """The explorer's facets: values that occur among the documents the scope may read."""
    with rs.store.session() as s:
        def values(col) -> list[str]:
            q = access.visible_documents(select(distinct(col)), scope).order_by(col)
            return [v for v in s.scalars(q) if v]

        return FilterOptions(
            collections=scope.only_readable(c.name for c, _ in repo.list_collections(s)),
            file_types=values(Document.file_type), doc_types=values(Document.doc_type),
            source_kinds=values(Document.source_kind), statuses=values(Document.status))


def _id_filter(s, f: ExplorerFilter, scope: Scope) -> list[int] | None:
    """Document ids the text and tag filters leave (None: neither is set)."""
    ids = _text_match_ids(s, f.text.strip(), scope) if f.text.strip() else None
    if f.tags:
        tagged = store_tags.documents_with(s, store_tags.keys(f.tags))
        ids = sorted(tagged if ids is None else tagged & set(ids))
    return ids


def _text_match_ids(s, needle: str, scope: Scope) -> list[int]:
    q = (select(DocumentVersion.document_id)
         .where(DocumentVersion.is_active.is_(True),
                func.lower(DocumentVersion.text).contains(needle.lower(), autoescape=True)))
    return list(s.scalars(access.visible_documents(q, scope, DocumentVersion.document_id)))


def list_documents(rs: Ragscope, f: ExplorerFilter, page: int = 1,
                   page_size: int = 25, *, scope: Scope, offset: int | None = None
                   ) -> DocumentPage:
    """One page of documents matching the filter (newest first) among those the scope may
    read; the total counts only those. Only that page is loaded; versions and collections
    of its rows come in two batched queries (collections: the readable ones only).
    `offset` (the API): the rows from there on, instead of `page`, never clamped."""
    page_size = max(1, min(int(page_size), 500))
    page = max(1, int(page))
    start = (page - 1) * page_size if offset is None else max(0, int(offset))
    collections = scope.collections(f.collections or None)  # NotFound outside the scope
    with rs.store.session() as s:
        flt = repo.DocumentFilter(
            collections=collections, file_types=f.file_types or None,
            doc_types=f.doc_types or None, source_kinds=f.source_kinds or None,
            statuses=f.statuses or None, title_contains=f.title.strip() or None,
            document_ids=_id_filter(s, f, scope))
        docs, total = repo.list_documents(s, flt, offset=start, limit=page_size)
        if not docs and total and page > 1 and offset is None:  # the page vanished: clamp
            page = max(1, -(-total // page_size))
            docs, total = repo.list_documents(s, flt, offset=(page - 1) * page_size,
                                              limit=page_size)
        ids = [d.id for d in docs]
        nver: dict[int, int] = dict(s.execute(
            select(DocumentVersion.document_id, func.count(DocumentVersion.id))
            .where(DocumentVersion.document_id.in_(ids)).group_by(DocumentVersion.document_id)
        ).all()) if ids else {}
        active_nr: dict[int, int] = dict(s.execute(
            select(DocumentVersion.document_id, DocumentVersion.number)
            .where(DocumentVersion.document_id.in_(ids), DocumentVersion.is_active.is_(True))
        ).all()) if ids else {}
        colls: dict[int, list[str]] = {}
        if ids:
            for doc_id, name in s.execute(
                    select(CollectionDocument.document_id, Collection.name)
                    .join(Collection, Collection.id == CollectionDocument.collection_id)
                    .where(CollectionDocument.document_id.in_(ids)).order_by(Collection.name)):
                if scope.can_read(name):
                    colls.setdefault(doc_id, []).append(name)
        rows = [DocumentRow(d.id, d.title, d.filename, d.file_type, d.doc_type, d.source_kind,
                            d.status, active_nr.get(d.id), nver.get(d.id, 0),
                            colls.get(d.id, []), d.updated_at) for d in docs]
        tagged = store_tags.names_by_document(s, ids) if ids else {}
    for r in rows:
        r.tags = tagged.get(r.id, [])
    return DocumentPage(rows, total, page, page_size)


# ---- one document -------------------------------------------------------------------------


def document_detail(rs: Ragscope, doc_id: int, *, scope: Scope) -> DocumentDetail:
    """NotFound for a missing document and for one outside the scope alike."""
    with rs.store.session() as s:
        d = access.require_document(s, scope, doc_id)
        nchunks = dict(s.execute(
            select(Chunk.version_id, func.count(Chunk.id))
            .join(DocumentVersion, DocumentVersion.id == Chunk.version_id)
            .where(DocumentVersion.document_id == d.id).group_by(Chunk.version_id)).all())
        versions = [VersionInfo(v.id, v.number, v.status, bool(v.is_active), v.size_bytes,
                                (v.content_sha256 or v.sha256), v.filename, v.page_count,
                                v.language or "",
                                nchunks.get(v.id, 0), v.created_at, v.error,
                                bool(v.original_path))
                    for v in sorted(d.versions, key=lambda v: v.number, reverse=True)]
        return DocumentDetail(d.id, d.title, d.filename, d.file_type, d.doc_type, d.source_kind,
                              base_source(d.source_uri), d.status, dict(d.meta or {}),
                              scope.only_readable(repo.document_collections(s, d.id)),
                              d.active_version_id, versions,
                              d.created_at, d.updated_at)


def default_version_id(rs: Ragscope, doc_id: int, *, scope: Scope) -> int | None:
    """The active version, else the newest one."""
    detail = document_detail(rs, doc_id, scope=scope)
    if detail.active_version_id:
        return detail.active_version_id
    return detail.versions[0].id if detail.versions else None


def section_tree(rs: Ragscope, version_id: int, *, scope: Scope) -> SectionNode | None:
    """The version's sections as a tree (root = the document node), with chunk counts."""
    with rs.store.session() as s:
        access.require_version(s, scope, version_id)
        secs = repo.sections_of(s, version_id)
        per_section = dict(s.execute(
            select(Chunk.section_id, func.count(Chunk.id)).where(Chunk.version_id == version_id)
            .group_by(Chunk.section_id)).all())
        nodes = {x.id: SectionNode(x.id, x.parent_id, x.level, x.kind, x.title or "", x.number,
                                   x.start, x.end, x.page_start, x.page_end,
                                   per_section.get(x.id, 0)) for x in secs}
    roots = []
    for n in nodes.values():  # sections come in document order (ordinal)
        parent = nodes.get(n.parent_id) if n.parent_id else None
        (parent.children if parent else roots).append(n)
    if not roots:
        return None
    if len(roots) == 1:
        root = roots[0]
    else:  # no single document node: make one
        root = SectionNode(0, None, 0, "document", "", None, min(r.start for r in roots),
                           max(r.end for r in roots), None, None, 0, children=roots)

    def total(n: SectionNode) -> int:
        n.subtree_chunks = n.chunks + sum(total(c) for c in n.children)
        return n.subtree_chunks

    total(root)
    return root


def version_text(rs: Ragscope, version_id: int, start: int | None = None,
                 end: int | None = None, *, scope: Scope) -> str:
    """The normalised text of a version, or the [start, end) slice of it."""
    with rs.store.session() as s:
        v = access.require_version(s, scope, version_id)
        text = v.text or ""
    return text[start or 0: end if end is not None else len(text)]


def section_text(rs: Ragscope, version_id: int, section_id: int, *, scope: Scope) -> str:
    with rs.store.session() as s:
        access.require_version(s, scope, version_id)
        sec = next((x for x in repo.sections_of(s, version_id) if x.id == section_id), None)
        if sec is None:
            raise NotFound(f"section {section_id} not found in version {version_id}")
        start, end = sec.start, sec.end
    return version_text(rs, version_id, start, end, scope=scope)


def chunks_of(rs: Ragscope, version_id: int, section_ids: Sequence[int] | None = None, *,
              scope: Scope) -> list[ChunkInfo]:
    """Chunks of a version (of the given sections only, when named), in order."""
    with rs.store.session() as s:
        access.require_version(s, scope, version_id)
        titles = {x.id: x.title for x in repo.sections_of(s, version_id)}
        wanted = set(section_ids) if section_ids is not None else None
        return [ChunkInfo(c.id, c.ordinal, c.section_id, titles.get(c.section_id, ""), c.start,
                          c.end, c.page, c.page_end, c.text)
                for c in repo.chunks_of(s, version_id)
                if wanted is None or c.section_id in wanted]


def original_file(rs: Ragscope, version_id: int, *, scope: Scope) -> Original:
    with rs.store.session() as s:
        v = access.require_version(s, scope, version_id)
        rel, name = v.original_path, v.filename or v.document.filename
    if not rel:
        raise NotFound(f"version {version_id} has no stored original")
    path = rs.settings.originals_dir / rel
    if not path.is_file():
        raise NotFound(f"the original of version {version_id} is missing from {path.parent}")
    mime = mimetypes.guess_type(name)[0] or "application/octet-stream"
    return Original(name, mime, path.read_bytes())
