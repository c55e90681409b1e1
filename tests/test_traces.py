"""Stored retrieval traces have an owner: each user lists and opens only their own, admins
all; another user's trace id behaves exactly like a non-existent one. System traces (CLI,
evaluation) and traces from before migration 0007 are for admins. The migration indexes the
documents of existing traces and chat answers and scrubs documents deleted before it."""
from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
import sqlalchemy as sa

from backend.services import debug
from backend.security.access import Actor, Scope
from backend.errors import NotFound
from backend.ingest.service import Ingestor
from backend.retrieval import RetrievalParams, Retriever, TraceOwner
from backend.retrieval.traces import get_trace, list_traces, save_trace
from backend.store import Store
from backend.store.db import make_engine, upgrade
from tests.page_support import shared_model  # noqa: F401  (fixture)

EVERYTHING = Scope.everything()

DOC = b"# Valve notes\n\n## Seals\n\nThe valve seals are replaced every 17 months.\n"


@pytest.fixture
def traced(rs):
    """Traces of two viewers, one of the CLI and one stored before traces had owners."""
    assert Ingestor(rs).ingest_bytes(DOC, "valves.md").ok
    a = debug.run_query(rs, "valve seals of viewer A", {}, actor=Actor("anna", "viewer"))
    b = debug.run_query(rs, "valve seals of viewer B", {}, actor=Actor("bert", "viewer"))
    cli = Retriever(rs).retrieve("valve seals from the CLI", RetrievalParams(persist_trace=True),
                                 owner=TraceOwner.system("cli"), scope=EVERYTHING)
    old = save_trace(rs.store, Retriever(rs).retrieve("valve seals, old release",
                                                      scope=EVERYTHING))
    return rs, {"a": a["trace"]["id"], "b": b["trace"]["id"], "cli": cli.trace.id, "old": old}


def _ids(rs, viewer, is_admin):
    actor = None if viewer is None else Actor(viewer, "admin" if is_admin else "viewer")
    return {t["id"] for t in debug.past_traces(rs, actor=actor)}


def test_users_list_and_open_only_their_own_traces_admins_all(traced):
    rs, t = traced
    assert _ids(rs, "anna", False) == {t["a"]}
    assert _ids(rs, "bert", False) == {t["b"]}
    assert _ids(rs, "admin", True) == set(t.values())
    assert _ids(rs, None, False) == set()  # nobody signed in: nothing
    assert [x.id for x in list_traces(rs.store, viewer="anna", is_admin=False)] == [t["a"]]

    assert debug.load_trace(rs, t["a"], actor=Actor("anna", "viewer"))["query"] == \
        "valve seals of viewer A"
    for other in (t["b"], t["cli"], t["old"]):
        with pytest.raises(NotFound) as theirs:
            debug.load_trace(rs, other, actor=Actor("anna", "viewer"))
        with pytest.raises(NotFound) as missing:
            debug.load_trace(rs, "no-such-trace", actor=Actor("anna", "viewer"))
        # exactly like a trace that does not exist: nothing tells them apart
        assert str(theirs.value).replace(other, "ID") == \
            str(missing.value).replace("no-such-trace", "ID")
        assert get_trace(rs.store, other, viewer="anna", is_admin=False) is None
    for tid in t.values():
        assert debug.load_trace(rs, tid, actor=Actor("admin", "admin"))["trace"]["id"] == tid
    rows = {x.id: (x.owner_kind, x.owner) for x in list_traces(rs.store, viewer=None,
                                                               is_admin=True)}
    assert rows == {t["a"]: ("user", "anna"), t["b"]: ("user", "bert"),
                    t["cli"]: ("system", "cli"), t["old"]: (None, None)}


def test_a_system_trace_is_not_any_users(traced):
    """A user named like a system caller does not see the system's traces."""
    rs, t = traced
    assert _ids(rs, "cli", False) == set()


def test_cli_search_saves_a_system_trace(rs, monkeypatch, capsys, shared_model):
    from backend.cli.main import main

    assert Ingestor(rs).ingest_bytes(DOC, "valves.md").ok
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(rs.settings.data_dir))
    assert main(["search", "valve seals", "--save-trace", "--json"]) == 0
    tid = json.loads(capsys.readouterr().out)["trace"]["id"]
    row = get_trace(rs.store, tid, viewer=None, is_admin=True)
    assert (row.owner_kind, row.owner) == ("system", "cli")
    assert get_trace(rs.store, tid, viewer="anna", is_admin=False) is None


def test_trace_owner_is_validated():
    with pytest.raises(ValueError, match="kind"):
        TraceOwner("anna", "robot")
    with pytest.raises(ValueError, match="name"):
        TraceOwner.user("")


# ---- migration 0007 on an existing database ------------------------------------------------

def _hit(doc_id: int, text: str, title: str) -> dict:
    return {"chunk_id": f"c{doc_id}", "document_id": doc_id, "version_id": doc_id, "rank": 1,
            "score": 0.5, "text": text, "document_title": title, "filename": f"{title}.md",
            "original_path": f"ab/{title}.md", "source_uri": f"/files/{title}.md",
            "highlights": [f"<b>{text}</b>"], "section_path": [title], "breadcrumb": title}


def test_upgrade_indexes_existing_rows_and_scrubs_documents_deleted_before(db_url):
    engine = make_engine(db_url)
    upgrade(engine, "0006")
    now = datetime.now(timezone.utc)
    md = sa.MetaData()
    docs = sa.Table("documents", md, autoload_with=engine)
    traces = sa.Table("retrieval_traces", md, autoload_with=engine)
    sessions = sa.Table("chat_sessions", md, autoload_with=engine)
    messages = sa.Table("chat_messages", md, autoload_with=engine)
    with engine.begin() as c:
        c.execute(docs.insert(), {"id": 1, "title": "kept", "filename": "kept.md",
                                  "source_kind": "file", "source_uri": "/files/kept.md",
                                  "file_type": "md", "doc_type": "generic", "status": "active",
                                  "meta": {}, "created_at": now, "updated_at": now})
        # document 2 was deleted by the old release, which left it in traces and answers
        c.execute(traces.insert(), {
            "id": "t-old", "query": "pumps", "policy": "hybrid", "params": {}, "hit_count": 2,
            "total_ms": 1.0, "created_at": now,
            "trace": {"hits": [_hit(1, "kept text", "kept"), _hit(2, "gone secret", "gone")],
                      "documents": [], "trace": {"id": "t-old", "stages": []}}})
        c.execute(sessions.insert(), {
            "id": 1, "uuid": "s-1", "user": "anna", "title": "pumps", "provider": "extractive",
            "model": "", "collections": [], "context_limit": 5, "temperature": 0.7,
            "max_tokens": 1024, "policy": "hybrid", "system_prompt": "",
            "answer_profile": "markdown", "created_at": now, "last_activity": now,
            "updated_at": now})
        c.execute(messages.insert(), {
            "id": 1, "session_id": 1, "role": "assistant", "content": "Answer [1] [2].",
            "sources": [{"n": 1, "document_id": 1, "title": "kept", "score": 0.5, "cited": True},
                        {"n": 2, "document_id": 2, "title": "gone", "filename": "gone.md",
                         "original_path": "ab/gone.md", "score": 0.4, "cited": True}],
            "citations": {}, "format_check": {}, "collections": [], "provider": "extractive",
            "model": "extractive", "tokens_counted_locally": True, "cost_label": "local",
            "fallback": False, "trace_id": "t-old", "created_at": now})
    engine.dispose()

    store = Store(db_url)  # migrates to head
    with store.engine.connect() as c:
        assert c.execute(sa.text("SELECT trace_id, document_id FROM trace_documents")).all() \
            == [("t-old", 1)]
        assert c.execute(sa.text(
            "SELECT message_id, document_id FROM chat_message_documents")).all() == [(1, 1)]
        raw = " ".join(str(v) for r in c.execute(sa.text(
            "SELECT * FROM retrieval_traces")) for v in r) + " ".join(
            str(v) for r in c.execute(sa.text("SELECT * FROM chat_messages")) for v in r)
    assert "gone" not in raw and "kept text" in raw
    # no owner before 0007: admins only
    assert list_traces(store, viewer="anna", is_admin=False) == []
    [row] = list_traces(store, viewer=None, is_admin=True)
    assert [h.get("deleted", False) for h in row.trace["hits"]] == [False, True]
    assert row.trace["hits"][1]["rank"] == 1 and row.trace["hits"][1]["score"] == 0.5
    store.dispose()
