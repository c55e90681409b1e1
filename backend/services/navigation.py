"""Document-centred reading for the HTTP API and the MCP tools: a document's full text (in
pages of characters), its sections as a flat list or a tree, one section by id, position or
query, and its original file with the metadata for a stable download link.

Every function takes the acting `Actor` and checks the document against what the actor may
read before anything is read: a document outside its scope raises the same NotFound as one
that does not exist (ids do not leak). Versions are addressed by their number within the
document (1, 2, ...); no number means the active version, else the newest."""
from __future__ import annotations

import hashlib
import mimetypes
import re
from dataclasses import dataclass

from backend.security import access
from backend.services import documents
from backend.security.access import Actor, Scope
from backend.errors import NotFound, RagscopeError
from backend.ingest.dedup import base_source
from backend.store import repo
from backend.store.models import Document, DocumentVersion

MAX_TEXT_PAGE = 200_000  # characters one fulltext/section request may return


class NavigationError(RagscopeError):
    """A navigation request is invalid (e.g. a section named two ways at once); `field`
    names the parameter."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


@dataclass
class TextPage:
    document_id: int
    version: int
    text: str
    offset: int
    limit: int
    total_chars: int

    @property
    def next_offset(self) -> int | None:
        end = self.offset + len(self.text)
        return end if end < self.total_chars else None


@dataclass
class SectionRow:
    id: int
    index: int  # position in the document's reading order (0-based)
    parent_id: int | None
    level: int
    kind: str
    title: str
    number: str | None
    start: int
    end: int
    page_start: int | None
    page_end: int | None


@dataclass
class SectionText:
    document_id: int
    version: int
    section: SectionRow
    breadcrumb: list[str]
    matched_by: str  # id | index | title | search
    page: TextPage


@dataclass
class OriginalMeta:
    document_id: int
    version: int
    filename: str
    mime: str
    size_bytes: int
    sha256: str
    source_kind: str
    source_uri: str
    available: bool


# ---- versions ------------------------------------------------------------------------------


def _version(s, scope: Scope, doc_id: int, number: int | None) -> DocumentVersion:
    """The version, after the document is checked against the scope (NotFound for a
    missing and an invisible document alike)."""
    d: Document = access.require_document(s, scope, doc_id)
    versions = sorted(d.versions, key=lambda v: v.number)
    if number is not None:
        v = next((v for v in versions if v.number == number), None)
        if v is None:
            raise NotFound(f"document {doc_id} has no version {number} (versions: "
                           f"{', '.join(str(v.number) for v in versions) or 'none'})")
        return v
    v = next((v for v in versions if v.id == d.active_version_id), None)
    if v is None and versions:
        v = versions[-1]
    if v is None:
        raise NotFound(f"document {doc_id} has no versions")
    return v


# ---- text ----------------------------------------------------------------------------------


def _page(doc_id: int, number: int, text: str, offset: int, limit: int) -> TextPage:
    if offset < 0:
        raise NavigationError("offset", "offset must be 0 or more")
    if not 1 <= limit <= MAX_TEXT_PAGE:
        raise NavigationError("limit", f"limit must lie between 1 and {MAX_TEXT_PAGE}")
    return TextPage(doc_id, number, text[offset:offset + limit], offset, limit, len(text))


def fulltext(rs, actor: Actor, doc_id: int, *, version: int | None = None, offset: int = 0,
             limit: int = 20_000) -> TextPage:
    """A page of the version's normalised text (`next_offset` continues it)."""
    scope = access.scope_of(rs, actor)
    with rs.store.session() as s:
        v = _version(s, scope, doc_id, version)
        return _page(doc_id, v.number, v.text or "", offset, limit)


def _rows(s, version_id: int) -> list[SectionRow]:
    return [SectionRow(x.id, i, x.parent_id, x.level, x.kind, x.title or "", x.number,
                       x.start, x.end, x.page_start, x.page_end)
            for i, x in enumerate(repo.sections_of(s, version_id))]


def sections(rs, actor: Actor, doc_id: int, *, version: int | None = None, offset: int = 0,
             limit: int = 100) -> tuple[int, list[SectionRow], int]:
    """(version number, one page of the sections in reading order, total sections)."""
    scope = access.scope_of(rs, actor)
    with rs.store.session() as s:
        v = _version(s, scope, doc_id, version)
        rows = _rows(s, v.id)
    return v.number, rows[offset:offset + limit], len(rows)


def structure(rs, actor: Actor, doc_id: int, *, version: int | None = None,
              max_depth: int | None = None) -> tuple[int, documents.SectionNode | None]:
    """(version number, the section tree with chunk counts), cut below `max_depth` levels."""
    scope = access.scope_of(rs, actor)
    with rs.store.session() as s:
        v = _version(s, scope, doc_id, version)
        number, vid = v.number, v.id
    root = documents.section_tree(rs, vid, scope=scope)
    if root is not None and max_depth is not None:
        def cut(n: documents.SectionNode, depth: int) -> None:
            if depth >= max_depth:
                n.children = []
            for c in n.children:
                cut(c, depth + 1)

        cut(root, 0)
    return number, root


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w.]+", " ", text.lower()).split())


def _by_title(rows: list[SectionRow], query: str) -> SectionRow | None:
    """The first section whose number or title matches the query: exact number, then the
    number followed by the title ("4.1 Smart Metering"), then the title containing it."""
    q = _norm(query)
    if not q:
        return None
    for test in (lambda r: _norm(r.number or "") == q,
                 lambda r: _norm(f"{r.number or ''} {r.title}").startswith(q) or
                 _norm(r.title).startswith(q),
                 lambda r: q in _norm(r.title)):
        hit = next((r for r in rows if r.kind != "document" and test(r)), None)
        if hit is not None:
            return hit
    return None


def _by_search(rs, scope: Scope, doc_id: int, query: str, rows: list[SectionRow]
               ) -> SectionRow | None:
    """The section of the best retrieval hit within this document."""
    from backend.retrieval import RetrievalParams, Retriever

    res = Retriever(rs).retrieve(query, RetrievalParams(
        document_ids=[doc_id], k=5, inventory="off"), scope=scope)
    ids = {r.id: r for r in rows}
    return next((ids[h.section_id] for h in res.hits if h.section_id in ids), None)


def section(rs, actor: Actor, doc_id: int, *, section_id: int | None = None,
            index: int | None = None, query: str | None = None, version: int | None = None,
            offset: int = 0, limit: int = 20_000) -> SectionText:
    """One section's text, named by exactly one of: its id, its index in reading order, or
    a query (matched against numbers and titles first, then searched in the document)."""
    given = [n for n, v in (("section_id", section_id), ("index", index), ("query", query))
             if v is not None and v != ""]
    if len(given) != 1:
        raise NavigationError(given[1] if len(given) > 1 else "section_id",
                              "name the section by exactly one of section_id, index or query")
    scope = access.scope_of(rs, actor)
    with rs.store.session() as s:
        v = _version(s, scope, doc_id, version)
        number, vid, text = v.number, v.id, v.text or ""
        rows = _rows(s, vid)
    row, how = None, given[0]
    if section_id is not None:
        row = next((r for r in rows if r.id == section_id), None)
        if row is None:
            raise NotFound(f"document {doc_id} version {number} has no section {section_id}")
    elif index is not None:
        if not 0 <= index < len(rows):
            raise NotFound(f"document {doc_id} version {number} has {len(rows)} sections; "
                           f"index {index} is out of range (0 to {len(rows) - 1})")
        row = rows[index]
    else:
        row, how = _by_title(rows, query), "title"
        if row is None:
            row, how = _by_search(rs, scope, doc_id, query, rows), "search"
        if row is None:
            raise NotFound(f"no section of document {doc_id} matches {query!r}")
    by_id = {r.id: r for r in rows}
    crumbs, p = [], row
    while p is not None:
        if p.kind != "document":
            crumbs.append(p.title or p.kind)
        p = by_id.get(p.parent_id) if p.parent_id else None
    page = _page(doc_id, number, text[row.start:row.end], offset, limit)
    return SectionText(doc_id, number, row, crumbs[::-1], how, page)


# ---- originals ----------------------------------------------------------------------------


def original_meta(rs, actor: Actor, doc_id: int, *,
                  version: int | None = None) -> OriginalMeta:
    scope = access.scope_of(rs, actor)
    with rs.store.session() as s:
        v = _version(s, scope, doc_id, version)
        d = v.document
        name = v.filename or d.filename
        available = bool(v.original_path) and (rs.settings.originals_dir
                                               / v.original_path).is_file()
        return OriginalMeta(doc_id, v.number, name,
                            mimetypes.guess_type(name)[0] or "application/octet-stream",
                            v.size_bytes, v.content_sha256 or v.sha256, d.source_kind,
                            base_source(d.source_uri), available)


def original(rs, actor: Actor, doc_id: int, *,
             version: int | None = None) -> documents.Original:
    """The stored original file; its bytes are checked against the recorded SHA-256."""
    scope = access.scope_of(rs, actor)
    with rs.store.session() as s:
        v = _version(s, scope, doc_id, version)
        vid, sha = v.id, v.content_sha256 or v.sha256
    orig = documents.original_file(rs, vid, scope=scope)
    if hashlib.sha256(orig.data).hexdigest() != sha:
        raise NotFound(f"the stored original of document {doc_id} does not match its "
                       "recorded checksum; run `python -m backend check`")
    return orig
