"""Critique rounds in the dashboard (issue 26.1): under a chat answer, the "Critiques"
expander runs the critics (through the `openai` provider pointed at a recording server on
127.0.0.1) and then shows every round — each critic's rating, issues, suggestions, the
revision and the status; the Critics page lists the critics, lets an admin edit one (a
viewer cannot) and lists the recent runs."""
from __future__ import annotations

from backend.chat.service import ChatService
from backend.chat.types import SessionSettings
from backend.config import Settings
from backend.services.container import Ragscope
from backend.store.critic_models import Critic
from tests.fake_llm_support import last_prompt, recorder  # noqa: F401  (fixture)
from tests.page_support import app, bare, components, open_page, plain, shared_model  # noqa: F401

WRONG = "The gateway listens on port 9000 by default."
RIGHT = "The gateway listens on port 8443 by default."


def _reply(body) -> str:
    p = last_prompt(body)
    if "Critiques:" in p:
        return RIGHT
    if "port 9000" in p.split("Answer to check:")[-1]:
        return '{"rating": 2, "issues": ["port 9000 is wrong"], "suggestions": ["say 8443"]}'
    return '{"rating": 9, "issues": [], "suggestions": []}'


def _deprecations(monkeypatch) -> list[str]:
    """Every deprecation warning Streamlit logs from now on (as tests/test_page_warnings.py)."""
    from streamlit import deprecation_util

    logged: list[str] = []
    monkeypatch.setattr(deprecation_util, "_shown_warnings", set())
    monkeypatch.setattr(deprecation_util._LOGGER, "warning",
                        lambda msg, *a, **k: logged.append(str(msg)))
    return logged


def _texts(at) -> str:
    return "\n".join(plain(m.value) for m in at.markdown) + "\n".join(
        c.value for c in at.code)


def test_the_chat_answer_is_critiqued_and_its_rounds_shown(app, bare, recorder, monkeypatch):
    data, _ = bare
    srv = recorder(_reply)
    monkeypatch.setenv("RAGSCOPE_OPENAI_BASE_URL", srv.base_url)
    monkeypatch.setenv("RAGSCOPE_OPENAI_MODEL", "rec-model")
    monkeypatch.setenv("RAGSCOPE_LLM_MAX_RETRIES", "0")
    rs = Ragscope(Settings(data_dir=data))
    chat = ChatService(rs)
    sess = chat.create_session("viewer", provider="openai")
    mid = chat.store_turn(sess.uuid, "Which port?", SessionSettings(), content=WRONG,
                          sources=[], citations={}, provider="openai",
                          model="rec-model").message.id
    rs.close()
    logged = _deprecations(monkeypatch)
    at = app(data, "viewer")
    at.query_params["session"] = sess.uuid
    open_page(at, "chat")
    assert [e.label for e in at.expander if e.label.startswith("Critiques")] == ["Critiques"]
    at.button(key=f"chat.critique.{mid:d}.run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    labels = [plain(e.label) for e in at.expander if e.label.startswith("Critiques")]
    assert labels == ["Critiques: revised after 2 round(s)"], labels
    shown = _texts(at)
    for expected in ("Fact checker", "Stylist", "Structure analyst", "Format checker",
                     "port 9000 is wrong", "say 8443", "Round 1", "Round 2", RIGHT):
        assert expected in shown, expected
    assert len(srv.requests) == 7 and WRONG in last_prompt(srv.requests[0])
    assert logged == []


def test_admins_edit_critics_on_the_critics_page_and_viewers_only_read(app, bare, monkeypatch):
    data, _ = bare
    logged = _deprecations(monkeypatch)
    at = open_page(app(data, "viewer"), "critics")
    assert not [e for e in at.expander if e.label.startswith("Edit")]
    assert "Editing critics needs the admin role." in [plain(c.value) for c in at.caption]
    at = open_page(app(data, "admin"), "critics")
    edits = [plain(e.label) for e in at.expander if e.label.startswith("Edit")]
    assert edits == ["Edit Fact checker (fact)", "Edit Stylist (style)",
                     "Edit Structure analyst (structure)", "Edit Format checker (format)"]
    at.number_input(key="critics.edit.2.threshold").set_value(8.5)
    at.checkbox(key="critics.edit.2.active").uncheck()
    at.button(key="FormSubmitter:critics.edit.2.form-Save").click().run()
    assert not at.exception and "Stylist saved." in [plain(s.value) for s in at.success]
    rs = Ragscope(Settings(data_dir=data))
    with rs.store.session() as s:
        row = s.get(Critic, 2)
        assert (row.threshold, row.active, row.updated_by) == (8.5, False, "admin")
    rs.close()
    assert logged == []
