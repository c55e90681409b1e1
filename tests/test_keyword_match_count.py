"""tantivy's `match_counter` (the dictionary's common-word test, backend/retrieval/engine.py
`_share`) counts exactly the chunks `search` would find under the same filter, for filters
built as term queries (few values) and as one term set (TERM_SET_FROM values and more)."""
from __future__ import annotations

import pytest

from backend.config import Settings
from backend.index import tantivy_index
from backend.index.base import IndexedChunk, IndexFilter
from backend.index.tantivy_index import TantivyKeywordIndex

WORDS = ("pump", "valve", "gateway")


@pytest.fixture(scope="module")
def ix(tmp_path_factory):
    ix = TantivyKeywordIndex(Settings(data_dir=tmp_path_factory.mktemp("kw")))
    ix.add([IndexedChunk(f"c{i}", f"The {WORDS[i % 3]} report number {i}.", document_id=i,
                         version_id=i, doc_type="faq" if i % 2 else "manual",
                         memberships={"collection": (i % 5 + 1,)})
            for i in range(90)])
    yield ix
    ix.close()


FILTERS = {
    "none": None,
    "one collection": IndexFilter(memberships={"collection": [2]}),
    "two collections": IndexFilter(memberships={"collection": [2, 4]}),
    "collection and type": IndexFilter(memberships={"collection": [1, 3]}, doc_types=["faq"]),
    "few documents": IndexFilter(document_ids=[1, 4, 7, 30]),
    "many documents": IndexFilter(document_ids=list(range(1, 90))),  # a term set
    "no collection": IndexFilter(memberships={"collection": []}),
}


@pytest.mark.parametrize("name", FILTERS)
def test_the_count_is_what_a_search_finds(ix, name):
    flt = FILTERS[name]
    count = ix.match_counter(flt)
    for word in (*WORDS, "report", "absent"):
        found = ix.search(word, 1000, flt, highlight_limit=0)
        assert count(word) == len(found), (name, word)
    assert len(FILTERS["many documents"].document_ids) >= tantivy_index.TERM_SET_FROM


def test_filter_values_give_the_same_hits_as_term_queries_and_as_a_term_set(ix, monkeypatch):
    flt = IndexFilter(document_ids=list(range(0, 90, 3)))
    few = {h.chunk_id for h in ix.search("report", 1000, flt)}
    monkeypatch.setattr(tantivy_index, "TERM_SET_FROM", 1)
    assert {h.chunk_id for h in ix.search("report", 1000, flt)} == few == {
        f"c{i}" for i in range(0, 90, 3)}


def test_skipped_chunks_get_no_snippet_and_keep_their_place(ix):
    """`highlight_skip` (the dictionary search skips the question search's hits): the same
    hits in the same order, snippets for the others only."""
    full = ix.search("pump report", 20, None, highlight_limit=5)
    skip = {full[0].chunk_id, full[2].chunk_id}
    part = ix.search("pump report", 20, None, highlight_limit=5, highlight_skip=skip)
    assert [(h.chunk_id, h.score) for h in part] == [(h.chunk_id, h.score) for h in full]
    assert all(h.highlights for h in full[:5])
    for a, b in zip(full, part):
        assert b.highlights == ([] if a.chunk_id in skip else a.highlights)
