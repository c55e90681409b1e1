"""AppTest of the chatbot pages on a generated site served on 127.0.0.1 (allow-listed):
the builder's five steps (URL -> build with progress -> Generate -> test chat with sources
and scores -> publish), a reload reconnecting to the bot's build, the bad-input messages of
step 1, and a viewer asking the published bot on its page."""
from __future__ import annotations

import pytest

from backend.config import Settings
from backend.ui import crawl as crawl_ui
from backend.ui import state as K
from tests.chatbot_site import build_ferry_site
from tests.crawl_site_support import Site
from tests.page_support import (  # noqa: F401  (fixtures)
    app,
    bare,
    components,
    errors,
    open_page,
    plain,
    shared_model,
    successes,
)


@pytest.fixture(autouse=True)
def _stop_consoles():
    yield
    from pages._chatbot_common import _bots
    from pages._crawl_common import _console

    crawl_ui.shutdown_all()
    _console.clear()
    _bots.clear()


@pytest.fixture
def ferry(monkeypatch):
    with Site() as site:
        build_ferry_site(site)
        monkeypatch.setenv("RAGSCOPE_CRAWL_ALLOWED_HOSTS", f"127.0.0.1:{site.port}")
        yield site


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    return at


def _click(at, key):
    return _ok(at.button(key=key).click().run())


def _wait_builds(data):
    console = crawl_ui.console_for(Settings(data_dir=data).db_url)
    for t in list(console.service._threads.values()):
        t.join(timeout=90)


def _texts(at) -> str:
    return "\n".join(plain(m.value) for m in at.markdown)


def test_wizard_from_url_to_published_bot(app, bare, ferry):
    data = bare[0]
    at = open_page(app(data, "editor"), "chatbot_builder")
    assert at.title[0].value == "Chatbot builder" and not errors(at)

    # step 1: bad input, each with its message; nothing is created
    at.text_input(key=K.BOTS_URL).set_value("ftp://example.org/files")
    at.text_input(key=K.BOTS_COLLECTION).set_value("Bad_Name")
    _click(at, K.BOTS_CREATE)
    errs = errors(at)
    assert any(e.startswith("url: invalid URL") and "http" in e for e in errs), errs
    assert any(e.startswith("collection:") and "lower-case" in e for e in errs), errs
    at.text_input(key=K.BOTS_URL).set_value("http://10.1.2.3/intranet")
    at.text_input(key=K.BOTS_COLLECTION).set_value("")
    _click(at, K.BOTS_CREATE)
    assert any(e.startswith("url: invalid or unreachable URL") and "10.1.2.3" in e
               for e in errors(at)), errors(at)

    # step 1 -> 2: create; the build runs in the background
    at.text_input(key=K.BOTS_URL).set_value(ferry.base + "/")
    at.text_input(key=K.BOTS_NAME).set_value("Ferry Helper")
    _click(at, K.BOTS_CREATE)
    assert not errors(at), errors(at)
    assert at.session_state[K.BOTS_SLUG] == "ferry-helper"
    assert at.query_params["bot"] in ("ferry-helper", ["ferry-helper"])
    assert any("the build has started" in s for s in successes(at)), successes(at)
    _wait_builds(data)
    _ok(at.run())
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Pages crawled"] == "4" and int(metrics["Chunks embedded"]) > 0
    assert at.get("progress")[0].proto.value == 100

    # a reload (a new session with ?bot= in the URL) reconnects to the same build
    again = app(data, "editor")
    again.query_params["bot"] = "ferry-helper"
    again = open_page(again, "chatbot_builder")
    assert {m.label: m.value for m in again.metric}["Chunks embedded"] == metrics[
        "Chunks embedded"]

    # step 3: Generate fills the fields from the crawled site; save and test
    _click(at, f"{K.BOTS_GOTO}.3")
    for f in ("name", "system_prompt", "welcome_message", "fallback_message"):
        _click(at, f"{K.BOTS_GENERATE}.{f}")
    prompt = at.text_area(key=K.bots_field("ferry-helper", at.session_state[K.BOTS_NONCE],
                                        "system_prompt")).value
    assert "Lindholm Ferry Service" in prompt and "Tickets and fares" in prompt
    welcome = at.text_input(key=K.bots_field("ferry-helper", at.session_state[K.BOTS_NONCE],
                                         "welcome_message")).value
    assert "Lindholm Ferry Service" in welcome
    _click(at, f"{K.BOTS_GOTO}.4")
    assert not errors(at), errors(at)
    assert at.session_state[K.BOTS_STEP] == 4

    # step 4: the test chat answers with a cited crawled page and its score
    assert "Welcome to Lindholm Ferry Service" in _texts(at)
    at.text_input(key=K.BOTS_QUESTION).set_value("How much is a single ticket for adults?")
    _ok(next(b for b in at.button if b.label == "Ask").click().run())
    assert "7.50 euros" in _texts(at)
    sources = at.dataframe[0].value
    cited = sources[sources["cited"]]
    assert cited["URL"].tolist()[0] == ferry.base + "/tickets"
    assert 0 < cited["score"].tolist()[0] <= 1

    # step 5: publish; a viewer opens the bot's page and asks
    _click(at, f"{K.BOTS_GOTO}.5")
    _click(at, K.BOTS_PUBLISH)
    assert any("Published" in s for s in successes(at)), (successes(at), errors(at))
    viewer = app(data, "viewer")
    viewer.query_params["bot"] = "ferry-helper"
    viewer = open_page(viewer, "chatbot")
    assert viewer.title[0].value == "Lindholm Ferry Service Assistant"
    assert "Welcome to Lindholm Ferry Service" in _texts(viewer)
    _ok(viewer.chat_input(key=K.BOT_CHAT_INPUT).set_value(
        "When does the last winter ferry leave?").run())
    assert "20:10" in _texts(viewer)
    hints = [c.value.replace("\\", "") for c in viewer.caption]  # issue 22: the hint shows
    assert any(h.startswith(":") and "Confidence:" in h and "based on" in h for h in hints)
    # the visitor rates the answer: stored with it, listed as the visitor's rating
    (thumbs,) = [w for w in viewer.get("feedback") if w.key.startswith("bot.feedback.")]
    _ok(thumbs.set_value(1).run())
    from backend.security.access import Actor
    from backend.services import feedback
    from backend.services.container import Ragscope

    rs = Ragscope(Settings(data_dir=data))
    try:
        (rated,) = feedback.rated_answers(rs, Actor("viewer", "viewer"))
    finally:
        rs.close()
    assert (rated.feedback.rating, rated.chatbot) == ("up", "ferry-helper")
    assert "20:10" in rated.answer and rated.question.startswith("When does the last")
    assert any("your feedback is stored" in c.value for c in viewer.caption)


def test_builder_starts_from_existing_collections(app, bare):
    """The source choice "existing collections only" hides the crawl's fields; the name left
    empty is derived from the collections, and the new bot opens on its configuration."""
    from backend.services.container import Ragscope
    from backend.store import repo

    rs = Ragscope(Settings(data_dir=bare[0]))
    with rs.store.session() as s:
        repo.get_or_create_collection(s, "harbour-rules")
    rs.close()
    at = open_page(app(bare[0], "editor"), "chatbot_builder")
    _ok(at.radio(key=K.BOTS_SOURCE).set_value("collections").run())
    shown = {w.key for w in at.text_input} | {w.key for w in at.number_input}
    assert K.BOTS_URL not in shown and K.BOTS_PAGES not in shown and K.BOTS_NAME in shown
    assert [w.label for w in at.text_input if w.key == K.BOTS_NAME] == [
        "Chatbot name (empty: derived from the collections)"]
    _ok(at.multiselect(key=K.BOTS_USE).select("harbour-rules").run())
    _click(at, K.BOTS_CREATE)
    assert not errors(at), errors(at)
    assert "Chatbot Chatbot for harbour-rules created; it answers from the chosen " \
        "collections." in successes(at)
    assert at.session_state[K.BOTS_STEP] == 3 and \
        at.session_state[K.BOTS_SLUG] == "chatbot-for-harbour-rules"


def test_builder_refuses_viewers_and_duplicate_names(app, bare, ferry):
    viewer = open_page(app(bare[0], "viewer"), "chatbot_builder")
    assert any(e.startswith("Access denied") for e in errors(viewer))
    at = open_page(app(bare[0], "editor"), "chatbot_builder")
    at.text_input(key=K.BOTS_URL).set_value(ferry.base + "/")
    at.text_input(key=K.BOTS_NAME).set_value("Ferry Helper")
    _click(at, K.BOTS_CREATE)
    _wait_builds(bare[0])
    other = open_page(app(bare[0], "editor"), "chatbot_builder")
    other.text_input(key=K.BOTS_URL).set_value(ferry.base + "/")
    other.text_input(key=K.BOTS_NAME).set_value("ferry helper")
    _click(other, K.BOTS_CREATE)
    assert any(e.startswith("name:") and "already exists" in e for e in errors(other))


def test_unreachable_site_and_generate_without_content(app, bare, monkeypatch):
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("RAGSCOPE_CRAWL_ALLOWED_HOSTS", f"127.0.0.1:{port}")
    at = open_page(app(bare[0], "editor"), "chatbot_builder")
    at.text_input(key=K.BOTS_URL).set_value(f"http://127.0.0.1:{port}/")
    _click(at, K.BOTS_CREATE)
    _wait_builds(bare[0])
    _ok(at.run())
    assert any("No page with content could be crawled" in e for e in errors(at)), errors(at)
    assert next(b for b in at.button if b.label == "Next: configure").disabled
    # Generate with nothing crawled: the reason, not a traceback
    at.session_state[K.BOTS_STEP] = 3
    _ok(at.run())
    _click(at, f"{K.BOTS_GENERATE}.system_prompt")
    assert any("nothing to generate from" in e and "run the build" in e
               for e in errors(at)), errors(at)
