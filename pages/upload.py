"""Upload: several files at once, progress per file; a failing file shows its error while
the others are still ingested."""
import streamlit as st

from backend import documents as docs
from backend import ui_state as K
from pages._common import (
    cached_filter_options,
    clear_listings,
    data_key,
    get_rs,
    md_escape,
    require_page,
    show_errors,
)

user = require_page("editor", "uploading documents")
rs = get_rs()
st.title("Upload documents")

limit = rs.settings.max_upload_mb
known = cached_filter_options(data_key(rs)).collections
files = st.file_uploader(
    "Files", accept_multiple_files=True, key=f"{K.UPLOAD_FILES}.{st.session_state[K.UPLOAD_NONCE]}",
    help=f"Supported: {', '.join(docs.supported_extensions())}; at most {limit:g} MiB each.")
collection = st.text_input(
    "Collection (optional)", key=K.UPLOAD_COLLECTION,
    help="Existing: " + (", ".join(known) if known else "none yet")
    + ". A new name creates the collection.")

LABELS = {"new": "ingested", "new_version": "new version", "duplicate": "duplicate of a stored "
          "document", "unchanged": "unchanged", "failed": "failed"}


def _show(slot, out) -> None:
    """Replace a file's placeholder with its final status."""
    state = "complete" if out.ok else "error"
    label = f"{md_escape(out.filename)} — {LABELS.get(out.status, out.status)}"
    if out.ok and out.chunks:
        label += f", {out.chunks} chunks"
    with slot.container():
        with st.status(label, state=state, expanded=not out.ok or bool(out.warnings)):
            if out.error:
                st.error(md_escape(out.error))
            for w in out.warnings:
                st.warning(md_escape(w))
            if out.ok and out.document_id:
                st.caption(f"document {out.document_id}, version id {out.version_id}")


if st.button("Ingest", type="primary", disabled=not files, key=K.UPLOAD_GO,
             icon=":material/upload:"):
    payload = [(f.name, f.getvalue()) for f in files]
    bar = st.progress(0.0, text=f"0 of {len(payload)} files")
    slots = [st.empty() for _ in payload]
    if slots:
        slots[0].status(f"{md_escape(payload[0][0])} — ingesting…", state="running")

    def progress(i: int, total: int, out) -> None:
        _show(slots[i - 1], out)
        bar.progress(i / total, text=f"{i} of {total} files")
        if i < total:
            slots[i].status(f"{md_escape(payload[i][0])} — ingesting…", state="running")

    outcomes = show_errors(lambda: docs.ingest_uploads(
        rs, payload, user.role, collection=collection, on_progress=progress))
    clear_listings()
    if outcomes is not None:
        st.session_state[K.UPLOAD_RESULTS] = [
            {"file": o.filename, "status": o.status, "document": o.document_id,
             "chunks": o.chunks, "error": o.error or "", "warnings": "; ".join(o.warnings)}
            for o in outcomes]
        st.session_state[K.UPLOAD_NONCE] += 1  # an empty uploader on the next run
        failed = sum(not o.ok for o in outcomes)
        msg = f"{len(outcomes) - failed} of {len(outcomes)} files ingested"
        (st.warning if failed else st.success)(msg + (f", {failed} failed." if failed else "."))
elif st.session_state[K.UPLOAD_RESULTS]:
    st.subheader("Last upload", anchor=False)
    st.dataframe(st.session_state[K.UPLOAD_RESULTS], hide_index=True)
    for row in st.session_state[K.UPLOAD_RESULTS]:
        if row["error"]:
            st.error(md_escape(row["error"]))
