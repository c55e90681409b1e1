"""Chat: sessions with a UUID in the URL (?session=…), listed in the sidebar by last activity;
inline rename, delete, per-session settings; answers stream in with checked citations, their
sources (with links to the document and to the retrieval trace), tokens, cost and latency,
and a thumbs up/down with an optional note (pages/_feedback.py). Answers are ask jobs
(pages/_chat_jobs.py): a reload mid-answer follows the answer on (`?job=…`).
All logic is in backend/chat/service.py."""
import streamlit as st

from backend.analysis.views import section_link
from backend.chat import drafts
from backend.chat.format_check import PROFILES
from backend.chat.service import (
    CONTEXT_LIMITS,
    ChatService,
    MessageInfo,
    SessionInfo,
)
from backend.chat.types import CONTEXT_LABELS, CONTEXT_MODES, MAX_OUTPUT_TOKENS
from backend.errors import NotFound, RagscopeError
from backend.llm import LABELS, PROVIDERS, default_model
from backend.retrieval import POLICIES
from backend.security.access import NO_ACCESS
from backend.security.safe_markdown import (
    answer_markdown,
    md_link,
    md_text,
    renders_bold,
    renders_markdown,
)
from backend.ui.confidence import confidence_caption, related_label, related_markdown
from backend.ui.citations import (
    cited_markdown,
    document_params,
    linkable,
    source_heading,
    source_passage_markdown,
    trace_params,
    trace_url,
    web_source_markdown,
)
from pages._chat_jobs import follow as follow_job, pending as pending_job, start as start_job
from pages._critiques import auto_caption, critique_expander, runs_of
from pages._feedback import feedback_row, ratings
from pages._profile_pick import profile_select
from backend.services.tags import vocabulary as tag_vocabulary
from pages._common import (
    cached_filter_options,
    current_actor,
    current_scope,
    data_key,
    get_rs,
    md_escape,
    require_page,
)

# Session-state and widget keys of this page (prefix "chat."; per-session ones get the UUID).
CHAT_INPUT = "chat.input"
CHAT_NEW = "chat.new"
CHAT_NEW_AFTER_GONE = "chat.new_after_gone"
CHAT_DRAFT = "chat.draft"  # the settings of the chat not yet asked anything (backend/chat/drafts.py)
CHAT_FLASH = "chat.flash"
CHAT_CONFIRM_DELETE = "chat.confirm_delete"
CHAT_DELETE = "chat.delete"
CHAT_DELETE_CONFIRM = "chat.delete_confirm"
CHAT_DELETE_CANCEL = "chat.delete_cancel"
CHAT_TITLE = "chat.title."  # + uuid
CHAT_OPEN = "chat.open."  # + uuid
CHAT_SETTINGS = "chat.settings."  # + uuid (form) and + uuid + "." + field (widgets)
CHAT_SETTINGS_OPEN = "chat.settings_open."  # + uuid: the "Session settings" expander
CHAT_CITE = "chat.cite."  # + message id + "." + n: a citation's passage popover
CHAT_FEEDBACK = "chat.feedback."  # + message id + ".thumbs" / ".note": rating an answer
CHAT_CRITIQUE = "chat.critique."  # + message id + ".run": critique rounds of an answer
PROFILE_LABELS = {"markdown": "Markdown", "plain": "Plain text (checked and cleaned)"}

user = require_page("viewer")
rs = get_rs()
svc = ChatService(rs)
owner = None if user.role == "admin" else user.username  # admins may open any session
scope = current_scope()  # what this user may read: retrieval and shown sources (chat.py)


def _open(uuid: str) -> None:
    st.query_params["session"] = uuid
    st.session_state[CHAT_CONFIRM_DELETE] = False


def _new_chat() -> None:
    """A draft: the session row is created with the first question (backend/chat/drafts.py)."""
    st.query_params.pop("session", None)
    st.session_state[CHAT_DRAFT] = None
    st.session_state[CHAT_CONFIRM_DELETE] = False


def _rename(uuid: str) -> None:
    try:
        svc.rename(uuid, st.session_state[CHAT_TITLE + uuid], user=owner)
    except RagscopeError as e:
        st.session_state[CHAT_FLASH] = ("error", str(e))


def _delete(uuid: str) -> None:
    svc.delete_session(uuid, user=owner)
    st.session_state[CHAT_FLASH] = ("success", "Session deleted, with its messages.")
    _new_chat()


def _text_md(text: str) -> str:
    """User text shown as Markdown: every Markdown character escaped, line breaks kept."""
    return md_text(text)


def _answer_md(text: str, rich: bool, bold: bool = False) -> str:
    """Model/document text: no clickable links, remote images, autolinks or HTML (shown as
    text); a model's Markdown formatting is kept when `rich`, the extractive answer's bold
    value when `bold` (backend/security/safe_markdown.py)."""
    return answer_markdown(text, rich=rich, bold=bold)


def _cost(label: str, usd: float | None) -> str:
    return "local" if label == "local" else "price unknown" if usd is None else f"${usd:.4f}"


def _session_totals(s: SessionInfo) -> str:
    cost = "local" if not s.cost_usd and not s.cost_unknown else f"${s.cost_usd:.4f}" + (
        " + unknown" if s.cost_unknown else "")
    return f"{s.tokens_input:,} in · {s.tokens_output:,} out tokens · {cost}"


def _source_line(src: dict, trace_id: str | None, question: str | None) -> str:
    if src.get("kind") == "web":  # the page of a URL in the question
        return web_source_markdown(src)
    if src.get("deleted"):  # text, title and links went with the document
        return (f"**[{src['n']:d}]** :gray[deleted document] · score {src['score']:.3f}"
                + (" · " + md_link("retrieval trace", trace_url(trace_id, question))
                   if trace_id else ""))
    if src.get("hidden"):  # a document outside the reader's access now: nothing of it
        return f"**[{src['n']:d}]** :gray[{md_escape(src['title'])}]"
    parts = [f"**[{src['n']:d}] {md_escape(src['title'])}**"]
    if src.get("breadcrumb"):
        parts.append(md_escape(src["breadcrumb"]))
    if src.get("page") is not None:
        parts.append(f"p. {md_escape(src['page'])}")
    parts.append(f"score {src['score']:.3f}")
    links = [md_link("original", f"document?doc={int(src['document_id'])}")]
    if src.get("section_id") and src.get("version_id"):  # analysis answers cite sections
        links.append(md_link("section", section_link(int(src["document_id"]),
                                                     int(src["version_id"]),
                                                     int(src["section_id"]))))
    uri = src.get("source_uri") or ""
    if uri.startswith(("http://", "https://")):
        links.append(md_link("web page", uri))
    if trace_id:
        links.append(md_link("retrieval trace", trace_url(trace_id, question)))
    return " · ".join(parts) + " · " + " · ".join(links)


def _citations(m: MessageInfo, question: str | None) -> None:
    """One button per cited source under the answer: its passage with the quote
    highlighted, title, section path, page; open in document; the retrieval trace."""
    cited = [s for s in m.sources if s.get("cited") and linkable(s)]
    if not cited:
        return
    row = st.container(horizontal=True, gap="small", vertical_alignment="center")
    row.caption("Cited:", width="content")
    for src in cited:
        with row.popover(f"[{src['n']:d}]", key=f"{CHAT_CITE}{m.id:d}.{src['n']:d}",
                         help="The cited passage"):
            st.markdown(source_heading(src))
            st.markdown(source_passage_markdown(src) or ":gray[no text]")
            st.page_link("pages/document.py", label="Open in document",
                         icon=":material/open_in_new:", query_params=document_params(src))
            if m.trace_id:
                st.page_link("pages/query_debug.py", label="retrieval trace",
                             icon=":material/troubleshoot:",
                             query_params=trace_params(m.trace_id, question))


def _confidence(citations: dict) -> None:
    """The confidence hint, and under a declined answer its "possibly related" passages
    (collapsed)."""
    hint = confidence_caption(citations)
    if hint:
        st.caption(hint)
    if related_markdown(citations):
        with st.expander(related_label(citations), expanded=False,
                         icon=":material/travel_explore:"):
            st.markdown(related_markdown(citations))


def _render_answer(m: MessageInfo, question: str | None = None, rating=None,
                   critiques=None) -> None:
    if m.notice:
        st.warning(md_escape(m.notice), icon=":material/info:")
    if m.fallback:
        st.caption(":orange-badge[extractive fallback]")
    profile = (m.format_check or {}).get("profile")
    rich = renders_markdown(m.provider, profile)
    st.markdown(cited_markdown(m.content, rich, m.sources,
                               bold=renders_bold(m.provider, profile)))
    _citations(m, question)
    c = m.citations or {}
    _confidence(c)
    if c.get("invalid"):
        st.error("The answer cites " + ", ".join(f"[{n:d}]" for n in c["invalid"])
                 + ", which is not among the sources.")
    bare = c.get("uncited_sentences") or []
    if bare:
        with st.expander(f"{len(bare)} sentence(s) without a citation", icon=":material/flag:"):
            for s in bare:
                st.markdown(f"- :orange[no citation] {md_escape(s)}")
    unsupported = c.get("unsupported_sentences") or []
    if unsupported:
        with st.expander(f"{len(unsupported)} sentence(s) not supported by the cited source",
                         icon=":material/report:"):
            for s in unsupported:
                st.markdown(f"- :red[unsupported] {md_escape(s)}")
    fmt = m.format_check or {}
    if fmt and not fmt.get("passed", True):
        st.caption(f"Format check ({md_escape(fmt.get('profile'))}): "
                   f"{md_escape(fmt.get('rating'))}/10 · "
                   + md_escape("; ".join(fmt.get("issues", []))))
    auto_caption(m.citations)
    tokens = f"{m.tokens_input or 0:,} in / {m.tokens_output or 0:,} out tokens"
    if m.tokens_counted_locally:
        tokens += " (counted locally)"
    ft = m.first_token_ms
    first = "" if ft is None else f" (first token {ft:.1f} ms)" if ft < 10 else \
        f" (first token {ft:.0f} ms)"
    st.caption(f"{md_escape(m.provider)} · {md_escape(m.model)} · {tokens} · "
               f"{_cost(m.cost_label, m.cost_usd)} · {(m.latency_ms or 0) / 1000:.2f} s{first}")
    if m.sources:
        cited = [s for s in m.sources if s.get("cited")]
        uncited = [s for s in m.sources if not s.get("cited")]
        with st.expander(f"Sources: {len(cited)} cited, {len(uncited)} not cited"):
            for heading, group in (("Cited", cited), ("Not cited", uncited)):
                if group:
                    st.markdown(f"**{md_escape(heading)}**")
                    for src in group:
                        st.markdown(_source_line(src, m.trace_id, question))
    feedback_row(CHAT_FEEDBACK, m.id, rating)
    critique_expander(CHAT_CRITIQUE, m.id, critiques)


def _settings_form(sess: SessionInfo) -> None:
    cfg, k = sess.settings, CHAT_SETTINGS + sess.uuid
    # folded, the form is not sent (on_change="rerun", .open): its widgets' browser code and
    # the tag and collection lists cost every direct load of the chat page (docs/dashboard.md)
    folded = st.expander("Session settings", icon=":material/tune:",
                         key=CHAT_SETTINGS_OPEN + sess.uuid, on_change="rerun")
    if not folded.open:
        return
    collections = sorted(set(cached_filter_options(data_key(rs), scope).collections)
                         | {c for c in cfg.collections if scope.can_read(c)})
    with folded, st.form(k):
        c1, c2 = st.columns(2)
        provider = c1.selectbox("Provider", PROVIDERS, index=PROVIDERS.index(cfg.provider),
                                format_func=LABELS.get, key=f"{k}.provider")
        model = c2.text_input("Model", value=cfg.model, key=f"{k}.model",
                              placeholder=default_model(rs.settings, cfg.provider) or "model",
                              help="Empty: the provider's default model from the settings.")
        chosen = st.multiselect("Collections", collections,
                                default=[c for c in cfg.collections if c in collections],
                                key=f"{k}.collections", help="None chosen: all collections.")
        tag_names = sorted({n for n, _ in tag_vocabulary(rs, current_actor())} | set(cfg.tags),
                           key=str.casefold)
        chosen_tags = st.multiselect("Tags", tag_names, default=cfg.tags, key=f"{k}.tags",
                                     help="Answer only from documents with one of these "
                                          "tags. None chosen: every document.")
        c3, c4, c5 = st.columns(3)
        limit = c3.select_slider("Sources (context limit)", CONTEXT_LIMITS,
                                 value=cfg.context_limit, key=f"{k}.context_limit")
        temperature = c4.slider("Temperature", 0.0, 1.0, float(cfg.temperature), 0.05,
                                key=f"{k}.temperature")
        max_tokens = c5.number_input("Max tokens", 1, MAX_OUTPUT_TOKENS, int(cfg.max_tokens),
                                     step=256, key=f"{k}.max_tokens")
        c6, c7, c8 = st.columns(3)
        context_mode = c8.selectbox(
            "Conversation context", CONTEXT_MODES, index=CONTEXT_MODES.index(cfg.context_mode),
            format_func=CONTEXT_LABELS.get, key=f"{k}.context_mode",
            help="How much of this conversation answers see (the model's prompt and the "
                 "rewrite of follow-up questions).")
        policy = c6.selectbox("Retrieval policy", POLICIES, index=POLICIES.index(cfg.policy),
                              key=f"{k}.policy")
        profiles = list(PROFILES)
        profile = c7.selectbox("Answer format", profiles, format_func=PROFILE_LABELS.get,
                               index=profiles.index(cfg.answer_profile), key=f"{k}.profile")
        author = profile_select(rs, cfg.profile_id, f"{k}.profile_id")  # issue 26
        system_prompt = st.text_area("System prompt (added to the fixed rules)",
                                     value=cfg.system_prompt, key=f"{k}.system_prompt")
        if st.form_submit_button("Save settings", icon=":material/save:"):
            try:
                if drafts.is_draft(sess):  # kept for the session the first question creates
                    st.session_state[CHAT_DRAFT] = drafts.settings_values(drafts.settings_of(
                        svc, dict(provider=provider, model=model, collections=chosen,
                                  context_limit=limit, temperature=temperature,
                                  max_tokens=int(max_tokens), policy=policy,
                                  answer_profile=profile, system_prompt=system_prompt,
                                  context_mode=context_mode, profile_id=author,
                                  tags=chosen_tags)))
                    st.session_state[CHAT_FLASH] = ("success", "Settings saved.")
                    st.rerun()
                svc.update_settings(sess.uuid, user=owner, provider=provider, model=model,
                                    collections=chosen, context_limit=limit,
                                    temperature=temperature, max_tokens=int(max_tokens),
                                    policy=policy, answer_profile=profile,
                                    system_prompt=system_prompt, context_mode=context_mode,
                                    profile_id=author, tags=chosen_tags)
                st.session_state[CHAT_FLASH] = ("success", "Settings saved.")
                st.rerun()
            except RagscopeError as e:
                st.error(md_escape(str(e)))


def _ask(sess: SessionInfo, question: str) -> None:
    try:
        svc.validate_question(question)
        if drafts.is_draft(sess):  # the first question stores the session, named after it
            sess = drafts.start(svc, user.username, st.session_state.get(CHAT_DRAFT), question)
            st.query_params["session"] = sess.uuid
            st.session_state[CHAT_DRAFT] = None
    except RagscopeError as e:
        st.error(md_escape(str(e)))
        return
    with st.chat_message("user"):
        st.markdown(_text_md(question))
    _follow(start_job(rs, user, question,
                      svc.ask_stream(sess.uuid, question, scope=scope, user=owner)), sess)


def _follow(job_id: str, sess: SessionInfo) -> None:
    """The answer of a job (pages/_chat_jobs.py): a reload mid-answer follows it on."""
    with st.chat_message("assistant"):
        try:
            follow_job(rs, user, job_id,
                       renders_markdown(sess.settings.provider, sess.settings.answer_profile),
                       renders_bold(sess.settings.provider, sess.settings.answer_profile))
        except RagscopeError as e:
            st.error(md_escape(str(e)))


# ---- the page -----------------------------------------------------------------------------

st.session_state.setdefault(CHAT_CONFIRM_DELETE, False)
uuid = st.query_params.get("session")
try:
    sess = svc.get_session(uuid, user=owner) if uuid else \
        drafts.draft(svc, user.username, st.session_state.get(CHAT_DRAFT))
except NotFound:
    st.title("Chat")
    st.warning("This chat session no longer exists: it was deleted, or the link is wrong.",
               icon=":material/search_off:")
    st.button("Start a new chat", key=CHAT_NEW_AFTER_GONE, type="primary", on_click=_new_chat,
              icon=":material/add_comment:")
    st.stop()
draft = drafts.is_draft(sess)

with st.sidebar:
    st.button("New chat", key=CHAT_NEW, on_click=_new_chat, icon=":material/add_comment:",
              width="stretch", disabled=draft)
    if not draft:
        st.caption(f"This session: {_session_totals(sess)}")
    for s in drafts.listed(svc, user.username, sess.uuid):
        st.button(md_escape(s.title[:48]), key=CHAT_OPEN + s.uuid, on_click=_open,
                  args=(s.uuid,), width="stretch",
                  type="primary" if s.uuid == sess.uuid else "secondary",
                  help=f"{s.messages // 2} question(s) · {_session_totals(s)}")

flash = st.session_state.pop(CHAT_FLASH, None)
if flash:
    (st.success if flash[0] == "success" else st.error)(md_escape(flash[1]))

if scope.reads_nothing:  # every answer would be "nothing found": say why
    st.warning(md_escape(NO_ACCESS), icon=":material/lock:")
if draft:
    st.title("Chat")
    st.caption("Ask a question to start a session; it is named after your question.")
else:
    head, actions = st.columns([5, 1], vertical_alignment="bottom")
    head.title(md_escape(sess.title), anchor=False)
    with actions.popover("Rename", icon=":material/edit:"):
        st.session_state[CHAT_TITLE + sess.uuid] = sess.title  # the stored title
        st.text_input("Session title", key=CHAT_TITLE + sess.uuid, on_change=_rename,
                      args=(sess.uuid,), max_chars=255, help="Edit and press Enter to rename.")
    if not st.session_state[CHAT_CONFIRM_DELETE]:
        actions.button("Delete", key=CHAT_DELETE, icon=":material/delete:",
                       on_click=lambda: st.session_state.update({CHAT_CONFIRM_DELETE: True}))
    else:
        st.warning("Delete this session and all its messages?")
        d1, d2, _ = st.columns([1, 1, 4])
        d1.button("Delete for good", key=CHAT_DELETE_CONFIRM, type="primary",
                  on_click=_delete, args=(sess.uuid,))
        d2.button("Cancel", key=CHAT_DELETE_CANCEL,
                  on_click=lambda: st.session_state.update({CHAT_CONFIRM_DELETE: False}))
st.caption(f"{md_escape(LABELS[sess.settings.provider])} · "
           f"{md_escape(sess.settings.model or default_model(rs.settings, sess.settings.provider))}"
           f" · {sess.settings.context_limit:d} sources · "
           f"{md_escape(', '.join(sess.settings.collections) or 'all collections')}")
_settings_form(sess)

asked = None
history = [] if draft else svc.messages(sess.uuid, scope=scope, user=owner)
rated = ratings([m.id for m in history if m.role == "assistant"])
critiqued = runs_of([m.id for m in history if m.role == "assistant"])
for m in history:
    with st.chat_message(m.role):
        if m.role == "user":
            asked = m.content
            st.markdown(_text_md(m.content))
        else:
            _render_answer(m, asked, rated.get(m.id), critiqued.get(m.id))

running = None if draft else pending_job(rs, user)  # a reload mid-answer: follow it on
if running is not None:
    with st.chat_message("user"):
        st.markdown(_text_md(running.question))
    _follow(running.id, sess)
question = st.chat_input("Ask a question about your documents", key=CHAT_INPUT)
if question is not None and running is None:
    _ask(sess, question)
