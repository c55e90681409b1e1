"""Upload: several files at once, progress per file; a failing file shows its error while
the others are still ingested. A large batch (dashboard_jobs.upload_in_background) runs as a
background job: the page shows its progress, stays usable, and lists the files at the end."""
import streamlit as st

from backend.security import acl
from backend.services import dashboard_jobs, document_actions
from backend.ui import state as K
from pages._common import (
    safe_text,
    clear_listings,
    current_actor,
    current_scope,
    get_rs,
    md_escape,
    require_page,
    show_errors,
)
from pages._jobs import follow, show_outcome
from pages._jobs import start as start_job

user = require_page("editor", "uploading documents")
rs = get_rs()
st.title("Upload documents")

# a large batch runs in the background: its progress, then its files
finished = follow(dashboard_jobs.latest_upload(rs, user.username))
if finished is not None:
    if show_outcome(finished):
        text, any_failed = dashboard_jobs.upload_message(finished)
        (st.warning if any_failed else st.success)(md_escape(text))
    st.session_state[K.UPLOAD_RESULTS] = dashboard_jobs.upload_rows(finished) or \
        st.session_state[K.UPLOAD_RESULTS]
    clear_listings()
    if finished.result.get("unretrievable"):
        st.error(md_escape(finished.result["unretrievable"]), icon=":material/search_off:")

limit = rs.settings.max_upload_mb
scope = current_scope()
writable = sorted(scope.writable) if scope.writable is not None else None
kbs = sorted(scope.writable_kbs) if scope.writable_kbs is not None else \
    acl.knowledge_base_names(rs)
if writable == [] and not kbs:
    st.warning("You may not add documents to any collection: ask an admin to give one of "
               "your access groups write access to a knowledge base.")
files = st.file_uploader(
    "Files", accept_multiple_files=True, key=f"{K.UPLOAD_FILES}.{st.session_state[K.UPLOAD_NONCE]}",
    help=f"Supported: {md_escape(', '.join(document_actions.supported_extensions()))}; at most {limit:g} MiB "
         "each.")
c1, c2 = st.columns([3, 2])
collection = c1.text_input(
    "Collection (optional)", key=K.UPLOAD_COLLECTION,
    help=f"Empty: {md_escape(rs.settings.default_collection)}. You may add to: "
    + (md_escape(", ".join(writable)) or "none" if writable is not None else "any collection")
    + ". A new name creates the collection in the knowledge base on the right.")
default_kb = rs.settings.default_knowledge_base
knowledge_base = c2.selectbox(
    "Knowledge base of a new collection", kbs, key=K.UPLOAD_KNOWLEDGE_BASE,
    index=kbs.index(default_kb) if default_kb in kbs else 0 if kbs else None,
    help="Only used when the collection does not exist yet.")

identity = st.selectbox(
    "Identity", list(document_actions.UPLOAD_IDENTITY), format_func=document_actions.UPLOAD_IDENTITY.get,
    key=K.UPLOAD_IDENTITY,
    help="A file with the name of a document in the same collection becomes that document's "
         "new version instead of a second active document (RAGSCOPE_VERSION_MATCH); force "
         "either way here.")
version_of = None
if identity == "version_of":
    version_of = st.text_input("Document (id, title or file name)", key=K.UPLOAD_VERSION_OF)


def _open_link(doc_id: int | None, filename: str) -> None:
    """A link to the document a file became (or was found to be already)."""
    if doc_id:
        st.page_link("pages/document.py",
                     label=f"Open document {doc_id:d} ({md_escape(filename)})",
                     icon=":material/description:", query_params={"doc": str(int(doc_id))})


def _show(slot, out) -> None:
    """Replace a file's placeholder with its final status and a link to its document."""
    state = "complete" if out.ok else "error"
    label = md_escape(safe_text(document_actions.outcome_label(out)))
    with slot.container():
        with st.status(label, state=state,
                       expanded=not out.ok or bool(out.warnings) or bool(out.note)):
            if out.error:
                st.error(md_escape(safe_text(out.error)))
            for w in out.warnings:
                st.warning(md_escape(w))
            if out.note:  # a duplicate's stored document, a new version by file name, ...
                st.info(md_escape(safe_text(out.note)))
            if out.ok and out.document_id:
                st.caption(f"document {out.document_id:d}, version id {out.version_id:d}")
        if out.ok:
            _open_link(out.document_id, safe_text(out.filename))


go = st.button("Ingest", type="primary", disabled=not files, key=K.UPLOAD_GO,
               icon=":material/upload:")
payload = [(f.name, f.getvalue()) for f in files] if go else []
if go and dashboard_jobs.upload_in_background(payload):
    def _empty_uploader() -> None:
        st.session_state[K.UPLOAD_NONCE] += 1

    start_job(lambda: dashboard_jobs.start_upload(
        rs, payload, current_actor(), collection=collection,
        knowledge_base=knowledge_base if collection.strip() else None, identity=identity,
        version_of=version_of), then=_empty_uploader)
elif go:
    bar = st.progress(0.0, text=f"0 of {len(payload)} files")
    slots = [st.empty() for _ in payload]
    if slots:
        slots[0].status(f"{md_escape(payload[0][0])} — ingesting…", state="running")

    def progress(p) -> None:
        i, total = p.files_done, len(payload)
        bar.progress(i / total if total else 1.0, text=md_escape(p.summary()))
        if p.outcome is None:  # a batch was embedded: new chunk count and ETA only
            return
        _show(slots[i - 1], p.outcome)
        if i < total:
            slots[i].status(f"{md_escape(payload[i][0])} — ingesting…", state="running")

    outcomes = show_errors(lambda: document_actions.ingest_uploads(
        rs, payload, current_actor(), collection=collection,
        knowledge_base=knowledge_base if collection.strip() else None, on_progress=progress,
        identity=identity, version_of=version_of))
    clear_listings()
    if outcomes is not None:
        st.session_state[K.UPLOAD_RESULTS] = [
            {"file": safe_text(o.filename), "status": o.status,
             "result": safe_text(document_actions.outcome_label(o)), "document": o.document_id,
             "chunks": o.chunks, "note": safe_text(o.note or ""),
             "error": safe_text(o.error or ""),
             "warnings": safe_text("; ".join(o.warnings))}
            for o in outcomes]
        st.session_state[K.UPLOAD_NONCE] += 1  # an empty uploader on the next run
        msg, failed = document_actions.batch_message(outcomes)
        (st.warning if failed else st.success)(md_escape(msg))
        lost = document_actions.unretrievable_message(outcomes)
        if lost:
            st.error(md_escape(lost), icon=":material/search_off:")
elif st.session_state[K.UPLOAD_RESULTS]:
    st.subheader("Last upload", anchor=False)
    st.dataframe(st.session_state[K.UPLOAD_RESULTS], hide_index=True)
    for row in st.session_state[K.UPLOAD_RESULTS]:
        if row["error"]:
            st.error(md_escape(row["error"]))
        elif row["document"]:
            _open_link(row["document"], row["file"])
