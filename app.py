"""ragscope dashboard: `streamlit run app.py`.

Sign-in (streamlit-authenticator), then `st.navigation` with the pages the user's role may
open. Pages the role may not open are still registered but hidden from the menu, so a crafted
URL reaches the page, whose own role check shows an error instead of its content.
First start: see backend/auth.py (`bootstrap`); RAGSCOPE_ADMIN_PASSWORD sets the admin's
initial password, otherwise a generated one is printed once to the server console."""
from __future__ import annotations

import math
import os
from pathlib import Path

import backend  # noqa: F401  (offline flags first)
import streamlit as st
import streamlit_authenticator as stauth
from streamlit_authenticator.utilities import LoginError

from backend import auth
from backend import ui_state as K
from pages._common import auth_paths, current_user, md_escape, settings
from pages._crawl_common import get_console

ROOT = Path(__file__).resolve().parent

# Navigation section -> (file, title, icon, role needed). Pages other sessions are still
# writing (query debug, chat, costs) are listed as soon as their file exists.
PAGES = {
    "": [("pages/home.py", "Home", ":material/home:", "viewer"),
         ("pages/chat.py", "Chat", ":material/chat:", "viewer")],
    "Documents": [
        ("pages/explorer.py", "Explorer", ":material/folder_open:", "viewer"),
        ("pages/document.py", "Document", ":material/description:", "viewer"),
        ("pages/structure.py", "Structure", ":material/account_tree:", "viewer"),
        ("pages/upload.py", "Upload", ":material/upload_file:", "editor"),
        ("pages/crawl.py", "Crawl", ":material/travel_explore:", "editor")],
    "Retrieval": [
        ("pages/query_debug.py", "Query debug", ":material/troubleshoot:", "viewer"),
        ("pages/evaluation.py", "Evaluation", ":material/analytics:", "viewer"),
        ("pages/costs.py", "Costs", ":material/payments:", "viewer")],
    "Admin": [
        ("pages/admin_users.py", "Users", ":material/group:", "admin"),
        ("pages/settings.py", "Settings", ":material/settings:", "admin")],
}


@st.cache_resource(show_spinner=False)
def _bootstrap(data_dir: str) -> bool:
    """Once per process and data dir: cookie secret and first admin."""
    auth.bootstrap(Path(data_dir), admin_password=os.environ.get("RAGSCOPE_ADMIN_PASSWORD"))
    return True


def _authenticator() -> stauth.Authenticate:
    paths = auth_paths()
    return stauth.Authenticate(
        auth.UserStore(paths).authenticator_credentials(), auth.COOKIE_NAME,
        auth.cookie_key(paths), auth.COOKIE_EXPIRY_DAYS, auto_hash=False, login_sleep_time=0)


def _login_page(authenticator: stauth.Authenticate) -> None:
    st.title("ragscope")
    with st.form("login", clear_on_submit=True):
        st.subheader("Sign in")
        username = st.text_input("Username", key=K.LOGIN_USERNAME, autocomplete="username")
        password = st.text_input("Password", type="password", key=K.LOGIN_PASSWORD,
                                 autocomplete="current-password")
        submitted = st.form_submit_button("Sign in", type="primary")
    if submitted:
        st.session_state[K.LOGIN_ATTEMPT] = {"username": username, "password": password,
                                             "message": None}
    attempt = st.session_state.get(K.LOGIN_ATTEMPT)
    if attempt and attempt["password"] is not None:
        _attempt(authenticator, attempt)
    if attempt and attempt["message"]:
        st.error(attempt["message"])


def _attempt(authenticator: stauth.Authenticate, attempt: dict) -> None:
    """One sign-in attempt. A rerun can interrupt a run at any Streamlit call (right after
    page load the cookie component triggers one); the attempt lives in the session until
    it has been decided, so an interrupted one is finished by the next run, and it is
    updated in place (no Streamlit call between the decision and recording it)."""
    name = (attempt["username"] or "").strip().lower()
    password = attempt["password"]
    limiter = auth.LoginLimiter(auth_paths())
    wait = limiter.locked_for(name) if name else 0
    if wait:
        attempt.update(password=None, message="Too many failed sign-in attempts for this user "
                       f"name. Try again in {math.ceil(wait / 60)} minute(s).")
        return
    known = auth.UserStore(auth_paths()).get(name)
    if known is None or known.disabled:
        auth.equalize_timing(password)
    try:
        ok = bool(name and password
                  and authenticator.authentication_controller.login(name, password))
    except LoginError:
        ok = False
    if ok:
        limiter.reset(name)
        attempt.update(password=None, message=None)
        st.session_state[K.APP_SET_COOKIE] = True
        st.rerun()
    if name:
        limiter.record_failure(name)
    attempt.update(password=None, message="Username or password is incorrect.")
    st.session_state[K.AUTH_STATUS] = None


def _cookie_actions(authenticator: stauth.Authenticate) -> None:
    """Cookie components are rendered in the run after sign-in/out, so that no st.rerun()
    cuts them off before the browser has mounted them."""
    if st.session_state.pop(K.APP_SET_COOKIE, False):
        authenticator.cookie_controller.set_cookie()
    if st.session_state.pop(K.APP_DELETE_COOKIE, False):
        authenticator.cookie_controller.delete_cookie()


def _sign_out(authenticator: stauth.Authenticate) -> None:
    authenticator.authentication_controller.logout()
    st.session_state[K.APP_DELETE_COOKIE] = True


def main() -> None:
    st.set_page_config(page_title="ragscope", page_icon="🔎",
                       layout="wide")
    K.init(st.session_state)
    _bootstrap(str(settings().data_dir.resolve()))
    get_console()  # once per process: crawl service + scheduler candidate (one leader per DB)
    authenticator = _authenticator()
    try:
        authenticator.login(location="unrendered")  # re-login from a valid cookie
    except LoginError:
        pass  # the cookie names a user that was disabled or removed
    _cookie_actions(authenticator)
    user = current_user()
    if user is not None:
        st.session_state.pop(K.LOGIN_ATTEMPT, None)
    if user is None:
        st.navigation([st.Page(lambda: _login_page(authenticator), title="Sign in",
                               icon=":material/login:", url_path="login")],
                      position="hidden").run()
        return

    sections = {
        name: [st.Page(path, title=title, icon=icon, default=(path == "pages/home.py"),
                       visibility="visible" if auth.has_role(user.role, role) else "hidden")
               for path, title, icon, role in entries if (ROOT / path).exists()]
        for name, entries in PAGES.items()}
    nav = st.navigation({k: v for k, v in sections.items() if v})
    with st.sidebar:
        st.caption(f"Signed in as **{md_escape(user.username)}** · {user.role}")
        st.button("Sign out", key=K.APP_SIGN_OUT, on_click=_sign_out, args=(authenticator,),
                  icon=":material/logout:")
    nav.run()


main()
