"""Keyword snippets are computed only for the hits a caller returns (issue 25, server CPU per
search): tantivy's `search(defer_highlights=True)` hands each hit's snippet over as
`pending`, and an API search page computes them for its own hits only — with the same
snippets a full retrieval shows."""
from __future__ import annotations

import pytest

from backend.config import Settings
from backend.index import tantivy_snippets
from backend.index.base import IndexedChunk
from backend.index.tantivy_index import TantivyKeywordIndex
from backend.retrieval import RetrievalParams, Retriever
from backend.security.access import Actor, Scope
from backend.services import search as search_service

QUESTION = "How do I reset the gateway?"


@pytest.fixture(scope="module")
def ix(tmp_path_factory):
    ix = TantivyKeywordIndex(Settings(data_dir=tmp_path_factory.mktemp("kw")))
    ix.add([IndexedChunk(f"c{i}", f"The pump report number {i} names the valve {i % 7}.",
                         document_id=i, version_id=i) for i in range(30)])
    yield ix
    ix.close()


def test_deferred_snippets_are_the_eager_ones_and_only_for_the_highlighted_hits(ix):
    eager = ix.search("pump valve", 20, None, highlight_limit=5, highlight_skip={"c3"})
    lazy = ix.search("pump valve", 20, None, highlight_limit=5, highlight_skip={"c3"},
                     defer_highlights=True)
    assert [(h.chunk_id, h.score) for h in lazy] == [(h.chunk_id, h.score) for h in eager]
    assert all(not h.highlights for h in lazy)
    assert sum(h.pending is not None for h in lazy) == sum(bool(h.highlights) for h in eager)
    for a, b in zip(eager, lazy):
        assert (b.pending() if b.pending else []) == a.highlights
    assert any("<b>" in h.highlights[0] for h in eager if h.highlights)


def _counting(monkeypatch) -> list[int]:
    calls = [0]
    real = tantivy_snippets.highlight

    def counted(*a, **k):
        calls[0] += 1
        return real(*a, **k)

    monkeypatch.setattr(tantivy_snippets, "highlight", counted)
    return calls


def test_a_search_page_computes_snippets_for_its_own_hits_only(sample_rs, monkeypatch):
    actor = Actor.system("test")
    full = Retriever(sample_rs).retrieve(QUESTION, RetrievalParams(k=11),
                                         scope=Scope.everything())
    assert any(h.highlights for h in full.hits[2:5])
    calls = _counting(monkeypatch)
    page = search_service.search(sample_rs, actor, QUESTION, offset=2, limit=3)
    assert [(h.chunk_id, h.highlights) for h in page.hits] == [
        (h.chunk_id, h.highlights) for h in full.hits[2:5]]
    assert calls[0] <= 3  # one per shown hit at most (not one per keyword candidate)
    # without deferral the same page costs a snippet for each keyword hit in the first k
    monkeypatch.setattr(TantivyKeywordIndex, "defers_highlights", False)
    calls[0] = 0
    again = search_service.search(sample_rs, actor, QUESTION, offset=2, limit=3)
    assert [h.highlights for h in again.hits] == [h.highlights for h in page.hits]
    assert calls[0] > 3
