"""Document detail: metadata, versions (activate another), classification (type, traits,
profile; editors set the title and the profile), tags (editors add, remove and accept
suggestions: pages/_tags.py), full text with section navigation, chunks
with offsets and pages, download of the original, delete."""
import streamlit as st

from backend.services import classification as classes
from backend.services import documents as docs
from backend.services import document_actions
from backend.errors import NotFound
from backend.ui import citations as cites
from backend.ui import state as K
from backend.ui.citations import place_markdown
from backend.ui.tables import DASH, field_rows, no_none
from pages._tags import tag_editor
from pages._common import (
    safe_text,
    allowed,
    clear_listings,
    current_actor,
    current_scope,
    get_rs,
    md_escape,
    pick_document,
    require_page,
    show_errors,
)

user = require_page("viewer")
rs = get_rs()
scope = current_scope()

st.title("Document")
flash = st.session_state.get(K.DOCUMENT_FLASH)
if flash:
    st.success(md_escape(flash))
    st.session_state[K.DOCUMENT_FLASH] = None

doc_id = pick_document(K.DOCUMENT_PICK)
if doc_id is None:
    st.stop()
try:
    d = docs.document_detail(rs, doc_id, scope=scope)
except NotFound as e:
    st.error(md_escape(e))
    st.session_state[K.EXPLORER_DOC_ID] = None
    st.stop()

st.subheader(md_escape(safe_text(d.title or d.filename)), anchor=False)


def _number(name: str) -> int | None:
    v = st.query_params.get(name)
    return int(v) if v and v.isdigit() else None


def _cited_place() -> None:
    """A chat citation's "Open in document" (?quote_start=&quote_end=&page=&version_number=):
    the cited place first, a PDF page with the quote boxed, else the text around it."""
    start, end = _number("quote_start"), _number("quote_end")
    if start is None or end is None or _number("cited") != d.id:
        return
    place = show_errors(lambda: cites.cited_place(rs, current_actor(), d.id,
                                                  _number("version_number"), start, end,
                                                  _number("page")))
    if place is None:
        return
    with st.container(border=True, key=K.DOCUMENT_CITED):
        st.markdown(f"**Cited place** · version {place.version:d}"
                    + (f" · page {place.page:d} of {place.pages:d}" if place.pages else ""))
        if place.kind == "pdf":
            st.image(place.png, caption="The quote is boxed in yellow.", output_format="PNG")
        else:
            with st.container(height=360):
                st.markdown(place_markdown(place))
        if place.web_url:
            st.link_button("Open the web page", place.web_url, icon=":material/language:")
            st.caption("Above: the stored copy of the page, as it was crawled.")
        for note in place.notes:
            st.info(md_escape(note))


def _facts(pairs: list[tuple[str, object]]) -> None:
    """Label and value side by side; long values wrap (st.metric cut "meeting_minutes" to
    "meeting_mi…")."""
    for col, (label, value) in zip(st.columns(len(pairs)), pairs):
        col.caption(md_escape(label))
        col.markdown(f"**{md_escape(value if value not in (None, '') else DASH)}**")


_cited_place()
_facts([("Status", d.status), ("Type", d.doc_type), ("Format", d.file_type),
        ("Versions", len(d.versions))])
# Folded parts and the tab not shown are sent only when opened (on_change="rerun", .open):
# each table is a data grid the browser renders even when hidden (docs/dashboard.md).
meta = st.expander("Metadata", key=K.DOCUMENT_META, on_change="rerun")
if meta.open:
    meta.dataframe(field_rows({
        "id": d.id, "file name": safe_text(d.filename), "source kind": d.source_kind,
        "source": safe_text(d.source_uri), "collections": d.collections,
        "created": d.created_at, "updated": d.updated_at, "meta": d.meta}),
        hide_index=True, column_config={"value": st.column_config.Column(width="large")})
st.page_link("pages/structure.py", label="Structure: the section tree and its chart",
             icon=":material/account_tree:", query_params={"doc": str(d.id)})

# ---- versions ----------------------------------------------------------------------------
st.subheader("Versions", anchor=False)
st.dataframe(no_none({"version": v.number, "id": v.id, "active": v.is_active, "status": v.status,
                      "chunks": v.chunks, "pages": v.page_count, "language": v.language,
                      "bytes": v.size_bytes, "sha256": v.sha256[:12], "created": v.created_at,
                      "error": v.error} for v in d.versions), hide_index=True)
if not d.versions:
    st.info("This document has no versions.")
    st.stop()
by_id = {v.id: v for v in d.versions}
_linked = (st.query_params.get("version"), st.query_params.get("section"))  # from Analysis links
if _linked != st.session_state.get(K.DOCUMENT_LINKED) and _linked[0] and _linked[0].isdigit() \
        and int(_linked[0]) in by_id:
    st.session_state[K.DOCUMENT_VERSION_PICK] = int(_linked[0])
if st.session_state.get(K.DOCUMENT_VERSION_PICK) not in by_id:
    st.session_state[K.DOCUMENT_VERSION_PICK] = d.active_version_id or d.versions[0].id
shown = st.selectbox("Show version", list(by_id), key=K.DOCUMENT_VERSION_PICK,
                     format_func=lambda i: f"version {by_id[i].number} ({by_id[i].status}"
                                           + (", active)" if by_id[i].is_active else ")"))
version = by_id[shown]
st.page_link("pages/analysis.py", label="Analysis: decisions, actions, deadlines, summary",
             icon=":material/insights:", query_params={"doc": str(d.id)})

actions = st.columns([1, 1, 3])
with actions[0]:
    if version.has_original:
        original = show_errors(lambda: docs.original_file(rs, version.id, scope=scope))
        if original:
            st.download_button("Download original", original.data, file_name=original.filename,
                               mime=original.mime, icon=":material/download:",
                               key=K.DOCUMENT_DOWNLOAD)
with actions[1]:
    can_activate = version.status == "indexed" and not version.is_active
    if allowed(user, "activate_version") and can_activate:
        if st.button("Activate this version", key=K.DOCUMENT_ACTIVATE,
                     icon=":material/published_with_changes:"):
            if show_errors(lambda: document_actions.activate_version(rs, version.id, current_actor()) or True):
                clear_listings()
                st.session_state[K.DOCUMENT_FLASH] = f"Version {version.number} is now active."
                st.rerun()
if version.error:
    st.error(f"Version {version.number:d} failed: {md_escape(version.error)}")

# ---- classification, title, profile --------------------------------------------------------
st.subheader("Classification", anchor=False)
cv = show_errors(lambda: classes.view(rs, version.id))
if cv is not None:
    _facts([("Primary type", cv.type_label), ("Processing profile", cv.profile_label),
            ("Confidence", None if cv.confidence is None else f"{cv.confidence:.0%}"),
            ("Method", cv.method)])
    st.caption(f"Reasoning: {md_escape(cv.reasoning or '-')}")
    st.dataframe(no_none([{"secondary types": ", ".join(cv.secondary_types),
                           "traits": ", ".join(cv.traits), "profile set by": cv.profile_source,
                           "title from": cv.title_source, "model": cv.model}]), hide_index=True)
    signals = st.expander("Signals, profile parameters, OCR", key=K.DOCUMENT_SIGNALS,
                          on_change="rerun")
    if signals.open:
        signals.dataframe(field_rows({"signals": cv.signals, "profile": cv.profile,
                                      "parameters": cv.profile_params, "chunking": cv.chunking,
                                      "ocr confidence per page": cv.ocr_pages}),
                          hide_index=True,
                          column_config={"value": st.column_config.Column(width="large")})
    for w in cv.warnings:
        st.warning(md_escape(w))
if allowed(user, "edit_document"):
    left, right = st.columns(2)
    with left, st.form(K.DOCUMENT_TITLE_FORM):
        new_title = st.text_input("Title", value=d.title, key=K.DOCUMENT_TITLE, max_chars=500)
        save, reset = st.columns(2)
        if save.form_submit_button("Save title"):
            if show_errors(lambda: classes.set_title(rs, d.id, new_title, current_actor()) or True):
                clear_listings()
                st.session_state[K.DOCUMENT_FLASH] = "Title saved; later ingests keep it."
                st.rerun()
        if reset.form_submit_button("Choose automatically"):
            if show_errors(lambda: classes.reset_title(rs, d.id, current_actor()) or True):
                clear_listings()
                st.session_state[K.DOCUMENT_FLASH] = "The title is chosen automatically again."
                st.rerun()
    with right:
        names = ["(type default)"] + classes.profile_names()
        pick = st.selectbox("Processing profile of this document", names,
                            key=K.DOCUMENT_PROFILE)
        if st.button("Apply and re-chunk", key=K.DOCUMENT_PROFILE_APPLY):
            chosen = None if pick == names[0] else pick
            done = show_errors(lambda: classes.set_profile(rs, d.id, chosen, current_actor()))
            if done is not None:
                clear_listings()
                st.session_state[K.DOCUMENT_FLASH] = done
                st.rerun()

tag_editor(rs, d.id, allowed(user, "edit_document"))

# ---- text with section navigation ---------------------------------------------------------
def _text(version) -> None:
    """The version's text, or one section of it (?section= from an Analysis link)."""
    tree = docs.section_tree(rs, version.id, scope=scope)
    nodes = list(tree.walk()) if tree else []
    if nodes:
        labels = {n.id: "(whole document)" if n is tree
                  else ("· " * max(0, n.level - 1) + n.label)[:160] for n in nodes}
        if _linked != st.session_state.get(K.DOCUMENT_LINKED) and _linked[1] \
                and _linked[1].isdigit() and int(_linked[1]) in labels:
            st.session_state[K.DOCUMENT_SECTION] = int(_linked[1])
        if st.session_state.get(K.DOCUMENT_SECTION) not in labels:
            st.session_state[K.DOCUMENT_SECTION] = nodes[0].id
        sec_id = st.selectbox("Section", list(labels), key=K.DOCUMENT_SECTION,
                              format_func=lambda i: labels[i])
        node = next(n for n in nodes if n.id == sec_id)
        st.caption(f"{md_escape(node.kind)} · characters {node.start:d}–{node.end:d}"
                   + (f" · pages {md_escape(node.page_start)}–{md_escape(node.page_end)}"
                      if node.page_start else ""))
        body = docs.version_text(rs, version.id, node.start, node.end, scope=scope)
    else:
        body = docs.version_text(rs, version.id, scope=scope)
    # Document text is data: st.text shows it verbatim, never as Markdown or HTML (st.code
    # did too, but its syntax highlighter took seconds of the browser's main thread on
    # every load: docs/benchmarks.md, "Dashboard page load").
    with st.container(height=420, key=K.DOCUMENT_TEXT):
        st.text(body or "(no text)", width="stretch")


def _chunks(version) -> None:
    chunks = docs.chunks_of(rs, version.id, scope=scope)
    st.caption(f"{len(chunks)} chunks")
    st.dataframe(no_none({"#": c.ordinal, "start": c.start, "end": c.end, "page": c.page,
                          "page end": c.page_end, "section": c.section,
                          "chars": c.end - c.start, "text": c.text[:300], "id": c.id}
                         for c in chunks), hide_index=True)


if _linked != st.session_state.get(K.DOCUMENT_LINKED) and _linked[1]:
    st.session_state[K.DOCUMENT_TAB] = "Text"  # a link to a section shows its text
text_tab, chunk_tab = st.tabs(["Text", "Chunks"], key=K.DOCUMENT_TAB, on_change="rerun")
if text_tab.open:
    with text_tab:
        _text(version)
if chunk_tab.open:
    with chunk_tab:
        _chunks(version)
st.session_state[K.DOCUMENT_LINKED] = _linked  # the URL's version and section are applied

# ---- delete ------------------------------------------------------------------------------
if allowed(user, "delete"):
    st.divider()
    if not st.session_state[K.DOCUMENT_CONFIRM_DELETE]:
        if st.button("Delete document…", key=K.DOCUMENT_DELETE, icon=":material/delete:"):
            st.session_state[K.DOCUMENT_CONFIRM_DELETE] = True
            st.rerun()
    else:
        st.warning(f"Delete **{md_escape(safe_text(d.title or d.filename))}** with all {len(d.versions)} "
                   "versions, its chunks and stored originals? This cannot be undone. "
                   "Stored retrieval traces and chat sources keep only a 'deleted document' "
                   "mark in its place.")
        purge = st.checkbox("Also remove the text of chat answers that drew on it",
                            key=K.DOCUMENT_PURGE_ANSWERS,
                            help="Answers may quote the document. Without this, they are kept.")
        yes, no, _ = st.columns([1, 1, 4])
        if yes.button("Yes, delete", type="primary", key=K.DOCUMENT_DELETE_CONFIRM):
            st.session_state[K.DOCUMENT_CONFIRM_DELETE] = False
            if show_errors(lambda: document_actions.delete_document(rs, d.id, current_actor(),
                                                        purge_answers=purge)) is not None:
                clear_listings()
                st.session_state[K.EXPLORER_DOC_ID] = None
                st.query_params.clear()
                st.session_state[K.DOCUMENT_FLASH] = f"Deleted document {d.id}."
                st.rerun()
        if no.button("Cancel", key=K.DOCUMENT_DELETE_CANCEL):
            st.session_state[K.DOCUMENT_CONFIRM_DELETE] = False
            st.rerun()
