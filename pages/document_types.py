"""Document types (admin): the type registry that classification uses (label, prompt hint,
heuristic signals, priority, default processing profile), the processing profiles, and
reclassifying every document after a change (only documents whose profile changes are
re-chunked)."""
import json

import streamlit as st

from backend.services import classification as classes
from backend.services import dashboard_jobs
from backend.ui import state as K
from pages._common import (
    clear_listings,
    current_actor,
    get_rs,
    md_escape,
    require_page,
    show_errors,
)
from pages._jobs import follow, show_outcome
from pages._jobs import start as start_job

user = require_page("admin", "the document-type registry")
rs = get_rs()
st.title("Document types")

flash = st.session_state.get(K.DOCTYPES_FLASH)
if flash:
    st.success(md_escape(flash))
    st.session_state[K.DOCTYPES_FLASH] = None

types = show_errors(lambda: classes.types(rs)) or []
st.dataframe(classes.types_table(rs), hide_index=True)

# ---- edit or add a type ---------------------------------------------------------------------
by_name = {t.name: t for t in types}
options = [""] + list(by_name)
if st.session_state.get(K.DOCTYPES_PICK) not in options:
    st.session_state[K.DOCTYPES_PICK] = ""
pick = st.selectbox("Edit type", options, key=K.DOCTYPES_PICK,
                    format_func=lambda n: "(add a new type)" if not n else
                    f"{n} – {by_name[n].label}")
t = by_name.get(pick)
profiles = classes.profile_names()


def field(name: str) -> str:
    return K.doctypes_field(pick, name)


with st.form(K.DOCTYPES_FORM):
    name = st.text_input("Name (lower case, digits, _)", value=t.name if t else "",
                         key=field("name"), disabled=t is not None)
    label = st.text_input("Label", value=t.label if t else "", key=field("label"))
    category = st.text_input("Category", value=t.category if t else "", key=field("category"))
    description = st.text_area("Description", value=t.description if t else "",
                               key=field("description"), height=68)
    hint = st.text_area("Prompt hint (for the LLM classifier)", value=t.prompt_hint if t else "",
                        key=field("hint"), height=68)
    profile = st.selectbox("Default processing profile", profiles,
                           index=profiles.index(t.default_profile) if t else 0,
                           key=field("profile"))
    priority = st.number_input("Priority (ties go to the higher)", -1000, 1000,
                               value=t.priority if t else 0, key=field("priority"))
    enabled = st.checkbox("Enabled", value=t.enabled if t else True, key=field("enabled"))
    signals = st.text_area(
        "Heuristic signals (JSON: extensions, names, title, text, structure, traits, formats, "
        "source_kinds)", value=json.dumps(t.signals if t else {}, indent=1, ensure_ascii=False),
        key=field("signals"), height=220)
    if st.form_submit_button("Save type", type="primary"):
        saved = show_errors(lambda: classes.save_type(
            rs, user.role, name=(t.name if t else name), label=label, category=category,
            description=description, prompt_hint=hint, default_profile=profile,
            priority=int(priority), enabled=enabled, signals_json=signals))
        if saved is not None:
            st.session_state[K.DOCTYPES_FLASH] = (
                f"Saved {saved.name}. Reclassify to apply it to stored documents.")
            st.rerun()
if t is not None and not t.builtin:
    if st.button(f"Delete type {md_escape(t.name)}", key=K.DOCTYPES_DELETE,
                 icon=":material/delete:"):
        if show_errors(lambda: classes.delete_type(rs, user.role, t.name) or True):
            st.session_state[K.DOCTYPES_FLASH] = f"Deleted {t.name}."
            st.rerun()

# ---- reclassify ---------------------------------------------------------------------------------
st.subheader("Reclassify documents", anchor=False)
st.caption("Classifies every document's active version again with the registry above; "
           "documents whose processing profile changes are re-sectioned and re-chunked "
           "(the others keep their chunks). It runs in the background; a cancel stops after the "
           "document in hand. Also `python -m backend reclassify --all`.")
dry = st.checkbox("Only report what would change", key=K.DOCTYPES_DRY_RUN)
finished = follow(dashboard_jobs.latest(rs, dashboard_jobs.RECLASSIFY))
if finished is not None and show_outcome(finished, finished.result.get("summary", "")):
    clear_listings()
if st.button("Reclassify all documents", key=K.DOCTYPES_RECLASSIFY, icon=":material/sync:"):
    start_job(lambda: dashboard_jobs.start_reclassify(rs, current_actor(), dry_run=dry))

# ---- profiles -----------------------------------------------------------------------------------
st.subheader("Processing profiles", anchor=False)
st.dataframe(classes.profiles_table(), hide_index=True)
