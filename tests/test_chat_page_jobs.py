"""The chat page's answers are ask jobs (pages/_chat_jobs.py, issue 26): a reload of the
page while an answer is being made (a new script run with `?session=…&job=…` in the URL)
follows the job on and shows the answer once it is done, without asking again; a job of
another user or one whose worker died is not followed. AppTest, as tests/test_chat_pages.py."""
from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace

from streamlit.testing.v1 import AppTest

from backend.chat.service import ChatService
from backend.security.access import Scope
from backend.services import ask_jobs
from backend.api import ask_events
from tests.test_api_ask_jobs import WORDS, GatedModel, _dead_job
from tests.page_support import login_as
from tests.test_chat_pages import APP, _texts, data, service, template  # noqa: F401

EVERYTHING = Scope.everything()
QUESTION = "Which configuration key replaced gateway.maxConn?"


def _viewer():
    return SimpleNamespace(username="viewer", role="viewer")  # the page's signed-in user


def page(monkeypatch, data: Path, **params) -> AppTest:
    """The chat page signed in as viewer, with `params` in the URL (a reload)."""
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(data))
    at = AppTest.from_file(APP, default_timeout=90)
    login_as(at, "viewer")
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    at.switch_page("pages/chat.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_reload_mid_answer_follows_the_job_to_its_answer(monkeypatch, data, service):
    model = GatedModel()
    gated = ChatService(service.rs, provider_factory=lambda name: model)
    sess = gated.create_session("viewer")
    events = gated.ask_stream(sess.uuid, QUESTION, scope=EVERYTHING, user="viewer")
    job = ask_jobs.start_events(service.rs, _viewer(), QUESTION, events,
                                encode=ask_events.encode)
    threading.Timer(2.0, model.go.set).start()  # the model goes on while the page follows
    at = page(monkeypatch, data, session=sess.uuid, job=job.id)
    msgs = service.messages(sess.uuid, scope=EVERYTHING)
    assert [m.role for m in msgs] == ["user", "assistant"]  # asked once, by the job
    assert msgs[1].content.strip() == WORDS
    assert WORDS.split()[-2] in _texts(at)  # the stored answer is shown
    assert "job" not in at.query_params
    assert ask_jobs.status(service.rs, _viewer(), job.id).status == "done"


def test_a_stale_or_anothers_job_is_not_followed(monkeypatch, data, service):
    sess = service.create_session("viewer")
    dead = _dead_job(service.rs, "viewer", events=2,
                     ago_s=service.rs.settings.ask_job_stale_s + 5)
    at = page(monkeypatch, data, session=sess.uuid, job=dead)
    assert any("could not be completed (stale)" in e.value for e in at.error)
    assert "job" not in at.query_params
    other = _dead_job(service.rs, "someone-else", events=2, ago_s=1)
    at = page(monkeypatch, data, session=sess.uuid, job=other)
    assert not at.error and "job" not in at.query_params
    assert service.messages(sess.uuid, scope=EVERYTHING) == []
