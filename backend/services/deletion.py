"""What deleting a document does beyond its own rows (versions, sections, chunks, index
entries, originals: backend/ingest/maintenance.py): it is taken out of the records derived
from it, in the same transaction as the delete itself.

* Stored retrieval traces that show it are scrubbed, not deleted: its hits keep rank, scores
  and ids but lose text, title, file name, path, section and snippets
  (backend/retrieval/traces.py says why).
* Chat answers that had it among their sources: those sources are marked "deleted document"
  and keep their number; the answer text stays unless `purge_answers`
  (backend/chat/sources.py).

Both are found through indexed side tables (`trace_documents`, `chat_message_documents`),
not by reading every stored JSON. See docs/security.md, "Deletion"."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from backend.chat import sources as chat_sources
from backend.retrieval import traces


@dataclass(frozen=True)
class Forgotten:
    traces: int  # traces scrubbed
    answers: int  # answers whose sources were marked deleted
    redacted: int  # answers whose text was removed (purge_answers)


def forget_document(s: Session, document_id: int, *, purge_answers: bool = False) -> Forgotten:
    """Call in the transaction that deletes the document, after `s.delete(document)`: the
    flush below deletes the row first, so a trace or answer being stored at the same time
    either sees the document gone or is seen here (see store/redact.py)."""
    s.flush()
    n_traces = traces.scrub_document(s, document_id)
    answers, redacted = chat_sources.scrub_document(s, document_id, purge_answers=purge_answers)
    return Forgotten(n_traces, answers, redacted)
