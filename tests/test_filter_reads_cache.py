"""The filter's collections and index record, kept per ACL and content generation
(backend/retrieval/filter_reads.py): a repeated search runs no filter query, and a collection
gaining or losing its documents — through a second Ragscope on the same data dir (another
process's view) or in plain SQL — or being renamed changes the next search."""
from __future__ import annotations

from sqlalchemy import event, text

from backend.ingest.records import IngestItem
from backend.ingest.service import Ingestor
from backend.retrieval import RetrievalParams, Retriever
from backend.security.access import Scope

Q = "Druckerhöhungsanlage Pumpwerk Wartung"
DOC = ("# Pumpwerk {n}\n\nDie Druckerhöhungsanlage im Pumpwerk {n} wird jährlich gewartet.\n\n"
       "## Wartung\n\nDer Fachbetrieb prüft Ventile im Pumpwerk {n}.")


def _item(n: str) -> IngestItem:
    return IngestItem(f"{n}.md", data=DOC.format(n=n).encode(), source_uri=f"test://{n}")


def _docs(rs, collection: str) -> set[int]:
    res = Retriever(rs).retrieve(Q, RetrievalParams(k=10, tag_routing=False),
                                 scope=Scope.of([collection]))
    return {h.document_id for h in res.hits}


def test_a_repeated_search_runs_no_filter_query(ingestor):
    rs = ingestor.rs
    ingestor.ingest_many([_item("nord")], collection="netz")
    assert _docs(rs, "netz")
    statements: list[str] = []
    event.listen(rs.store.engine, "before_cursor_execute",
                 lambda conn, cur, sql, *a: statements.append(sql))
    assert _docs(rs, "netz")
    assert not [q for q in statements if "collections" in q or "index_meta" in q], statements


def test_documents_joining_or_leaving_a_collection_change_the_next_search(ingestor, make_rs):
    rs = ingestor.rs
    ingestor.ingest_many([_item("nord")], collection="netz")
    with rs.store.session() as s:  # an empty collection the scope can read
        from backend.store import repo
        repo.get_or_create_collection(s, "leer")
    assert _docs(rs, "leer") == set()
    other = make_rs(data_dir=rs.settings.data_dir)  # its own Store and engine on the same db
    [out] = Ingestor(other).ingest_many([_item("sued")], collection="leer")
    assert _docs(rs, "leer") == {out.document_id}
    with rs.store.engine.begin() as c:  # past every service function
        c.execute(text("DELETE FROM collection_documents WHERE document_id = :d"),
                  {"d": out.document_id})
    assert _docs(rs, "leer") == set()  # the collection holds nothing now
    with rs.store.engine.begin() as c:
        c.execute(text("UPDATE collections SET name = 'netz2' WHERE name = 'netz'"))
    assert _docs(rs, "netz") == set() and _docs(rs, "netz2")
