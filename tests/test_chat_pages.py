"""The chat and costs pages through AppTest (app.py, signed in, then the page): a new
session gets a UUID in the URL, a question gets a streamed, cited answer with its sources,
rename/delete/settings work, a deleted session's URL says so and offers a new session, bad
input is refused; the costs page draws its charts and offers the CSV."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from backend.security.access import Scope
from backend.chat.service import ChatService
from backend.config import Settings
from backend.services.container import Ragscope
from tests.page_support import copy_of_built, login_as, plain

EVERYTHING = Scope.everything()

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")


@pytest.fixture(scope="module")
def template(tmp_path_factory, shared_embedder):
    """Ingested once per module; every test gets a copy."""
    d = tmp_path_factory.mktemp("chat_pages") / "var"  # a copy of the session's build
    return copy_of_built("release-notes", tmp_path_factory, shared_embedder,
                         ["lumen_release_notes.md"], d)[0]


@pytest.fixture
def data(template, tmp_path, shared_embedder, monkeypatch):
    """A data dir of its own (the pages write sessions), reusing the session's model."""
    import backend.embed.embedder

    monkeypatch.setattr(backend.embed.embedder, "Embedder", lambda *a, **k: shared_embedder)
    d = tmp_path / "var"
    shutil.copytree(template, d)
    return d


@pytest.fixture
def service(data, shared_embedder):
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = shared_embedder
    yield ChatService(rs)
    rs.close()


def page(monkeypatch, data: Path, name: str, user: str | None = "viewer",
         session: str | None = None) -> AppTest:
    """The page file run directly, signed in (pages do not rely on app.py having run);
    through app.py's navigation when app.py lists the page."""
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(data))
    wired = f"pages/{name}.py" in Path(APP).read_text(encoding="utf-8")
    at = AppTest.from_file(APP if wired else str(ROOT / "pages" / f"{name}.py"),
                           default_timeout=90)
    if user:
        login_as(at, user)
    if session:
        at.query_params["session"] = session
    at.run()
    if wired:
        at.switch_page(f"pages/{name}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _texts(at: AppTest) -> str:
    return "\n".join(plain(m.value) for m in at.markdown)


def test_chat_answers_a_question_with_citations(monkeypatch, data, service):
    at = page(monkeypatch, data, "chat")
    at.chat_input(key="chat.input").set_value(
        "Which configuration key replaced gateway.maxConn?").run()
    assert not at.exception, [e.value for e in at.exception]
    uuid = at.query_params["session"]
    uuid = uuid[0] if isinstance(uuid, list) else uuid
    assert service.get_session(uuid).user == "viewer"
    msgs = service.messages(uuid, scope=EVERYTHING)
    assert [m.role for m in msgs] == ["user", "assistant"]
    answer = msgs[1]
    assert answer.citations["cited"] and not answer.citations["invalid"]
    shown = _texts(at)
    assert "gateway.max_connections" in shown and "[1]" in shown
    assert "original" in shown and f"query_debug?trace={answer.trace_id}" in shown
    assert any("extractive" in c.value and "local" in c.value for c in at.caption)
    titles = [b.label for b in at.sidebar.button if b.key.startswith("chat.open.")]
    assert titles and plain(titles[0]).startswith("Which configuration key")


def test_rename_settings_and_delete(monkeypatch, data, service):
    uuid = service.create_session("viewer").uuid
    at = page(monkeypatch, data, "chat", session=uuid)
    at.text_input(key=f"chat.title.{uuid}").set_value("Gateway notes").run()
    assert service.get_session(uuid).title == "Gateway notes"

    k = f"chat.settings.{uuid}"
    # folded, the settings form is not sent at all; opening the expander shows it
    assert not [w for w in at.selectbox if (w.key or "").startswith(k)]
    at.session_state[f"chat.settings_open.{uuid}"] = True
    at.run()
    at.selectbox(key=f"{k}.provider").set_value("ollama")
    at.select_slider(key=f"{k}.context_limit").set_value(10)
    at.text_area(key=f"{k}.system_prompt").set_value("Answer in one sentence.")
    at.selectbox(key=f"{k}.context_mode").set_value("full")
    at.button(key=f"FormSubmitter:{k}-Save settings").click().run()
    assert not at.exception, [e.value for e in at.exception]
    cfg = service.get_session(uuid).settings
    assert (cfg.provider, cfg.context_limit, cfg.system_prompt, cfg.context_mode) == (
        "ollama", 10, "Answer in one sentence.", "full")

    at.button(key="chat.delete").click().run()
    at.button(key="chat.delete_confirm").click().run()
    assert not at.exception
    from backend.errors import NotFound
    with pytest.raises(NotFound):
        service.get_session(uuid)
    assert any("Session deleted" in plain(s.value) for s in at.success)


def test_a_deleted_session_url_offers_a_new_session(monkeypatch, data, service):
    gone = service.create_session("viewer")
    service.delete_session(gone.uuid)
    at = page(monkeypatch, data, "chat", session=gone.uuid)
    assert any("no longer exists" in w.value for w in at.warning)
    at.button(key="chat.new_after_gone").click().run()
    assert not at.exception and not at.warning
    assert "session" not in at.query_params  # a new chat: stored with its first question
    assert at.title[0].value == "Chat" and at.chat_input(key="chat.input")


def test_another_users_session_is_not_shown(monkeypatch, data, service):
    other = service.create_session("editor")
    at = page(monkeypatch, data, "chat", session=other.uuid)
    assert any("no longer exists" in w.value for w in at.warning)


def test_empty_and_overlong_messages_are_refused(monkeypatch, data, service):
    at = page(monkeypatch, data, "chat")
    at.chat_input(key="chat.input").set_value("x" * 100_000).run()
    assert any("100,000 characters" in plain(e.value) for e in at.error)
    at.chat_input(key="chat.input").set_value("   ").run()
    assert any("empty" in plain(e.value) for e in at.error)
    assert service.list_sessions("viewer") == []  # a refused question leaves no session


def test_a_chat_is_stored_with_its_first_question_and_named_after_it(monkeypatch, data,
                                                                      service):
    """Issue 23: every visit left an empty "New chat" session, listed beside the "New chat"
    button; the page had no title."""
    for _ in range(3):
        at = page(monkeypatch, data, "chat")
    assert service.list_sessions("viewer") == []
    service.create_session("viewer")  # an empty one left by an earlier version: not listed
    at = page(monkeypatch, data, "chat")
    k = "chat.settings."  # the draft's settings become the new session's
    at.session_state["chat.settings_open."] = True
    at.run()
    at.select_slider(key=f"{k}.context_limit").set_value(10)
    at.button(key=f"FormSubmitter:{k}-Save settings").click().run()
    assert len(service.list_sessions("viewer")) == 1
    labels = [plain(b.label) for b in at.sidebar.button]
    assert labels.count("New chat") == 1, labels
    at.chat_input(key="chat.input").set_value("What changed in version 3.2.0?").run()
    assert not at.exception, [e.value for e in at.exception]
    stored = [s for s in service.list_sessions("viewer") if s.messages]
    assert [s.title for s in stored] == ["What changed in version 3.2.0?"]
    assert stored[0].settings.context_limit == 10
    at.run()
    assert plain(at.title[0].value) == "What changed in version 3.2.0?"
    labels = [plain(b.label) for b in at.sidebar.button]
    assert labels == ["New chat", "What changed in version 3.2.0?"], labels


def test_signed_out_user_gets_no_chat(monkeypatch, data):
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(data))
    at = AppTest.from_file(str(ROOT / "pages" / "chat.py"), default_timeout=60).run()
    assert [e.value for e in at.error] == ["Please sign in first."]


def test_costs_page_charts_and_csv(monkeypatch, data, service):
    from tests.test_chat import FakeProvider

    priced = ChatService(service.rs, provider_factory=lambda n: FakeProvider("Answer [1]."))
    s1 = priced.create_session("viewer", provider="anthropic", collections=["samples"])
    priced.ask(s1.uuid, "Which configuration key replaced gateway.maxConn?",
               scope=EVERYTHING)  # evidence found: the model is asked (and priced)
    s2 = service.create_session("editor")
    service.ask(s2.uuid, "What changed in version 3.2.0?", scope=EVERYTHING)

    at = page(monkeypatch, data, "costs", user="admin")
    assert _chart_titles(at) == [
        "Tokens per day by model", "Median latency per day by model (question to last token)",
        "Cost per day by model (USD)", "Answers per day by answer method"]
    assert [m.value for m in at.metric][:2] == ["2", "1"]  # answers, by a language model
    assert not [i for i in at.info if "No priced model" in i.value]
    top = next(d.value for d in at.dataframe if "cost_usd" in d.value.columns
               and "session_title" in d.value.columns)
    assert list(top["user"]) == ["viewer"] and (top["cost_usd"] > 0).all()
    methods = next(d.value for d in at.dataframe if "answer method" in d.value.columns)
    assert list(methods["answer method"]) == ["extractive"]
    assert at.get("download_button")
    for group in ("user", "session", "collection"):
        at.selectbox(key="costs.group").set_value(group).run()
        assert not at.exception, [e.value for e in at.exception]

    viewer = page(monkeypatch, data, "costs", user="viewer")
    assert [m.value for m in viewer.metric][:1] == ["1"]  # only the viewer's own answers


def _chart_titles(at: AppTest) -> list[str]:
    import json

    return [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]


def test_costs_page_with_only_extractive_answers_shows_no_cost_chart(monkeypatch, data,
                                                                      service):
    """Local/extractive answers only (issue 23 item 5): no cost chart on an empty axis, no
    "most expensive sessions" table of $0 rows, a clear note; the answer methods are
    counted with their latency and none of them is listed as a model."""
    s = service.create_session("viewer")
    service.ask(s.uuid, "What changed in version 3.2.0?", scope=EVERYTHING)
    s2 = service.create_session("viewer")  # a session of its own: not read as a follow-up
    service.ask(s2.uuid, "Welche Dokumente gibt es?", scope=EVERYTHING)  # the inventory list
    at = page(monkeypatch, data, "costs", user="viewer")
    assert not at.exception, [e.value for e in at.exception]
    assert any("No priced model used in this period" in i.value for i in at.info)
    assert _chart_titles(at) == ["Answers per day by answer method"]
    assert not [d for d in at.dataframe if "session_title" in d.value.columns
                and "cost_usd" in d.value.columns and "last_answer" in d.value.columns]
    assert [m.value for m in at.metric][4] == "none"  # no "$0.0000" cost tile
    assert any("No language model answered" in c.value for c in at.caption)
    methods = next(d.value for d in at.dataframe if "answer method" in d.value.columns)
    assert set(methods["answer method"]) == {"extractive", "inventory"}
    assert list(methods["answers"]) == [1, 1] and methods["median_s"].notna().all()


# ---- document text in answers is text (issue 10, finding 14) -----------------------------

HOSTILE_TXT = (
    "Intake pump handbook\n\n"
    "The intake pump vendor is http://evil.example/vendor or www.evil.example with "
    ":material/home: and :red[alarm] and $x^2$ and <img src=x onerror=alert(1)> notes.\n\n"
    "The intake pump manual is at [the manual](http://evil.example/manual) and "
    "[[nested](http://a.example)](http://b.example) for every intake pump.\n\n"
    "The intake pump diagram ![diagram](http://127.0.0.1:9/p.png) shows the intake pump at "
    "<http://auto.example/x> clearly.\n"
).encode()
CONSTRUCTS = ("](http://", "![", "<http://", "http://evil.example/vendor", "www.evil.example",
              ":material/home:", ":red[", "$x^2$", "<img")


def _answer_element(at: AppTest, start: str):
    """The markdown element that shows the stored answer: the one starting with `start`."""
    shown = [m for m in at.markdown if plain(m.value).startswith(start)]
    assert shown, [m.value[:60] for m in at.markdown]
    return shown[0]


def test_document_links_images_and_urls_in_an_extractive_answer_stay_text(
        monkeypatch, data, service):
    from backend.ingest.service import Ingestor
    from tests.streamlit_markdown import hazards, rendered_text

    assert Ingestor(service.rs).ingest_bytes(HOSTILE_TXT, "pump_links.txt",
                                             collection="samples").ok
    at = page(monkeypatch, data, "chat")
    quoted: set[str] = set()
    # The extractive answerer quotes the one best sentence: one question per sentence.
    for i, question in enumerate(["Where is the intake pump manual?",
                                  "What does the intake pump diagram show?",
                                  "Who is the intake pump vendor?"]):
        at.chat_input(key="chat.input").set_value(question).run()
        assert not at.exception, [e.value for e in at.exception]
        uuid = at.query_params["session"]
        answer = service.messages(uuid[0] if isinstance(uuid, list) else uuid,
                                  scope=EVERYTHING)[2 * i + 1]
        mine = [c for c in CONSTRUCTS if c in answer.content]
        quoted |= set(mine)
        el = _answer_element(at, " ".join(answer.content.split()[:4]))
        assert hazards(el.value, citation_links=True) == [], el.value
        assert re.search(r"\[\\\[\d+\\\]\]\(document\?doc=\d+", el.value)  # [n]: a link
        shown = rendered_text(el.value)
        assert all(c in shown for c in mine), shown  # shown literally, as text
    assert len(quoted) >= 5, quoted  # the answers quote the hostile sentences


def test_an_extractive_answer_shows_the_asked_value_bold(monkeypatch, data, service):
    """Issue 23, item 7: the value is bold on the page (and only it), the rest is text."""
    from tests.streamlit_markdown import hazards, rendered_text, token_types

    at = page(monkeypatch, data, "chat")
    at.chat_input(key="chat.input").set_value(
        "What is the default value of storage.retention_days?").run()
    assert not at.exception, [e.value for e in at.exception]
    uuid = at.query_params["session"]
    answer = service.messages(uuid[0] if isinstance(uuid, list) else uuid, scope=EVERYTHING)[1]
    assert answer.provider == "extractive" and "from 14 to **7 days**" in answer.content
    el = _answer_element(at, "The default value of")
    assert "strong_open" in token_types(el.value), el.value
    assert hazards(el.value, citation_links=True) == [], el.value
    assert "from 14 to 7 days" in rendered_text(el.value)


def test_a_model_answer_keeps_its_markdown_but_not_document_links(monkeypatch, data, service):
    from tests.streamlit_markdown import hazards, token_types
    from tests.test_chat import FakeProvider
    from tests.test_safe_markdown import MODEL_ANSWER

    llm = ChatService(service.rs, provider_factory=lambda n: FakeProvider(MODEL_ANSWER))
    sess = llm.create_session("viewer", provider="anthropic")
    llm.ask(sess.uuid, "What do the pump notes say?", scope=EVERYTHING)  # not a summary request: no analysis route
    at = page(monkeypatch, data, "chat", session=sess.uuid)
    stored = service.messages(sess.uuid, scope=EVERYTHING)[1].content
    el = _answer_element(at, "## Summary")
    assert "](http://" in stored and hazards(el.value, citation_links=True) == [], el.value
    assert {"heading_open", "strong_open", "bullet_list_open", "table_open"} <= \
        token_types(el.value)


def test_an_answer_is_rated_with_a_note_on_the_chat_page(monkeypatch, data, service):
    from backend.security.access import Actor
    from backend.services import feedback

    at = page(monkeypatch, data, "chat")
    at.chat_input(key="chat.input").set_value(
        "Which configuration key replaced gateway.maxConn?").run()
    uuid = service.list_sessions("viewer")[0].uuid
    answer = service.messages(uuid, scope=EVERYTHING)[1]
    (thumbs,) = [w for w in at.get("feedback") if w.key == f"chat.feedback.{answer.id}.thumbs"]
    thumbs.set_value(0).run()  # thumbs down
    assert not at.exception, [e.value for e in at.exception]
    assert feedback.feedback_of(service.rs, Actor("viewer", "viewer"), [answer.id])[
        answer.id].rating == "down"
    at.text_area(key=f"chat.feedback.{answer.id}.note").set_value("the key is older").run()
    at.button(key=f"chat.feedback.{answer.id}.note.save").click().run()
    (row,) = feedback.rated_answers(service.rs, Actor("viewer", "viewer"))
    assert (row.feedback.rating, row.feedback.note, row.trace_id) == (
        "down", "the key is older", answer.trace_id)
    assert any("your feedback is stored" in c.value for c in at.caption)


def test_every_answer_shows_its_confidence_and_a_decline_its_related_passages(
        monkeypatch, data, service):
    """Issue 22, item 4: the hint under every answer; a declined answer's closest passages
    in a collapsed "Possibly related" expander."""
    at = page(monkeypatch, data, "chat")
    at.chat_input(key="chat.input").set_value(
        "Which configuration key replaced gateway.maxConn?").run()
    assert not at.exception, [e.value for e in at.exception]
    hints = [plain(c.value) for c in at.caption if "Confidence:" in plain(c.value)]
    assert hints and "based on" in hints[0] and "passage" in hints[0]
    at.chat_input(key="chat.input").set_value(
        "What is the default value of gateway.compression_level?").run()
    assert not at.exception, [e.value for e in at.exception]
    uuid = at.query_params["session"]
    uuid = uuid[0] if isinstance(uuid, list) else uuid
    declined = service.messages(uuid, scope=EVERYTHING)[-1]
    assert declined.content == "I found nothing on this in the documents."
    assert any("Confidence: low" in plain(c.value) for c in at.caption)
    related = [e for e in at.expander if "Possibly related" in e.label]
    assert related and not related[0].proto.expanded
    shown = "\n".join(plain(m.value) for m in related[0].markdown)
    assert declined.citations["related"][0]["text"][:40] in shown
