"""Deleting a document takes it out of what was derived from it: a chat answer (extractive
provider) and query-debug traces are stored, the document is deleted (backend service,
CLI, dashboard), and no stored trace or chat source still holds its chunk text, title,
file name or path (searched in the raw database rows); the answer text stays unless the
purge option is used; the chat and query-debug pages show "deleted document"."""
from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from backend.services import debug
from backend.security.access import Actor, Scope
from backend.chat.service import ChatService
from backend.chat.sources import REDACTED_ANSWER
from backend.config import Settings
from backend.ingest.service import Ingestor
from backend.retrieval import TraceOwner
from backend.services.container import Ragscope
from backend.store.models import DocumentVersion
from tests.page_support import (  # noqa: F401  (fixtures)
    add_users,
    app,
    components,
    plain,
    shared_model,
)

EVERYTHING = Scope.everything()

SECRET = ("# Zephyrine Valve Manual\n\n## Seals\n\nThe valve seals must be replaced every "
          "17 months with seal kit ZX-7781 by a certified technician.\n")
KEPT = ("# Pump Handbook\n\n## Intake\n\nThe intake pump valve is checked weekly and its "
        "seals are replaced when worn.\n")
QUESTION = "How often must the valve seals be replaced?"
# Title and file name ("zephyrine"), chunk text ("zx-7781"); the path is added per test.
MARKERS = ["zephyrine", "zx-7781"]


@pytest.fixture(scope="module")
def template(tmp_path_factory, shared_embedder):
    """Two documents, the three dashboard users, a chat answer of "viewer" drawing on both
    and a query-debug trace of "viewer". Copied for every test."""
    root = tmp_path_factory.mktemp("deletion")
    files = root / "files"
    files.mkdir()
    (files / "zephyrine_valves.md").write_text(SECRET, encoding="utf-8")
    (files / "pump_handbook.md").write_text(KEPT, encoding="utf-8")
    data = root / "var"
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = shared_embedder
    outs = Ingestor(rs).ingest_paths([files], collection="manuals")
    assert all(o.ok for o in outs), [o.error for o in outs]
    ids = {Path(o.filename).name: o.document_id for o in outs}
    with rs.store.session() as s:
        original = s.get(DocumentVersion, next(o.version_id for o in outs
                                               if o.filename.startswith("zephyrine"))).original_path
    svc = ChatService(rs)
    sess = svc.create_session("viewer")
    answer = svc.ask(sess.uuid, QUESTION, scope=EVERYTHING).message
    trace = debug.run_query(rs, "valve seal replacement", {}, actor=Actor("viewer", "viewer"))
    rs.close()
    add_users(data)
    return {"data": data, "ids": ids, "session": sess.uuid, "answer": answer,
            "trace_id": trace["trace"]["id"], "original": original}


@pytest.fixture
def setup(template, tmp_path, shared_embedder):
    data = tmp_path / "var"
    shutil.copytree(template["data"], data)
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = shared_embedder
    yield {**template, "data": data, "rs": rs}
    rs.close()


def raw_rows(data: Path, table: str, columns: str = "*") -> list[str]:
    """Every row of a table as one lower-cased string, read with sqlite3 (not the ORM)."""
    with sqlite3.connect(data / "ragscope.db") as c:
        return [" ".join(map(str, r)).lower() for r in c.execute(f"SELECT {columns} FROM {table}")]


def leaks(rows: list[str], markers: list[str]) -> list[str]:
    return [m for m in markers for r in rows if m.lower() in r]


def test_the_setup_holds_the_document_everywhere(setup):
    """Guard for the tests below: before the delete, every place holds the document."""
    markers = MARKERS + [setup["original"]]
    a = setup["answer"]
    assert any(s["title"] == "Zephyrine Valve Manual" for s in a.sources)
    assert "zx-7781" in a.content.lower()
    assert set(leaks(raw_rows(setup["data"], "retrieval_traces"), markers)) == set(markers)
    assert set(leaks(raw_rows(setup["data"], "chat_messages", "sources"), markers)) >= {
        "zephyrine", setup["original"]}


def test_delete_scrubs_traces_and_chat_sources_and_keeps_the_answer(setup):
    rs, data = setup["rs"], setup["data"]
    secret_id, kept_id = setup["ids"]["zephyrine_valves.md"], setup["ids"]["pump_handbook.md"]
    before = {s["n"]: s for s in setup["answer"].sources}
    Ingestor(rs).delete_document(secret_id)

    markers = MARKERS + [setup["original"], str(Path(setup["original"]).name)]
    for table in ("retrieval_traces", "trace_documents", "chat_message_documents"):
        assert not leaks(raw_rows(data, table), markers), table
    assert not leaks(raw_rows(data, "chat_messages", "sources, format_check"), markers)
    # the other document is untouched
    assert any("pump handbook" in r for r in raw_rows(data, "retrieval_traces"))

    # sources keep their numbers (citations stay aligned) and say "deleted document"
    [answer] = [m for m in ChatService(rs).messages(setup["session"],
                                                    scope=EVERYTHING) if m.role == "assistant"]
    assert [s["n"] for s in answer.sources] == sorted(before)
    for s in answer.sources:
        if before[s["n"]]["document_id"] == secret_id:
            assert s["deleted"] and s["title"] == "deleted document"
            assert s["cited"] == before[s["n"]]["cited"]
            assert not s["filename"] and not s["original_path"] and not s["section_path"]
        else:
            assert s == before[s["n"]] and s["document_id"] == kept_id
    # the answer text is kept by default (it may quote the document)
    assert answer.content == setup["answer"].content and "zx-7781" in answer.content.lower()

    # query debug: the past trace is still listed and opens, without the document
    past = debug.past_traces(rs, actor=Actor("viewer", "viewer"))
    assert {t["id"] for t in past} == {setup["trace_id"], answer.trace_id}
    for tid in (setup["trace_id"], answer.trace_id):
        res = debug.load_trace(rs, tid, actor=Actor("viewer", "viewer"))
        gone = [h for h in res["hits"] if h["document_id"] == secret_id]
        assert gone and all(h["deleted"] and h["document_title"] == "deleted document"
                            and not h["text"] and not h["highlights"] for h in gone)
        assert any(h["document_id"] == kept_id and h["text"] for h in res["hits"])


def test_cli_delete_with_purge_answers_removes_the_answer_text_too(setup, monkeypatch, capsys):
    from backend.cli.main import main

    setup["rs"].close()
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(setup["data"]))
    assert main(["delete", "zephyrine_valves.md", "--purge-answers"]) == 0
    assert "chat answers" in capsys.readouterr().out
    markers = MARKERS + [setup["original"]]
    for table in ("retrieval_traces", "chat_messages", "chat_sessions"):
        assert not leaks(raw_rows(setup["data"], table), markers), table
    contents = raw_rows(setup["data"], "chat_messages", "role, content")
    assert contents[0].startswith("user " + QUESTION.lower())  # the question is the user's
    assert contents[1] == "assistant " + REDACTED_ANSWER.lower()


def test_dashboard_delete_with_purge_and_the_pages_show_deleted_document(
        setup, app, shared_model):
    from backend.ui import state as K
    from tests.page_support import open_page, successes

    data, secret_id = setup["data"], setup["ids"]["zephyrine_valves.md"]
    at = app(data, "editor")
    at.query_params["doc"] = str(secret_id)
    open_page(at, "document")
    at.button(key=K.DOCUMENT_DELETE).click().run()
    at.checkbox(key=K.DOCUMENT_PURGE_ANSWERS).check()
    at.button(key=K.DOCUMENT_DELETE_CONFIRM).click().run()
    assert not at.exception and f"Deleted document {secret_id}." in successes(at)
    assert not leaks(raw_rows(data, "chat_messages"), MARKERS + [setup["original"]])

    chat = app(data, "viewer")
    chat.query_params["session"] = setup["session"]
    open_page(chat, "chat")
    shown = "\n".join(plain(m.value) for m in chat.markdown)
    assert "deleted document" in shown and "zephyrine" not in shown.lower()
    assert REDACTED_ANSWER in shown and "zx-7781" not in shown.lower()

    qd = app(data, "viewer")
    qd.query_params["trace"] = setup["trace_id"]
    open_page(qd, "query_debug")
    hits = qd.dataframe[0].value
    assert any("deleted document" in str(p) for p in hits["passage"])  # "title · section"
    labels = " ".join(e.label for e in qd.expander)
    assert "deleted document" in plain(labels) and "zephyrine" not in labels.lower()
    assert not [t.value for t in qd.text if "zx-7781" in t.value.lower()]


def test_a_document_deleted_while_the_answer_is_written_is_marked_in_its_sources(setup):
    """The delete runs between retrieval and the stored answer (a slow model): the answer
    stored afterwards must not bring the document's title and path back."""
    from backend.llm.base import StreamEnd, TextDelta

    rs, secret_id = setup["rs"], setup["ids"]["zephyrine_valves.md"]

    class DeletingProvider:
        name, local, default_model = "extractive", True, "extractive"

        def stream(self, request):
            Ingestor(rs).delete_document(secret_id)
            yield TextDelta("Every 17 months [1].")
            yield StreamEnd("extractive", 10, 5, "end_turn")

    svc = ChatService(rs, provider_factory=lambda name: DeletingProvider())
    sess = svc.create_session("viewer")
    msg = svc.ask(sess.uuid, QUESTION, scope=EVERYTHING).message
    assert any(s.get("deleted") for s in msg.sources)
    assert not leaks(raw_rows(setup["data"], "chat_messages", "sources"),
                     MARKERS + [setup["original"]])
    assert not leaks(raw_rows(setup["data"], "retrieval_traces"), MARKERS + [setup["original"]])


def test_a_document_deleted_while_a_retrieval_runs_is_scrubbed_from_its_trace(setup):
    """The delete runs after the hits were read and before the trace is stored: the trace
    stored afterwards must not bring the document back."""
    from backend.retrieval import RetrievalParams, Retriever
    from backend.retrieval.rerank import DEFAULT_RERANKER

    rs, secret_id = setup["rs"], setup["ids"]["zephyrine_valves.md"]

    class DeletingReranker:
        name = "deleting"

        def score(self, query, hits):
            Ingestor(rs).delete_document(secret_id)
            return DEFAULT_RERANKER.score(query, hits)

    res = Retriever(rs, DeletingReranker()).retrieve(
        "valve seal kit", RetrievalParams(rerank=True, persist_trace=True),
        owner=TraceOwner.user("viewer"), scope=EVERYTHING)
    assert any(h.document_id == secret_id for h in res.hits)  # read before the delete
    stored = debug.load_trace(rs, res.trace.id, actor=Actor("viewer", "viewer"))
    assert all(h["deleted"] for h in stored["hits"] if h["document_id"] == secret_id)
    assert not leaks(raw_rows(setup["data"], "retrieval_traces"), MARKERS + [setup["original"]])
