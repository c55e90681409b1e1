"""Settings (admin): the configuration in effect, a consistency check and a full reindex."""
import streamlit as st

from backend.services import dashboard_jobs, document_actions
from backend.services import system
from backend.ui import state as K
from pages._common import (
    cached_status,
    clear_listings,
    current_actor,
    current_scope,
    data_key,
    get_rs,
    md_escape,
    require_page,
    show_errors,
)
from pages import _admin_config as admin_config_sections
from pages._jobs import follow, show_outcome
from pages._jobs import start as start_job

user = require_page("admin", "settings and reindex")
rs = get_rs()
st.title("Settings")

result = st.session_state.get(K.SETTINGS_RESULT)
if result:
    st.success(md_escape(result))
    st.session_state[K.SETTINGS_RESULT] = None
finished = follow(dashboard_jobs.latest(rs, dashboard_jobs.REINDEX))  # a reindex in the background
if finished is not None and show_outcome(finished, finished.result.get("summary", "")):
    clear_listings()

st.caption("Settings come from RAGSCOPE_* environment variables and are read at start "
           "(the safe ones can be changed at run time below); secrets are masked.")
st.dataframe(system.settings_table(rs), hide_index=True)

st.subheader("Indexes", anchor=False)
status = cached_status(data_key(rs), current_scope())
st.dataframe([{"index": name, "backend": (m or {}).get("backend", "-"),
               "chunks": (m or {}).get("chunks", 0), "built": (m or {}).get("built_at"),
               "parameters": ", ".join(f"{k}={v}" for k, v in sorted((m or {}).get(
                   "params", {}).items()))}
              for name, m in status.index_meta.items()], hide_index=True)

c1, c2 = st.columns(2)
with c1:
    if st.button("Check store and indexes", key=K.SETTINGS_CHECK, icon=":material/rule:"):
        report = show_errors(lambda: document_actions.check_consistency(rs, current_actor()))
        if report is not None:
            problems = {k: len(v) for k, v in report.problems().items()}
            if problems:
                st.warning("Differences: " + ", ".join(f"{md_escape(k)}: {n:d}"
                                                       for k, n in problems.items())
                           + f" ({md_escape(report.summary())}). `python -m backend check --repair` "
                           "repairs them; a reindex rebuilds both indexes from the store.")
            else:
                st.success(f"Store and both indexes agree ({md_escape(report.summary())}).")
with c2:
    if not st.session_state[K.SETTINGS_CONFIRM_REINDEX]:
        if st.button("Reindex everything…", key=K.SETTINGS_REINDEX, icon=":material/sync:"):
            st.session_state[K.SETTINGS_CONFIRM_REINDEX] = True
            st.rerun()
    else:
        st.warning("Rebuild both indexes from the store? Searches return partial results "
                   "until it has finished. It runs in the background and cannot be cancelled "
                   "once started.")
        yes, no = st.columns(2)
        if no.button("Cancel", key=K.SETTINGS_REINDEX_CANCEL):
            st.session_state[K.SETTINGS_CONFIRM_REINDEX] = False
            st.rerun()
        if yes.button("Yes, reindex", type="primary", key=K.SETTINGS_REINDEX_CONFIRM):
            st.session_state[K.SETTINGS_CONFIRM_REINDEX] = False
            start_job(lambda: dashboard_jobs.start_reindex(rs, current_actor()))

admin_config_sections.render(rs, current_actor())  # domain rules, run-time settings, prompts
