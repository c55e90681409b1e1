"""The evaluation runner on a small real corpus (SQLite, Chroma and tantivy in tmp_path): bad
goldensets reported while the run continues, stored runs and their comparison, the goldenset
store and editor operations, and the `python -m eval` CLI (`--json` prints only JSON)."""
from __future__ import annotations

import json

import pytest
from sqlalchemy import inspect

from eval import service
from eval.compare import compare_runs
from eval.configs import ConfigError, resolve
from eval.goldenset import GoldensetError, GoldQuery, Relevant, make_goldenset
from eval.runner import evaluate
from eval.store import (
    get_goldenset,
    get_run,
    list_goldensets,
    list_runs,
    register_file,
    save_goldenset,
    save_report,
)
from backend.security.access import Scope

EVERYTHING = Scope.everything()

DOCS = {
    "pumps.md": "# Pumping station\n\nThe pumping station at Eichberg runs three pumps. Pump "
                "P-2 is serviced every March; its seals are replaced every two years.\n",
    "billing.md": "# Billing\n\nInvoices are sent on the fifth working day of each month. "
                  "Late payments cost a fee of 5 EUR after the second reminder.\n",
    "gateway.md": "# Gateway configuration\n\nThe key gateway.port sets the listening port; "
                  "the default is 8443. gateway.max_connections defaults to 512.\n",
    "holidays.md": "# Holidays\n\nStaff take leave through the HR portal. Requests must be "
                   "filed four weeks in advance; the team lead approves them.\n",
}


def _gs(name="mini", extra=()):
    qs = [GoldQuery("q1", "Which port does the gateway listen on by default?",
                    [Relevant("gateway.md", 2)],
                    reference_contexts=["the default is 8443"]),
          GoldQuery("q2", "When is pump P-2 serviced?", [Relevant("pumps.md", 2)],
                    reference_contexts=["Pump P-2 is serviced every March"]),
          GoldQuery("q3", "How much is the fee for late payment of an invoice?",
                    [Relevant("billing.md", 2), Relevant("holidays.md", 1)]),
          GoldQuery("q4", "How far in advance must leave be requested?",
                    [Relevant("holidays.md", 2), Relevant("no_such_file.pdf", 1)]),
          *extra]
    return make_goldenset(name, qs)


@pytest.fixture(scope="module")
def mini(tmp_path_factory, shared_embedder):
    from backend.config import Settings
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope

    data = tmp_path_factory.mktemp("eval_mini") / "var"
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = shared_embedder
    outs = Ingestor(rs).ingest_many([(n, t.encode()) for n, t in DOCS.items()],
                                    total=len(DOCS), collection="mini", source_kind="upload")
    assert all(o.ok for o in outs), [o.error for o in outs]
    yield rs
    rs.close()


@pytest.fixture
def cli_env(mini, monkeypatch, shared_embedder):
    """The CLI builds its own Ragscope from the environment: point it at the mini corpus and
    let it reuse the session's embedding model."""
    import backend.embed.embedder

    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(mini.settings.data_dir))
    monkeypatch.setattr(backend.embed.embedder, "Embedder", lambda *a, **k: shared_embedder)


def test_migration_created_the_eval_tables(mini):
    names = set(inspect(mini.store.engine).get_table_names())
    assert {"eval_goldensets", "eval_runs", "eval_results"} <= names


def test_unknown_documents_are_reported_and_the_run_continues(mini):
    gone = GoldQuery("q5", "Where is the annual report?", [Relevant("annual.pdf", 2)])
    seen = []
    rep = evaluate(mini, _gs(extra=[gone]), resolve(["hybrid", "lexical_only"]),
                   metrics=["hit@1", "recall@5", "ndcg@10"],
                   on_progress=lambda d, t, label: seen.append((d, t)), scope=EVERYTHING)
    assert rep.warnings == [
        "q4: relevant document 'no_such_file.pdf' is not in the corpus; ignored",
        "q5: relevant document 'annual.pdf' is not in the corpus; ignored",
        "q5: skipped, none of its relevant documents (grade > 0) is in the corpus"]
    hybrid = rep.configs["hybrid"]
    assert set(hybrid.per_query) == {"q1", "q2", "q3", "q4"}
    assert rep.qrels["q4"] == {"holidays.md": 2}
    assert hybrid.metrics["hit@1"] == 1.0  # each question names its document's words
    assert hybrid.per_query["q1"].ranking[0][0] == "gateway.md"
    # context metrics only where reference contexts exist (q1, q2), averaged over those
    assert "context_recall" in hybrid.per_query["q1"].metrics
    assert "context_recall" not in hybrid.per_query["q3"].metrics
    assert hybrid.metrics["context_recall"] == 1.0
    assert seen[-1] == (12, 12)  # 4 embeddings + 4 queries x 2 configurations
    assert any("LLM-judged" in n for n in rep.notes)


def test_degraded_retrievals_are_reported(mini, monkeypatch):
    def broken(*a, **k):
        raise RuntimeError("index gone")

    monkeypatch.setattr(mini.keyword_index, "search", broken)
    rep = evaluate(mini, _gs(), resolve(["hybrid"]), metrics=["ndcg@10"], scope=EVERYTHING)
    degraded = [w for w in rep.warnings if w.startswith("hybrid: ")]
    assert degraded == ["hybrid: 4 of 4 retrievals warned: keyword search failed "
                        "(RuntimeError: index gone); results come from the other retriever only"]


def test_judge_scores_are_averaged_when_a_judge_is_given(mini):
    class StubJudge:
        def score(self, q, contexts):
            return {"faithfulness": 1.0 if contexts else 0.0, "answer_relevancy": 0.5}

    rep = evaluate(mini, _gs(), resolve(["hybrid"]), metrics=["ndcg@10"], judge=StubJudge(),
                   scope=EVERYTHING)
    assert rep.configs["hybrid"].metrics["faithfulness"] == 1.0
    assert rep.configs["hybrid"].metrics["answer_relevancy"] == 0.5
    assert not any("LLM-judged" in n for n in rep.notes)


def test_goldenset_without_any_known_document_is_refused(mini):
    gs = make_goldenset("ghost", [GoldQuery("g1", "x?", [Relevant("a.pdf")])])
    with pytest.raises(GoldensetError, match="no query names a document of the corpus"):
        evaluate(mini, gs, resolve(["hybrid"]), scope=EVERYTHING)


def test_unknown_configuration_and_collection(mini):
    from backend.errors import NotFound

    with pytest.raises(ConfigError, match="unknown configuration.*nope.*known: hybrid"):
        resolve(["hybrid", "nope"])
    with pytest.raises(NotFound):
        evaluate(mini, _gs(), resolve(["hybrid"]), collections=["no-such-collection"],
                 scope=EVERYTHING)


def test_runs_are_stored_and_compared(mini):
    gs = _gs("stored")
    save_goldenset(mini, gs, source="test")
    rep = evaluate(mini, gs, resolve(["hybrid", "semantic_only"]), traces=True, scope=EVERYTHING)
    ids = save_report(mini, rep, label="first")
    runs = list_runs(mini, "stored", scope=EVERYTHING)
    assert [r.id for r in runs] == sorted(ids, reverse=True)
    a, b = get_run(mini, ids[0], scope=EVERYTHING), get_run(mini, ids[1], scope=EVERYTHING)
    assert a.info.config_name == "hybrid" and a.info.label == "first"
    assert a.info.params["policy"] == "hybrid" and b.info.params["policy"] == "semantic_only"
    assert a.info.index_meta["vector"]["params"]["embedding_model"]
    assert a.info.index_meta["counts"]["documents"] == len(DOCS)
    assert a.info.goldenset_sha == gs.sha256() and set(a.results) == {"q1", "q2", "q3", "q4"}
    r = a.results["q1"]
    assert r.trace_id and r.relevant == {"gateway.md": 2} and r.ranking[0][0] == "gateway.md"
    from backend.retrieval.traces import get_trace

    stored = get_trace(mini.store, r.trace_id, viewer=None, is_admin=True)
    assert stored.query == r.question and (stored.owner_kind, stored.owner) == ("system", "eval")
    c = compare_runs(a, b, ["ndcg@10", "recall@5"])
    assert c.queries == ["q1", "q2", "q3", "q4"] and not c.notes
    for m in c.metrics:
        assert m.wins + m.losses + m.ties == 4
        assert m.mean_a == pytest.approx(a.info.metrics[m.metric])
        assert 0.0 <= m.p_randomisation <= 1.0 and 0.0 <= m.p_ttest <= 1.0
    same = compare_runs(a, a)
    assert all(m.wins == m.losses == 0 and m.p_randomisation == 1.0 for m in same.metrics)


def test_goldenset_store_and_editor_operations(mini, tmp_path):
    save_goldenset(mini, _gs("edit"), source="test")
    q = service.put_question(mini, "edit", {"id": service.next_question_id(_gs()),
                                            "question": "Who approves leave?",
                                            "relevant": [{"doc": "holidays.md", "grade": 2}]})
    assert q.id == "q5"
    gs = get_goldenset(mini, "edit")
    assert [x.id for x in gs.queries][-1] == "q5"
    service.put_question(mini, "edit", {"id": "q5b", "question": "Who approves leave requests?",
                                        "relevant": ["holidays.md"]}, old_id="q5")
    assert [x.id for x in get_goldenset(mini, "edit").queries] == ["q1", "q2", "q3", "q4", "q5b"]
    with pytest.raises(GoldensetError, match="already has a question with id 'q1'"):
        service.put_question(mini, "edit", {"id": "q1", "question": "x?", "relevant": ["a"]},
                             old_id="q2")
    with pytest.raises(GoldensetError, match="'relevant' must be a non-empty list"):
        service.put_question(mini, "edit", {"id": "q9", "question": "x?", "relevant": []})
    service.delete_question(mini, "edit", "q5b")
    info = {g.name: g for g in list_goldensets(mini, scope=EVERYTHING)}["edit"]
    assert info.n_queries == 4 and info.edited
    # Running the file again does not overwrite the copy edited on the page.
    f = tmp_path / "edit.yaml"
    f.write_text(_gs("edit", extra=[GoldQuery("q7", "Another?", [Relevant("pumps.md")])])
                 .to_yaml(), encoding="utf-8")
    gs_file, notes = register_file(mini, f)
    assert len(gs_file.queries) == 5 and "edited on the evaluation page" in notes[0]
    assert len(get_goldenset(mini, "edit").queries) == 4
    hits = service.search_documents(mini, gs, "pump seals replaced", scope=EVERYTHING)
    assert hits[0].key == "pumps.md" and "seals" in hits[0].snippet


def test_cli_run_json_prints_only_json(cli_env, tmp_path, capsys):
    from eval.cli import main

    f = tmp_path / "mini.yaml"
    f.write_text(_gs("cli").to_yaml(), encoding="utf-8")
    assert main(["run", str(f), "-c", "hybrid,lexical_only", "-m", "ndcg@10,recall@10",
                 "--json", "-q"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert list(data) == ["hybrid", "lexical_only"]
    assert {"ndcg@10", "recall@10", "context_precision", "context_recall"} <= set(data["hybrid"])
    assert "no_such_file.pdf" in err and "LLM-judged" in err
    assert main(["runs", "--goldenset", "cli"]) == 0
    out = capsys.readouterr().out
    assert "lexical_only" in out and "hybrid" in out
    ids = [r.id for r in list_runs(service_rs(), "cli", scope=EVERYTHING)]
    assert main(["compare", str(ids[1]), str(ids[0])]) == 0
    out = capsys.readouterr().out
    assert "p (randomisation)" in out and "ndcg@10" in out
    assert main(["export", "cli", "--format", "jsonl"]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 4


def service_rs():
    from backend.config import Settings
    from backend.services.container import Ragscope

    return Ragscope(Settings())


def test_cli_errors_are_one_line(cli_env, capsys):
    from eval.cli import main

    assert main(["run", "no-such-goldenset"]) == 1
    assert main(["compare", "9998", "9999"]) == 1
    assert main(["run", "missing.jsonl"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].startswith("error: no goldenset named 'no-such-goldenset'")
    assert err[1].startswith("error: no evaluation run with id 9998")
    assert err[2] == "error: missing.jsonl: no such goldenset file"
