"""Home: the state of the system — documents, chunks, collections, indexes, jobs."""
import streamlit as st

from backend.ui import state as K
from backend.ui.tables import no_none
from pages._common import (
    cached_status,
    current_scope,
    data_key,
    get_rs,
    md_escape,
    require_page,
)

user = require_page("viewer")
rs = get_rs()
scope = current_scope()
status = cached_status(data_key(rs), scope)

st.title("ragscope")
st.caption("Document-centred retrieval: what is stored, indexed and running.")

c = status.counts
cols = st.columns(5)
cols[0].metric("Documents", int(c.get("documents", 0)))
cols[1].metric("Active chunks", int(c.get("active_chunks", 0)))
cols[2].metric("Collections", int(c.get("collections", 0)))
cols[3].metric("Versions", int(c.get("versions", 0)))
cols[4].metric("Failed versions", int(c.get("failed_versions", 0)))

left, right = st.columns(2)
with left:
    st.subheader("Collections")
    if status.collections:
        st.dataframe([{"collection": n, "documents": k} for n, k in status.collections],
                     hide_index=True)
    else:
        st.info("No collections yet.")
with right:
    st.subheader("Indexes")
    st.write(f"Keyword backend: **{md_escape(status.keyword_backend)}** · "
             f"vector backend: **{md_escape(status.vector_backend)}**")
    if not scope.unrestricted:
        st.caption("The counts above cover the collections you may read; index details "
                   "and jobs (which cover every collection) are shown to admins.")
    rows = []
    for name, meta in status.index_meta.items() if scope.unrestricted else ():
        if meta is None:
            rows.append({"index": name, "backend": "-", "chunks": 0, "built": None,
                         "updated": None, "parameters": "not built yet"})
            continue
        params = ", ".join(f"{k}={v}" for k, v in sorted(meta["params"].items())
                           if k != "backend")
        rows.append({"index": name, "backend": meta["backend"], "chunks": meta["chunks"],
                     "built": meta["built_at"], "updated": meta["updated_at"],
                     "parameters": params})
    if rows:
        st.dataframe(no_none(rows), hide_index=True)

st.subheader("Recent jobs")
if not scope.unrestricted:
    st.info("Jobs are shown to admins.")
elif status.jobs:
    st.dataframe(no_none(status.jobs, keep=("progress",)), hide_index=True,
                 column_config={"progress": st.column_config.ProgressColumn(
                     "progress", min_value=0.0, max_value=1.0, format="percent")})
else:
    st.info("No jobs have run yet.")

if st.button("Refresh", icon=":material/refresh:", key=K.HOME_REFRESH):
    cached_status.clear()
    st.rerun()
