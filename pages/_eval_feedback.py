"""The Evaluation page's "Rated answers": answers rated in the chat and in published
chatbots (thumbs, note, who, when, a link to the retrieval trace), filtered by rating, text
and rater, and one turned into a goldenset question, edited before it is saved. Admins see
every rating, others their own (backend/services/feedback.py); the draft and the save are
eval/feedback.py."""
from __future__ import annotations

from datetime import date, timedelta

import streamlit as st

from backend.services import feedback as feedback_service
from eval import feedback as fb
from eval import ui_keys as E
from eval.store import get_goldenset
from pages._common import current_actor, md_escape, show_errors

RATING_LABELS = {"": "all ratings", "up": "👍 helpful", "down": "👎 not helpful"}
DAYS = {7: "last 7 days", 30: "last 30 days", 365: "last year", 0: "all time"}
NEW = "__new__"


def render(rs, *, can_edit: bool, goldensets: list[str], is_admin: bool) -> None:
    c1, c2, c3, c4 = st.columns([1, 2, 1, 1])
    rating = c1.selectbox("Rating", list(RATING_LABELS), format_func=RATING_LABELS.get,
                          key=E.EVAL_FB_RATING)
    text = c2.text_input("Question, answer or note contains", key=E.EVAL_FB_TEXT)
    who = c3.text_input("Rated by", key=E.EVAL_FB_WHO, disabled=not is_admin,
                        help=None if is_admin else "You see your own ratings.")
    days = c4.selectbox("When", list(DAYS), format_func=DAYS.get, index=1, key=E.EVAL_FB_DAYS)
    since = date.today() - timedelta(days=days) if days else None
    items = feedback_service.rated_answers(rs, current_actor(), rating=rating or None,
                                           text=text, who=who, since=since)
    if not items:
        st.info("No rated answers match. Rate answers with 👍/👎 under each answer on the "
                "Chat page or in a published chatbot.")
        return
    st.caption(f"{len(items):d} rated answer(s)" + ("" if is_admin else " — your own ratings"))
    st.dataframe(fb.rows(items), hide_index=True, column_config={
        "rated": st.column_config.DatetimeColumn("rated", format="YYYY-MM-DD HH:mm"),
        "trace": st.column_config.LinkColumn("trace", display_text="open trace")})
    if not can_edit:
        st.caption("Turning rated answers into goldenset questions needs the editor role.")
        return
    by_id = {i.feedback.message_id: i for i in items}
    mid = st.selectbox("Turn into a goldenset question", list(by_id), key=E.EVAL_FB_PICK,
                       format_func=lambda m: fb.label(by_id[m]))
    _draft_form(rs, by_id[mid], goldensets)


def _draft_form(rs, item, goldensets: list[str]) -> None:
    target = st.selectbox("Goldenset", [*goldensets, NEW], key=f"{E.EVAL_FB_DRAFT}.target",
                          format_func=lambda n: "➕ new goldenset" if n == NEW else n)
    gs = None if target == NEW else get_goldenset(rs, target)
    d = fb.draft(rs, item, gs)
    k = f"{E.EVAL_FB_DRAFT}.{item.feedback.message_id:d}.{target}."
    with st.form(k + "form"):
        name = st.text_input("New goldenset name", key=k + "name") if target == NEW else target
        f = {"id": st.text_input("Id", d["id"], key=k + "id"),
             "question": st.text_area("Question", d["question"], key=k + "question",
                                      height=80)}
        c1, c2 = st.columns(2)
        f["language"] = c1.text_input("Language", d["language"], key=k + "language")
        f["tags"] = c2.text_input("Tags (comma-separated)", d["tags"], key=k + "tags")
        f["answer"] = st.text_area("Expected answer", d["answer"], key=k + "answer", height=80)
        f["documents"] = st.text_area("Relevant documents (one per line)", d["documents"],
                                      key=k + "documents", height=68)
        f["contexts"] = st.text_area("Reference contexts (one per line)", d["contexts"],
                                     key=k + "contexts", height=100)
        if item.feedback.note:
            st.caption(f"The rater's note: {md_escape(item.feedback.note)}")
        if st.form_submit_button("Save as goldenset question", type="primary",
                                 icon=":material/add_task:"):
            q = show_errors(lambda: fb.save(rs, name, f, new=target == NEW))
            if q is not None:
                st.session_state[E.EVAL_FLASH] = (f"Saved question {q.id} in goldenset "
                                                  f"{name.strip()}.")
                st.rerun()
