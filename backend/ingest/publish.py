"""Publishing stored versions (the Ingestor's last stage, backend/ingest/service.py): embed
their chunks, add them to both indexes and activate each version under the index write lock,
or roll the batch back when an index refuses it; then read a sample back by its own vector."""
from __future__ import annotations

import logging
from typing import Sequence

from backend.ingest import consistency
from backend.ingest.indexing import IndexWriter
from backend.ingest.records import IngestOutcome, _Pending, mark_failed
from backend.store.models import Document, DocumentVersion

log = logging.getLogger(__name__)


def readback_result(outcomes: Sequence[IngestOutcome]) -> dict:
    """The job result's account of the read-back: chunks searched for, and every file whose
    chunks could not be found by their own vector (document id, file name, chunk ids)."""
    return {"chunks": sum(o.read_back for o in outcomes),
            "unretrievable": sum(len(o.unretrievable) for o in outcomes),
            "documents": [{"document_id": o.document_id, "filename": o.filename,
                           "chunks": o.unretrievable} for o in outcomes if o.unretrievable]}


class Publisher:
    def __init__(self, rs, index: IndexWriter):
        self.rs, self.store, self.index = rs, rs.store, index

    def publish(self, pending: list[_Pending], embeddings=None) -> list[IngestOutcome]:
        """Embed the chunks of several stored versions in one call (outside the index write
        lock: it is the slow part; the pipeline passes `embeddings` made in its embedding
        thread), then, holding the lock, add them to both indexes and activate each version
        (taking its predecessor out of the indexes)."""
        if not pending:
            return []
        chunks = [c for p in pending for c in p.chunks]
        if embeddings is None:
            embeddings = self.index.encode(chunks)
        with self.rs.index_lock.hold("publish an ingest batch"):
            try:
                self.index.add(chunks, embeddings)
            except Exception as e:  # noqa: BLE001 - an index refused: write neither
                return self._roll_back(pending, chunks, e)
            for p in pending:
                if p.old_active:
                    self.index.deactivate(p.old_active)
                with self.store.session() as s:
                    version = s.get(DocumentVersion, p.outcome.version_id)
                    version.status, version.is_active = "indexed", True
                    doc = s.get(Document, p.outcome.document_id)
                    doc.active_version_id, doc.status = version.id, "active"
            self.index.record_counts()
        self.read_back(pending, chunks, embeddings)
        return [p.outcome for p in pending]

    def _roll_back(self, pending: list[_Pending], chunks, err: Exception) -> list[IngestOutcome]:
        """Both indexes or neither: a batch that one index refused (Elasticsearch or a
        Chroma server unreachable) is taken out of the other again, and its versions are
        marked failed with the reason; a predecessor stays active. What cannot be taken out
        now (the index is down) is an orphan that `check --repair` removes later. The batch
        goes on with the next files."""
        log.warning("ingest batch of %d file(s) not indexed: %s", len(pending), err)
        left = self.index.delete([c.chunk_id for c in chunks], tolerant=True)
        reason = f"not indexed, nothing of it is searchable ({err}); ingest it again"
        if left:
            log.warning("could not roll back: %s; `check --repair` removes the entries",
                        "; ".join(left))
        for p in pending:
            o = p.outcome
            o.status, o.chunks, o.error = "failed", 0, f"{o.filename}: {reason}"
            mark_failed(self.store, o.version_id, o.error, drop_content=True)
        return [p.outcome for p in pending]

    def read_back(self, pending: list[_Pending], chunks, embeddings) -> None:
        """Search a sample of what was just written by its own vector (one chunk of every
        file, READBACK_SAMPLE in all); a chunk not among the nearest ten becomes a warning
        on its file's outcome, which the CLI, the job result and the upload page show."""
        vec_of = dict(zip((c.chunk_id for c in chunks), embeddings))
        files = [[c.chunk_id for c in p.chunks] for p in pending]
        sample = consistency.readback_sample(files)
        lost, error = consistency.unretrievable(self.rs.vector_index,
                                                {c: vec_of[c] for c in sample})
        lost_set = set(lost)
        for p, ids in zip(pending, files):
            mine = [c for c in sample if c in set(ids)]
            p.outcome.read_back = len(mine)
            gone = [c for c in mine if c in lost_set]
            if not gone:
                continue
            p.outcome.unretrievable = gone
            p.outcome.warnings.append(
                f"{len(gone)} of {len(mine)} chunk(s) read back after the write cannot be "
                "found by vector search with their own vector (not among the nearest 10)"
                + (f": {error}" if error else "")
                + "; search will miss them — run `python -m backend check --full`")
            log.warning("ingest read-back: %s: %d of %d chunk(s) cannot be found by vector "
                        "search (%s)", p.outcome.filename, len(gone), len(mine),
                        ", ".join(gone[:3]))
