"""The Author profiles page through AppTest (issue 26): an editor creates, edits and deletes
profiles (a bad field shows its reason, nothing is stored), sees the rules as the model sees
them; deleting a profile in use says who fell back; a viewer is refused. The chat's session
settings pick a profile."""
from __future__ import annotations

from backend.chat.profiles import ProfileService
from backend.chat.service import ChatService
from backend.config import Settings
from backend.security.access import Actor
from backend.services.container import Ragscope
from backend.ui import state as K
from tests.page_support import (  # noqa: F401  (fixtures)
    app,
    bare,
    components,
    errors,
    open_page,
    shared_model,
    successes,
)

SAVE = "FormSubmitter:profiles.form-Save profile"


def _with_rs(data, fn):
    rs = Ragscope(Settings(data_dir=data))
    try:
        return fn(rs)
    finally:
        rs.close()


def test_editor_creates_edits_and_deletes(app, bare):
    data, _ = bare
    at = open_page(app(data, "editor"), "profiles")
    assert at.title[0].value == "Author profiles" and not errors(at)
    at.text_input(key=K.profiles_field(0, "name")).input("Sachlich (Sie)")
    at.text_input(key=K.profiles_field(0, "tone")).input("sachlich")
    at.selectbox(key=K.profiles_field(0, "address")).select("sie")
    at.number_input(key=K.profiles_field(0, "max_sentence_words")).set_value(20)
    at.text_area(key=K.profiles_field(0, "forbidden_words")).input("super\ntoll")
    at.button(key=SAVE).click().run()
    assert not errors(at), errors(at)
    assert "Saved author profile Sachlich (Sie)." in successes(at)
    (p,) = _with_rs(data, lambda rs: ProfileService(rs).list())
    assert (p.address, p.max_sentence_words, p.forbidden_words) == ("sie", 20, ["super", "toll"])
    frame = at.dataframe[0].value
    assert list(frame["Name"]) == ["Sachlich (Sie)"]
    assert list(frame["Forbidden words"]) == ["super, toll"]
    # edit: the form shows the profile; the rules preview is the prompt text
    at.selectbox(key=K.PROFILES_PICK).select(p.id).run()
    assert p.style_rules_text("en") == at.code[0].value
    at.radio(key=K.PROFILES_LANGUAGE).set_value("de").run()
    assert "mit „Sie“ an" in at.code[0].value
    at.selectbox(key=K.profiles_field(p.id, "output_format")).select("plain")
    at.button(key=SAVE).click().run()
    assert _with_rs(data, lambda rs: ProfileService(rs).show(p.id).output_format) == "plain"
    # delete while a chat session uses it
    uuid = _with_rs(data, lambda rs: ChatService(rs).create_session(profile_id=p.id).uuid)
    at.selectbox(key=K.PROFILES_PICK).select(p.id).run()
    at.button(key=K.PROFILES_DELETE).click().run()
    assert not errors(at), errors(at)
    assert any("1 chat session(s) and 0 chatbot(s) that used it now use no profile" in m
               for m in successes(at)), successes(at)
    assert _with_rs(data, lambda rs: ChatService(rs).get_session(uuid).settings.profile_id) \
        is None
    assert not at.dataframe  # none left


def test_a_bad_field_shows_its_reason_and_stores_nothing(app, bare):
    data, _ = bare
    at = open_page(app(data, "editor"), "profiles")
    at.text_input(key=K.profiles_field(0, "name")).input("Kurz")
    at.number_input(key=K.profiles_field(0, "max_sentence_words")).set_value(2)
    at.button(key=SAVE).click().run()
    assert any("max_sentence_words: must be between 5 and 100" in e for e in errors(at))
    assert _with_rs(data, lambda rs: ProfileService(rs).list()) == []


def test_a_viewer_is_refused(app, bare):
    data, _ = bare
    at = open_page(app(data, "viewer"), "profiles")
    assert errors(at) and errors(at)[0].startswith("Access denied")
    assert not at.main.button and not at.text_input


def test_the_chat_session_settings_pick_a_profile(app, bare):
    data, _ = bare
    p = _with_rs(data, lambda rs: ProfileService(rs).create(Actor("editor", "editor"),
                                                             name="Plain English",
                                                             output_format="plain"))
    at = open_page(app(data, "viewer"), "chat")
    at.session_state["chat.settings_open."] = True  # the folded settings form opened
    at.run()
    pick = at.selectbox(key="chat.settings..profile_id")
    assert pick.value is None and "Plain English" in pick.options
    pick.select(p.id)
    at.button(key="FormSubmitter:chat.settings.-Save settings").click().run()
    assert not errors(at), errors(at)
    assert at.session_state["chat.draft"]["profile_id"] == p.id
