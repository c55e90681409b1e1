"""The chatbot builder's admin parts (seed 003's test page): the answer settings of the
configuration form (minimum relevance, show sources, question URLs), the statistics of the
bot's conversations, and deleting the bot with a confirmation. Streamlit glue only: every
value comes from ChatbotService (backend/chatbots/)."""
from __future__ import annotations

import streamlit as st

from backend.ui import state as K
from pages._common import md_escape

ANSWER_FIELDS = ("min_relevance", "show_sources", "question_urls")


def answer_settings(draft: dict, key) -> None:
    """Inside the configuration form: the widgets of ANSWER_FIELDS (keys from `key(f)`)."""
    c = st.columns(3)
    c[0].slider("Minimum relevance", 0.0, 1.0, float(draft["min_relevance"]), step=0.05,
                key=key("min_relevance"),
                help="Below this similarity of the best source to the question the bot "
                     "answers with its fallback message (0: off).")
    c[1].checkbox("Show sources", value=bool(draft["show_sources"]), key=key("show_sources"),
                  help="Off: replies list no sources and no [n] markers.")
    c[2].checkbox("Fetch URLs in questions", value=bool(draft["question_urls"]),
                  key=key("question_urls"),
                  help="A URL in a visitor's question is fetched (SSRF guard, robots.txt) "
                       "and used as a source; off by default.")


def stats_panel(bots, actor, slug: str) -> None:
    """Seed 003's STATISTIKEN: documents, chunks, conversations, messages, average
    response time and fallback rate from the bot's stored conversations."""
    s = bots.stats(actor, slug)
    st.markdown("**Statistics**")
    m = st.columns(6)
    m[0].metric("Documents", int(s.documents))
    m[1].metric("Chunks", int(s.chunks))
    m[2].metric("Conversations", int(s.conversations))
    m[3].metric("Messages", int(s.messages))
    m[4].metric("Avg. response time", "–" if s.avg_response_ms is None
                else f"{s.avg_response_ms / 1000:.2f} s")
    m[5].metric("Fallback rate", "–" if s.fallback_rate is None
                else f"{s.fallback_rate:.0%}")
    if s.answers:
        st.caption(f"{s.fallbacks:d} of {s.answers:d} answers were the fallback message.")


def _ask_delete(slug: str) -> None:
    st.session_state[K.BOTS_DELETE_PENDING] = slug


def _keep() -> None:
    st.session_state[K.BOTS_DELETE_PENDING] = None


def delete_section(bots, actor, slug: str, on_delete) -> None:
    """"Delete chatbot", then a confirmation naming what goes (the conversations) and what
    stays (the collections); `on_delete(slug)` runs on Yes (a callback)."""
    state = st.session_state
    if state.get(K.BOTS_DELETE_PENDING) != slug:
        st.button("Delete chatbot", key=K.BOTS_DELETE, on_click=_ask_delete, args=(slug,),
                  icon=":material/delete:")
        return
    s = bots.stats(actor, slug)
    names = ", ".join(bots.get(slug).config.collections)
    st.warning(f"Delete chatbot {md_escape(slug)} and its {s.conversations:d} "
               f"conversation(s) ({s.messages:d} messages)? Its collections stay: "
               f"{md_escape(names)}.")
    c = st.columns(4)
    c[0].button("Yes, delete", key=K.BOTS_DELETE_YES, on_click=on_delete, args=(slug,),
                type="primary")
    c[1].button("Keep it", key=K.BOTS_DELETE_NO, on_click=_keep)
