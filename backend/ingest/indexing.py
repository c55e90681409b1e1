"""Index helpers of the Ingestor (mixed in): chunk rows -> index entries, embedding, adding
and removing entries under the data dir's index write lock, taking a version out, and the
collection tokens of documents that join a collection (backend/ingest/memberships.py)."""
from __future__ import annotations

from backend.index.base import IndexedChunk
from backend.ingest.memberships import fill as fill_memberships
from backend.ingest.memberships import sync as sync_memberships
from backend.store import repo
from backend.store.models import Chunk, Document, DocumentVersion


class IndexingMixin:
    _links_waiting: list[int] | None = None  # a list while a pipeline batch runs

    @staticmethod
    def _indexed(c: Chunk, doc: Document, section_title: str, lang: str) -> IndexedChunk:
        return IndexedChunk(chunk_id=c.id, text=c.text, document_id=doc.id,
                            version_id=c.version_id, doc_type=doc.doc_type, title=doc.title,
                            filename=doc.filename, section_title=section_title, language=lang)

    def _encode(self, chunks: list[IndexedChunk]):
        return self.rs.embedder.encode([c.text for c in chunks]) if chunks else []

    def _add_to_indexes(self, chunks: list[IndexedChunk], embeddings=None) -> None:
        """Add chunks to both indexes (embedding them first unless given)."""
        if not chunks:
            return
        if embeddings is None:
            embeddings = self._encode(chunks)
        with self.rs.index_lock.hold("add chunks"):
            fill_memberships(self, chunks)  # the store's state, under the lock
            self.rs.vector_index.add(chunks, embeddings)
            self.rs.keyword_index.add(chunks)

    def _deactivate(self, version_id: int) -> int:
        """Take a version out of the indexes (it stays in the store, inactive)."""
        with self.rs.index_lock.hold("deactivate a version"):
            with self.store.session() as s:
                ids = [c.id for c in repo.chunks_of(s, version_id)]
                v = s.get(DocumentVersion, version_id)
                v.is_active = False
            self._delete_from_indexes(ids)
        return len(ids)

    def _delete_from_indexes(self, ids: list[str], *, tolerant: bool = False) -> list[str]:
        """Delete entries from both indexes. `tolerant`: an index that cannot be reached
        does not stop the other; returns what could not be done (the entries stay as
        orphans for `check --repair`)."""
        failed: list[str] = []
        if not ids:
            return failed
        with self.rs.index_lock.hold("delete chunks"):
            for name, index in (("vector", self.rs.vector_index),
                                ("keyword", self.rs.keyword_index)):
                try:
                    index.delete(ids)
                except Exception as e:  # noqa: BLE001 - reported, see above
                    if not tolerant:
                        raise
                    failed.append(f"{name} index: {len(ids)} entries not deleted ({e})")
        return failed


    # ---- collection tokens of documents already indexed ---------------------------------

    def _link(self, s, collection: str | None, doc: Document, linked: list[int]) -> None:
        """Put the document into the collection; note it when its indexed chunks must learn
        (backend/ingest/memberships.py)."""
        if collection and repo.link(s, self._collection(s, collection), doc.id) \
                and doc.active_version_id is not None:
            linked.append(doc.id)

    def _linked(self, doc_ids: list[int], defer: bool) -> None:
        """Documents whose indexed chunks joined a collection: rewrite their tokens now, or,
        in a pipeline batch, together with the batch (`sync_links`)."""
        if defer and self._links_waiting is not None:
            self._links_waiting.extend(doc_ids)
        elif doc_ids:
            sync_memberships(self, doc_ids)

    def sync_links(self) -> None:
        if self._links_waiting:
            sync_memberships(self, self._links_waiting)
            self._links_waiting.clear()
