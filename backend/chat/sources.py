"""Chat answers and deleted documents. Each stored answer's sources name their documents;
`chat_message_documents` (migration 0007) indexes them, so deleting a document finds the
answers to mark without reading every message's sources JSON.

When a document is deleted, each source of an answer that points to it keeps its number `n`
(the answer's `[n]` citations stay aligned), its score and whether it was cited, and loses
everything taken from the document (title, file name, section, page, path, URL); its title
says "deleted document" and it carries `deleted: True`. The answer text is kept by default
(it is the user's conversation); with `purge_answers` every answer that had the document
among its sources, cited or not (a model may use a source without citing it), is replaced by
REDACTED_ANSWER, and its citation and format checks lose the sentences they quoted."""
from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from backend.store.chat_models import ChatMessage, ChatMessageDocument
from backend.store.redact import (
    OUTSIDE_LABEL,
    existing_document_ids,
    scrub_sources,
    source_document_ids,
)

REDACTED_ANSWER = "[Answer removed: it drew on a document that has since been deleted.]"


def redact_answer(m: ChatMessage) -> None:
    m.content = REDACTED_ANSWER
    m.citations = {**(m.citations or {}), "uncited_sentences": [], "redacted": True}
    m.format_check = {}


def record_sources(s: Session, m: ChatMessage) -> None:
    """Index a just-flushed answer's source documents. A document deleted while the answer
    was generated is marked deleted in the sources right away (its delete did not see this
    message yet)."""
    docs = source_document_ids(m.sources)
    if not docs:
        return
    s.add_all(ChatMessageDocument(message_id=m.id, document_id=d) for d in docs)
    s.flush()
    gone = docs - existing_document_ids(s, docs)
    if gone:
        m.sources = scrub_sources(m.sources, gone)
        s.execute(delete(ChatMessageDocument).where(ChatMessageDocument.message_id == m.id,
                                                    ChatMessageDocument.document_id.in_(gone)))


def scrub_document(s: Session, document_id: int, *, purge_answers: bool = False) -> tuple[int, int]:
    """Mark a deleted document's sources in every answer that used it (in the caller's
    transaction); with `purge_answers` also redact those answers. Returns (answers marked,
    answers redacted)."""
    ids = list(s.scalars(select(ChatMessageDocument.message_id).where(
        ChatMessageDocument.document_id == document_id)))
    redacted = 0
    for i in range(0, len(ids), 500):
        for m in s.scalars(select(ChatMessage).where(ChatMessage.id.in_(ids[i:i + 500]))):
            scrubbed = scrub_sources(m.sources, {document_id})
            if scrubbed is not None:
                m.sources = scrubbed
            if purge_answers and m.content != REDACTED_ANSWER:
                redact_answer(m)
                redacted += 1
    s.execute(delete(ChatMessageDocument).where(ChatMessageDocument.document_id == document_id))
    return len(ids), redacted


def scope_sources(s: Session, messages: list, scope) -> list:
    """`messages` (MessageInfo) with the sources of documents outside `scope` blanked like a
    deleted document's, titled OUTSIDE_LABEL and without their document id: an answer
    given while the reader had wider access cites nothing outside the current scope. The
    answer text stays (it is the reader's own conversation)."""
    if scope.unrestricted:
        return messages
    from backend.security.access import visible_document_ids

    shown = set().union(*(source_document_ids(m.sources) for m in messages)) if messages else set()
    exist = visible_document_ids(s, scope.everything(), shown)  # deleted: marked already
    hidden = exist - visible_document_ids(s, scope, exist)
    if not hidden:
        return messages
    for m in messages:
        scrubbed = scrub_sources(m.sources, hidden, label=OUTSIDE_LABEL)
        if scrubbed is not None:
            m.sources = scrubbed
    return messages
