"""A generated answer with a sentence its cited source does not support (issue 22, item 7):
the chat page flags that sentence under the answer, the API's `answer` event names it. The
model is a recording OpenAI-compatible server on 127.0.0.1 (tests/fake_llm_support.py), so
the answer comes through the same `openai` provider code as the local Qwen model's."""
from __future__ import annotations

import shutil

import pytest

from backend.chat.service import ChatService
from backend.config import Settings
from backend.security.access import Scope
from backend.services.container import Ragscope
from tests.fake_llm_support import recorder  # noqa: F401  (fixture)
from tests.page_support import (app, ask_on_chat_page, copy_of_built,  # noqa: F401
                                components, plain, shared_model)
from tests.sse_support import parse_sse

QUESTION = "What is the default value of storage.retention_days?"
TRUE = "The default value of storage.retention_days has been reduced from 14 to 7 days [1]."
INVENTED = "Archives keep their data for 90 days by default [1]."


@pytest.fixture(scope="module")
def template(tmp_path_factory, shared_embedder):
    d = tmp_path_factory.mktemp("unsupported") / "var"  # a copy of the session's build
    return copy_of_built("release-notes", tmp_path_factory, shared_embedder,
                         ["lumen_release_notes.md"], d)[0]


@pytest.fixture
def model(recorder, monkeypatch):  # noqa: F811
    srv = recorder(lambda body: f"{TRUE} {INVENTED}")
    monkeypatch.setenv("RAGSCOPE_OPENAI_BASE_URL", srv.base_url)
    monkeypatch.setenv("RAGSCOPE_OPENAI_MODEL", "rec-model")
    monkeypatch.setenv("RAGSCOPE_LLM_MAX_RETRIES", "0")
    return srv


@pytest.fixture
def data(template, tmp_path):
    d = tmp_path / "var"
    shutil.copytree(template, d)
    return d


def test_the_chat_page_flags_the_unsupported_sentence_of_a_generated_answer(
        app, data, model, shared_model):  # noqa: F811
    at, uuid = ask_on_chat_page(app, data, "viewer", QUESTION)
    assert model.requests, "the model was asked"
    flagged = [e for e in at.expander if "not supported by the cited source" in e.label]
    assert [plain(e.label) for e in flagged] == [
        "1 sentence(s) not supported by the cited source"]
    lines = [plain(m.value) for m in flagged[0].markdown]
    assert len(lines) == 1 and "unsupported" in lines[0] and "90 days" in lines[0], lines
    assert "14 to 7 days" not in lines[0]
    rs = Ragscope(Settings(data_dir=data))
    stored = ChatService(rs).messages(uuid, scope=Scope.everything())[-1]
    rs.close()
    assert stored.citations["unsupported_sentences"] == [INVENTED.removesuffix(" [1].") + "."]


def test_the_api_answer_names_the_unsupported_sentence(data, model, shared_model):
    from fastapi.testclient import TestClient

    from backend.api.http import create_app
    from backend.api.tokens import create_token

    rs = Ragscope(Settings(data_dir=data, chat_default_provider="openai"))
    token = create_token(rs.store, "root", ["admin"], created_by="tests")[1]
    with TestClient(create_app(rs)) as client, client.stream(
            "POST", "/api/ask", json={"question": QUESTION},
            headers={"Authorization": f"Bearer {token}"}) as r:
        assert r.status_code == 200
        events = parse_sse(r.iter_lines())
    rs.close()
    answer = next(d for _, name, d in events if name == "answer")
    assert answer["provider"] == "openai" and TRUE.split(" [")[0] in answer["text"]
    c = answer["citations"]
    assert [s for s in c["unsupported_sentences"]] == ["Archives keep their data for 90 days "
                                                       "by default."]
    assert not c["ok"]
    support = {s["sentence"]: s["supported"] for s in c["support"]}
    assert support == {"The default value of storage.retention_days has been reduced from 14 "
                       "to 7 days.": True, "Archives keep their data for 90 days by default.":
                       False}
