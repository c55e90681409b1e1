"""Tag routing's vocabulary, read once per tag generation (backend/retrieval/tag_routing.py,
migration 0030): a repeated search reads only the counter, and every tag change — through the
service, through a second Ragscope on the same data dir (another process's view), in plain
SQL, or a document's deletion cascading to its tags — routes the next search accordingly."""
from __future__ import annotations

from sqlalchemy import event, text

from backend.retrieval import RetrievalParams, Retriever
from backend.retrieval.tag_routing import vocabulary
from backend.security.access import Actor, Scope
from backend.services import tags
from tests.pumpwerk_corpus import corpus  # noqa: F401  (the fixture)

ROOT = Actor.system()
Q = "Pumpwerk Wartung Hochdruck"


def _routed(rs) -> tuple[list[str], list[int]]:
    res = Retriever(rs).retrieve(Q, RetrievalParams(k=10), scope=Scope.everything())
    st = res.trace.stage("tags")
    return (st.params["matched_tags"], st.params["documents"]) if st else ([], [])


def test_a_repeated_search_reads_only_the_tag_generation(corpus):
    rs, docs = corpus
    tags.add(rs, ROOT, docs["nord.md"], ["Hochdruck"])
    assert _routed(rs) == (["Hochdruck"], [docs["nord.md"]])
    statements: list[str] = []
    event.listen(rs.store.engine, "before_cursor_execute",
                 lambda conn, cur, sql, *a: statements.append(sql))
    assert _routed(rs) == (["Hochdruck"], [docs["nord.md"]])
    tag_reads = [q for q in statements if "document_tags" in q]
    assert tag_reads == [], tag_reads  # (the counter is read on a DB-API cursor, unseen here)


def test_service_changes_route_the_next_search(corpus):
    rs, docs = corpus
    assert _routed(rs) == ([], [])
    tags.add(rs, ROOT, docs["nord.md"], ["Hochdruck"])
    assert _routed(rs) == (["Hochdruck"], [docs["nord.md"]])
    tags.add(rs, ROOT, docs["sued.md"], ["hochdruck"])
    assert _routed(rs)[1] == sorted(docs.values())
    tags.remove(rs, ROOT, docs["nord.md"], ["HOCHDRUCK"])
    assert _routed(rs)[1] == [docs["sued.md"]]


def test_changes_through_a_second_ragscope_route_the_next_search(corpus, make_rs):
    rs, docs = corpus
    assert _routed(rs) == ([], [])
    other = make_rs(data_dir=rs.settings.data_dir)  # its own Store and engine on the same db
    assert other.store.engine is not rs.store.engine
    tags.add(other, ROOT, docs["sued.md"], ["Hochdruck"])
    assert _routed(rs) == (["Hochdruck"], [docs["sued.md"]])
    tags.replace(other, ROOT, docs["sued.md"], ["Niederdruck"])
    assert _routed(rs) == ([], [])


def test_plain_sql_and_a_deleted_document_change_the_vocabulary(corpus):
    from backend.ingest.service import Ingestor

    rs, docs = corpus
    tags.add(rs, ROOT, docs["nord.md"], ["Hochdruck"])
    tags.add(rs, ROOT, docs["sued.md"], ["Hochdruck"])
    assert vocabulary(rs.store.engine)["hochdruck"]["documents"] == sorted(docs.values())
    with rs.store.engine.begin() as c:  # past every service function
        c.execute(text("UPDATE document_tags SET name = 'HOCHDRUCK'"))
    assert vocabulary(rs.store.engine)["hochdruck"]["name"] == "HOCHDRUCK"
    Ingestor(rs).delete_document(docs["nord.md"])  # its tags go by the foreign key's cascade
    assert vocabulary(rs.store.engine)["hochdruck"]["documents"] == [docs["sued.md"]]
    assert _routed(rs) == (["HOCHDRUCK"], [docs["sued.md"]])
