"""Document detail: metadata, versions (activate another), full text with section
navigation, chunks with offsets and pages, download of the original, delete."""
import streamlit as st

from backend import documents as docs
from backend import ui_state as K
from backend.errors import NotFound
from pages._common import (
    allowed,
    clear_listings,
    get_rs,
    md_escape,
    pick_document,
    require_page,
    show_errors,
)

user = require_page("viewer")
rs = get_rs()

st.title("Document")
flash = st.session_state.get(K.DOCUMENT_FLASH)
if flash:
    st.success(flash)
    st.session_state[K.DOCUMENT_FLASH] = None

doc_id = pick_document(K.DOCUMENT_PICK)
if doc_id is None:
    st.stop()
try:
    d = docs.document_detail(rs, doc_id)
except NotFound as e:
    st.error(str(e))
    st.session_state[K.EXPLORER_DOC_ID] = None
    st.stop()

st.subheader(md_escape(d.title or d.filename), anchor=False)
m = st.columns(4)
m[0].metric("Status", d.status)
m[1].metric("Type", d.doc_type)
m[2].metric("Format", d.file_type or "-")
m[3].metric("Versions", len(d.versions))
with st.expander("Metadata"):
    st.json({"id": d.id, "file name": d.filename, "source kind": d.source_kind,
             "source": d.source_uri, "collections": d.collections,
             "created": str(d.created_at), "updated": str(d.updated_at), "meta": d.meta})

# ---- versions ----------------------------------------------------------------------------
st.subheader("Versions", anchor=False)
st.dataframe([{"version": v.number, "id": v.id, "active": v.is_active, "status": v.status,
               "chunks": v.chunks, "pages": v.page_count, "language": v.language,
               "bytes": v.size_bytes, "sha256": v.sha256[:12], "created": v.created_at,
               "error": v.error or ""} for v in d.versions], hide_index=True)
if not d.versions:
    st.info("This document has no versions.")
    st.stop()
by_id = {v.id: v for v in d.versions}
if st.session_state.get(K.DOCUMENT_VERSION_PICK) not in by_id:
    st.session_state[K.DOCUMENT_VERSION_PICK] = d.active_version_id or d.versions[0].id
shown = st.selectbox("Show version", list(by_id), key=K.DOCUMENT_VERSION_PICK,
                     format_func=lambda i: f"version {by_id[i].number} ({by_id[i].status}"
                                           + (", active)" if by_id[i].is_active else ")"))
version = by_id[shown]

actions = st.columns([1, 1, 3])
with actions[0]:
    if version.has_original:
        original = show_errors(lambda: docs.original_file(rs, version.id))
        if original:
            st.download_button("Download original", original.data, file_name=original.filename,
                               mime=original.mime, icon=":material/download:",
                               key=K.DOCUMENT_DOWNLOAD)
with actions[1]:
    can_activate = version.status == "indexed" and not version.is_active
    if allowed(user, "activate_version") and can_activate:
        if st.button("Activate this version", key=K.DOCUMENT_ACTIVATE,
                     icon=":material/published_with_changes:"):
            if show_errors(lambda: docs.activate_version(rs, version.id, user.role) or True):
                clear_listings()
                st.session_state[K.DOCUMENT_FLASH] = f"Version {version.number} is now active."
                st.rerun()
if version.error:
    st.error(f"Version {version.number} failed: {version.error}")

# ---- text with section navigation ---------------------------------------------------------
tree = docs.section_tree(rs, version.id)
text_tab, chunk_tab = st.tabs(["Text", "Chunks"])
with text_tab:
    nodes = list(tree.walk()) if tree else []
    if nodes:
        labels = {n.id: "(whole document)" if n is tree
                  else ("· " * max(0, n.level - 1) + n.label)[:160] for n in nodes}
        if st.session_state.get(K.DOCUMENT_SECTION) not in labels:
            st.session_state[K.DOCUMENT_SECTION] = nodes[0].id
        sec_id = st.selectbox("Section", list(labels), key=K.DOCUMENT_SECTION,
                              format_func=lambda i: labels[i])
        node = next(n for n in nodes if n.id == sec_id)
        st.caption(f"{node.kind} · characters {node.start}–{node.end}"
                   + (f" · pages {node.page_start}–{node.page_end}" if node.page_start else ""))
        body = docs.version_text(rs, version.id, node.start, node.end)
    else:
        body = docs.version_text(rs, version.id)
    # Document text is data: st.code shows it verbatim, never as Markdown or HTML.
    st.code(body or "(no text)", language=None, wrap_lines=True, height=420)
with chunk_tab:
    chunks = docs.chunks_of(rs, version.id)
    st.caption(f"{len(chunks)} chunks")
    st.dataframe([{"#": c.ordinal, "start": c.start, "end": c.end, "page": c.page,
                   "page end": c.page_end, "section": c.section, "chars": c.end - c.start,
                   "text": c.text[:300], "id": c.id} for c in chunks], hide_index=True)

# ---- delete ------------------------------------------------------------------------------
if allowed(user, "delete"):
    st.divider()
    if not st.session_state[K.DOCUMENT_CONFIRM_DELETE]:
        if st.button("Delete document…", key=K.DOCUMENT_DELETE, icon=":material/delete:"):
            st.session_state[K.DOCUMENT_CONFIRM_DELETE] = True
            st.rerun()
    else:
        st.warning(f"Delete **{md_escape(d.title or d.filename)}** with all {len(d.versions)} "
                   "versions, its chunks and stored originals? This cannot be undone.")
        yes, no, _ = st.columns([1, 1, 4])
        if yes.button("Yes, delete", type="primary", key=K.DOCUMENT_DELETE_CONFIRM):
            st.session_state[K.DOCUMENT_CONFIRM_DELETE] = False
            if show_errors(lambda: docs.delete_document(rs, d.id, user.role)) is not None:
                clear_listings()
                st.session_state[K.EXPLORER_DOC_ID] = None
                st.query_params.clear()
                st.session_state[K.DOCUMENT_FLASH] = f"Deleted document {d.id}."
                st.rerun()
        if no.button("Cancel", key=K.DOCUMENT_DELETE_CANCEL):
            st.session_state[K.DOCUMENT_CONFIRM_DELETE] = False
            st.rerun()
