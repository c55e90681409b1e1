"""Streamlit glue of answer feedback, shared by the chat page and the chatbot page: a thumbs
up/down under an answer and, once rated, a note. Who may rate what is decided by
backend/services/feedback.py; this module reads the widgets and calls it."""
from __future__ import annotations

import streamlit as st

from backend.errors import RagscopeError
from backend.services import feedback as feedback_service
from pages._common import current_actor, get_rs, md_escape

THUMBS = {0: "down", 1: "up"}  # st.feedback("thumbs") values
VALUES = {v: k for k, v in THUMBS.items()}


def ratings(message_ids: list[int]) -> dict:
    """The signed-in user's ratings of these answers, by message id."""
    return feedback_service.feedback_of(get_rs(), current_actor(), message_ids)


def _keys(prefix: str, message_id: int) -> tuple[str, str, str]:
    k = f"{prefix}{message_id:d}"
    return k + ".thumbs", k + ".note", k + ".error"


def _save(prefix: str, message_id: int, chatbot: str | None) -> None:
    thumbs, note, error = _keys(prefix, message_id)
    state = st.session_state
    try:
        feedback_service.rate(get_rs(), current_actor(), message_id,
                              THUMBS.get(state.get(thumbs)), state.get(note) or "",
                              chatbot=chatbot)
        state.pop(error, None)
    except RagscopeError as e:
        state[error] = str(e)


def feedback_row(prefix: str, message_id: int, current, *, chatbot: str | None = None
                 ) -> None:
    """Thumbs up/down under an answer (stored at once) and a note field once rated.
    `current`: the stored Feedback or None; `prefix`: the page's widget-key prefix."""
    thumbs, note, error = _keys(prefix, message_id)
    row = st.container(horizontal=True, gap="small", vertical_alignment="center")
    row.caption("Was this answer helpful?", width="content")
    with row:
        st.feedback("thumbs", key=thumbs,
                    default=VALUES.get(current.rating) if current is not None else None,
                    on_change=_save, args=(prefix, message_id, chatbot))
    rated = st.session_state.get(thumbs) is not None
    if rated:
        with row.popover("Note" + (" ✓" if current is not None and current.note else ""),
                         icon=":material/edit_note:"):
            st.text_area("What was right or wrong? (optional)", key=note, max_chars=2000,
                         value=current.note if current is not None else "")
            st.button("Save note", key=note + ".save", on_click=_save,
                      args=(prefix, message_id, chatbot), icon=":material/save:")
    if st.session_state.get(error):
        st.error(md_escape(st.session_state[error]))
    elif rated and current is not None:
        st.caption("Thanks — your feedback is stored with this answer and its trace.")
