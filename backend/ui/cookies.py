"""streamlit-authenticator's cookie component, rendered only when a cookie is written or
deleted.

streamlit-authenticator 0.4 builds extra-streamlit-components' `CookieManager` in its
constructor, which renders the manager's "getAll" component in every run of every page:
an iframe that loads its own bundle and, once mounted, sends the browser's cookies back,
which starts a second run of the page (measured in bench/bench_page_load.py: a full load
of every page paid for both). The library reads the re-login cookie from
`st.context.cookies` (the request's cookies), not from that component, so nothing needs
it except writing the cookie after sign-in and deleting it after sign-out. `install()`
makes the library build `WriteOnlyCookieManager` instead, whose `set` and `delete` render
the manager's own components as before."""
from __future__ import annotations

import importlib
from types import SimpleNamespace

import extra_streamlit_components as stx

# the module (its package exports the class under the same name)
manager_module = importlib.import_module("extra_streamlit_components.CookieManager")


class WriteOnlyCookieManager(stx.CookieManager):
    """extra-streamlit-components' CookieManager without the "getAll" component: `set` and
    `delete` render the "set"/"delete" components (same keys, same browser side);
    `get`/`get_all` are not offered (the library reads `st.context.cookies`)."""

    def __init__(self, key: str = "init") -> None:  # noqa: ARG002  (the library's signature)
        self.cookie_manager = manager_module._component_func
        self.cookies: dict = {}

    def delete(self, cookie: str, key: str = "delete") -> None:
        self.cookies.setdefault(cookie, None)  # the base class deletes its own copy too
        super().delete(cookie, key=key)

    def get(self, cookie: str):
        raise NotImplementedError("read the cookie from st.context.cookies")

    def get_all(self, key: str = "get_all"):
        raise NotImplementedError("read the cookies from st.context.cookies")


def install() -> None:
    """Make streamlit-authenticator build `WriteOnlyCookieManager` (idempotent)."""
    from streamlit_authenticator.models import cookie_model

    cookie_model.stx = SimpleNamespace(CookieManager=WriteOnlyCookieManager)
