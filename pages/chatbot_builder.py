"""Chatbot builder: a five-step wizard (editor) — 1 URL and collections, 2 build (crawl +
embedding, live progress, cancel/resume), 3 configuration with Generate buttons, 4 test chat
with sources and scores, 5 publish. Everything goes through ChatbotService
(backend/chatbots/); the bot being built is in the URL (`?bot=slug`), and its build's
progress is read from the store, so a reload reconnects to a running build.

Button callbacks run before this script (and so before `require_page`): each resolves the
caller first (`_actor`), and the service checks the role again."""
import streamlit as st

from backend.security.access import Actor
from backend.chat.types import CONTEXT_LIMITS, MAX_OUTPUT_TOKENS
from backend.chatbots.generate import FIELDS
from backend.crawl.sources import MAX_DEPTH, MAX_PAGES
from backend.errors import InvalidChatbot, NotFound, RagscopeError
from backend.llm import PROVIDERS
from backend.retrieval import POLICIES
from backend.ui import state as K
from backend.llm.limits import TEMPERATURE_CAP
from pages import _chatbot_admin as admin
from pages._chatbot_common import cited_text, get_bots, sources_rows
from pages._common import current_actor, md_escape, require_page
from pages._profile_pick import profile_select

REFRESH_S = 1.0
STEPS = ("Source", "Build", "Configure", "Test", "Publish")
SOURCES = {"site": "a website it crawls (and existing collections)",
           "collections": "existing collections only"}
LABELS = {"name": "Name", "description": "Description", "system_prompt": "System prompt",
          "welcome_message": "Welcome message", "fallback_message": "Fallback message"}

require_page("editor", "the chatbot builder")
bots = get_bots()
state = st.session_state


def _flash(level: str, msg: str) -> None:
    state[K.BOTS_FLASH] = (level, msg)


def _actor() -> Actor | None:
    actor = current_actor()
    if actor is not None and not actor.can("chatbot_edit"):
        _flash("error", f"Access denied: building chatbots needs the editor role; you are "
                        f"signed in as {actor.username} ({actor.role}).")
        return None
    return actor


def _try(fn, ok: str | None = None):
    actor = _actor()
    if actor is None:
        return None
    try:
        out = fn(actor)
    except InvalidChatbot as e:
        state[K.BOTS_ERRORS] = e.errors
        return None
    except RagscopeError as e:
        _flash("error", str(e))
        return None
    state[K.BOTS_ERRORS] = None
    if ok:
        _flash("success", ok)
    return out


def _open(slug: str | None, step: int) -> None:
    state[K.BOTS_SLUG], state[K.BOTS_STEP] = slug, step
    state[K.BOTS_DRAFT] = None
    state[K.BOTS_NONCE] += 1
    state[K.BOTS_TEST_SESSION] = state[K.BOTS_TEST_LAST] = None
    if slug:
        st.query_params["bot"] = slug
    else:
        st.query_params.pop("bot", None)


# ---- callbacks ------------------------------------------------------------------------------


def _create() -> None:
    site = state.get(K.BOTS_SOURCE) != "collections"  # the fields of the other choice: unused

    def run(actor):
        bot = bots.create(actor, url=(state.get(K.BOTS_URL) or "") if site else "",
                          name=state.get(K.BOTS_NAME) or "",
                          collection=(state.get(K.BOTS_COLLECTION) or "") if site else "",
                          collections=state.get(K.BOTS_USE) or [],
                          max_pages=int(state.get(K.BOTS_PAGES) or 0),
                          max_depth=int(state.get(K.BOTS_DEPTH) or 0))
        if bot.source_url:
            bots.start_build(actor, bot.slug)
        return bot
    bot = _try(run)
    if bot is not None:
        _open(bot.slug, 2 if bot.source_url else 3)  # no build: on to its configuration
        _flash("success", f"Chatbot {bot.name} created; "
                          + ("the build has started." if bot.source_url else
                             "it answers from the chosen collections."))


def _pick() -> None:
    slug = state.get(K.BOTS_PICK)
    _open(slug or None, 3 if slug else 1)


def _goto(step: int) -> None:
    state[K.BOTS_STEP] = step
    state[K.BOTS_ERRORS] = None


def _build(action: str) -> None:
    slug = state[K.BOTS_SLUG]
    fn = {"cancel": bots.cancel_build, "resume": bots.resume_build,
          "rebuild": bots.start_build}[action]
    _try(lambda actor: fn(actor, slug),
         {"cancel": "Build cancelled; the pages crawled so far are kept.",
          "resume": "Build resumed.", "rebuild": "Build started."}[action])


def _draft(slug: str) -> dict:
    """The configuration shown in the form: the stored one, plus generated text not saved
    yet. The form's widgets take their values from it (value=) and get new keys (nonce)
    whenever it changes, so the browser never holds a stale value for a widget."""
    d = state.get(K.BOTS_DRAFT)
    if not d or d.get("slug") != slug:
        d = {"slug": slug, "values": bots.get(slug).config.to_dict()}
        state[K.BOTS_DRAFT] = d
    return d["values"]


def _generate(field: str) -> None:
    slug = state[K.BOTS_SLUG]
    out = _try(lambda actor: bots.generate(actor, slug, field))
    if out is not None:
        _draft(slug)[field] = out.text
        state[K.BOTS_NONCE] += 1  # a fresh form showing the draft
        how = "by the LLM" if out.method.startswith("llm") else "from the site's content"
        _flash("warning" if out.note else "success",
               f"{LABELS[field]} generated {how}." + (f" ({out.note})" if out.note else ""))


FORM_FIELDS = (*FIELDS, "collections", "provider", "model", "policy", "temperature",
               "max_tokens", "context_limit", "profile_id", *admin.ANSWER_FIELDS)


def _save(nonce: int, then: int | None = None) -> None:
    """The form's submit: its values as they are now, saved as one version."""
    slug = state[K.BOTS_SLUG]
    values = {f: state[K.bots_field(slug, nonce, f)] for f in FORM_FIELDS
              if K.bots_field(slug, nonce, f) in state}
    _draft(slug).update(values)  # kept when refused, so the errors show next to them
    bot = _try(lambda actor: bots.update(actor, slug, **values), "Saved.")
    state[K.BOTS_NONCE] += 1
    if bot is not None:
        state[K.BOTS_DRAFT] = None  # read back what was stored
        if then is not None:
            state[K.BOTS_STEP] = then


def _ask() -> None:
    slug, q = state[K.BOTS_SLUG], state.get(K.BOTS_QUESTION) or ""
    ans = _try(lambda actor: bots.ask(actor, slug, q, session=state[K.BOTS_TEST_SESSION]))
    if ans is not None:
        state[K.BOTS_TEST_SESSION], state[K.BOTS_TEST_LAST] = ans.session, ans


def _delete(slug: str) -> None:
    done = _try(lambda actor: bots.delete(actor, slug))
    state[K.BOTS_DELETE_PENDING] = None
    if done is not None:
        _open(None, 1)
        _flash("success", f"Chatbot {done.name} deleted with {done.conversations} "
                          f"conversation(s); its collections stay: "
                          f"{', '.join(done.collections_kept)}.")


def _publish(on: bool) -> None:
    slug = state[K.BOTS_SLUG]
    fn = bots.publish if on else bots.unpublish
    _try(lambda actor: fn(actor, slug),
         "Published: viewers can open it now." if on else
         "Unpublished; the configuration is kept.")


# ---- page -----------------------------------------------------------------------------------

st.title("Chatbot builder")
flash = state.get(K.BOTS_FLASH)
if flash:
    level, msg = flash
    getattr(st, level, st.info)(md_escape(msg))
    state[K.BOTS_FLASH] = None

qp = st.query_params.get("bot")
if qp and qp != state[K.BOTS_SLUG]:  # a reload or a link: reconnect to that bot
    state[K.BOTS_SLUG] = qp
    state[K.BOTS_STEP] = 2
slug = state[K.BOTS_SLUG]
bot = None
if slug:
    try:
        bot = bots.open(current_actor(), slug)  # NotFound outside the editor's scope
    except NotFound:
        st.error(f"Chatbot {md_escape(slug)} does not exist (any more).")
        _open(None, 1)
        slug = None
step = state[K.BOTS_STEP] if bot is not None else 1

all_bots = bots.list(current_actor())
with st.sidebar:
    choices = [None, *(b.slug for b in all_bots)]
    st.selectbox("Continue with a chatbot", choices, key=K.BOTS_PICK, on_change=_pick,
                 format_func=lambda s: "— new chatbot —" if s is None else s)

st.caption("Steps: " + " → ".join(f"**{i:d}. {md_escape(name)}**" if i == step else
                                  f"{i:d}. {md_escape(name)}"
                      for i, name in enumerate(STEPS, 1)))
if bot is not None:
    st.caption(f"Chatbot **{md_escape(bot.name)}** ({md_escape(bot.slug)}) · "
               f"{md_escape(bot.status)} · configuration version {bot.config_version:d}")
errors = state.get(K.BOTS_ERRORS) or {}


def field_error(*names: str) -> None:
    for n in names:
        if n in errors:
            st.error(f"{md_escape(n)}: {md_escape(errors[n])}")


# 1 -------------------------------------------------------------------------------------------
if step == 1:
    st.subheader("1. Source", anchor=False)
    source = st.radio("The chatbot answers from", [md_escape(s) for s in SOURCES],
                      format_func=lambda s: md_escape(SOURCES[s]), key=K.BOTS_SOURCE,
                      horizontal=True)
    site = source == "site"
    if site:
        st.text_input("URL of the site to crawl", key=K.BOTS_URL,
                      placeholder="https://www.example.org/")
        field_error("url")
    c = st.columns(2)
    if site:
        c[0].text_input("Collection name (empty: derived from the URL)", key=K.BOTS_COLLECTION,
                        placeholder="example-org")
    c[1 if site else 0].text_input(
        "Chatbot name (empty: derived from the URL)" if site else
        "Chatbot name (empty: derived from the collections)", key=K.BOTS_NAME)
    field_error("collection", "name", "slug")
    st.multiselect("Also answer from existing collections" if site else "Collections",
                   bots.collection_names(current_actor()), key=K.BOTS_USE)
    field_error("collections")
    if site:
        c = st.columns(2)
        c[0].number_input("Max pages", 1, MAX_PAGES, 50, key=K.BOTS_PAGES)
        c[1].number_input("Max depth", 1, MAX_DEPTH, 3, key=K.BOTS_DEPTH)
        field_error("max_pages", "max_depth")
    st.button("Create and start the build" if site else "Create", key=K.BOTS_CREATE,
              type="primary", on_click=_create)

# 2 -------------------------------------------------------------------------------------------
elif step == 2:
    st.subheader("2. Build: crawl and embed", anchor=False)
    first = bots.build_progress(slug)

    @st.fragment(run_every=REFRESH_S if first.active else None)
    def progress_view(was_active: bool) -> None:
        actor = current_actor()  # a fragment rerun skips require_page: check here too
        p = bots.build_progress(slug)
        if actor is None or not actor.can("chatbot_edit") or p.active != was_active:
            st.rerun()
        if p.status == "none":
            st.info("This chatbot has no build: it answers from its chosen collections.")
        else:
            eta = f" · about {p.eta_s:.0f} s left" if p.eta_s is not None else ""
            st.progress(p.fraction, text=f"{md_escape(p.status)} · {p.pages_done:d} of "
                                         f"{p.pages_total:d} pages{eta}")
            st.text(f"Current URL: {p.current_url or '–'}")
        m = st.columns(3)
        m[0].metric("Pages crawled", int(p.pages_done))
        m[1].metric("Chunks embedded", int(p.chunks_embedded))
        m[2].metric("Documents", int(p.documents))
        if p.problem:
            st.error(md_escape(p.problem))
        b = st.columns(4)
        if p.active:
            b[0].button("Cancel", key=K.BOTS_CANCEL, on_click=_build, args=("cancel",),
                        icon=":material/stop:", disabled=p.status != "running")
        elif p.resumable:
            b[0].button("Resume", key=K.BOTS_RESUME, on_click=_build, args=("resume",),
                        icon=":material/play_arrow:")
        elif p.status != "none":
            b[0].button("Crawl again", key=K.BOTS_REBUILD, on_click=_build,
                        args=("rebuild",), icon=":material/refresh:")
        if b[3].button("Next: configure", key=f"{K.BOTS_GOTO}.3", type="primary",
                       disabled=p.active or not p.chunks_embedded):
            _goto(3)
            st.rerun(scope="app")  # a button in a fragment reruns only the fragment

    progress_view(first.active)

# 3 -------------------------------------------------------------------------------------------
elif step == 3:
    st.subheader("3. Configure", anchor=False)
    draft, nonce = _draft(slug), state[K.BOTS_NONCE]
    st.caption("Generate fills a field from the crawled pages; unsaved edits of the form are "
               "replaced by the saved configuration, so save first.")
    g = st.columns(len(FIELDS))
    for col, f in zip(g, FIELDS):
        col.button(f"Generate {md_escape(LABELS[f].lower())}", key=f"{K.BOTS_GENERATE}.{f}",
                   on_click=_generate, args=(f,), icon=":material/auto_awesome:")

    def key(f: str) -> str:
        return K.bots_field(slug, nonce, f)

    with st.form(f"{K.BOTS_SAVE}.form.{nonce:d}"):
        for f in FIELDS:
            widget = st.text_area if f == "system_prompt" else st.text_input
            widget(md_escape(LABELS[f]), value=draft[f], key=key(f))
            field_error(f)
        st.markdown("**Answering**")
        names = sorted(set(bots.collection_names(current_actor()))
                       | set(draft["collections"]))
        st.multiselect("Collections", names, default=draft["collections"],
                       key=key("collections"))
        c = st.columns(3)
        c[0].selectbox("Provider", PROVIDERS, index=PROVIDERS.index(draft["provider"]),
                       key=key("provider"))
        c[1].text_input("Model (empty: the provider's default)", value=draft["model"],
                        key=key("model"))
        c[2].selectbox("Retrieval policy", list(POLICIES),
                       index=list(POLICIES).index(draft["policy"]), key=key("policy"))
        c = st.columns(3)
        c[0].slider("Temperature", 0.0, TEMPERATURE_CAP, float(draft["temperature"]),
                    step=0.05, key=key("temperature"),
                    help="Up to 2.0 where the provider allows it (Anthropic: 1.0).")
        c[1].number_input("Max tokens", 1, MAX_OUTPUT_TOKENS, int(draft["max_tokens"]),
                          key=key("max_tokens"))
        c[2].selectbox("Sources per answer", CONTEXT_LIMITS,
                       index=CONTEXT_LIMITS.index(draft["context_limit"]),
                       key=key("context_limit"))
        profile_select(bots.rs, draft.get("profile_id"), key("profile_id"))  # issue 26
        admin.answer_settings(draft, key)
        field_error("collections", "provider", "model", "temperature", "max_tokens",
                    "context_limit", "policy", "profile_id", *admin.ANSWER_FIELDS)
        b = st.columns(4)
        b[0].form_submit_button("Save", key=K.BOTS_SAVE, on_click=_save, args=(nonce,))
        b[3].form_submit_button("Save and test", key=f"{K.BOTS_GOTO}.4", on_click=_save,
                                args=(nonce, 4), type="primary")
    st.button("Back", key=f"{K.BOTS_GOTO}.2", on_click=_goto, args=(2,))

# 4 -------------------------------------------------------------------------------------------
elif step == 4:
    st.subheader("4. Test chat", anchor=False)
    st.caption("The same answer path the published bot uses: its collections, prompt and "
               "settings; the fallback message when the pages hold no evidence.")
    if bot.config.welcome_message:
        with st.chat_message("assistant"):
            st.markdown(md_escape(bot.config.welcome_message))
    with st.form(K.BOTS_ASK, clear_on_submit=False):
        st.text_input("Question", key=K.BOTS_QUESTION)
        st.form_submit_button("Ask", on_click=_ask, type="primary")
    last = state.get(K.BOTS_TEST_LAST)
    if last is not None:
        with st.chat_message("assistant"):
            st.markdown(md_escape(last.text))
            if last.fallback_used:
                st.caption("No evidence in the collections (or none relevant enough): the "
                           "fallback message was shown.")
            for s in last.sources:
                if s.get("cited"):
                    st.caption(md_escape(cited_text(s)))
        if last.sources_hidden:
            st.caption("Sources are hidden for this bot (Show sources is off).")
        else:
            st.dataframe(sources_rows(last.sources), hide_index=True)
    admin.stats_panel(bots, current_actor(), slug)
    b = st.columns(4)
    b[0].button("Back", key=f"{K.BOTS_GOTO}.3", on_click=_goto, args=(3,))
    b[3].button("Next: publish", key=f"{K.BOTS_GOTO}.5", on_click=_goto, args=(5,),
                type="primary")

# 5 -------------------------------------------------------------------------------------------
else:
    st.subheader("5. Publish", anchor=False)
    p = bots.build_progress(slug)
    st.dataframe([{"field": k, "value": str(v)} for k, v in bot.config.to_dict().items()],
                 hide_index=True)
    st.caption(f"{p.documents:d} documents · {p.chunks_embedded:d} chunks embedded")
    field_error(*FIELDS, "collections")
    b = st.columns(4)
    b[0].button("Back", key=f"{K.BOTS_GOTO}.4", on_click=_goto, args=(4,))
    if bot.published:
        st.success("Published.")
        st.page_link("pages/chatbot.py", label="Open the chatbot page",
                     query_params={"bot": slug}, icon=":material/chat:")
        st.caption("To embed it in another site (iframe, no dashboard menu): "
                   f"/chatbot?bot={md_escape(slug)}&embed=true (docs/chatbots.md).")
        b[3].button("Unpublish", key=K.BOTS_UNPUBLISH, on_click=_publish, args=(False,))
    else:
        b[3].button("Publish", key=K.BOTS_PUBLISH, on_click=_publish, args=(True,),
                    type="primary")

if bot is not None and step >= 3:
    st.divider()
    admin.delete_section(bots, current_actor(), slug, _delete)
