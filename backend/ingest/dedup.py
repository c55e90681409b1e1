"""Deduplication inside access boundaries (docs/security.md, "Deduplication").

Identical bytes used to be one version of one document, linked into every collection they
were uploaded to: an uploader who sent a copy of a document it could not read had that
document linked into its own collection and could read it from then on, with its later
versions and its source path, and the outcome said `duplicate` and named the document's id.

The rule now: stored content is reused only when the uploader may already read it. The
`Scope` of the ingest (the caller's, or for a crawl or watched folder without a caller the
readers of its collection's knowledge base) decides:

* by content hash: a version holding the same bytes is linked (`duplicate`/`unchanged`),
  retried in place when it failed, or joined when the same batch stored it, only when its
  document is readable in the scope; otherwise the file becomes a version of a document of
  the uploader's own, processed like any new file (extracted, chunked, embedded: no
  outcome, error, count or timing differs from content never seen);
* by source (`upload://name`, a path, a URL): the document of that source is used only
  when the scope may read it and write every collection it is in; otherwise the file gets
  a source of its own, `<source>#in=<collection>` (`own_source`).

Such a private copy needs its own version key and chunk ids: `DocumentVersion.sha256`
stays unique and is the content hash for the first version holding the bytes and a key
derived from it and the document for every further one (`version_key`); chunk ids and
analysis caches follow the key, so nothing of the other document is shared. The content
hash itself is `content_sha256` (indexed, not unique; migration 0019). Originals are stored
once per content and deleted with the last version that uses them."""
from __future__ import annotations

import hashlib
import itertools

from backend.security import access
from backend.security.access import Scope
from backend.store import repo
from backend.store.models import Document, DocumentVersion

SOURCE_MARK = "#in="


def dedup_scope(scope: Scope | None, collection: str | None) -> Scope:
    """The scope deduplication works in: None (the operator) reads everything; the target
    collection is always readable (the uploader writes there, and it may not exist yet when
    the caller computed its scope)."""
    if scope is None or scope.unrestricted or not collection:
        return scope if scope is not None else Scope.everything()
    return Scope(scope.readable | {collection}, (scope.writable or frozenset()) | {collection},
                 scope.readable_kbs, scope.writable_kbs)


def readable_versions(s, content_sha: str, scope: Scope) -> tuple[list[DocumentVersion], bool]:
    """(the versions holding these bytes whose document the scope may read, oldest first;
    whether any version holds them at all)."""
    found = repo.versions_with_content(s, content_sha)
    if not found or scope.unrestricted:
        return found, bool(found)
    visible = access.visible_document_ids(s, scope, {v.document_id for v in found})
    return [v for v in found if v.document_id in visible], True


def reusable(readable: list[DocumentVersion], job_id: int,
             source_uri: str) -> DocumentVersion | None:
    """Which of the readable versions with these bytes an ingest reuses: an indexed one
    (linked), else one this batch is storing (the same file twice), else a failed or
    interrupted one of the same source (retried in place; another file's failed record
    keeps its own message)."""
    def storing(v: DocumentVersion) -> bool:
        return v.status in ("pending", "indexing") and (v.meta or {}).get("job_id") == job_id

    return (next((v for v in readable if v.status == "indexed"), None)
            or next((v for v in readable if storing(v)), None)
            or next((v for v in readable if v.status not in ("pending", "indexing")
                     and v.document.source_uri == source_uri), None))


def version_key(s, content_sha: str, document_id: int, held: bool) -> str:
    """The unique key of a new version of `document_id` holding these bytes: the content
    hash when no version holds them yet (`held` False), else derived from it and the
    document."""
    if not held and repo.version_by_sha(s, content_sha) is None:
        return content_sha
    for n in itertools.count():
        key = hashlib.sha256(f"{content_sha}:document:{document_id}:{n}".encode()).hexdigest()
        if repo.version_by_sha(s, key) is None:
            return key
    raise AssertionError("unreachable")


def usable_source(s, doc: Document, scope: Scope) -> bool:
    """May a file from this document's source become its new version? Only when the scope
    reads it and writes every collection it is in (as changing a document needs)."""
    if scope.unrestricted:
        return True
    if not access.document_visible(s, scope, doc.id):
        return False
    return all(scope.can_write(c) for c in repo.document_collections(s, doc.id))


def own_source(s, source_uri: str, collection: str, scope: Scope) -> str:
    """`source_uri`, or when its document may not be used, the uploader's own source for it
    in `collection` (`<source>#in=<collection>`, numbered if that is taken as well)."""
    doc = repo.document_by_source(s, source_uri)
    if doc is None or usable_source(s, doc, scope):
        return source_uri
    for n in itertools.count(1):
        uri = f"{source_uri}{SOURCE_MARK}{collection}" + (f"-{n}" if n > 1 else "")
        doc = repo.document_by_source(s, uri)
        if doc is None or usable_source(s, doc, scope):
            return uri
    raise AssertionError("unreachable")


def base_source(source_uri: str) -> str:
    """The source a document's `source_uri` names (without an `own_source` suffix)."""
    return source_uri.split(SOURCE_MARK, 1)[0]


def original_in_use(s, rel: str, document_id: int) -> bool:
    """Does a version of another document use this stored original?"""
    from sqlalchemy import select

    return s.scalar(select(DocumentVersion.id).where(
        DocumentVersion.original_path == rel,
        DocumentVersion.document_id != document_id).limit(1)) is not None
