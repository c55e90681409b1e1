"""Critics: the configured critics (fact checker, stylist, structure analyst, format checker
and any an admin adds) with type, threshold and whether they are active; admins edit their
prompt, rubric, threshold and active flag; the recent critique runs with every round, each
critic's rating, issues and suggestions, and the revisions (admins see every run, others
their own). A text (a summary, a draft) can be critiqued here too. All logic is in
backend/services/critique.py; docs/chat.md "Critics"."""
import streamlit as st

from backend.errors import RagscopeError
from backend.services import critique as critique_service
from pages._common import current_actor, get_rs, md_escape, require_page
from pages._critiques import show_run

# Widget keys of this page (prefix "critics.")
CRITICS_EDIT = "critics.edit."  # + critic id + "." + field
CRITICS_FLASH = "critics.flash"
CRITICS_TEXT = "critics.text"
CRITICS_SOURCES = "critics.sources"
CRITICS_RUN = "critics.run"

user = require_page("viewer")
rs = get_rs()
is_admin = user.role == "admin"


def _save(critic_id: int) -> None:
    k = f"{CRITICS_EDIT}{critic_id:d}."
    state = st.session_state
    fields = {f: state.get(k + f) for f in ("prompt", "rubric", "threshold", "active")}
    try:
        info = critique_service.update_critic(rs, current_actor(), critic_id, **fields)
        state[CRITICS_FLASH] = ("success", f"{info.name} saved.")
    except RagscopeError as e:
        state[CRITICS_FLASH] = ("error", str(e))


def _critique_text() -> None:
    state = st.session_state
    sources = [p.strip() for p in (state.get(CRITICS_SOURCES) or "").split("\n\n") if p.strip()]
    try:
        run = critique_service.critique_text(rs, current_actor(), state.get(CRITICS_TEXT) or "",
                                             sources=sources, kind="text")
        state[CRITICS_FLASH] = ("success", f"Critique run {run['id']} done: {run['status']}.")
    except RagscopeError as e:
        state[CRITICS_FLASH] = ("error", str(e))


def _critic_form(c) -> None:
    k = f"{CRITICS_EDIT}{c.id:d}."
    with st.form(k + "form", border=False):
        st.checkbox("Active", value=c.active, key=k + "active")
        st.number_input("Threshold (passes at this rating or above)", min_value=0.0,
                        max_value=10.0, step=0.5, value=float(c.threshold), key=k + "threshold")
        if not c.deterministic:
            st.text_area("Prompt ({answer}, {sources}, {question}, {rubric}, {style_rules})",
                         value=c.prompt, height=220, key=k + "prompt")
        st.text_area("Rubric", value=c.rubric, height=110, key=k + "rubric")
        st.form_submit_button("Save", on_click=_save, args=(c.id,), icon=":material/save:")


st.title("Critics")
st.caption("Critique rounds: every active critic rates a generated answer 0-10; one below "
           "its threshold makes the model revise the answer with the critiques, up to "
           f"{rs.settings.critique_max_rounds:d} time(s) (RAGSCOPE_CRITIQUE_MAX_ROUNDS).")
flash = st.session_state.pop(CRITICS_FLASH, None)
if flash:
    (st.success if flash[0] == "success" else st.error)(md_escape(flash[1]))

critics = critique_service.list_critics(rs, current_actor())
st.dataframe([{"name": c.name, "type": c.type, "checked by": "code" if c.deterministic
               else "model", "threshold": c.threshold, "active": c.active} for c in critics],
             hide_index=True)
if is_admin:
    for c in critics:
        with st.expander(md_escape(f"Edit {c.name} ({c.type})"), icon=":material/edit:"):
            _critic_form(c)
else:
    st.caption("Editing critics needs the admin role.")

st.subheader("Critique a text")
with st.form("critics.text_form", border=False):
    st.text_area("Text (a summary, a draft answer)", key=CRITICS_TEXT, height=120)
    st.text_area("Sources (one per paragraph; cite them as [1], [2], …)",
                 key=CRITICS_SOURCES, height=120)
    st.form_submit_button("Critique", key=CRITICS_RUN, on_click=_critique_text,
                          icon=":material/fact_check:")

st.subheader("Recent critique runs")
runs = critique_service.recent_runs(rs, current_actor(), limit=30)
if not runs:
    st.info("No critique runs yet: critique an answer in the chat (the Critiques expander "
            "under it), with `python -m backend critique`, or above.")
for run in runs:
    where = f"answer {run['message_id']}" if run["message_id"] else run["kind"]
    label = f"Run {run['id']}: {where} · {run['status']} · {run['user']} · {run['created_at']}"
    with st.expander(md_escape(label)):
        st.markdown("**Original**")
        st.code(run["original_text"], language=None, wrap_lines=True)
        show_run(run)
