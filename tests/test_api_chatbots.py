"""The chatbot routes (`/api/chatbots/*`) on the generated ferry site (tests/chatbot_site.py)
served on 127.0.0.1: create from a URL (the build starts), follow the build, generate the
fields, test-ask the draft (answer, citations, sources with scores), publish, ask as a
read-only principal; bad input with the field named; scopes; and access: a principal
without access to the bot's collections gets 404 and nothing of the bot."""
from __future__ import annotations

import time

import pytest

from backend.chatbots.generate import FIELDS
from tests.api_support import grant_and_issue
from tests.chatbot_site import build_ferry_site
from tests.crawl_site_support import Site

QUICK = {"delay_s": 0.0, "concurrency": 1, "use_sitemap": False}
PRINCIPALS = {  # principal -> (groups, scopes)
    "ferry-editor": (["g-ferry-write"], ["write"]),
    "ferry-reader": (["g-ferry-read"], ["read"]),
    "other-editor": (["g-other-write"], ["write"]),
    "other-reader": (["g-other-write"], ["read"]),
    "root": ([], ["admin"]),
}
GROUPS = {"g-ferry-write": ("kb-ferry", "write"), "g-ferry-read": ("kb-ferry", "read"),
          "g-other-write": ("kb-other", "write")}


class Env:
    def __init__(self, rs, client, tokens, site):
        self.rs, self.client, self.tokens, self.site = rs, client, tokens, site

    def h(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}"}

    def get(self, path: str, who: str, **kw):
        return self.client.get(path, headers=self.h(who), **kw)

    def post(self, path: str, who: str, body: dict | None = None):
        return self.client.post(path, json=body if body is not None else {},
                                headers=self.h(who))

    def wait_build(self, slug: str, until=lambda b: b["status"] not in ("queued", "running")
                   ) -> dict:
        deadline = time.monotonic() + 120
        while True:
            r = self.get(f"/api/chatbots/{slug}/build", "ferry-editor")
            assert r.status_code == 200, r.text
            if until(r.json()):
                return r.json()
            assert time.monotonic() < deadline, r.json()
            time.sleep(0.1)


@pytest.fixture(scope="module")
def env(tmp_path_factory, shared_embedder):
    from fastapi.testclient import TestClient

    from backend.security import acl
    from backend.security.access import Actor
    from backend.api.http import create_app
    from backend.config import Settings
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope

    with Site() as site, Site() as slow:
        build_ferry_site(site)
        for path in build_ferry_site(slow, extra_pages=8)[1:]:  # a build to cancel
            slow.routes[path].delay = 0.5
        rs = Ragscope(Settings(data_dir=tmp_path_factory.mktemp("bots") / "var",
                               crawl_allowed_hosts=f"127.0.0.1:{site.port},"
                                                   f"127.0.0.1:{slow.port}"))
        rs.embedder = shared_embedder
        system = Actor.system("tests")
        for kb in ("kb-ferry", "kb-other"):
            acl.create_knowledge_base(rs, system, kb)
        Ingestor(rs).ingest_bytes(b"The harbour master of Osthafen answers the radio on "
                                  b"channel 16 between 06:00 and 22:00.", "harbour.txt",
                                  collection="other-notes")
        acl.assign_collection(rs, system, "other-notes", "kb-other")
        tokens = grant_and_issue(rs, GROUPS, PRINCIPALS)
        app = create_app(rs)
        with TestClient(app, raise_server_exceptions=False) as client:
            e = Env(rs, client, tokens, site)
            e.slow = slow
            r = e.post("/api/chatbots", "ferry-editor", {
                "url": site.base + "/", "name": "Ferry Bot", "slug": "ferry",
                "collection": "ferry-site", "knowledge_base": "kb-ferry", "crawl": QUICK,
                "max_pages": 20, "max_depth": 2})
            assert r.status_code == 201, r.text
            e.created = r.json()
            e.built = e.wait_build("ferry")
            yield e
        rs.close()


def _publish(env) -> dict:
    """Generate and save the fields publishing needs, then publish (idempotent)."""
    for f in ("system_prompt", "welcome_message", "fallback_message"):
        r = env.post("/api/chatbots/ferry/generate", "ferry-editor", {"field": f, "save": True})
        assert r.status_code == 200, r.text
    r = env.post("/api/chatbots/ferry/publish", "ferry-editor")
    assert r.status_code == 200, r.text
    return r.json()


def test_create_starts_the_build_and_reports_it(env):
    bot = env.created
    assert bot["slug"] == "ferry" and bot["status"] == "draft"
    assert bot["collections"] == ["ferry-site"] and bot["source_url"] == env.site.base + "/"
    assert bot["build"]["status"] in ("queued", "running", "done")
    assert bot["links"]["build"] == "/api/chatbots/ferry/build"
    b = env.built
    assert b["status"] == "done" and b["pages_done"] == 4 and b["chunks_embedded"] > 0
    assert b["progress"] == 1.0 and b["problem"] is None
    # nothing runs: cancel and resume say why they cannot
    for action, words in (("cancel", "is not running"), ("resume", "only a cancelled")):
        r = env.post(f"/api/chatbots/ferry/build/{action}", "ferry-editor")
        assert r.status_code == 409 and r.json()["error"]["code"] == "conflict", r.text
        assert words in r.json()["error"]["message"]


def test_generate_test_ask_publish_and_ask(env):
    r = env.post("/api/chatbots/ferry/generate", "ferry-editor", {"field": "welcome_message"})
    assert r.status_code == 200, r.text
    g = r.json()
    assert g["method"] == "content" and not g["saved"] and "Lindholm" in g["text"]
    assert env.get("/api/chatbots/ferry", "ferry-editor").json()["welcome_message"] == ""

    # the editor's test chat on the draft: the answer cites the crawled page, with scores
    r = env.post("/api/chatbots/ferry/test-ask", "ferry-editor",
                 {"question": "How much is a single ticket for adults?"})
    assert r.status_code == 200, r.text
    ans = r.json()
    assert "7.50" in ans["text"] and not ans["fallback_used"]
    cited = [s for s in ans["sources"] if s["cited"]]
    assert cited and cited[0]["source_uri"] == env.site.base + "/tickets"
    assert ans["citations"]["cited"] and all(0 < s["score"] <= 1 for s in ans["sources"])
    # a draft is not there for readers, and /ask answers published bots only
    assert env.get("/api/chatbots/ferry", "ferry-reader").status_code == 404
    r = env.post("/api/chatbots/ferry/ask", "ferry-reader", {"question": "When?"})
    assert r.status_code == 404
    assert r.json()["error"]["message"] == "chatbot 'ferry' does not exist"  # as unknown
    r = env.post("/api/chatbots/ferry/ask", "ferry-editor", {"question": "When?"})
    assert r.status_code == 404 and "not published" in r.json()["error"]["message"]

    bot = _publish(env)
    assert bot["status"] == "published" and bot["fallback_message"]
    listed = env.get("/api/chatbots", "ferry-reader").json()
    assert [b["slug"] for b in listed["items"]] == ["ferry"] and listed["total"] == 1
    r = env.post("/api/chatbots/ferry/ask", "ferry-reader",
                 {"question": "When does the last winter ferry leave Nordhafen?"})
    assert r.status_code == 200, r.text
    first = r.json()
    assert "20:10" in first["text"]
    r = env.post("/api/chatbots/ferry/ask", "ferry-reader",
                 {"question": "What does pizza cost at the Tokyo market?",
                  "session": first["session"]})
    nothing = r.json()
    assert nothing["fallback_used"] and nothing["text"] == bot["fallback_message"]
    assert nothing["session"] == first["session"]


def test_unpublish_keeps_the_configuration(env):
    _publish(env)
    r = env.post("/api/chatbots/ferry/unpublish", "ferry-editor")
    assert r.status_code == 200 and r.json()["status"] == "draft"
    assert r.json()["system_prompt"]
    assert env.post("/api/chatbots/ferry/ask", "ferry-reader",
                    {"question": "When?"}).status_code == 404
    assert _publish(env)["status"] == "published"


def test_update_changes_fields_and_names_bad_ones(env):
    r = env.client.patch("/api/chatbots/ferry", json={"description": "Ferry questions."},
                         headers=env.h("ferry-editor"))
    assert r.status_code == 200 and r.json()["description"] == "Ferry questions."
    for body, field in (({"temperature": 3}, "temperature"),
                        ({"slug": "Bad Slug"}, "slug"),
                        ({"colour": "blue"}, "colour"),
                        ({"collections": ["no-such-collection"]}, "collections")):
        r = env.client.patch("/api/chatbots/ferry", json=body, headers=env.h("ferry-editor"))
        assert r.status_code == 422, (body, r.text)
        assert r.json()["error"]["field"] == field, r.text


@pytest.mark.parametrize("body,field,words", [
    ({"url": "ftp://example.org/files"}, "url", "http"),
    ({"url": "not a url"}, "url", "http"),
    ({"url": "http://10.0.0.7/intranet"}, "url", ""),
    ({"url": "http://localhost:9/"}, "url", ""),
    ({"name": "Ferry Bot", "collections": ["ferry-site"]}, "name", "already exists"),
    ({"name": "x", "slug": "ferry", "collections": ["ferry-site"]}, "slug", "already exists"),
    ({"name": "Nothing"}, "collections", "collection"),
    ({"name": "Bot", "max_pages": 501}, "max_pages", ""),
    ({"name": "Bot", "colour": "blue"}, "colour", "unknown field"),
    ({"name": "Bot", "provider": "skynet"}, "provider", ""),
    ({"name": "Bot", "max_depth": "3"}, "max_depth", ""),
])
def test_bad_input_is_refused_naming_the_field(env, body, field, words):
    r = env.post("/api/chatbots", "ferry-editor", body)
    assert r.status_code == 422, r.text
    err = r.json()["error"]
    assert err["field"] == field and words in err["message"], err
    slugs = {b["slug"] for b in env.get("/api/chatbots", "root").json()["items"]}
    assert slugs == {"ferry"}  # nothing stored


def test_tokens_and_scopes(env):
    r = env.client.get("/api/chatbots")
    assert r.status_code == 401 and r.json()["error"]["code"].startswith("token_")
    r = env.post("/api/chatbots", "ferry-reader", {"name": "Mine", "collections": ["ferry-site"]})
    assert r.status_code == 403 and "'write' scope" in r.json()["error"]["message"]
    for path in ("/generate", "/publish", "/unpublish", "/build/cancel", "/test-ask"):
        r = env.post(f"/api/chatbots/ferry{path}", "ferry-reader",
                     {"field": "name"} if path == "/generate" else
                     {"question": "When?"} if path == "/test-ask" else {})
        assert r.status_code == 403, (path, r.text)
    assert env.get("/api/chatbots/ferry/build", "ferry-reader").status_code == 403
    r = env.get("/api/chatbots/no-such-bot", "root")
    assert r.status_code == 404 and "no-such-bot" in r.json()["error"]["message"]
    r = env.get("/api/chatbots/Bad_Slug", "root")
    assert r.status_code == 422 and r.json()["error"]["field"] == "slug"
    r = env.get("/api/chatbots?colour=blue", "root")
    assert r.status_code == 422 and r.json()["error"]["field"] == "colour"
    r = env.post("/api/chatbots/ferry/generate", "ferry-editor", {"field": "colour"})
    assert r.status_code == 422 and r.json()["error"]["field"] == "field"


def test_outside_the_bots_collections_it_does_not_exist(env):
    _publish(env)
    missing = env.get("/api/chatbots/no-such-bot", "other-reader").json()["error"]
    for who in ("other-reader", "other-editor"):
        listed = env.get("/api/chatbots", who).json()
        assert listed["items"] == [] and listed["total"] == 0
        r = env.get("/api/chatbots/ferry", who)
        assert r.status_code == 404
        assert r.json()["error"]["message"] == missing["message"].replace("no-such-bot",
                                                                          "ferry")
        r = env.post("/api/chatbots/ferry/ask", who, {"question": "How much is a ticket?"})
        assert r.status_code == 404 and "7.50" not in r.text and "ferry-site" not in r.text
    for path, body in (("/test-ask", {"question": "How much is a ticket?"}),
                       ("/generate", {"field": "name"}), ("/publish", {}),
                       ("/unpublish", {}), ("/build", {}), ("/build/cancel", {})):
        r = env.post(f"/api/chatbots/ferry{path}", "other-editor", body)
        assert r.status_code == 404, (path, r.text)
        assert "ferry-site" not in r.text and "7.50" not in r.text
    assert env.get("/api/chatbots/ferry/build", "other-editor").status_code == 404
    r = env.client.patch("/api/chatbots/ferry", json={"description": "mine now"},
                         headers=env.h("other-editor"))
    assert r.status_code == 404
    # a collection outside the creator's scope is an unknown collection
    r = env.post("/api/chatbots", "other-editor", {"name": "Copycat",
                                                   "collections": ["ferry-site"]})
    assert r.status_code == 422 and r.json()["error"]["field"] == "collections"
    assert r.json()["error"]["message"] == ("collections: unknown collection(s): ferry-site")
    # ... and one inside it works: the other editor's bot, invisible to the ferry reader
    r = env.post("/api/chatbots", "other-editor", {"name": "Harbour Bot",
                                                   "collections": ["other-notes"]})
    assert r.status_code == 201 and r.json()["build"] is None, r.text
    assert [b["slug"] for b in env.get("/api/chatbots", "other-editor").json()["items"]] \
        == ["harbour-bot"]
    assert env.get("/api/chatbots/harbour-bot", "ferry-editor").status_code == 404
    assert {b["slug"] for b in env.get("/api/chatbots", "root").json()["items"]} \
        == {"ferry", "harbour-bot"}
    from backend.security.access import Actor

    env.client.app.state.bots.delete(Actor.system("tests"), "harbour-bot")  # no route


def test_fields_generated_from_the_site(env):
    for f in FIELDS:
        r = env.post("/api/chatbots/ferry/generate", "ferry-editor", {"field": f})
        assert r.status_code == 200, r.text
        assert r.json()["text"].strip(), f


def test_cancel_and_resume_a_build(env):
    """Cancel mid-crawl, then resume: every page once, nothing twice."""
    r = env.post("/api/chatbots", "ferry-editor", {
        "url": env.slow.base + "/", "name": "Slow Ferry", "collection": "slow-ferry",
        "knowledge_base": "kb-ferry", "crawl": QUICK})
    assert r.status_code == 201 and r.json()["build"]["status"] in ("queued", "running")
    try:
        env.wait_build("slow-ferry", until=lambda b: b["pages_done"] >= 1)
        r = env.post("/api/chatbots/slow-ferry/build/cancel", "ferry-editor")
        assert r.status_code == 200, r.text
        stopped = env.wait_build("slow-ferry")
        assert stopped["status"] == "cancelled" and stopped["resumable"], stopped
        assert 1 <= stopped["pages_done"] < 12
        r = env.post("/api/chatbots/slow-ferry/build/cancel", "ferry-editor")
        assert r.status_code == 409 and "not running (cancelled)" in r.text, r.text
        r = env.post("/api/chatbots/slow-ferry/build/resume", "ferry-editor")
        assert r.status_code == 202 and r.json()["status"] in ("queued", "running"), r.text
        done = env.wait_build("slow-ferry")
        assert done["status"] == "done" and done["pages_done"] == 12, done
        assert done["documents"] == 12 and done["chunks_embedded"] >= 12
    finally:
        from backend.security.access import Actor

        env.wait_build("slow-ferry")
        env.client.app.state.bots.delete(Actor.system("tests"), "slow-ferry")


def test_settings_stats_and_delete(env):
    """min relevance, show sources, temperature per provider, the statistics and DELETE:
    the conversations go, the collection stays."""
    r = env.post("/api/chatbots", "ferry-editor", {
        "name": "Quiet Bot", "slug": "quiet", "collections": ["ferry-site"],
        "fallback_message": "Ask the ticket office.", "show_sources": False,
        "provider": "openai", "temperature": 1.8})
    assert r.status_code == 201, r.text
    made = r.json()
    assert (made["show_sources"], made["min_relevance"], made["question_urls"],
            made["temperature"]) == (False, 0.0, False, 1.8)
    r = env.client.patch("/api/chatbots/quiet", json={"provider": "anthropic"},
                         headers=env.h("ferry-editor"))
    assert r.status_code == 422 and r.json()["error"]["field"] == "temperature", r.text
    assert "1.0" in r.json()["error"]["message"]
    r = env.client.patch("/api/chatbots/quiet", json={"provider": "extractive"},
                         headers=env.h("ferry-editor"))
    assert r.status_code == 200, r.text
    ask = lambda q, **kw: env.post("/api/chatbots/quiet/test-ask", "ferry-editor",
                                   {"question": q, **kw}).json()
    a = ask("How much is a single ticket for adults?")
    assert "7.50" in a["text"] and a["sources"] == [] and a["sources_hidden"], a
    assert "[1]" not in a["text"]
    r = env.client.patch("/api/chatbots/quiet", json={"min_relevance": 0.99,
                                                      "show_sources": True},
                         headers=env.h("ferry-editor"))
    assert r.status_code == 200 and r.json()["min_relevance"] == 0.99
    b = ask("How much is a single ticket for adults?", session=a["session"])
    assert b["fallback_used"] and b["text"] == "Ask the ticket office.", b
    r = env.get("/api/chatbots/quiet/stats", "ferry-editor")
    assert r.status_code == 200, r.text
    st = r.json()
    assert (st["conversations"], st["messages"], st["answers"], st["fallbacks"]) == (1, 4, 2, 1)
    assert st["fallback_rate"] == 0.5 and st["avg_response_ms"] > 0 and st["chunks"] > 0
    assert env.get("/api/chatbots/quiet/stats", "ferry-reader").status_code == 403

    assert env.client.delete("/api/chatbots/quiet",
                             headers=env.h("ferry-reader")).status_code == 403
    assert env.client.delete("/api/chatbots/quiet",
                             headers=env.h("other-editor")).status_code == 404
    r = env.client.delete("/api/chatbots/quiet", headers=env.h("ferry-editor"))
    assert r.status_code == 200, r.text
    assert r.json() == {"slug": "quiet", "name": "Quiet Bot", "conversations": 1,
                        "messages": 4, "versions": 3, "collections_kept": ["ferry-site"],
                        "build_cancelled": False}
    assert env.get("/api/chatbots/quiet", "ferry-editor").status_code == 404
    assert env.client.delete("/api/chatbots/quiet",
                             headers=env.h("ferry-editor")).status_code == 404
    r = env.post("/api/chatbots/ferry/test-ask", "ferry-editor",
                 {"question": "How much is a single ticket for adults?"})
    assert r.status_code == 200 and "7.50" in r.json()["text"]  # the collection stays
