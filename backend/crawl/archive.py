"""Archiving of documents whose page or file disappeared, and restoring them when they come
back. An archived document keeps all its versions in the store; its active version is taken
out of both indexes (so it is no longer found) and remembered in `meta["archived_version_id"]`.
Uses the Ingestor's index writer (`ingestor.index.deactivate`) and public `activate`."""
from __future__ import annotations

from backend.ingest.service import Ingestor
from backend.store.models import Document, utcnow


def archive_document(ingestor: Ingestor, doc_id: int, reason: str) -> bool:
    """Archive a document; False when it was not active (already archived, failed, gone)."""
    with ingestor.store.session() as s:
        doc = s.get(Document, doc_id)
        if doc is None or doc.status == "archived":
            return False
        version_id = doc.active_version_id
    with ingestor.rs.index_lock.hold("archive a document"):
        removed = ingestor.index.deactivate(version_id) if version_id else 0
        with ingestor.store.session() as s:
            doc = s.get(Document, doc_id)
            doc.status = "archived"
            doc.active_version_id = None
            doc.meta = {**(doc.meta or {}), "archived_version_id": version_id,
                        "archived_reason": reason, "archived_at": utcnow().isoformat()}
        if removed:
            ingestor.index.record_counts()
    return True


def restore_document(ingestor: Ingestor, doc_id: int, version_id: int | None = None) -> bool:
    """Make an archived document searchable again with `version_id` (default: the version
    active when it was archived). False when the document is not archived."""
    with ingestor.store.session() as s:
        doc = s.get(Document, doc_id)
        if doc is None or doc.status != "archived":
            return False
        version_id = version_id or (doc.meta or {}).get("archived_version_id")
        meta = {k: v for k, v in (doc.meta or {}).items() if not k.startswith("archived_")}
        doc.meta = meta
    if version_id:
        ingestor.activate(version_id)  # re-adds to both indexes, sets status active
    else:
        with ingestor.store.session() as s:
            s.get(Document, doc_id).status = "failed"
    return True


def is_archived(ingestor: Ingestor, doc_id: int) -> bool:
    with ingestor.store.session() as s:
        doc = s.get(Document, doc_id)
        return doc is not None and doc.status == "archived"
