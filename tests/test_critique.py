"""Critics and critique rounds (issue 26.1): the feedback parser, the critics' store, and
critique rounds through the real `openai` provider against a recording OpenAI-compatible
server on 127.0.0.1 — the exact requests (each LLM critic's prompt carries the answer and
the sources, the revision prompt carries the failing critiques), rounds stopping as soon as
every critic passes, a reply without JSON stored as a failed critique with its raw text, the
CLI `critique`, `POST /api/critique`, `GET /api/critics` and the MCP tool."""
from __future__ import annotations

import asyncio
import json

import pytest

from backend.chat.critique.feedback import UnparseableFeedback, parse_feedback
from backend.chat.service import ChatService
from backend.chat.types import SessionSettings
from backend.security.access import Actor
from backend.services import critique
from backend.store.critic_models import ContentCritique, CritiqueRun
from tests.fake_llm_support import last_prompt, recorder  # noqa: F401  (fixture)

SOURCE = "The Lumen Data Gateway listens on port 8443 by default (key gateway.port)."
WRONG = "The gateway listens on port 9000 by default [1]."
RIGHT = "The gateway listens on port 8443 by default [1]."
LOW = '{"rating": 3, "issues": ["port 9000 is not in source 1"], "suggestions": ["say 8443"]}'
HIGH = "```json\n{\"rating\": 9, \"issues\": [], \"suggestions\": []}\n```"


# ---- the feedback format -------------------------------------------------------------------

@pytest.mark.parametrize("reply,rating", [
    ('{"rating": 8, "issues": ["a"], "suggestions": ["b"]}', 8),
    ('Sure! Here is my review:\n```json\n{"rating": 6, "issues": []}\n```\nHope it helps', 6),
    ('{"score": "7/10", "issues": "one issue", "suggestions": [],}', 7),
    ('{"note": "no rating here"} and then {"rating": 12}', 10),
])
def test_feedback_is_read_from_fences_trailing_text_and_loose_json(reply, rating):
    fb = parse_feedback(reply)
    assert fb.rating == rating
    assert all(isinstance(i, str) for i in fb.issues)


def test_a_reply_without_a_rating_is_unparseable_and_names_the_reply():
    with pytest.raises(UnparseableFeedback, match="I think the answer is fine"):
        parse_feedback("I think the answer is fine.")


def _prompt(body) -> str:
    return last_prompt(body)


def _by_answer(body) -> str:
    """A critic rates the wrong answer low and the right one high; a revision writes RIGHT."""
    p = _prompt(body)
    if "Critiques:" in p:
        return RIGHT
    return LOW if "port 9000" in p.split("Answer to check:")[-1] else HIGH


@pytest.fixture
def answered(make_rs, recorder, tmp_path):
    """A data dir with one document and a stored answer citing its chunk; the `openai`
    provider points at a recording server."""
    from backend.ingest.service import Ingestor
    from backend.store.models import Chunk

    def make(reply=_by_answer, content=WRONG, **overrides):
        srv = recorder(reply)
        rs = make_rs(openai_base_url=srv.base_url,
                     openai_model="rec-model", llm_max_retries=0,
                     api_rate_per_token=0, api_rate_per_address=0, **overrides)
        doc = tmp_path / "gateway.md"
        doc.write_text(f"# Gateway\n\n{SOURCE}\n")
        assert all(o.ok for o in Ingestor(rs).ingest_paths([doc], collection="ops"))
        with rs.store.session() as s:
            chunk = s.query(Chunk).first()
            src = {"n": 1, "chunk_id": chunk.id, "document_id": chunk.document_id,
                   "title": "gateway.md", "filename": "gateway.md", "cited": True}
        chat = ChatService(rs)
        sess = chat.create_session("alice", provider="openai")
        mid = chat.store_turn(sess.uuid, "Which port does the gateway use?", SessionSettings(),
                              content=content, sources=[src], citations={},
                              provider="openai", model="rec-model").message.id
        return rs, srv, mid

    return make


def test_rounds_revise_with_the_critiques_and_stop_when_all_pass(answered):
    rs, srv, mid = answered()
    run = critique.critique_message(rs, Actor("alice", "viewer"), mid, rounds=2)
    assert run["status"] == "revised" and run["final_text"] == RIGHT
    assert [r["all_passed"] for r in run["critique_rounds"]] == [False, True]
    # round 1: three LLM critics; the revision; round 2: three critics again; then stop
    assert len(srv.requests) == 7, [_prompt(b)[:60] for b in srv.requests]
    first = srv.requests[:3]
    for body in first:
        assert body["model"] == "rec-model" and body["stream"] is True
        assert WRONG in _prompt(body) and '"rating"' in _prompt(body)
    fact = _prompt(first[0])
    assert "fact checker" in fact and SOURCE in fact and "Which port" in fact
    assert "style rules" in _prompt(first[1]).lower() and "No emojis" in _prompt(first[1])
    assert "structure analyst" in _prompt(first[2])
    revision = _prompt(srv.requests[3])
    assert "Critiques:" in revision and "port 9000 is not in source 1" in revision
    assert "say 8443" in revision and SOURCE in revision and WRONG in revision
    assert all(RIGHT in _prompt(b) for b in srv.requests[4:])
    (r1, r2) = run["critique_rounds"]
    fmt = r1["critiques"][3]
    assert (fmt["critic"], fmt["deterministic"], fmt["rating"], fmt["passed"]) == \
        ("Format checker", True, 10.0, True)
    assert r1["revision"] == RIGHT and r2["revision"] is None
    # stored: the run, its 8 critiques and the revision, shown again for the message
    shown = critique.runs_of_messages(rs, Actor("alice", "viewer"), [mid])[mid]
    assert shown[0]["id"] == run["id"] and shown[0]["critique_rounds"] == run["critique_rounds"]


def test_a_passing_answer_is_validated_without_a_revision(answered):
    rs, srv, mid = answered(content=RIGHT)
    run = critique.critique_message(rs, Actor("alice", "viewer"), mid, rounds=2)
    assert run["status"] == "validated" and run["rounds"] == 1 and len(srv.requests) == 3


def test_rounds_are_bounded_and_a_text_that_never_passes_fails(answered):
    rs, srv, mid = answered(reply=lambda b: "STILL WRONG 9000" if "Critiques:" in _prompt(b)
                            else LOW)
    run = critique.critique_message(rs, Actor("alice", "viewer"), mid, rounds=1)
    assert run["status"] == "failed" and run["rounds"] == 2
    assert len(srv.requests) == 3 + 1 + 3  # no second revision: one allowed


def test_an_unparseable_reply_is_a_failed_critique_stored_with_its_raw_text(answered):
    rs, srv, mid = answered(reply=lambda b: "Looks fine to me." if "fact checker" in _prompt(b)
                            else HIGH)
    run = critique.critique_message(rs, Actor("alice", "viewer"), mid, rounds=2)
    fact = run["critique_rounds"][0]["critiques"][0]
    assert fact["rating"] is None and not fact["passed"] and fact["raw"] == "Looks fine to me."
    assert "no JSON object with a rating" in fact["error"]
    # nothing usable to revise with: no revision, the run fails and says why
    assert run["status"] == "failed" and "no critic gave usable feedback" in run["error"]
    with rs.store.session() as s:
        assert s.query(ContentCritique).count() == 4
        assert s.get(CritiqueRun, run["id"]).status == "failed"


def test_another_users_answer_is_not_found_and_extractive_cannot_critique(answered):
    from backend.errors import NotFound

    rs, srv, mid = answered()
    with pytest.raises(NotFound, match="not one you may read"):
        critique.critique_message(rs, Actor("bob", "viewer"), mid)
    with pytest.raises(critique.CritiqueInputError, match="extractive answerer cannot"):
        critique.critique_text(rs, Actor("bob", "viewer"), "x", provider="extractive")
    assert srv.requests == []


def test_admins_edit_critics_and_bad_fields_are_named(answered):
    from backend.security.auth import PermissionDenied

    rs, srv, mid = answered()
    admin, viewer = Actor("root", "admin"), Actor("alice", "viewer")
    with pytest.raises(PermissionDenied):
        critique.update_critic(rs, viewer, "Stylist", active=False)
    with pytest.raises(critique.CritiqueInputError, match="threshold must be 0-10") as e:
        critique.update_critic(rs, admin, "Stylist", threshold=11)
    assert e.value.field == "threshold"
    with pytest.raises(critique.CritiqueInputError, match=r"must contain \{answer\}"):
        critique.update_critic(rs, admin, "Stylist", prompt="Rate it.")
    critique.update_critic(rs, admin, "Stylist", active=False)
    critique.update_critic(rs, admin, "Structure analyst", active=False)
    run = critique.critique_message(rs, viewer, mid, rounds=0)
    assert [c["critic"] for c in run["critique_rounds"][0]["critiques"]] == \
        ["Fact checker", "Format checker"]
    assert run["status"] == "failed" and len(srv.requests) == 1  # rounds 0: no revision


def test_cli_critiques_a_text_with_sources_from_a_file(answered, tmp_path, monkeypatch, capsys):
    from backend.cli import common
    from backend.cli.main import main

    rs, srv, _ = answered()
    monkeypatch.setattr(common, "_rs", lambda: rs)
    sources = tmp_path / "sources.json"
    sources.write_text(json.dumps([{"title": "gateway.md", "text": SOURCE}]))
    code = main(["critique", "--text", WRONG, "--sources", str(sources), "--rounds", "1",
                 "--provider", "openai", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["status"] == "revised" and out["final_text"] == RIGHT
    assert out["message_id"] is None and out["kind"] == "text"
    assert SOURCE in _prompt(srv.requests[0])
    bad = tmp_path / "bad.json"
    bad.write_text("[{")
    assert main(["critique", "--text", WRONG, "--sources", str(bad)]) == 2
    assert f"{bad}: not valid JSON" in capsys.readouterr().err


def test_http_and_mcp_critique_a_principals_answer(answered):
    from fastapi.testclient import TestClient
    from mcp import Client

    from backend.api.http import create_app
    from backend.api.mcp_server import build_mcp
    from tests.api_support import grant_and_issue

    rs, srv, _ = answered(critique_provider="openai")
    tokens = grant_and_issue(rs, {}, {"robot": ([], ["read"])})
    chat = ChatService(rs)
    sess = chat.create_session("api:robot", provider="openai")
    mid = chat.store_turn(sess.uuid, "Which port?", SessionSettings(), content=WRONG,
                          sources=[], citations={}, provider="openai",
                          model="rec-model").message.id
    auth = {"Authorization": f"Bearer {tokens['robot']}"}
    with TestClient(create_app(rs), raise_server_exceptions=False) as client:
        r = client.post("/api/critique", json={"message_id": mid, "rounds": 1}, headers=auth)
        assert r.status_code == 200, r.text
        assert r.json()["status"] == "revised" and r.json()["final_text"] == RIGHT
        r = client.post("/api/critique", json={"text": "x", "rounds": 11}, headers=auth)
        assert r.status_code == 422 and r.json()["error"]["field"].endswith("rounds")
        r = client.post("/api/critique", json={}, headers=auth)
        assert r.status_code == 422 and r.json()["error"]["field"] == "text"
        r = client.get("/api/critics", headers=auth)
        assert [c["type"] for c in r.json()["critics"]] == \
            ["fact", "style", "structure", "format"]
        r = client.patch("/api/critics/2", json={"active": False}, headers=auth)
        assert r.status_code == 403

    async def go():
        async with Client(build_mcp(rs, stdio_token=tokens["robot"])) as c:
            res = await c.call_tool("critique_answer", {"text": RIGHT, "sources": [SOURCE],
                                                        "rounds": 0})
            return json.loads(res.content[0].text)

    out = asyncio.run(go())
    assert out["status"] == "validated" and out["final_text"] == RIGHT


def test_the_stylist_checks_against_the_sessions_author_profile(answered):
    """An answer written under an author profile is critiqued against that profile's rules
    (issue 26.2 wired into the stylist), not the format checker's defaults."""
    from backend.chat.profiles import ProfileService

    rs, srv, mid = answered(content=RIGHT)
    prof = ProfileService(rs).create(Actor("ed", "editor"), name="Kurz und du",
                                     address="du", max_sentence_words=12,
                                     forbidden_words=["grundsätzlich"])
    with rs.store.session() as s:
        from backend.store.chat_models import ChatMessage, ChatSession
        sess = s.get(ChatSession, s.get(ChatMessage, mid).session_id)
        sess.profile_id = prof.id
    critique.critique_message(rs, Actor("alice", "viewer"), mid, rounds=0)
    stylist = _prompt(srv.requests[1])
    assert "grundsätzlich" in stylist and "12" in stylist


def test_a_run_left_running_by_a_dead_process_reads_as_interrupted(answered):
    """A process killed during its rounds leaves the run `running`; once nothing was stored
    for longer than one LLM step may take, readers show it as interrupted with the reason,
    while a run that is still within that time stays running."""
    from datetime import datetime, timedelta, timezone

    rs, _srv, mid = answered(llm_timeout_s=30, llm_connect_timeout_s=5)
    alice = Actor("alice", "viewer")
    old = datetime.now(timezone.utc) - timedelta(minutes=10)
    with rs.store.session() as s:
        dead = CritiqueRun(message_id=mid, text_hash="x", original_text=WRONG, status="running",
                           user="alice", created_at=old)
        s.add(dead)
        s.flush()
        s.add(ContentCritique(run_id=dead.id, round=1, critic_name="Fact checker",
                              critic_type="llm", threshold=7, created_at=old))
        s.add(CritiqueRun(message_id=mid, text_hash="y", original_text=WRONG, status="running",
                          user="alice"))
    shown = critique.runs_of_messages(rs, alice, [mid])[mid]
    assert [r["status"] for r in shown] == ["running", "interrupted"]
    assert "stopped before it finished" in shown[1]["error"]
    assert [r["status"] for r in critique.recent_runs(rs, alice)] == ["running", "interrupted"]
    with rs.store.session() as s:  # the stored row is not rewritten by reading it
        assert s.get(CritiqueRun, shown[1]["id"]).status == "running"
