"""Automatic critique of generated answers (issue 26.1, RAGSCOPE_CRITIQUE_AUTO;
backend/services/auto_critique.py): the chat answers through the real `openai` provider
against a recording server on 127.0.0.1 that writes a wrong port, the critics rate it low,
the revision writes the right one. With the setting on, the answer the user reads (the
stream's `answer`, the stored message, an ask job's events) is the revision; off, no critic
is asked; the extractive answerer is never critiqued."""
from __future__ import annotations

import json

import pytest

from backend.api import ask_events
from backend.chat.service import ChatService
from backend.chat.types import Answered, Critiquing
from backend.security.access import Actor
from backend.services import ask_jobs, critique, search
from tests.fake_llm_support import last_prompt, recorder  # noqa: F401  (fixture)
from tests.page_support import (app, ask_on_chat_page, bare, components, open_page,  # noqa: F401
                                plain, shared_model)

SOURCE = "The Lumen Data Gateway listens on port 8443 by default (key gateway.port)."
WRONG = "The gateway listens on port 9000 by default [1]."
RIGHT = "The gateway listens on port 8443 by default [1]."
LOW = '{"rating": 3, "issues": ["port 9000 is not in source 1"], "suggestions": ["say 8443"]}'
HIGH = '{"rating": 9, "issues": [], "suggestions": []}'
QUESTION = "Which port does the Lumen Data Gateway listen on by default?"
ALICE = Actor("alice", "viewer")


def _reply(body) -> str:
    """The answer is WRONG; a critic rates WRONG low and RIGHT high; a revision is RIGHT."""
    p = last_prompt(body)
    if "Critiques:" in p:
        return RIGHT
    if "Answer to check:" in p:
        return LOW if "port 9000" in p.split("Answer to check:")[-1] else HIGH
    return WRONG


def _critic_requests(srv) -> list:
    return [b for b in srv.requests if "Answer to check:" in last_prompt(b)]


@pytest.fixture
def chat_env(make_rs, recorder, tmp_path):
    """A data dir with one document, the chat answering with `openai` at a recorder."""
    from backend.ingest.service import Ingestor

    def make(**overrides):
        srv = recorder(_reply)
        values = dict(openai_base_url=srv.base_url, openai_model="rec-model",
                      llm_max_retries=0, chat_default_provider="openai",
                      critique_max_rounds=2)
        rs = make_rs(**{**values, **overrides})
        doc = tmp_path / "gateway.md"
        doc.write_text(f"# Gateway\n\n{SOURCE}\n")
        assert all(o.ok for o in Ingestor(rs).ingest_paths([doc], collection="ops"))
        return rs, srv

    return make


def _stored(rs, message_id: int):
    from backend.security.access import Scope

    chat = ChatService(rs)
    sess = chat.list_sessions(user="alice")[0]
    return next(m for m in chat.messages(sess.uuid, scope=Scope.everything(), user="alice")
                if m.id == message_id)


def test_auto_on_the_answer_read_and_stored_is_the_revision(chat_env):
    rs, srv = chat_env(critique_auto=True)
    events = list(search.ask_stream(rs, ALICE, QUESTION))
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("Critiquing") == len(kinds) - 2 and kinds[-1] == "Answered", kinds
    answered = events[-1]
    assert isinstance(answered, Answered) and answered.message.content == RIGHT
    mark = answered.message.citations["critique"]
    assert (mark["status"], mark["revised_in_round"], mark["revisions"]) == ("revised", 1, 1)
    assert answered.message.citations["cited"] == [1]
    assert answered.message.citations["invalid"] == []
    assert "unsupported_sentences" not in answered.message.citations  # of the original
    stored = _stored(rs, answered.message.id)
    assert stored.content == RIGHT and stored.citations["critique"] == mark
    run = critique.runs_of_messages(rs, ALICE, [stored.id])[stored.id][0]
    assert run["id"] == mark["run_id"] and run["original_text"] == WRONG
    assert run["final_text"] == RIGHT
    # the API's stream: a `status` event says the answer is being critiqued
    name, data = ask_events.encode(events[-2])
    assert name == "status" and data["phase"] == "critiquing"
    assert RIGHT in json.dumps(ask_events.encode(answered)[1])


def test_auto_on_an_ask_job_streams_critiquing_and_answers_with_the_revision(chat_env):
    rs, srv = chat_env(critique_auto=True)
    job = ask_jobs.start(rs, ALICE, QUESTION, encode=ask_events.encode)
    events = [(name, json.loads(data)) for _, name, data in ask_jobs.stream(rs, ALICE, job.id)]
    phases = [d["phase"] for name, d in events if name == "status"]
    assert phases == ["retrieving", "generating", "critiquing"], events
    name, answer = events[-1]
    assert name == "answer" and RIGHT in json.dumps(answer) and WRONG not in json.dumps(answer)


def test_auto_off_no_critic_is_asked(chat_env):
    rs, srv = chat_env(critique_auto=False)
    events = list(search.ask_stream(rs, ALICE, QUESTION))
    assert not any(isinstance(e, Critiquing) for e in events)
    assert events[-1].message.content == WRONG
    assert "critique" not in events[-1].message.citations
    assert len(srv.requests) == 1 and _critic_requests(srv) == []


def test_extractive_answers_are_never_critiqued(chat_env):
    rs, srv = chat_env(critique_auto=True, chat_default_provider="extractive")
    events = list(search.ask_stream(rs, ALICE, QUESTION))
    assert not any(isinstance(e, Critiquing) for e in events)
    assert "8443" in events[-1].message.content
    assert "critique" not in events[-1].message.citations
    assert srv.requests == []
    assert critique.runs_of_messages(rs, ALICE, [events[-1].message.id]) == {}


def test_without_an_active_critic_the_answer_stays_and_says_why(chat_env):
    rs, srv = chat_env(critique_auto=True)
    for c in critique.list_critics(rs, Actor("root", "admin")):
        critique.update_critic(rs, Actor("root", "admin"), c.id, active=False)
    answered = list(search.ask_stream(rs, ALICE, QUESTION))[-1]
    assert answered.message.content == WRONG
    mark = answered.message.citations["critique"]
    assert mark["status"] == "skipped" and "no critic is active" in mark["error"]
    assert _stored(rs, answered.message.id).citations["critique"] == mark


def test_the_chat_page_says_the_answer_was_revised_after_critique(app, bare):
    """A stored answer marked by the automatic critique shows its caption on the chat page;
    an unmarked one shows none."""
    from backend.chat.types import SessionSettings
    from backend.config import Settings
    from backend.services.container import Ragscope

    data, _ = bare
    rs = Ragscope(Settings(data_dir=data))
    chat = ChatService(rs)
    sess = chat.create_session("viewer", provider="openai")
    mark = {"run_id": 1, "status": "revised", "rounds": 3, "revisions": 2,
            "revised_in_round": 2, "error": None}
    chat.store_turn(sess.uuid, "Which port?", SessionSettings(), content=RIGHT, sources=[],
                    citations={"critique": mark}, provider="openai", model="rec-model")
    chat.store_turn(sess.uuid, "And the host?", SessionSettings(), content="localhost.",
                    sources=[], citations={}, provider="openai", model="rec-model")
    rs.close()
    at = app(data, "viewer")
    at.query_params["session"] = sess.uuid
    open_page(at, "chat")
    assert not at.exception, [e.value for e in at.exception]
    captions = [plain(c.value) for c in at.caption if "after critique" in c.value]
    assert captions == ["revised after critique (round 2)"], captions


def test_an_admin_switches_it_on_at_run_time_for_the_next_answer(chat_env):
    from backend.services import admin_config

    rs, srv = chat_env(critique_auto=False)
    assert list(search.ask_stream(rs, ALICE, QUESTION))[-1].message.content == WRONG
    admin_config.set_setting(rs, Actor("root", "admin"), "critique_auto", "true")
    assert list(search.ask_stream(rs, ALICE, QUESTION))[-1].message.content == RIGHT


def test_the_dashboard_chat_shows_the_revision_of_a_question_asked_there(app, bare, recorder,
                                                                        monkeypatch, tmp_path):
    """The chat page's own path (an ask job over the session's stream, pages/_chat_jobs.py):
    the question asked there is answered WRONG, critiqued and shown as the revision."""
    from backend.config import Settings
    from backend.ingest.service import Ingestor
    from backend.security.access import Scope
    from backend.services.container import Ragscope

    data, _ = bare
    srv = recorder(_reply)
    for k, v in {"OPENAI_BASE_URL": srv.base_url, "OPENAI_MODEL": "rec-model",
                 "LLM_MAX_RETRIES": "0", "CRITIQUE_AUTO": "true"}.items():
        monkeypatch.setenv(f"RAGSCOPE_{k}", v)
    rs = Ragscope(Settings(data_dir=data))
    doc = tmp_path / "gateway.md"
    doc.write_text(f"# Gateway\n\n{SOURCE}\n")
    assert all(o.ok for o in Ingestor(rs).ingest_paths([doc], collection="ops"))
    rs.close()
    at, uuid = ask_on_chat_page(app, data, "viewer", QUESTION)
    rs = Ragscope(Settings(data_dir=data))
    msgs = ChatService(rs).messages(uuid, scope=Scope.everything(), user="viewer")
    rs.close()
    assert [m.content for m in msgs if m.role == "assistant"] == [RIGHT]
    at.run()
    assert any("revised after critique (round 1)" in plain(c.value) for c in at.caption)
    assert "8443" in "\n".join(plain(m.value) for m in at.markdown)
    assert _critic_requests(srv)
