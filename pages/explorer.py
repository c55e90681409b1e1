"""Explorer: documents with filters (also by tag) and pagination (one page is loaded at a
time); editors tag or untag documents of the page at once."""
import streamlit as st

from backend.security.access import NO_ACCESS
from backend.services import documents as docs
from backend.ui import explorer
from backend.ui import state as K
from backend.services.tags import vocabulary as tag_vocabulary
from backend.ui.tables import OPEN_ON_CLICK
from pages._tags import batch_tagger
from pages._common import (
    allowed,
    cached_documents,
    cached_filter_options,
    current_actor,
    current_scope,
    data_key,
    get_rs,
    md_escape,
    require_page,
)

user = require_page("viewer")
rs = get_rs()
key = data_key(rs)
scope = current_scope()
opts = cached_filter_options(key, scope)

st.title("Document explorer")


def _reset_page() -> None:
    st.session_state[K.EXPLORER_PAGE] = 1
    st.session_state.pop(K.EXPLORER_PAGER, None)  # the pager is recreated on page 1


def _paged() -> None:
    st.session_state[K.EXPLORER_PAGE] = st.session_state[K.EXPLORER_PAGER]


with st.container(border=True):
    c1, c2, c3 = st.columns([2, 2, 3])
    collections = c1.multiselect("Collection", opts.collections, key=K.EXPLORER_COLLECTIONS,
                                 on_change=_reset_page)
    doc_types = c2.multiselect("Document type", opts.doc_types, key=K.EXPLORER_DOC_TYPES,
                               on_change=_reset_page)
    title = c3.text_input("Title or file name contains", key=K.EXPLORER_SEARCH,
                          on_change=_reset_page)
    c4, c5, c6, c7 = st.columns([2, 2, 2, 3])
    file_types = c4.multiselect("File type", opts.file_types, key=K.EXPLORER_FILE_TYPES,
                                on_change=_reset_page)
    kinds = c5.multiselect("Source kind", opts.source_kinds, key=K.EXPLORER_SOURCE_KINDS,
                           on_change=_reset_page)
    statuses = c6.multiselect("Status", opts.statuses, key=K.EXPLORER_STATUSES,
                              on_change=_reset_page)
    text = c7.text_input("Text contains (active version)", key=K.EXPLORER_SEARCH_TEXT,
                         on_change=_reset_page)
    chosen_tags = st.multiselect("Tags (any of them)", [n for n, _ in tag_vocabulary(
        rs, current_actor(), scope=scope)], key=K.EXPLORER_TAGS, on_change=_reset_page)

flt = docs.ExplorerFilter(tuple(collections), tuple(file_types), tuple(doc_types),
                          tuple(kinds), tuple(statuses), title, text, tuple(chosen_tags))
page_size = st.session_state[K.EXPLORER_PAGE_SIZE]
result = cached_documents(key, scope, flt, st.session_state[K.EXPLORER_PAGE], page_size)

if not result.total and scope.reads_nothing:  # not a filter problem: say what to do
    st.warning(md_escape(NO_ACCESS), icon=":material/lock:")
    st.stop()
if not result.total:
    st.info("No documents match." if flt != docs.ExplorerFilter() else
            "No documents yet. Editors can add some on the Upload page.")
    st.stop()

first = (result.page - 1) * result.page_size + 1
st.caption(f"Documents {first:d}–{first + len(result.rows) - 1:d} of {result.total:d} · "
           f"page {result.page:d} of {result.pages:d}")
table_key = f"{K.EXPLORER_TABLE}.{st.session_state[K.EXPLORER_TABLE_N]:d}"
event = st.dataframe(
    explorer.table_rows(result.rows), hide_index=True, key=table_key, on_select="rerun",
    selection_mode=OPEN_ON_CLICK,
    column_config={k: st.column_config.Column(width=w) for k, w in explorer.WIDTHS.items()})
opened = explorer.selected_id(result.rows, event)
if opened is not None:  # a click on a row opens the document
    st.session_state[K.EXPLORER_DOC_ID] = opened
    st.session_state[K.EXPLORER_TABLE_N] += 1  # back in the explorer: no row selected
    st.switch_page("pages/document.py", query_params={"doc": str(opened)})
st.caption("Click a row to open its document (the document page links to its structure "
           "and analysis).")

if allowed(user, "edit_document"):
    batch_tagger(rs, result.rows)

nav1, nav2 = st.columns([3, 1])
with nav1:
    if result.page != st.session_state[K.EXPLORER_PAGE]:  # clamped by the backend
        st.session_state[K.EXPLORER_PAGE] = result.page
        st.session_state.pop(K.EXPLORER_PAGER, None)
    if result.pages > 1:
        st.pagination(result.pages, default=result.page, key=K.EXPLORER_PAGER,
                      on_change=_paged)
with nav2:
    st.selectbox("Per page", docs.PAGE_SIZES, key=K.EXPLORER_PAGE_SIZE, on_change=_reset_page)

