"""Streamlit glue shared by app.py and the pages: the one cached Ragscope factory, the auth
gate every page calls, cached listings, and escaping helpers. Logic stays in backend/."""
from __future__ import annotations

import re
from typing import Any, Callable

import backend  # noqa: F401  (offline flags before anything heavy is imported)
import streamlit as st

from backend import auth, documents as docs
from backend import ui_state as K
from backend.config import Settings
from backend.errors import RagscopeError
from backend.services import Ragscope

LISTING_TTL_S = 30


# ---- services -----------------------------------------------------------------------------


def settings() -> Settings:
    return Settings()


@st.cache_resource(show_spinner=False)
def _ragscope(settings_json: str) -> Ragscope:
    return Ragscope(Settings.model_validate_json(settings_json))


def get_rs() -> Ragscope:
    """The Ragscope service for the current settings (one per process and configuration)."""
    return _ragscope(settings().model_dump_json())


def data_key(rs: Ragscope) -> str:
    """Hashed into every cached listing, so two data dirs never share cache entries."""
    return rs.settings.db_url


# ---- auth ---------------------------------------------------------------------------------


def auth_paths() -> auth.AuthPaths:
    return auth.AuthPaths.under(settings().data_dir)


def current_user() -> auth.User | None:
    """The signed-in, enabled user, with the role from the users file (not from the session:
    a role change or a disabled account takes effect on the next click)."""
    if st.session_state.get(K.AUTH_STATUS) is not True:
        return None
    user = auth.UserStore(auth_paths()).get(st.session_state.get(K.AUTH_USERNAME))
    if user is None or user.disabled:
        for key in (K.AUTH_STATUS, K.AUTH_USERNAME, K.AUTH_ROLES, K.AUTH_NAME):
            st.session_state[key] = None
        return None
    st.session_state[K.AUTH_ROLES] = [user.role]
    return user


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
        st.error(f"Access denied: {what} needs the **{role}** role; you are signed in as "
                 f"**{md_escape(user.username)}** ({user.role}).")
        st.stop()
    return user


def allowed(user: auth.User, action: str) -> bool:
    return auth.can(user.role, action)


# ---- cached reads (widget values are arguments) ------------------------------------------


@st.cache_data(ttl=LISTING_TTL_S, show_spinner=False)
def cached_documents(key: str, f: docs.ExplorerFilter, page: int,
                     page_size: int) -> docs.DocumentPage:
    return docs.list_documents(get_rs(), f, page, page_size)


@st.cache_data(ttl=LISTING_TTL_S, show_spinner=False)
def cached_filter_options(key: str) -> docs.FilterOptions:
    return docs.filter_options(get_rs())


@st.cache_data(ttl=5, show_spinner=False)
def cached_status(key: str) -> docs.SystemStatus:
    return docs.system_status(get_rs())


def clear_listings() -> None:
    """After a change (upload, delete, activate): listings must not show stale rows."""
    cached_documents.clear()
    cached_filter_options.clear()
    cached_status.clear()


# ---- rendering helpers --------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def md_escape(text: Any) -> str:
    """Document-derived text inside Markdown (labels, captions): every Markdown character is
    escaped, so nothing in a title can turn into a link, an image or HTML."""
    return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("\n", " ")


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
    recent = cached_documents(data_key(rs), docs.ExplorerFilter(), 1, 100).rows
    titles = {r.id: r.title or r.filename for r in recent}
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

    st.selectbox(label, options, key=key, on_change=changed,
                 format_func=lambda i: f"{i} · {titles.get(i, '')}"[:120])
    return current
