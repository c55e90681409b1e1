"""The retrieval module on the ingested sample corpus: policies, filters, per-stage scores,
traceability, expansion, inventory mode, traces, bad input and degradation."""
from __future__ import annotations

import itertools
import json
import subprocess
import sys

import pytest

from backend.errors import NotFound
from backend.retrieval import POLICIES, RetrievalParams, Retriever, TraceOwner
from backend.retrieval.traces import get_trace, list_traces
from backend.security.access import Scope
from tests.conftest import ROOT, SAMPLES

EVERYTHING = Scope.everything()


@pytest.fixture(scope="module")
def retriever(sample_rs):
    return Retriever(sample_rs)


def test_every_hit_keeps_each_stage_score_and_resolves_to_its_source(retriever):
    res = retriever.retrieve("Welchen Standardwert hat gateway.max_connections?", scope=EVERYTHING)
    assert res.hits and res.hits[0].filename == "lumen_handbuch.pdf"
    top = res.hits[0]
    assert top.vector_score is not None and top.keyword_score is not None
    assert top.fused_score is not None and top.vector_rank >= 1 and top.keyword_rank >= 1
    assert top.boost > 0  # the config key is an exact token in the chunk
    assert top.score == pytest.approx(top.fused_score + top.boost)
    assert top.page is not None and top.section_path  # PDF page and breadcrumb
    assert "Konfiguration" in " ".join(top.section_path)
    assert top.version_number == 1 and top.original_path
    assert 0 <= top.start < top.end and top.text
    assert any("<b>" in h for h in top.highlights)
    assert [h.rank for h in res.hits] == list(range(1, len(res.hits) + 1))
    names = [s.name for s in res.trace.stages]
    for stage in ("query", "query_embedding", "vector_search", "keyword_search", "fusion",
                  "lookup", "boost"):
        assert stage in names
    assert all(s.ms >= 0 for s in res.trace.stages)
    assert res.trace.stage("vector_search").candidates[0].rank == 1


@pytest.mark.parametrize("policy", POLICIES)
def test_every_policy_answers(retriever, policy):
    res = retriever.retrieve("Was wurde unter TOP 3 beschlossen?", RetrievalParams(policy=policy),
                             scope=EVERYTHING)
    assert res.hits, policy
    if policy == "semantic_only":
        assert all(h.keyword_score is None for h in res.hits)
    if policy == "lexical_only":
        assert all(h.vector_score is None for h in res.hits)
    if policy == "document_first":
        assert res.documents and res.documents[0].rank == 1
        order = [h.document_id for h in res.hits]
        assert order == sorted(order, key=[d.document_id for d in res.documents].index)
    if policy == "section_first":
        assert {s.name for s in res.trace.stages} >= {"section_rank"}


def test_filters_restrict_hits(retriever, sample_rs):
    res = retriever.retrieve("Konfiguration Port", RetrievalParams(collections=["handbuch"]),
                             scope=EVERYTHING)
    assert res.hits and {h.filename for h in res.hits} == {"lumen_handbuch.pdf"}
    res = retriever.retrieve("decision", RetrievalParams(file_types=["docx"]), scope=EVERYTHING)
    assert res.hits and {h.file_type for h in res.hits} == {"docx"}
    res = retriever.retrieve("Beschluss", RetrievalParams(document_ids=[]), scope=EVERYTHING)
    assert res.hits == [] and res.warnings
    with pytest.raises(NotFound, match="unknown collection 'nope'"):
        retriever.retrieve("Beschluss", RetrievalParams(collections=["nope"]), scope=EVERYTHING)
    high = retriever.retrieve("Port 8443", RetrievalParams(min_score=0.5), scope=EVERYTHING)
    assert high.hits and all(h.score >= 0.5 for h in high.hits)


def test_per_document_cap_and_grouping(retriever):
    res = retriever.retrieve("Gateway Konfiguration", RetrievalParams(per_document_cap=1, k=10),
                             scope=EVERYTHING)
    docs = [h.document_id for h in res.hits]
    assert len(docs) == len(set(docs))
    res = retriever.retrieve("Gateway", RetrievalParams(group_by_document=True, k=10),
                             scope=EVERYTHING)
    seen, last = [], None
    for h in res.hits:
        if h.document_id != last:
            assert h.document_id not in seen  # each document's hits are contiguous
            seen.append(h.document_id)
            last = h.document_id


def test_small_to_big_expansion_stays_within_budget(retriever):
    for mode in ("neighbours", "section"):
        res = retriever.retrieve("Wartungsintervalle der Pumpen",
                                 RetrievalParams(expand=mode, expand_chars=1500, k=3),
                                 scope=EVERYTHING)
        for h in res.hits:
            assert h.expanded_text is not None
            assert h.expanded_start <= h.start and h.expanded_end >= h.end
            assert len(h.expanded_text) <= max(1500, h.end - h.start)
            assert h.text.strip()[:40] in h.expanded_text


def test_inventory_questions_return_a_document_list(retriever):
    for q in ("Welche Dokumente gibt es zum Datenschutz?",
              "Which documents cover the Lumen Data Gateway?"):
        res = retriever.retrieve(q, scope=EVERYTHING)
        assert res.mode == "inventory" and res.documents, q
    res = retriever.retrieve("Welche Dokumente gibt es zum Datenschutz?", scope=EVERYTHING)
    assert "datenschutzrichtlinie.docx" in [d.filename for d in res.documents[:3]]
    everything = retriever.retrieve("Welche Dokumente gibt es?", scope=EVERYTHING)
    n_samples = sum(1 for f in SAMPLES.iterdir() if f.is_file())
    assert everything.mode == "inventory" and len(everything.documents) == n_samples


def test_traces_are_persisted_and_listed(retriever, sample_rs):
    res = retriever.retrieve("Notfallplan Gateway Failover",
                             RetrievalParams(persist_trace=True), owner=TraceOwner.user("ann"),
                             scope=EVERYTHING)
    stored = get_trace(sample_rs.store, res.trace.id, viewer="ann", is_admin=False)
    assert stored is not None and stored.query == "Notfallplan Gateway Failover"
    assert (stored.owner_kind, stored.owner) == ("user", "ann")
    assert stored.hit_count == len(res.hits)
    assert [s["name"] for s in stored.trace["trace"]["stages"]] == \
        [s.name for s in res.trace.stages]
    assert res.trace.id in [t.id for t in list_traces(sample_rs.store, viewer="ann",
                                                      is_admin=False)]


SYNTAX = ['AND', 'OR', 'NOT', '(', ')', ':', '"', '*', '~', '^', '\\', '/', '[', ']', '{', '}', '!']


@pytest.mark.parametrize("query", [
    "", "   ", "der die das und oder", "the of and a to", "x" * 10_000,
    "Port " * 2000, "it's 4:51 (+)-",
    *(" ".join(c) for c in list(itertools.combinations(SYNTAX, 3))[::17]),
    "".join(SYNTAX), 'gateway.port:"8443" AND (tls OR ~x^2)',
])
def test_bad_queries_never_raise(retriever, query):
    res = retriever.retrieve(query, scope=EVERYTHING)
    assert isinstance(res.hits, list)
    if not query.strip():
        assert res.hits == [] and "empty query" in res.warnings
    if len(query) > 5000:
        assert any("cut" in w for w in res.warnings)


def test_keyword_backend_down_degrades_to_semantic_only(sample_rs):
    class Down:
        name, analyzer = "down", "none"

        def search(self, *a, **k):
            from backend.errors import BackendUnavailable

            raise BackendUnavailable("keyword index at http://127.0.0.1:9 unreachable")

    class View:  # the same service, with a broken keyword index
        store, embedder = sample_rs.store, sample_rs.embedder
        vector_index, keyword_index = sample_rs.vector_index, Down()
        section_paths = sample_rs.section_paths

    res = Retriever(View()).retrieve("Port 8443 Gateway", scope=EVERYTHING)
    assert res.hits and all(h.keyword_score is None for h in res.hits)
    assert res.trace.stage("keyword_search").error
    assert any("keyword search failed" in w for w in res.warnings)


def test_cli_search_json_prints_hits_and_trace(sample_rs):
    env = {"RAGSCOPE_DATA_DIR": str(sample_rs.settings.data_dir), "PATH": "/usr/bin:/bin"}
    import os

    env = {**os.environ, **env}
    r = subprocess.run([sys.executable, "-m", "backend", "search", "Beschluss 2024/17",
                        "--json", "--k", "3"], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert len(data["hits"]) == 3 and data["trace"]["stages"]
    assert data["hits"][0]["filename"] == "protokoll_werkausschuss_2024-03-12.txt"
    r = subprocess.run([sys.executable, "-m", "backend", "search", "x", "--collection", "nope"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "unknown collection 'nope'" in r.stderr


def test_quoted_phrase_and_file_name_get_the_exact_match_boost(retriever):
    res = retriever.retrieve('"Beschluss 2024/17"', scope=EVERYTHING)
    boosted = [h for h in res.hits if h.boost > 0]
    assert boosted and all("beschluss 2024/17" in h.text.casefold() for h in boosted)
    assert res.hits[0].boost > 0
    off = retriever.retrieve('"Beschluss 2024/17"', RetrievalParams(exact_boost=0),
                             scope=EVERYTHING)
    assert all(h.boost == 0 for h in off.hits)
    res = retriever.retrieve("runbook_gateway_failover.md Schritte", scope=EVERYTHING)
    assert res.hits[0].filename == "runbook_gateway_failover.md" and res.hits[0].boost > 0


def test_rerank_stage_records_its_own_score(retriever):
    res = retriever.retrieve("TLS Mindestversion", RetrievalParams(rerank=True), scope=EVERYTHING)
    assert res.hits and all(h.rerank_score is not None for h in res.hits)
    assert res.trace.stage("rerank") is not None
    scores = [h.rerank_score for h in res.hits]
    assert scores == sorted(scores, reverse=True)
