"""ragscope dashboard: `streamlit run app.py`, or `python -m backend up` (which loads the
samples first and runs the same).

This file plays two parts. `streamlit run app.py` finds the `st.App` at the end by reading
the file, imports it as the module `app` and serves the dashboard through it, with
backend.security.upload_gate.UploadGate in front of Streamlit's routes (nothing is uploaded before
sign-in, docs/security.md). Streamlit then runs this same file as the script (`__main__`)
on every run of every session: sign-in, then `st.navigation`.

Sign-in and the re-login cookie are streamlit-authenticator's; on top of it
backend/security/login_limit.py limits attempts and backend/security/sessions.py ends sessions. Pages the
user's role may not open are still registered but hidden from the menu, so a crafted URL
reaches the page, whose own role check shows an error instead of its content.
First start: see backend/security/auth.py (`bootstrap`); RAGSCOPE_ADMIN_PASSWORD sets the admin's
initial password, otherwise a generated one is printed once to the server console."""
from __future__ import annotations

import logging
import os
import time
from pathlib import Path

import streamlit as st

import backend  # noqa: F401  (offline flags first)
from backend.security import auth, login_limit, sessions, upload_gate
from backend.ui import state as K

# Only the dashboard script needs these. Imported as the module `app` (by `streamlit run`,
# before Streamlit's runtime exists) this file only declares the App: importing them then
# would declare caches and components outside the runtime, which logs warnings.
if __name__ == "__main__":
    import streamlit_authenticator as stauth
    from streamlit_authenticator.utilities import LoginError

    from pages._common import (
        auth_paths,
        clear_session,
        current_session,
        current_user,
        is_embedded,
        md_escape,
        settings,
        start_session,
    )
    from pages._crawl_common import get_console

    from backend.ui import cookies

    cookies.install()  # the cookie component only where a cookie is written or deleted

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
        ("pages/analysis.py", "Analysis", ":material/insights:", "viewer"),
        ("pages/upload.py", "Upload", ":material/upload_file:", "editor"),
        ("pages/crawl.py", "Crawl", ":material/travel_explore:", "editor")],
    "Chatbots": [
        ("pages/chatbot.py", "Chatbots", ":material/smart_toy:", "viewer"),
        ("pages/chatbot_builder.py", "Chatbot builder", ":material/construction:", "editor"),
        ("pages/profiles.py", "Author profiles", ":material/edit_note:", "editor")],
    "Retrieval": [
        ("pages/query_debug.py", "Query debug", ":material/troubleshoot:", "viewer"),
        ("pages/evaluation.py", "Evaluation", ":material/analytics:", "viewer"),
        ("pages/costs.py", "Costs", ":material/payments:", "viewer"),
        ("pages/critics.py", "Critics", ":material/rate_review:", "viewer")],
    "Admin": [
        ("pages/admin_users.py", "Users", ":material/group:", "admin"),
        ("pages/admin_access.py", "Access", ":material/lock_person:", "admin"),
        ("pages/admin_tokens.py", "API tokens", ":material/key:", "admin"),
        ("pages/document_types.py", "Document types", ":material/category:", "admin"),
        ("pages/settings.py", "Settings", ":material/settings:", "admin")],
}


@st.cache_resource(show_spinner=False)
def _bootstrap(data_dir: str) -> bool:
    """Once per process and data dir: cookie secret and first admin."""
    auth.bootstrap(Path(data_dir), admin_password=os.environ.get("RAGSCOPE_ADMIN_PASSWORD"))
    if not upload_gate.installed():
        logging.getLogger("ragscope.app").warning(
            "the dashboard runs without the upload gate: Streamlit's upload endpoint accepts "
            "files from sessions that are not signed in; start it with `streamlit run app.py` "
            "or `python -m backend up` (docs/security.md)")
    return True


class Authenticator:
    """streamlit-authenticator for one run: `stauth.Authenticate` on the credentials of
    the enabled users, read at `read_at`; a password sign-in in this run begins a session
    then (backend/security/sessions.py). Its cookie expiry is set so that a cookie it writes for the
    current session stands for that session. Its cookie component is rendered only in the
    runs that write or delete the cookie (backend/ui/cookies.py)."""

    def __init__(self) -> None:
        paths = auth_paths()
        self.users = auth.UserStore(paths)
        self.cookie_days = sessions.cookie_days(current_session())
        self.read_at = time.time()
        credentials = self.users.authenticator_credentials()
        self.names = frozenset(credentials["usernames"])
        self.stauth = stauth.Authenticate(
            credentials, auth.COOKIE_NAME, auth.cookie_key(paths),
            self.cookie_days, auto_hash=False, login_sleep_time=0)

    def check_password(self, name: str, password: str | None) -> auth.User | None:
        """The password check of one rate-limited attempt: the library's login, which
        also sets its session keys on success. It refuses unknown and disabled users
        without a check, so those cost one here (no timing difference)."""
        password = password or ""
        ok = False
        if len(password.encode()) <= 72:  # bcrypt's limit: no password can be longer
            try:
                ok = bool(self.stauth.authentication_controller.login(name, password))
            except LoginError:
                ok = False
        if name not in self.names:
            auth.equalize_timing(password)
        user = self.users.get(name) if ok else None
        return user if user is not None and not user.disabled else None


def _login_page(authenticator: Authenticator) -> None:
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
        st.error(md_escape(attempt["message"]))


def _attempt(authenticator: Authenticator, attempt: dict) -> None:
    """One sign-in attempt. A rerun can interrupt a run at any Streamlit call (right after
    sign-in the cookie component triggers one); the attempt lives in the session until
    it has been decided, so an interrupted one is finished by the next run, and it is
    updated in place (no Streamlit call between the decision and recording it)."""
    client = st.context.ip_address  # None on loopback (and not a str under AppTest)
    client = client if isinstance(client, str) else None
    result = login_limit.sign_in(authenticator.users, login_limit.LoginLimiter(auth_paths()),
                                 attempt["username"], attempt["password"], client,
                                 check=authenticator.check_password)
    attempt.update(password=None, message=result.message)
    if result.user is None:
        clear_session()  # the library marks a failed attempt with its own status
        return
    start_session(result.user, authenticator.read_at)
    st.session_state[K.APP_SET_COOKIE] = True
    st.rerun()


def _relogin(authenticator: Authenticator) -> auth.User | None:
    """Sign in again with the library's re-login cookie while the session it stands for is
    current. A cookie refused once is not looked at again in this browser session, and is
    deleted."""
    raw = st.context.cookies.get(auth.COOKIE_NAME)
    if not raw or raw == st.session_state.get(K.APP_REFUSED_TOKEN):
        return None
    try:
        payload = authenticator.stauth.cookie_controller.get_cookie()
    except Exception:  # not a cookie the library can read (another format, odd claims)
        payload = None
    if payload is False:  # signed out in this browser session: the cookie is being deleted
        return None
    session = sessions.from_cookie(payload)  # None: forged, expired or unreadable
    user = sessions.validate(authenticator.users, session)
    if user is not None:
        try:
            authenticator.stauth.authentication_controller.login(token=payload)
        except LoginError:  # disabled or removed since the credentials were read
            user = None
    if user is None:
        clear_session()
        st.session_state[K.APP_REFUSED_TOKEN] = raw
        st.session_state[K.APP_DELETE_COOKIE] = True
        return None
    start_session(user, session.began)
    return user


def _cookie_actions(authenticator: Authenticator) -> None:
    """Write the re-login cookie after sign-in, delete it after sign-out, both with the
    library's cookie controller. The component that writes it is rendered in every run
    until the browser reports it done (it can take a few runs to mount, e.g. when the user
    clicks on right after signing in)."""
    if st.session_state.get(K.APP_SET_COOKIE):
        if current_session() is None or authenticator.cookie_days <= 0 \
                or st.session_state.get(K.STAUTH_COOKIE_SET) is True:
            st.session_state[K.APP_SET_COOKIE] = False  # signed out meanwhile, or written
        else:
            authenticator.stauth.cookie_controller.set_cookie()
    if st.session_state.pop(K.APP_DELETE_COOKIE, False):
        authenticator.stauth.cookie_controller.delete_cookie()


def _sign_out(authenticator: Authenticator) -> None:
    """Sign-out ends every session of the user (all browsers, all cookies)."""
    user = current_user()
    if user is not None:
        try:
            authenticator.users.end_sessions(user.username)
        except auth.AuthError:  # removed meanwhile: nothing left to end
            pass
    authenticator.stauth.authentication_controller.logout()
    clear_session()
    st.session_state[K.APP_SET_COOKIE] = False
    st.session_state[K.APP_DELETE_COOKIE] = True


def main() -> None:
    st.set_page_config(page_title="ragscope", page_icon="🔎",
                       layout="wide")
    K.init(st.session_state)
    _bootstrap(str(settings().data_dir.resolve()))
    get_console()  # once per process: crawl service + scheduler candidate (one leader per DB)
    user = current_user()
    authenticator = Authenticator()
    user = user or _relogin(authenticator)
    _cookie_actions(authenticator)
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
    # every page stays visible (the default folds the list behind "View more" beyond 10);
    # embedded (`?embed=true`, the chatbot page in an iframe): no navigation, no sidebar
    embed = is_embedded()
    nav = st.navigation({k: v for k, v in sections.items() if v}, expanded=True,
                        position="hidden" if embed else "sidebar")
    if not embed:
        with st.sidebar:
            st.caption(f"Signed in as **{md_escape(user.username)}** · "
                       f"{md_escape(user.role)}")
            st.button("Sign out", key=K.APP_SIGN_OUT, on_click=_sign_out,
                      args=(authenticator,), icon=":material/logout:")
    nav.run()


if __name__ == "__main__":
    main()
else:  # `streamlit run app.py` imports this module and serves the dashboard through this
    from starlette.middleware import Middleware

    from backend.ui.shell import BaseUrlHint

    app = st.App(__file__, middleware=[
        Middleware(upload_gate.UploadGate),
        Middleware(BaseUrlHint, page_paths=[Path(path).stem for entries in PAGES.values()
                                            for path, *_ in entries] + ["login"])])
