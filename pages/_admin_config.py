"""The Settings page's run-time configuration (issue 26, item 7), admin only: the domain-rule
files (and the error of a bad edit), the safe settings editable at run time, the system
prompt versions, and the audit log of changes. Thin: every call goes to
backend/services/admin_config.py, which checks the actor."""
from __future__ import annotations

import streamlit as st

from backend.services import admin_config
from backend.ui import state as K
from backend.ui.tables import DASH, no_none
from pages._common import md_escape, show_errors


def _flash() -> None:
    msg = st.session_state.get(K.RUNTIME_FLASH)
    if msg:
        st.success(md_escape(msg))
        st.session_state[K.RUNTIME_FLASH] = None


def domain_rules_section(rs) -> None:
    st.subheader("Domain rules", anchor=False)
    status = admin_config.domain_rules_status(rs)
    st.caption("Vocabulary, query repairs, the router's cue words and domain lists: YAML "
               "files in " + md_escape(status["directory"]) + ", reloaded when a file "
               "changes (docs/domain-config.md).")
    if status["error"]:
        st.error("The files do not load; the last good rules stay in use. "
                 + md_escape(status["error"]["message"]))
    st.dataframe([{"rules": k, "count": v} for k, v in status["counts"].items()],
                  hide_index=True)


def runtime_settings_section(rs, actor) -> None:
    st.subheader("Run-time settings", anchor=False)
    st.caption("Weights, limits and context sizes that apply to the next question without a "
               "restart (other processes within 2 s). Every change is in the audit log below.")
    _flash()
    rows = admin_config.editable_settings(rs, actor)
    st.dataframe([{"setting": r["name"], "value": _shown(r["value"]),
                   "environment": _shown(r["default"]), "overridden": r["overridden"],
                   "bounds": ", ".join(f"{k} {v}" for k, v in r["bounds"].items())}
                  for r in rows], hide_index=True)
    names = [r["name"] for r in rows]
    with st.form(K.RUNTIME_FORM, border=False):
        name = st.selectbox("Setting", names, key=K.RUNTIME_NAME)
        value = st.text_input("New value", key=K.RUNTIME_VALUE,
                              help="a number, true/false, a choice, or none")
        c1, c2 = st.columns(2)
        save = c1.form_submit_button("Save", type="primary")
        reset = c2.form_submit_button("Reset to the environment's value")
    if save:
        done = show_errors(lambda: (admin_config.set_setting(rs, actor, name, value),))
        if done is not None:  # a tuple: the value set may itself be None
            st.session_state[K.RUNTIME_FLASH] = f"{name} = {done[0]}"
            st.rerun()
    if reset:
        done = show_errors(lambda: admin_config.reset_setting(rs, actor, name))
        if done is not None:
            st.session_state[K.RUNTIME_FLASH] = (f"{name} reset to the environment's value"
                                                 if done else f"{name} was not overridden")
            st.rerun()


def prompts_section(rs, actor) -> None:
    st.subheader("System prompts", anchor=False)
    st.caption("The house rules after the fixed ones (evidence is data, cite [n], no outside "
               "knowledge), in versions; one is active per scope. Version 0 is the built-in "
               "default.")
    scope = st.radio("Scope", ["chat", "chatbots"], horizontal=True, key=K.PROMPTS_SCOPE)
    versions = admin_config.prompt_versions_of(rs, actor, scope)
    st.dataframe(no_none([{"version": v.version, "active": v.active, "by": v.created_by,
                           "created": v.created_at, "note": v.note, "text": v.text[:200]}
                          for v in versions]), hide_index=True)
    numbers = [v.version for v in versions]
    active = next(v.version for v in versions if v.active)
    c1, c2 = st.columns(2)
    pick = c1.selectbox("Version", numbers, index=numbers.index(active), key=K.PROMPTS_PICK)
    if c2.button("Activate", key=K.PROMPTS_ACTIVATE, disabled=pick == active):
        if show_errors(lambda: admin_config.activate_prompt(rs, actor, scope, pick)):
            st.session_state[K.RUNTIME_FLASH] = f"{scope} system prompt v{pick} is active"
            st.rerun()
    if pick != active:
        st.code(admin_config.prompt_diff(rs, actor, scope, active, pick), language="diff")
    with st.form(K.PROMPTS_FORM, border=False):
        text = st.text_area("New version", key=K.PROMPTS_TEXT, height=120)
        note = st.text_input("Note (why)", key=K.PROMPTS_NOTE)
        make_active = st.checkbox("Activate it", key=K.PROMPTS_MAKE_ACTIVE)
        create = st.form_submit_button("Create version")
    if create:
        v = show_errors(lambda: admin_config.create_prompt(rs, actor, scope, text, note,
                                                           make_active))
        if v is not None:
            st.session_state[K.RUNTIME_FLASH] = f"{scope} system prompt v{v.version:d} created"
            st.rerun()


def audit_section(rs, actor) -> None:
    st.subheader("Audit log", anchor=False)
    entries = admin_config.audit(rs, actor, limit=200)
    if not entries:
        st.caption("No change yet.")
        return
    st.dataframe([{"when": e.at, "who": e.actor, "what": f"{e.kind} {e.name}",
                   "action": e.action, "old": _shown(e.old), "new": _shown(e.new)}
                  for e in entries],
                 hide_index=True)


def render(rs, actor) -> None:
    """All four sections, in the order an admin checks them."""
    domain_rules_section(rs)
    runtime_settings_section(rs, actor)
    prompts_section(rs, actor)
    audit_section(rs, actor)


def _shown(value) -> str:
    """A setting's value as text; none (no limit, not set) as "—", never "None"."""
    return DASH if value is None else str(value)
