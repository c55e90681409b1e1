"""AppTest for sessions and sign-in locks in the dashboard: sign-out, password reset,
disabling and a role change end the open sessions and streamlit-authenticator's re-login
cookie of a user; the admin lifts a sign-in lock on the Users page."""
from __future__ import annotations

import base64
import json

import pytest
from streamlit.runtime.context import ContextProxy
from streamlit_authenticator.models import cookie_model

from backend.security import auth, login_limit, sessions
from backend.ui import state as K
from tests.page_support import (  # noqa: F401  (fixtures)
    PASSWORDS,
    app,
    bare,
    components,
    errors,
    open_page,
    shared_model,
    sign_in,
    successes,
)


def _login_form_shown(at) -> bool:
    return [t.label for t in at.text_input] == ["Username", "Password"]


def _signed_out(at) -> bool:
    """No session and no page content: the sign-in form, or (when AppTest ran the page
    file itself, as after a page switch) the page's own refusal."""
    return (at.session_state[K.AUTH_STATUS] is None and not at.metric and not at.exception
            and (_login_form_shown(at) or errors(at) == ["Please sign in first."]))


@pytest.fixture
def browser_cookies(monkeypatch):
    """What streamlit-authenticator's cookie component would write, and what the browser
    then sends back: `written` collects set() calls; `sent` is what st.context.cookies
    returns."""
    written: list[tuple[str, str]] = []
    sent: dict[str, str] = {}

    def fake_set(self, cookie, val, key="set", **kw):
        written.append((cookie, val))

    monkeypatch.setattr(cookie_model.stx.CookieManager, "set", fake_set)
    monkeypatch.setattr(ContextProxy, "cookies", property(lambda self: dict(sent)))
    return written, sent


def _claims(token: str) -> dict:
    """The payload of a JWT (not verified: the app verifies)."""
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def _signed_in_tab(app, data, user: str):
    at = app(data)
    at.run()
    sign_in(at, user, PASSWORDS[user])
    assert at.session_state[K.AUTH_STATUS] is True, errors(at)
    assert any("Signed in as" in c.value for c in at.sidebar.caption)
    return at


def test_the_cookie_signs_in_again_until_sign_out(app, bare, browser_cookies):
    written, sent = browser_cookies
    data = bare[0]
    first = _signed_in_tab(app, data, "viewer")
    # the run after sign-in writes streamlit-authenticator's re-login cookie (AppTest's
    # component never reports it done, so each run writes it again); every copy stands
    # for the tab's session: it expires 7 days after the sign-in, not later
    began = first.session_state[K.AUTH_BEGAN]
    assert written and {name for name, _ in written} == {auth.COOKIE_NAME}
    for _, token in written:
        claims = _claims(token)
        assert set(claims) == {"username", "exp_date"} and claims["username"] == "viewer"
        assert began - 5 < sessions.from_cookie(claims).began <= began
    token = written[-1][1]
    sent[auth.COOKIE_NAME] = token

    second = app(data)  # a new tab of the same browser: signed in by the cookie
    second.run()
    assert second.session_state[K.AUTH_USERNAME] == "viewer" and second.metric

    first.sidebar.button(key=K.APP_SIGN_OUT).click().run()
    assert _signed_out(first)
    second.run()  # the other open tab is signed out on its next run
    assert _signed_out(second)
    third = app(data)  # and the cookie no longer signs anyone in
    third.run()
    assert _login_form_shown(third) and third.session_state[K.AUTH_STATUS] is None
    assert third.session_state[K.APP_REFUSED_TOKEN] == token


@pytest.mark.parametrize("end", ["reset", "disable", "role"])
def test_admin_changes_end_open_sessions_and_cookies(app, bare, browser_cookies, end):
    written, sent = browser_cookies
    data = bare[0]
    tab = _signed_in_tab(app, data, "editor")
    sent[auth.COOKIE_NAME] = written[-1][1]
    users = auth.UserStore(auth.AuthPaths.under(data))
    {"reset": lambda: users.reset_password("editor"),
     "disable": lambda: users.set_disabled("editor", True),
     "role": lambda: users.set_role("editor", "viewer")}[end]()
    tab.run()
    assert _signed_out(tab)
    fresh = app(data)
    fresh.run()
    assert fresh.session_state[K.AUTH_STATUS] is None and _login_form_shown(fresh)


def test_admin_unlocks_a_locked_user_on_the_users_page(app, bare):
    data = bare[0]
    at = app(data)
    at.run()
    for _ in range(login_limit.MAX_FAILURES):
        sign_in(at, "editor", "wrong-password-x")
    sign_in(at, "editor", PASSWORDS["editor"])
    assert "Too many failed sign-in attempts" in errors(at)[0]

    admin = open_page(app(data, "admin"), "admin_users")
    status = dict(zip(admin.dataframe[0].value["user"], admin.dataframe[0].value["status"]))
    assert status["editor"].startswith("locked") and status["viewer"] == "active"
    admin.selectbox(key=K.ADMIN_USERS_TARGET).select("viewer").run()
    assert admin.button(key=K.ADMIN_USERS_UNLOCK).disabled  # nothing to unlock
    admin.selectbox(key=K.ADMIN_USERS_TARGET).select("editor").run()
    admin.button(key=K.ADMIN_USERS_UNLOCK).click().run()
    assert "Sign-in for editor is unlocked." in successes(admin)

    sign_in(at, "editor", PASSWORDS["editor"])
    assert at.session_state[K.AUTH_STATUS] is True and at.session_state[K.AUTH_USERNAME] == \
        "editor"
