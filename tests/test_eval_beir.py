"""BEIR import on a small fixture written byte by byte: CRLF qrels with a header line, a qrel
naming a corpus id that does not exist, a query left without relevant documents, a corpus
entry duplicating another's content, an empty entry; evaluation by BEIR document id; the CLI."""
from __future__ import annotations

import json

import pytest

from eval.beir import BeirError, import_beir, load_beir
from eval.configs import resolve
from eval.runner import evaluate
from eval.store import get_goldenset
from backend.security.access import Scope

EVERYTHING = Scope.everything()

CORPUS = [
    {"_id": "d1", "title": "Pump maintenance", "text": "Pump P-2 at Eichberg is serviced every "
                                                         "March; its seals are replaced."},
    {"_id": "d2", "title": "Late fees", "text": "Invoices paid late cost a fee of 5 EUR after "
                                                "the second reminder."},
    {"_id": "d3", "title": "Gateway", "text": "The gateway listens on port 8443 by default."},
    {"_id": "d4", "title": "Pump maintenance", "text": "Pump P-2 at Eichberg is serviced every "
                                                       "March; its seals are replaced."},
    {"_id": "d5", "title": "", "text": "   "},
]
QUERIES = [{"_id": "q1", "text": "When is pump P-2 serviced?"},
           {"_id": "q2", "text": "What does a late invoice cost?"},
           {"_id": "q3", "text": "pump seals Eichberg"},
           {"_id": "q4", "text": "Which port does the gateway use?"},
           {"_id": "q5", "text": "not judged"}]
QRELS = ("query-id\tcorpus-id\tscore\r\n"
         "q1\td1\t1\r\n"
         "q2\td2\t2\r\n"
         "q2\td404\t1\r\n"   # not in the corpus
         "q3\td4\t1\r\n"     # d4 duplicates d1's content: merged into d1
         "q4\td404\t1\r\n"   # nothing left: q4 skipped
         "q4\td3\t0\r\n"     # grade 0: not relevant
         "qX\td2\t1\r\n")    # query not in queries.jsonl


def write_fixture(folder, qrels: str = QRELS, corpus=CORPUS):
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_bytes(b"".join(
        json.dumps(o).encode() + b"\r\n" for o in corpus))
    (folder / "queries.jsonl").write_bytes(b"".join(
        json.dumps(o).encode() + b"\n" for o in QUERIES))
    (folder / "qrels" / "test.tsv").write_bytes(qrels.encode())
    return folder


def test_load_tolerates_crlf_and_a_header(tmp_path):
    data = load_beir(write_fixture(tmp_path / "tiny"))
    assert data.name == "tiny"
    assert data.qrels == {"q1": {"d1": 1}, "q2": {"d2": 2, "d404": 1}, "q3": {"d4": 1},
                          "q4": {"d404": 1, "d3": 0}, "qX": {"d2": 1}}
    assert data.queries["q1"] == "When is pump P-2 serviced?"


def test_import_and_evaluate_by_beir_id(rs, tmp_path):
    folder = write_fixture(tmp_path / "tiny")
    seen = []
    r = import_beir(rs, folder, on_progress=lambda p: seen.append((p.files_done, p.files_total)))
    assert (r.name, r.collection) == ("tiny", "beir-tiny")
    assert (r.documents, r.new, r.merged, r.failed) == (5, 3, 1, 1)
    assert seen[-1] == (5, 5)
    w = "\n".join(r.warnings)
    assert "corpus id 'd5' not imported" in w
    assert "query 'q2' names corpus id 'd404', which is not in corpus.jsonl" in w
    assert "query 'q4': no relevant document left; skipped" in w
    assert "query 'qX' is not in queries.jsonl" in w
    gs = get_goldenset(rs, "tiny")
    assert gs.doc_key == "beir" and gs.collection == "beir-tiny"
    assert gs.qrels() == {"q1": {"d1": 1}, "q2": {"d2": 2}, "q3": {"d1": 1}}
    rep = evaluate(rs, gs, resolve(["hybrid", "lexical_only"]), metrics=["hit@1", "ndcg@10"],
                   scope=EVERYTHING)
    assert rep.warnings == []
    for c in rep.configs.values():
        assert c.per_query["q1"].ranking[0][0] == "d1"  # keyed by BEIR id, not file name
        assert c.per_query["q2"].ranking[0][0] == "d2"
        assert c.metrics["hit@1"] == 1.0
    # Re-importing is cheap and changes nothing.
    again = import_beir(rs, folder)
    assert (again.new, again.unchanged, again.merged) == (0, 3, 1)


def test_bad_beir_input(tmp_path, rs):
    with pytest.raises(BeirError, match="no such folder"):
        load_beir(tmp_path / "nope")
    bad = write_fixture(tmp_path / "bad")
    (bad / "corpus.jsonl").write_text('{"_id": "a", "text": "x"}\n{"_id": "b", "text": \n',
                                      encoding="utf-8")
    with pytest.raises(BeirError, match=r"corpus.jsonl line 2: malformed JSON"):
        import_beir(rs, bad)
    (bad / "qrels" / "test.tsv").write_text("q1\td1\n", encoding="utf-8")
    with pytest.raises(BeirError, match=r"test.tsv line 1: expected query-id, corpus-id, score"):
        load_beir(bad)
    (bad / "qrels" / "test.tsv").unlink()
    with pytest.raises(BeirError, match=r"no qrels/test.tsv"):
        load_beir(bad)
    only_missing = write_fixture(tmp_path / "ghost", qrels="q1\tzz\t1\r\n")
    with pytest.raises(BeirError, match="no qrel names both a query .* and a document"):
        import_beir(rs, only_missing)  # refused before anything is ingested
    from backend.store import repo

    with rs.store.session() as s:
        assert "beir-ghost" not in [c.name for c, _ in repo.list_collections(s)]


def test_cli_import_beir_then_run(tmp_path, monkeypatch, shared_embedder, capsys):
    import backend.embed.embedder
    from eval.cli import main

    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(tmp_path / "var"))
    monkeypatch.setattr(backend.embed.embedder, "Embedder", lambda *a, **k: shared_embedder)
    folder = write_fixture(tmp_path / "folder")
    assert main(["import-beir", str(folder), "--name", "mini-beir", "-q"]) == 1  # d5 failed
    out, err = capsys.readouterr()
    assert "5 documents into collection beir-mini-beir" in out and "documents/s" in out
    assert "d404" in err
    assert main(["run", "mini-beir", "--json", "-q", "-m", "ndcg@10,recall@10"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["hybrid"]["ndcg@10"] > 0.9 and data["hybrid"]["recall@10"] == 1.0
