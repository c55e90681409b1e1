"""Author profiles (editor; issue 26, seed 000): the style rules chat sessions and chatbots
write by — tone, formality, form of address, longest sentence, forbidden words, output
format. List, create, edit, delete (sessions and chatbots using a deleted profile fall back
to none), and the rules as the model sees them. Everything goes through ProfileService
(backend/chat/profiles.py), which checks the role again."""
import streamlit as st

from backend.chat.profile_rules import ADDRESSES, FORMALITIES, OUTPUT_FORMATS
from backend.chat.profiles import ProfileService
from backend.ui import state as K
from backend.ui.profiles import (
    ADDRESS_LABELS,
    FORMAT_LABELS,
    FORMALITY_LABELS,
    table_rows,
    words_text,
)
from pages._common import current_actor, get_rs, md_escape, require_page, show_errors

user = require_page("editor", "the author profiles")
rs = get_rs()
svc = ProfileService(rs)
st.title("Author profiles")
st.caption("Style rules for answers: chosen per chat session (Session settings) and per "
           "chatbot. They follow the fixed rules of the prompt and never override them "
           "(citations, sources only); the format check flags what breaks them.")

flash = st.session_state.get(K.PROFILES_FLASH)
if flash:
    st.success(md_escape(flash))
    st.session_state[K.PROFILES_FLASH] = None

profiles = show_errors(svc.list) or []
usage = {p.id: svc.usage(p.id) for p in profiles}
if profiles:
    st.dataframe(table_rows(profiles, usage), hide_index=True)
else:
    st.info("No author profiles yet: create one below, or the samples with "
            "`python -m backend profiles samples`.")

# ---- edit or add a profile ------------------------------------------------------------------
by_id = {p.id: p for p in profiles}
options = [0] + list(by_id)
if st.session_state.get(K.PROFILES_PICK) not in options:
    st.session_state[K.PROFILES_PICK] = 0
pick = st.selectbox("Edit profile", options, key=K.PROFILES_PICK,
                    format_func=lambda i: "(add a new profile)" if not i else by_id[i].name)
p = by_id.get(pick)


def field(name: str) -> str:
    return K.profiles_field(pick, name)


with st.form(K.PROFILES_FORM):
    name = st.text_input("Name", value=p.name if p else "", key=field("name"))
    description = st.text_input("Description", value=p.description if p else "",
                                key=field("description"))
    tone = st.text_input("Tone", value=p.tone if p else "", key=field("tone"),
                         placeholder="e.g. sachlich, präzise")
    c1, c2, c3 = st.columns(3)
    formality = c1.selectbox("Formality", FORMALITIES, format_func=FORMALITY_LABELS.get,
                             index=FORMALITIES.index(p.formality if p else "neutral"),
                             key=field("formality"))
    address = c2.selectbox("Form of address", ADDRESSES, format_func=ADDRESS_LABELS.get,
                           index=ADDRESSES.index(p.address if p else "none"),
                           key=field("address"))
    output_format = c3.selectbox("Output format", OUTPUT_FORMATS, format_func=FORMAT_LABELS.get,
                                 index=OUTPUT_FORMATS.index(p.output_format if p else "markdown"),
                                 key=field("output_format"))
    max_words = st.number_input("Max words per sentence (0: no limit)", 0, 100,
                                value=(p.max_sentence_words or 0) if p else 0,
                                key=field("max_sentence_words"))
    forbidden = st.text_area("Forbidden words and forms (one a line or comma-separated)",
                             value=words_text(p.forbidden_words) if p else "",
                             key=field("forbidden_words"), height=90)
    extra = st.text_area("More rules (one a line)", value=p.extra_rules if p else "",
                         key=field("extra_rules"), height=90)
    if st.form_submit_button("Save profile", type="primary", icon=":material/save:"):
        values = dict(name=name, description=description, tone=tone, formality=formality,
                      address=address, output_format=output_format,
                      max_sentence_words=int(max_words) or None, forbidden_words=forbidden,
                      extra_rules=extra)
        saved = show_errors(lambda: svc.update(current_actor(), p.id, **values) if p else
                            svc.create(current_actor(), **values))
        if saved is not None:
            st.session_state[K.PROFILES_FLASH] = f"Saved author profile {saved.name}."
            st.rerun()

if p is not None:
    st.subheader("The rules as the model sees them", anchor=False)
    language = st.radio("Language", ("en", "de"), horizontal=True, key=K.PROFILES_LANGUAGE,
                        format_func=lambda c: md_escape({"en": "English", "de": "Deutsch"}[c]))
    st.code(p.style_rules_text(language), language=None, wrap_lines=True)
    sessions, bots = usage.get(p.id, (0, 0))
    st.caption(f"Used by {sessions:d} chat session(s) and {bots:d} chatbot(s); deleting the "
               "profile leaves them without one.")
    if st.button(f"Delete profile {md_escape(p.name)}", key=K.PROFILES_DELETE,
                 icon=":material/delete:"):
        done = show_errors(lambda: svc.delete(current_actor(), p.id))
        if done is not None:
            st.session_state[K.PROFILES_FLASH] = done.message()
            st.rerun()  # the next run's picker falls back to "add a new profile"
