"""Author profiles over the HTTP API (`/api/profiles`, issue 26): read with a read token,
create/change/delete only with a write token; a bad field is named (422 `error.field`); a
chatbot selects a profile by id; deleting it says how many users fell back to none. The
CLI `python -m backend profiles` on the same store."""
from __future__ import annotations

import pytest

from tests.api_support import grant_and_issue

BODY = {"name": "Sachlich (Sie)", "tone": "sachlich", "formality": "formal", "address": "sie",
        "max_sentence_words": 20, "forbidden_words": ["super"], "output_format": "markdown"}


@pytest.fixture
def env(make_rs):
    from fastapi.testclient import TestClient

    from backend.api.http import create_app

    rs = make_rs(api_rate_per_token=0, api_rate_per_address=0)
    tokens = grant_and_issue(rs, {}, {"reader": ([], ["read"]), "writer": ([], ["write"]),
                                      "root": ([], ["admin"])})
    with TestClient(create_app(rs), raise_server_exceptions=False) as client:
        yield rs, client, {k: {"Authorization": f"Bearer {v}"} for k, v in tokens.items()}


def test_crud_with_scopes(env):
    rs, client, h = env
    assert client.post("/api/profiles", json=BODY, headers=h["reader"]).status_code == 403
    r = client.post("/api/profiles", json=BODY, headers=h["writer"])
    assert r.status_code == 201, r.text
    p = r.json()
    assert (p["name"], p["address"], p["in_use"]) == ("Sachlich (Sie)", "sie",
                                                      {"sessions": 0, "chatbots": 0})
    assert "„super“" in p["style_rules"]["de"] and "at most 20 words" in p["style_rules"]["en"]
    listed = client.get("/api/profiles", headers=h["reader"]).json()["profiles"]
    assert [x["id"] for x in listed] == [p["id"]]
    assert client.get(f"/api/profiles/{p['id']}", headers=h["reader"]).json()["tone"] == \
        "sachlich"
    r = client.put(f"/api/profiles/{p['id']}", json={"output_format": "reiner Text",
                                                      "max_sentence_words": None},
                   headers=h["writer"])
    assert r.status_code == 200, r.text
    assert (r.json()["output_format"], r.json()["max_sentence_words"], r.json()["tone"]) == (
        "plain", None, "sachlich")
    assert client.put(f"/api/profiles/{p['id']}", json={"tone": "x"},
                      headers=h["reader"]).status_code == 403
    assert client.delete(f"/api/profiles/{p['id']}", headers=h["reader"]).status_code == 403
    r = client.delete(f"/api/profiles/{p['id']}", headers=h["writer"])
    assert r.status_code == 200 and r.json()["sessions_reset"] == 0
    r = client.get(f"/api/profiles/{p['id']}", headers=h["reader"])
    assert r.status_code == 404 and "does not exist" in r.json()["error"]["message"]


@pytest.mark.parametrize("body, field, words", [
    ({**BODY, "address": "ihr"}, "address", "choose one of sie, du, you, none"),
    ({**BODY, "max_sentence_words": 1000}, "max_sentence_words", "between 5 and 100"),
    ({**BODY, "output_format": "html"}, "output_format", "markdown, plain"),
    ({**BODY, "name": ""}, "name", "must not be empty"),
    ({**BODY, "colour": "red"}, "colour", "unknown field"),
    ({"tone": "x"}, "name", "field required"),
])
def test_bad_input_names_the_field(env, body, field, words):
    rs, client, h = env
    r = client.post("/api/profiles", json=body, headers=h["writer"])
    assert r.status_code == 422, r.text
    err = r.json()["error"]
    assert err["field"] == field and words in err["message"]
    assert client.get("/api/profiles", headers=h["reader"]).json()["profiles"] == []


def test_duplicate_name_is_refused(env):
    rs, client, h = env
    assert client.post("/api/profiles", json=BODY, headers=h["writer"]).status_code == 201
    r = client.post("/api/profiles", json={**BODY, "name": "sachlich (sie)"},
                    headers=h["writer"])
    assert r.status_code == 422 and r.json()["error"]["field"] == "name"
    assert "already exists" in r.json()["error"]["message"]


def test_a_chatbot_selects_a_profile_and_falls_back_when_it_is_deleted(env):
    from backend.store import repo

    rs, client, h = env
    with rs.store.session() as s:
        repo.get_or_create_collection(s, "docs")
    pid = client.post("/api/profiles", json=BODY, headers=h["writer"]).json()["id"]
    r = client.post("/api/chatbots", json={"name": "Bot", "collections": ["docs"],
                                           "profile_id": 999}, headers=h["root"])
    assert r.status_code == 422 and r.json()["error"]["field"] == "profile_id"
    r = client.post("/api/chatbots", json={"name": "Bot", "collections": ["docs"],
                                           "profile_id": pid}, headers=h["root"])
    assert r.status_code == 201, r.text
    assert r.json()["profile_id"] == pid
    assert client.get(f"/api/profiles/{pid}", headers=h["reader"]).json()["in_use"] == \
        {"sessions": 0, "chatbots": 1}
    r = client.delete(f"/api/profiles/{pid}", headers=h["writer"])
    assert r.json()["chatbots_reset"] == 1 and "now use no profile" in r.json()["message"]
    assert client.get("/api/chatbots/bot", headers=h["root"]).json()["profile_id"] is None


def test_openapi_lists_the_routes(env):
    rs, client, h = env
    paths = client.get("/openapi.json").json()["paths"]
    assert set(paths["/api/profiles"]) >= {"get", "post"}
    assert set(paths["/api/profiles/{profile_id}"]) >= {"get", "put", "delete"}


def test_cli_create_list_show_delete(make_rs, monkeypatch, capsys, tmp_path):
    from backend.cli import common
    from backend.cli.main import main

    rs = make_rs()
    monkeypatch.setattr(common, "_rs", lambda: rs)
    assert main(["profiles", "create", "--name", "Kurz", "--address", "du",
                 "--forbid", "krass", "--max-sentence-words", "15"]) == 0
    assert "created author profile 1: Kurz" in capsys.readouterr().out
    spec = tmp_path / "p.yaml"
    spec.write_text("name: Plain\noutput_format: reiner Text\ntone: klar\n", encoding="utf-8")
    assert main(["profiles", "create", "--from-yaml", str(spec), "--tone", "knapp"]) == 0
    assert main(["profiles", "list"]) == 0
    out = capsys.readouterr().out
    assert "Kurz" in out and "Plain" in out and "plain" in out
    assert main(["profiles", "show", "Plain", "--language", "de"]) == 0
    out = capsys.readouterr().out
    assert "Ton: knapp." in out and "reiner Text" in out
    assert main(["profiles", "create", "--name", "Bad", "--max-sentence-words", "2"]) == 2
    assert "max_sentence_words: must be between 5 and 100" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [x\n", encoding="utf-8")
    assert main(["profiles", "create", "--from-yaml", str(bad)]) == 2
    assert "bad.yaml: not valid YAML" in capsys.readouterr().err
    assert main(["profiles", "delete", "Kurz"]) == 0
    assert "Deleted author profile 'Kurz'" in capsys.readouterr().out
    assert main(["profiles", "show", "Kurz"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_cli_ask_with_an_author_profile(make_rs, monkeypatch, capsys, shared_embedder):
    import argparse
    import json

    import backend.embed.embedder
    from backend.chat.profiles import ProfileService
    from backend.chat.service import ChatService
    from backend.cli import chat as cli_chat
    from backend.security.access import Actor

    monkeypatch.setattr(backend.embed.embedder, "Embedder", lambda *a, **k: shared_embedder)
    rs = make_rs()
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(rs.settings.data_dir))
    p = ProfileService(rs).create(Actor.system(), name="Plain English", output_format="plain")
    parser = argparse.ArgumentParser()
    cli_chat.register(parser.add_subparsers(dest="cmd"))
    a = parser.parse_args(["ask", "Anything?", "--local", "--json",
                           "--author-profile", "plain english"])
    assert a.fn(a) == 0
    uuid = json.loads(capsys.readouterr().out)["session"]
    assert ChatService(rs).get_session(uuid).settings.profile_id == p.id
    a = parser.parse_args(["ask", "More?", "--local", "--session", uuid,
                           "--author-profile", "none"])
    assert a.fn(a) == 0
    assert ChatService(rs).get_session(uuid).settings.profile_id is None
    a = parser.parse_args(["ask", "More?", "--local", "--author-profile", "Nope"])
    from backend.errors import NotFound

    with pytest.raises(NotFound, match="author profile 'Nope' does not exist"):
        a.fn(a)


def test_an_api_question_with_an_author_profile(env):
    from backend.chat.service import ChatService

    rs, client, h = env
    pid = client.post("/api/profiles", json=BODY, headers=h["writer"]).json()["id"]
    r = client.post("/api/ask", json={"question": "Which port?", "profile_id": 999},
                    headers=h["reader"])
    assert r.status_code == 422, r.text
    assert r.json()["error"]["field"] == "profile_id"
    assert "no author profile with id 999" in r.json()["error"]["message"]
    r = client.post("/api/ask", json={"question": "Which port?", "profile_id": pid},
                    headers=h["reader"])
    assert r.status_code == 200 and "event: answer" in r.text
    (sess,) = ChatService(rs).list_sessions("api:reader")
    assert sess.settings.profile_id == pid
    r = client.post("/api/ask-jobs", json={"question": "Which port?", "profile_id": 0},
                    headers=h["reader"])
    assert r.status_code == 422 and r.json()["error"]["field"] == "profile_id"
