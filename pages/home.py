"""Home: the state of the system — documents, chunks, collections, indexes, jobs."""
import streamlit as st

from backend import ui_state as K
from pages._common import cached_status, data_key, get_rs, require_page

user = require_page("viewer")
rs = get_rs()
status = cached_status(data_key(rs))

st.title("ragscope")
st.caption("Document-centred retrieval: what is stored, indexed and running.")

c = status.counts
cols = st.columns(5)
cols[0].metric("Documents", c.get("documents", 0))
cols[1].metric("Active chunks", c.get("active_chunks", 0))
cols[2].metric("Collections", c.get("collections", 0))
cols[3].metric("Versions", c.get("versions", 0))
cols[4].metric("Failed versions", c.get("failed_versions", 0))

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
    st.write(f"Keyword backend: **{status.keyword_backend}** · "
             f"vector backend: **{status.vector_backend}**")
    rows = []
    for name, meta in status.index_meta.items():
        if meta is None:
            rows.append({"index": name, "backend": "-", "chunks": 0, "built": None,
                         "updated": None, "parameters": "not built yet"})
            continue
        params = ", ".join(f"{k}={v}" for k, v in sorted(meta["params"].items())
                           if k != "backend")
        rows.append({"index": name, "backend": meta["backend"], "chunks": meta["chunks"],
                     "built": meta["built_at"], "updated": meta["updated_at"],
                     "parameters": params})
    st.dataframe(rows, hide_index=True)

st.subheader("Recent jobs")
if status.jobs:
    st.dataframe(status.jobs, hide_index=True,
                 column_config={"progress": st.column_config.ProgressColumn(
                     "progress", min_value=0.0, max_value=1.0, format="percent")})
else:
    st.info("No jobs have run yet.")

if st.button("Refresh", icon=":material/refresh:", key=K.HOME_REFRESH):
    cached_status.clear()
    st.rerun()
