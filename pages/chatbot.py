"""A published chatbot (`?bot=slug`, role viewer): its welcome message, a conversation
answered from its collections only (ChatbotService.ask, the chat's answer path) with the
sources and their scores, and its fallback message when the pages hold no evidence.
Only bots the viewer may see are shown: published ones whose collections the viewer may
all read (backend/chatbots/visibility.py); any other slug is "no published chatbot".
Editors test drafts in the builder.

Embedded (`?bot=slug&embed=true`, e.g. in an iframe): app.py hides the navigation and
the sidebar, Streamlit its toolbar; this page shows only a small header, the welcome
message, the chat and the sources (docs/chatbots.md "Embedding")."""
import streamlit as st

from backend.errors import NotFound, RagscopeError
from backend.security.safe_markdown import answer_markdown, md_link
from backend.ui import state as K
from backend.ui.citations import linkable, source_heading, source_passage_markdown
from backend.ui.confidence import confidence_caption, related_label, related_markdown
from pages._chatbot_common import get_bots, sources_rows
from pages._feedback import feedback_row, ratings
from pages._common import current_actor, is_embedded, md_escape, require_page

BOT_CITE = "bot.cite."  # + message id + "." + n: a citation's passage popover
BOT_FEEDBACK = "bot.feedback."  # + message id + ".thumbs" / ".note": rating an answer

require_page("viewer", "chatbots")
bots = get_bots()
state = st.session_state
if state.get(K.BOT_CHAT_SESSIONS) is None:
    state[K.BOT_CHAT_SESSIONS] = {}
actor = current_actor()
embed = is_embedded()

slug = st.query_params.get("bot")
if not slug and embed:
    st.error("No chatbot chosen: add `?bot=SLUG` to the address.")
    st.stop()
if not slug:
    st.title("Chatbots")
    published = bots.list(actor, published_only=True)
    if not published:
        st.info("No chatbot has been published yet.")
        st.stop()

    def _choose() -> None:
        if state.get(K.BOT_CHAT_PICK):
            st.query_params["bot"] = state[K.BOT_CHAT_PICK]

    st.selectbox("Chatbot", [None, *(b.slug for b in published)], key=K.BOT_CHAT_PICK,
                 on_change=_choose, format_func=lambda s: "— choose —" if s is None else s)
    st.dataframe([{"chatbot": b.name, "slug": b.slug, "about": b.config.description}
                  for b in published], hide_index=True)
    st.stop()

try:
    bot = bots.open(actor, slug, published_only=True)
except NotFound:  # unknown, a draft, or outside the viewer's collections: the same answer
    bot = None
if bot is None:
    st.error(f"There is no published chatbot {md_escape(slug)}.")
    st.stop()

if embed:
    st.subheader(md_escape(bot.name), anchor=False)
else:
    st.title(md_escape(bot.name))
    if bot.config.description:
        st.caption(md_escape(bot.config.description))


def _confidence(citations: dict | None) -> None:
    """The confidence hint; under a declined answer the closest passages, collapsed."""
    hint = confidence_caption(citations)
    if hint:
        st.caption(hint)
    if related_markdown(citations):
        with st.expander(related_label(citations), expanded=False):
            st.markdown(related_markdown(citations))


def _cited(sources: list[dict], message_id: int) -> None:
    """One button per cited source: its passage with the quote highlighted, title,
    section, page, and the web page it was crawled from."""
    cited = [x for x in sources if x.get("cited") and linkable(x)]
    if not cited:
        return
    row = st.container(horizontal=True, gap="small", vertical_alignment="center")
    row.caption("Cited:", width="content")
    for src in cited:
        with row.popover(f"[{src['n']:d}]", key=f"{BOT_CITE}{message_id:d}.{src['n']:d}"):
            st.markdown(source_heading(src))
            st.markdown(source_passage_markdown(src) or ":gray[no text]")
            uri = src.get("source_uri") or ""
            if uri.startswith(("http://", "https://")):
                st.markdown(md_link("web page", uri))


sessions = state[K.BOT_CHAT_SESSIONS]
uuid = sessions.get(slug)
with st.chat_message("assistant"):
    st.markdown(md_escape(bot.config.welcome_message))
history = bots.conversation(actor, slug, uuid, published_only=True) if uuid else []
rated = ratings([m.id for m in history if m.role == "assistant"])
for m in history:
    with st.chat_message(m.role):
        st.markdown(answer_markdown(m.content, rich=False, bold=True) if m.role == "assistant"
                    else md_escape(m.content))
        if m.role == "assistant":
            _cited(m.sources, m.id)
            _confidence(m.citations)
            feedback_row(BOT_FEEDBACK, m.id, rated.get(m.id), chatbot=slug)
question = st.chat_input("Your question", key=K.BOT_CHAT_INPUT)
if question:
    with st.chat_message("user"):
        st.markdown(md_escape(question))
    try:
        ans = bots.ask(current_actor(), slug, question, session=uuid, published_only=True)
    except RagscopeError as e:
        st.error(md_escape(str(e)))
    else:
        sessions[slug] = ans.session
        with st.chat_message("assistant"):
            st.markdown(answer_markdown(ans.text, rich=False, bold=True))
            if not ans.fallback_used:
                _cited(ans.sources, ans.message_id)
            _confidence(ans.citations)
            if ans.sources and not ans.fallback_used:
                with st.expander("Sources"):
                    st.dataframe(sources_rows(ans.sources), hide_index=True)
            feedback_row(BOT_FEEDBACK, ans.message_id, None, chatbot=slug)
