"""Index writes of ingestion, as collaborators that the Ingestor (backend/ingest/service.py)
and its other parts receive: `IndexWriter` turns chunk rows into index entries, embeds them,
adds and removes entries under the data dir's index write lock, takes a version out and
records the index counts; `Links` puts documents into collections and rewrites the collection
tokens of documents that join one after their chunks are indexed
(backend/ingest/memberships.py)."""
from __future__ import annotations

from backend.index.base import IndexedChunk
from backend.ingest.memberships import fill as fill_memberships
from backend.ingest.memberships import sync as sync_memberships
from backend.store import repo
from backend.store.models import Chunk, Document, DocumentVersion


class IndexWriter:
    """Both indexes of one `Ragscope`, written the way ingestion writes them."""

    def __init__(self, rs):
        self.rs, self.store = rs, rs.store

    @staticmethod
    def indexed(c: Chunk, doc: Document, section_title: str, lang: str) -> IndexedChunk:
        return IndexedChunk(chunk_id=c.id, text=c.text, document_id=doc.id,
                            version_id=c.version_id, doc_type=doc.doc_type, title=doc.title,
                            filename=doc.filename, section_title=section_title, language=lang)

    def encode(self, chunks: list[IndexedChunk]):
        return self.rs.embedder.encode([c.text for c in chunks]) if chunks else []

    def add(self, chunks: list[IndexedChunk], embeddings=None) -> None:
        """Add chunks to both indexes (embedding them first unless given)."""
        if not chunks:
            return
        if embeddings is None:
            embeddings = self.encode(chunks)
        with self.rs.index_lock.hold("add chunks"):
            fill_memberships(self.rs, chunks)  # the store's state, under the lock
            self.rs.vector_index.add(chunks, embeddings)
            self.rs.keyword_index.add(chunks)

    def deactivate(self, version_id: int) -> int:
        """Take a version out of the indexes (it stays in the store, inactive)."""
        with self.rs.index_lock.hold("deactivate a version"):
            with self.store.session() as s:
                ids = [c.id for c in repo.chunks_of(s, version_id)]
                v = s.get(DocumentVersion, version_id)
                v.is_active = False
            self.delete(ids)
        return len(ids)

    def delete(self, ids: list[str], *, tolerant: bool = False) -> list[str]:
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

    def record_counts(self) -> None:
        """Record how many chunks the indexes hold: counted from the store (active, indexed
        versions), so a crash between index writes and this update cannot leave it wrong."""
        params = self.rs.index_params()
        with self.store.session() as s:
            count = repo.active_chunk_count(s)
            for name in ("vector", "keyword"):
                repo.put_index_meta(s, name, params[name]["backend"], params[name], count,
                                    rebuilt=False)


class Links:
    """Collection membership of documents already indexed: linked now, or, while a pipeline
    batch runs (`start` .. `stop`), collected and rewritten together with the batch."""

    def __init__(self, rs):
        self.rs, self.settings = rs, rs.settings
        self.waiting: list[int] | None = None  # a list while a pipeline batch runs
        self.knowledge_base: str | None = None  # a batch's `knowledge_base`

    def start(self, knowledge_base: str | None) -> None:
        self.waiting, self.knowledge_base = [], knowledge_base

    def stop(self) -> None:
        self.waiting, self.knowledge_base = None, None

    def collection(self, s, name: str):
        """The collection to link into, created with the first file stored into it (so a
        refused request creates nothing): in the batch's `knowledge_base` (checked by the
        service layer, backend/security/acl.py `writable_collection`), else
        RAGSCOPE_DEFAULT_KNOWLEDGE_BASE."""
        return repo.get_or_create_collection(
            s, name, knowledge_base=self.knowledge_base
            or self.settings.default_knowledge_base)

    def link(self, s, collection: str | None, doc: Document, linked: list[int]) -> bool:
        """Put the document into the collection; note it when its indexed chunks must learn
        (backend/ingest/memberships.py). True when it was not in the collection before."""
        added = bool(collection) and repo.link(s, self.collection(s, collection), doc.id)
        if added and doc.active_version_id is not None:
            linked.append(doc.id)
        return added

    def linked(self, doc_ids: list[int], defer: bool) -> None:
        """Documents whose indexed chunks joined a collection: rewrite their tokens now, or,
        in a pipeline batch, together with the batch (`sync`)."""
        if defer and self.waiting is not None:
            self.waiting.extend(doc_ids)
        elif doc_ids:
            sync_memberships(self.rs, doc_ids)

    def sync(self) -> None:
        if self.waiting:
            sync_memberships(self.rs, self.waiting)
            self.waiting.clear()
