"""Collection filters evaluated by the indexes (docs/retrieval.md, "Filters"): chunks carry
their document's membership tokens in both indexes; joining a collection updates them in
place; `check` finds stale tokens and `--repair` rewrites them; an index built before
tokens existed falls back to document ids and asks for `reindex` before the next ingest."""
from __future__ import annotations

import pytest

from backend.errors import IndexMismatch, NotFound
from backend.ingest.records import IngestItem
from backend.security.access import Scope
from backend.retrieval import RetrievalParams, Retriever
from backend.store import repo

PUMP = ("# Pumpwerk {n}\n\nDie Druckerhöhungsanlage im Pumpwerk {n} wird jährlich gewartet; "
        "Messwerte stehen im Anhang.\n\n## Wartung\n\nDer Fachbetrieb prüft Ventile und "
        "Förderpumpen im Pumpwerk {n}.")


def _ingest(ingestor, names, collection):
    items = [IngestItem(f"{n}.md", data=PUMP.format(n=n).encode(), source_uri=f"test://{n}")
             for n in names]
    return ingestor.ingest_many(items, collection=collection)


def _found(rs, collections, policy="hybrid", q="Pumpwerk Wartung Förderpumpen"):
    res = Retriever(rs).retrieve(q, RetrievalParams(k=20, policy=policy,
                                                    collections=collections),
                                 scope=Scope.everything())
    return {h.filename for h in res.hits}, res


@pytest.fixture
def two_collections(ingestor):
    _ingest(ingestor, ["nord", "sued"], "netz-a")
    _ingest(ingestor, ["ost"], "netz-b")
    return ingestor


@pytest.mark.parametrize("policy", ["semantic_only", "lexical_only", "hybrid"])
def test_collection_filter_is_evaluated_by_both_indexes(two_collections, policy):
    rs = two_collections.rs
    got, res = _found(rs, ["netz-a"], policy)
    assert got == {"nord.md", "sued.md"}
    stage = next(s for s in res.trace.stages if s.name == "filter")
    with rs.store.session() as s:
        a = repo.get_collection(s, "netz-a").id
    assert stage.params["memberships"] == {"collection": [a]}
    assert stage.params["resolved_documents"] is None  # no list of document ids
    assert _found(rs, ["netz-b"], policy)[0] == {"ost.md"}
    assert _found(rs, ["netz-a", "netz-b"], policy)[0] == {"nord.md", "sued.md", "ost.md"}


def test_joining_a_collection_updates_the_indexes_at_once(two_collections):
    rs = two_collections.rs
    outs = _ingest(two_collections, ["ost", "nord"], "netz-b")  # same content, same source
    assert [o.status for o in outs] == ["unchanged", "unchanged"]
    assert _found(rs, ["netz-b"])[0] == {"ost.md", "nord.md"}
    assert _found(rs, ["netz-b"], "lexical_only")[0] == {"ost.md", "nord.md"}
    assert _found(rs, ["netz-a"])[0] == {"nord.md", "sued.md"}
    assert two_collections.check(full=True).ok
    # a duplicate from another source joins too; a new version keeps both collections
    dup = two_collections.ingest_many([IngestItem("kopie.md", data=PUMP.format(n="sued")
                                                  .encode(), source_uri="test://kopie")],
                                      collection="netz-c")
    assert dup[0].status == "duplicate"
    assert _found(rs, ["netz-c"])[0] == {"sued.md"}
    changed = two_collections.ingest_many([IngestItem(
        "nord.md", data=(PUMP.format(n="nord") + "\n\nNachtrag.").encode(),
        source_uri="test://nord")], collection="netz-c")
    assert changed[0].status == "new_version"
    for coll in ("netz-a", "netz-b", "netz-c"):
        assert "nord.md" in _found(rs, [coll])[0]
    assert two_collections.check(full=True).ok


def test_stale_tokens_are_found_by_check_and_rewritten_by_repair(two_collections):
    """A process that died between linking a document and updating the indexes."""
    rs = two_collections.rs
    with rs.store.session() as s:  # the store says so, the indexes were never told
        doc = repo.document_by_source(s, "test://ost")
        repo.link(s, repo.get_or_create_collection(s, "netz-a"), doc.id)
    assert _found(rs, ["netz-a"])[0] == {"nord.md", "sued.md"}
    report = two_collections.check(full=True)
    with rs.store.session() as s:
        ost_chunks = {c.id for c in repo.chunks_of(s, repo.document_by_source(
            s, "test://ost").active_version_id)}
    assert set(report.memberships_stale) == ost_chunks and not report.ok
    rep = two_collections.repair()
    assert rep.memberships_synced == len(ost_chunks)
    assert "rewrote the collection memberships" in rep.summary()
    assert rep.after.ok
    assert _found(rs, ["netz-a"])[0] == {"nord.md", "sued.md", "ost.md"}


def test_stale_tokens_in_the_exact_search_log_are_found_and_repaired(two_collections):
    """The log's copy of the tokens (what a filtered vector search reads first) is checked
    like the indexes' copies: wrong there alone, it is reported and rewritten."""
    rs = two_collections.rs
    with rs.store.session() as s:
        ost = {c.id for c in repo.chunks_of(s, repo.document_by_source(
            s, "test://ost").active_version_id)}
    log = rs.vector_index.exact
    wrong = {c: {**f, "memberships": ["collection:999"]} for c, f in log.fields(ost).items()}
    assert len(wrong) == len(ost) and log.set_fields(wrong) == len(ost)
    report = two_collections.check(full=True)
    assert set(report.memberships_stale) == ost and not report.ok
    rep = two_collections.repair()
    assert rep.memberships_synced == len(ost) and rep.after.ok
    assert _found(rs, ["netz-b"], "semantic_only")[0] == {"ost.md"}


def test_reindex_and_inventory_keep_the_collections(two_collections):
    rs = two_collections.rs
    two_collections.reindex()
    assert _found(rs, ["netz-b"])[0] == {"ost.md"}
    res = Retriever(rs).retrieve("Welche Dokumente gibt es?",
                                 RetrievalParams(collections=["netz-b"]), scope=Scope.everything())
    assert res.mode == "inventory" and [d.filename for d in res.documents] == ["ost.md"]


def test_empty_and_unknown_collections(two_collections):
    rs = two_collections.rs
    with rs.store.session() as s:
        repo.get_or_create_collection(s, "leer")
    got, res = _found(rs, ["leer"])
    assert got == set() and "no document matches the filters" in res.warnings
    with pytest.raises(NotFound, match="unknown collection 'nope'"):
        _found(rs, ["nope"])


def test_an_index_without_tokens_falls_back_to_document_ids_until_reindex(two_collections):
    """An index built by a ragscope before membership tokens (schema version 1)."""
    rs, ing = two_collections.rs, two_collections
    with rs.store.session() as s:
        chunks = repo.active_chunk_ids(s)
        for name in ("vector", "keyword"):
            meta = repo.get_index_meta(s, name)
            repo.put_index_meta(s, name, meta.backend, {**meta.params, "schema_version": 1},
                                meta.chunk_count, rebuilt=False)
    rs.vector_index.set_memberships({c: [] for c in chunks})  # as an old index has none
    rs.keyword_index.set_memberships({c: [] for c in chunks})
    got, res = _found(rs, ["netz-a"])
    assert got == {"nord.md", "sued.md"}  # still right, by document ids
    stage = next(s for s in res.trace.stages if s.name == "filter")
    assert stage.params["memberships"] is None and stage.params["resolved_documents"] == 2
    with pytest.raises(IndexMismatch, match="schema_version: index has 1"):
        _ingest(ing, ["west"], "netz-a")
    ing.reindex()
    got, res = _found(rs, ["netz-a"])
    assert got == {"nord.md", "sued.md"}
    assert next(s for s in res.trace.stages if s.name == "filter").params["memberships"]
    assert [o.status for o in _ingest(ing, ["west"], "netz-a")] == ["new"]
