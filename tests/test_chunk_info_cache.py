"""A search's candidate rows, kept per content generation (backend/retrieval/lookup.py
`current_chunk_infos`, migration 0030): a repeated search reads no chunk row, and a change of
a document, version or chunk — through a second Ragscope on the same data dir (another
process's view) or in plain SQL — shows in the next search's hits."""
from __future__ import annotations

from sqlalchemy import event, text

from backend.retrieval import RetrievalParams, Retriever
from backend.security.access import Scope
from backend.store.models import Document
from tests.pumpwerk_corpus import corpus  # noqa: F401  (the fixture)

Q = "Druckerhöhungsanlage Pumpwerk Wartung"


def _hits(rs):
    return Retriever(rs).retrieve(Q, RetrievalParams(k=10, tag_routing=False),
                                  scope=Scope.everything()).hits


def test_a_repeated_search_reads_no_chunk_row(corpus):
    rs, _ = corpus
    first = [(h.chunk_id, h.document_title, h.text) for h in _hits(rs)]
    statements: list[str] = []
    event.listen(rs.store.engine, "before_cursor_execute",
                 lambda conn, cur, sql, *a: statements.append(sql))
    assert [(h.chunk_id, h.document_title, h.text) for h in _hits(rs)] == first
    assert not [q for q in statements if "FROM chunks" in q], statements


def test_changes_through_a_second_ragscope_show_in_the_next_search(corpus, make_rs):
    rs, docs = corpus
    assert {h.doc_type for h in _hits(rs)} != {"meeting_minutes"}
    other = make_rs(data_dir=rs.settings.data_dir)  # its own Store and engine on the same db
    with other.store.session() as s:
        s.get(Document, docs["nord.md"]).doc_type = "meeting_minutes"
    assert {h.doc_type for h in _hits(rs) if h.document_id == docs["nord.md"]} == \
        {"meeting_minutes"}


def test_plain_sql_changes_show_in_the_next_search(corpus):
    rs, docs = corpus
    assert _hits(rs)
    with rs.store.engine.begin() as c:  # past every service function
        c.execute(text("UPDATE documents SET title = 'Neu ' || title"))
    assert all(h.document_title.startswith("Neu ") for h in _hits(rs))
    with rs.store.engine.begin() as c:
        c.execute(text("UPDATE document_versions SET is_active = 0 WHERE document_id = :d"),
                  {"d": docs["sued.md"]})
    assert {h.document_id for h in _hits(rs)} == {docs["nord.md"]}
