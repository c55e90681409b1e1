"""The Settings page's run-time configuration (issue 26, item 7): an admin overrides a safe
setting (a bad value shows the reason and changes nothing), creates and activates a system
prompt version, and sees both in the audit log and the domain rules' state."""
from __future__ import annotations

from backend.config import Settings
from backend.services.container import Ragscope
from backend.store import runtime_settings as rt
from backend.ui import state as K
from tests.page_support import app, bare, components, errors, open_page, shared_model, successes  # noqa: F401


def test_admin_changes_a_setting_and_a_prompt_on_the_settings_page(app, bare):  # noqa: F811
    data, _ = bare
    at = open_page(app(data, "admin"), "settings")
    at.selectbox(key=K.RUNTIME_NAME).select("chat_source_chars")
    at.text_input(key=K.RUNTIME_VALUE).input("20")
    at.button(key="FormSubmitter:settings.runtime_form-Save").click().run()
    assert any("chat_source_chars: Input should be greater than or equal to 200" in e
               for e in errors(at))
    at.text_input(key=K.RUNTIME_VALUE).input("3000")
    at.button(key="FormSubmitter:settings.runtime_form-Save").click().run()
    assert not at.exception and "chat_source_chars = 3000" in successes(at)
    rs = Ragscope(Settings(data_dir=data))
    try:
        assert rt.overrides(rs.store) == {"chat_source_chars": 3000}
        at.text_area(key=K.PROMPTS_TEXT).input("Antworte knapp und freundlich.")
        at.checkbox(key=K.PROMPTS_MAKE_ACTIVE).check()
        at.button(key="FormSubmitter:settings.prompts_form-Create version").click().run()
        assert not at.exception and "chat system prompt v1 created" in successes(at)
        from backend.chat import prompt_versions

        assert prompt_versions.active_text(rs.store, "chat") == "Antworte knapp und freundlich."
        audit = at.dataframe[-1].value
        assert list(audit["who"])[:3] == ["admin"] * 3
        assert list(audit["action"])[:3] == ["activate", "create", "set"]
        rules = next(d.value for d in at.dataframe if "rules" in d.value.columns)
        assert "repairs" in set(rules["rules"])
    finally:
        rs.close()


def test_non_admins_do_not_reach_the_settings_page(app, bare):  # noqa: F811
    data, _ = bare
    at = app(data, "editor")
    at.run()
    at.switch_page("pages/settings.py").run()
    assert not at.exception
    assert all(w.key != K.RUNTIME_VALUE for w in at.text_input)
    assert all(w.key != K.PROMPTS_TEXT for w in at.text_area)
