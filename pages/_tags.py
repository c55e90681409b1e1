"""Tags of one document on the document page: the tags (a click on × removes one), a
field to add more, and the suggestions from the document's type and traits (a click on one
accepts it; "Accept all" takes every one). Viewers see the tags only. Everything goes
through backend/services/tags.py, which checks the role and the document's collections."""
from __future__ import annotations

import streamlit as st

from backend.services import tags
from backend.ui import state as K
from pages._common import clear_listings, current_actor, md_escape, show_errors


def _done(message: str) -> None:
    clear_listings()  # the explorer's table shows tags
    st.session_state[K.TAGS_FLASH] = message
    st.rerun()


def _flash() -> None:
    flash = st.session_state.get(K.TAGS_FLASH)
    if flash:
        st.success(md_escape(flash))
        st.session_state[K.TAGS_FLASH] = None


def tag_editor(rs, doc_id: int, can_edit: bool) -> None:
    st.subheader("Tags", anchor=False)
    _flash()
    view = show_errors(lambda: tags.get(rs, current_actor(), doc_id))
    if view is None:
        return
    if not view.tags:
        st.caption("No tags yet.")
    if not can_edit:
        if view.tags:
            st.markdown(" · ".join(f"`{md_escape(n)}`" for n in view.names))
        return
    cols = st.columns(min(max(len(view.tags), 1), 6))
    for i, t in enumerate(view.tags):
        if cols[i % len(cols)].button(
                f"{md_escape(t.name)} ×", key=f"{K.TAGS_REMOVE}.{doc_id}.{t.name.casefold()}",
                help=f"Remove this tag (added by {md_escape(t.created_by or 'unknown')})"):
            if show_errors(lambda: tags.remove(rs, current_actor(), doc_id, [t.name])):
                _done(f"Removed tag {t.name}.")
    with st.form(f"{K.TAGS_ADD}.{doc_id}.form", clear_on_submit=True):
        text = st.text_input("Add tags (comma-separated)", key=f"{K.TAGS_ADD}.{doc_id}",
                             max_chars=500)
        if st.form_submit_button("Add", key=f"{K.TAGS_ADD_GO}.{doc_id}"):
            v = show_errors(lambda: tags.add(rs, current_actor(), doc_id,
                                             tags.split_names(text)))
            if v is not None:
                _done(f"Added: {', '.join(v.changed)}." if v.changed else "Nothing new to add.")
    if view.suggestions:
        st.caption("Suggested from the document's type and traits — click to accept:")
        cols = st.columns(min(len(view.suggestions), 6) + 1)
        for i, name in enumerate(view.suggestions):
            if cols[i % (len(cols) - 1)].button(f"+ {md_escape(name)}",
                                                key=f"{K.TAGS_SUGGEST}.{doc_id}.{name}"):
                if show_errors(lambda: tags.add(rs, current_actor(), doc_id, [name],
                                                source="suggestion")):
                    _done(f"Added tag {name}.")
        if cols[-1].button("Accept all", key=f"{K.TAGS_ACCEPT_ALL}.{doc_id}"):
            if show_errors(lambda: tags.accept_suggestions(rs, current_actor(), doc_id)):
                _done("Accepted every suggestion.")


def batch_tagger(rs, rows) -> None:
    """The explorer's "Tag documents": the same tags added to or removed from the chosen
    documents of the page; a document the editor may not change is named, the others change."""
    _flash()
    with st.expander("Tag documents", icon=":material/sell:"):
        by_id = {r.id: r for r in rows}
        picked = st.multiselect("Documents of this page", list(by_id),
                                format_func=lambda i: by_id[i].title or by_id[i].filename,
                                key=K.EXPLORER_TAG_DOCS)
        text = st.text_input("Tags (comma-separated)", key=K.EXPLORER_TAG_NAMES, max_chars=500)
        add, remove = st.columns(2)
        for button, removing in ((add.button("Add tags", key=K.EXPLORER_TAG_ADD), False),
                                 (remove.button("Remove tags", key=K.EXPLORER_TAG_REMOVE), True)):
            if not button:
                continue
            outs = show_errors(lambda: tags.change_many(rs, current_actor(), picked,
                                                        tags.split_names(text),
                                                        remove_them=removing))
            if outs is None:
                continue
            for o in outs:
                if o.error:
                    st.error(md_escape(o.error))
            changed = sum(1 for o in outs if o.changed)
            if not any(o.error for o in outs):
                _done(f"{'Removed from' if removing else 'Added to'} {changed:d} document(s).")
