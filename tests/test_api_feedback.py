"""Rating answers over the HTTP API (`POST /api/chat/messages/{id}/feedback`) and the MCP
tool `rate_answer`: a principal rates the answers of its own `/api/ask` sessions; another
principal's answer is not found (404, as a missing one); a bad rating names the field. The
answers are stored through the chat's `store_turn` on a small data dir (no corpus)."""
from __future__ import annotations

import asyncio

import pytest
from mcp import Client

from backend.chat.service import ChatService
from backend.chat.types import SessionSettings
from backend.security.access import Actor
from backend.services import feedback
from tests.api_support import grant_and_issue


@pytest.fixture
def env(make_rs):
    from fastapi.testclient import TestClient

    from backend.api.http import create_app

    rs = make_rs(api_rate_per_token=0, api_rate_per_address=0)
    tokens = grant_and_issue(rs, {}, {"robot": ([], ["read"]), "other": ([], ["read"])})
    chat = ChatService(rs)
    ids = {}
    for who in ("robot", "other"):
        sess = chat.create_session(f"api:{who}")
        ids[who] = chat.store_turn(sess.uuid, "Which port?", SessionSettings(),
                                   content="Port 8443.", sources=[], citations={},
                                   provider="extractive", model="extractive").message.id
    with TestClient(create_app(rs), raise_server_exceptions=False) as client:
        yield rs, client, tokens, ids


def _post(client, token, mid, body):
    return client.post(f"/api/chat/messages/{mid}/feedback", json=body,
                       headers={"Authorization": f"Bearer {token}"})


def test_a_principal_rates_its_own_answer_and_not_anothers(env):
    rs, client, tokens, ids = env
    r = _post(client, tokens["robot"], ids["robot"], {"rating": "down", "note": "8444 now"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["rated"], body["rating"], body["note"], body["user"]) == \
        (True, "down", "8444 now", "api:robot")
    (row,) = feedback.rated_answers(rs, Actor("robot", "viewer", kind="principal"))
    assert row.question == "Which port?" and row.feedback.note == "8444 now"
    r = _post(client, tokens["robot"], ids["other"], {"rating": "up"})
    assert r.status_code == 404 and "not one you may rate" in r.json()["error"]["message"]
    r = _post(client, tokens["robot"], ids["robot"], {"rating": None})
    assert r.status_code == 200 and r.json()["rated"] is False
    assert feedback.rated_answers(rs, Actor.system()) == []


@pytest.mark.parametrize("body,field", [({"rating": "meh"}, "rating"),
                                        ({"rating": "up", "note": "x" * 2001}, "note"),
                                        ({"rating": "up", "stars": 5}, "stars"),
                                        ({}, "rating")])
def test_bad_feedback_is_refused_naming_the_field(env, body, field):
    rs, client, tokens, ids = env
    r = _post(client, tokens["robot"], ids["robot"], body)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["field"].endswith(field), r.json()
    assert feedback.rated_answers(rs, Actor.system()) == []


def test_the_mcp_tool_rates_an_answer_of_answer_question(env):
    from backend.api.mcp_server import build_mcp

    rs, _, tokens, ids = env

    async def go():
        async with Client(build_mcp(rs, stdio_token=tokens["robot"])) as c:
            ok = await c.call_tool("rate_answer", {"message_id": ids["robot"],
                                                   "rating": "up", "note": "right"})
            other = await c.call_tool("rate_answer", {"message_id": ids["other"],
                                                      "rating": "up"})
            return ok, other

    ok, other = asyncio.run(asyncio.wait_for(go(), 120))
    assert not ok.is_error and ok.structured_content["rating"] == "up"
    assert other.is_error and "not_found" in other.content[0].text
    (row,) = feedback.rated_answers(rs, Actor.system())
    assert (row.feedback.user, row.feedback.note) == ("api:robot", "right")
