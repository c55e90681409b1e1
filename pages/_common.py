"""Streamlit glue shared by app.py and the pages: the one cached Ragscope factory, the auth
gate every page calls, cached listings, and escaping helpers. Logic stays in backend/."""
from __future__ import annotations

from typing import Any, Callable

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

import backend  # noqa: F401  (offline flags before anything heavy is imported)
from backend.security import access, auth, sessions, upload_gate
from backend.services import documents as docs
from backend.services import system
from backend.config import Settings
from backend.config.current import current as current_settings
from backend.config.current import current_json as current_settings_json
from backend.errors import RagscopeError
from backend.security.display import safe_text  # noqa: F401  (names: control/bidi chars escaped)
from backend.security.safe_markdown import md_escape, md_text  # noqa: F401  (the pages' escaping)
from backend.services.container import Ragscope
from backend.ui import state as K

LISTING_TTL_S = 30


# ---- services -----------------------------------------------------------------------------


def settings() -> Settings:
    """The settings of the environment as it is now (built once per distinct RAGSCOPE_*
    environment: backend/config/current.py)."""
    return current_settings()


def settings_json() -> str:
    """`settings().model_dump_json()`, the key of the process's cached services."""
    return current_settings_json()


@st.cache_resource(show_spinner=False)
def _ragscope(settings_json: str) -> Ragscope:
    return Ragscope(Settings.model_validate_json(settings_json))


def get_rs() -> Ragscope:
    """The Ragscope service for the current settings (one per process and configuration)."""
    return _ragscope(settings_json())


def data_key(rs: Ragscope) -> str:
    """Hashed into every cached listing, so two data dirs never share cache entries."""
    return rs.settings.db_url


# ---- auth ---------------------------------------------------------------------------------


def auth_paths() -> auth.AuthPaths:
    return auth.AuthPaths.under(settings().data_dir)


def current_session() -> sessions.Session | None:
    """The session this browser tab claims (not yet checked against the users file)."""
    state = st.session_state
    began = state.get(K.AUTH_BEGAN)
    if state.get(K.AUTH_STATUS) is not True or not state.get(K.AUTH_USERNAME) \
            or not isinstance(began, float):
        return None
    return sessions.Session(state[K.AUTH_USERNAME], began)


def start_session(user: auth.User, began: float) -> None:
    """Sign this browser tab in as `user`, for a session that began at `began` (see
    backend/security/sessions.py; streamlit-authenticator has set its own keys already)."""
    st.session_state.update({K.AUTH_STATUS: True, K.AUTH_USERNAME: user.username,
                             K.AUTH_BEGAN: float(began), K.AUTH_NAME: user.name,
                             K.AUTH_ROLES: [user.role]})


def clear_session() -> None:
    for key in (K.AUTH_STATUS, K.AUTH_USERNAME, K.AUTH_BEGAN, K.AUTH_ROLES, K.AUTH_NAME,
                K.AUTH_EMAIL):
        st.session_state[key] = None


def current_user() -> auth.User | None:
    """The signed-in user while the session is current: the user exists, is enabled and
    has not ended the session (sign-out, password reset, disabling and a role change end
    every session that began before). Read from the users file on every run, so the role
    too is the one the file gives now."""
    session = current_session()
    user = sessions.validate(auth.UserStore(auth_paths()), session)
    _tell_upload_gate(session if user is not None else None)
    if user is None:
        if st.session_state.get(K.AUTH_STATUS) is not None:
            clear_session()
        return None
    st.session_state[K.AUTH_ROLES] = [user.role]
    return user


def _tell_upload_gate(session: sessions.Session | None) -> None:
    """The upload gate (app.py's `st.App`) lets uploads through only for sessions admitted
    here."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return
    if session is None:
        upload_gate.revoke(ctx.session_id)
    else:
        upload_gate.admit(ctx.session_id, session)


def current_actor() -> access.Actor | None:
    """The caller of an action, resolved now (call it inside button callbacks, which run
    before the page's own checks)."""
    user = current_user()
    return None if user is None else access.Actor(user.username, user.role)


def current_scope() -> access.Scope:
    """What the signed-in user may read and write, computed now from the store (every run:
    a changed group takes effect on the next rerun). Nothing for no user."""
    return access.scope_of(get_rs(), current_actor())


def require_page(role: str, what: str = "this page") -> auth.User:
    """Every page starts with this: an error instead of the page for a role without access
    (also when the page was reached through a crafted URL).

    Pages must not rely on app.py having run first: while a `pages/` folder sits next to
    app.py, Streamlit runs a page file directly (its MPA-v1 mode) in the first run of a
    server process and in every AppTest run after a page switch."""
    K.init(st.session_state)
    user = current_user()
    if user is None:
        st.error("Please sign in first.")
        st.stop()
    if not auth.has_role(user.role, role):
        st.error(f"Access denied: {md_escape(what)} needs the **{md_escape(role)}** role; you "
                 f"are signed in as **{md_escape(user.username)}** ({md_escape(user.role)}).")
        st.stop()
    return user


def allowed(user: auth.User, action: str) -> bool:
    return auth.can(user.role, action)


# ---- cached reads (widget values are arguments) ------------------------------------------


# The scope is an argument of every cached read: users with different access never share
# a cache entry.


@st.cache_data(ttl=LISTING_TTL_S, show_spinner=False)
def cached_documents(key: str, scope: access.Scope, f: docs.ExplorerFilter, page: int,
                     page_size: int) -> docs.DocumentPage:
    return docs.list_documents(get_rs(), f, page, page_size, scope=scope)


@st.cache_data(ttl=LISTING_TTL_S, show_spinner=False)
def cached_filter_options(key: str, scope: access.Scope) -> docs.FilterOptions:
    return docs.filter_options(get_rs(), scope=scope)


@st.cache_data(ttl=5, show_spinner=False)
def cached_status(key: str, scope: access.Scope) -> system.SystemStatus:
    return system.system_status(get_rs(), scope=scope)


def clear_listings() -> None:
    """After a change (upload, delete, activate): listings must not show stale rows."""
    cached_documents.clear()
    cached_filter_options.clear()
    cached_status.clear()


# ---- rendering helpers --------------------------------------------------------------------

def plain_label(text: Any, limit: int = 80) -> str:
    """For plotly labels (which understand a few HTML tags): no angle brackets at all."""
    s = str(text).replace("<", "‹").replace(">", "›").replace("\n", " ")
    return s if len(s) <= limit else s[: limit - 1] + "…"


def show_errors(fn: Callable[[], Any]) -> Any:
    """Run an action; a RagscopeError becomes st.error (one line), not a traceback."""
    try:
        return fn()
    except RagscopeError as e:
        st.error(md_escape(str(e)))
        return None


def pick_document(key: str, label: str = "Document") -> int | None:
    """The document to show: ?doc=ID, else the one chosen in the explorer, else the newest.
    The picker offers the 100 newest documents plus the current one."""
    rs = get_rs()
    qp = st.query_params.get("doc")
    if qp and qp.isdigit():
        st.session_state[K.EXPLORER_DOC_ID] = int(qp)
    current = st.session_state.get(K.EXPLORER_DOC_ID)
    recent = cached_documents(data_key(rs), current_scope(), docs.ExplorerFilter(), 1, 100).rows
    titles = {r.id: safe_text(r.title or r.filename) for r in recent}
    options = [r.id for r in recent]
    if current is not None and current not in options:
        options.insert(0, current)
    if not options:
        st.info("No documents yet.")
        return None
    if current is None:
        current = options[0]
        st.session_state[K.EXPLORER_DOC_ID] = current
    st.session_state[key] = current

    def changed() -> None:
        st.session_state[K.EXPLORER_DOC_ID] = st.session_state[key]
        st.query_params["doc"] = str(st.session_state[key])

    st.selectbox(md_escape(label), options, key=key, on_change=changed,
                 format_func=lambda i: f"{i} · {titles.get(i, '')}"[:120])
    return current


def is_embedded() -> bool:
    """`?embed=true` in the address (the chatbot page in an iframe): Streamlit's own embed
    flag, which also hides its toolbar. The `embed` parameter is Streamlit's, so
    `st.query_params` never shows it."""
    return bool(st.context.is_embedded)
