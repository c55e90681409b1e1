"""Streamlit glue of critique rounds, shared by the chat page and the Critics page: a run's
rounds (each critic's rating, issues and suggestions, the revisions, the final status) and,
under a chat answer, an expander with its critiques and a button to critique it. Everything
is done by backend/services/critique.py; this module reads the widgets and shows the runs."""
from __future__ import annotations

import streamlit as st

from backend.errors import RagscopeError
from backend.services import critique as critique_service
from pages._common import current_actor, get_rs, md_escape

def runs_of(message_ids: list[int]) -> dict[int, list[dict]]:
    """The critique runs of these answers (newest first), by message id."""
    return critique_service.runs_of_messages(get_rs(), current_actor(), message_ids)


def status_badge(status: str) -> str:
    if status == "validated":
        return ":green-badge[validated]"
    if status == "revised":
        return ":blue-badge[revised]"
    if status == "failed":
        return ":red-badge[failed]"
    if status == "interrupted":
        return ":orange-badge[interrupted]"
    return ":gray-badge[running]"


def auto_caption(citations: dict | None) -> None:
    """Under an answer critiqued automatically (RAGSCOPE_CRITIQUE_AUTO,
    backend/services/auto_critique.py): what became of it; nothing for one that was not."""
    mark = (citations or {}).get("critique")
    if mark:
        st.caption(_auto_line(mark))


def _auto_line(mark: dict) -> str:
    status = mark.get("status")
    if status == "revised":
        return f"revised after critique (round {int(mark.get('revised_in_round') or 1):d})"
    if status == "validated":
        return "checked by the critics: every critic passed"
    if status == "failed":
        return ("critiqued: not every critic passed, the answer is shown as written"
                + (f" ({md_escape(mark['error'])})" if mark.get("error") else ""))
    return f"not critiqued: {md_escape(mark.get('error') or status)}"


def _critique_line(c: dict) -> str:
    rating = "no rating" if c["rating"] is None else f"{c['rating']:g}/10"
    mark = ":green[pass]" if c["passed"] else ":red[fail]"
    how = "code" if c["deterministic"] else "model"
    return (f"- **{md_escape(c['critic'])}** ({md_escape(c['type'])}, {how}): {rating} "
            f"(needs {c['threshold']:g}) {mark}")


def show_run(run: dict) -> None:
    """Every round of a run: the critiques, then the revision that answered them."""
    st.markdown(f"{status_badge(run['status'])} after {run['rounds']:d} round(s) · "
                f"{md_escape(run['provider'])} · {md_escape(run['model'])} · "
                f"{(run['duration_ms'] or 0) / 1000:.1f} s")
    if run["error"]:
        st.caption(md_escape(run["error"]))
    for rnd in run["critique_rounds"]:
        st.markdown(f"**Round {rnd['round']:d}** · "
                    + ("every critic passed" if rnd["all_passed"] else "not every critic passed"))
        for c in rnd["critiques"]:
            st.markdown(_critique_line(c))
            for issue in c["issues"]:
                st.markdown(f"    - issue: {md_escape(issue)}")
            for s in c["suggestions"]:
                st.markdown(f"    - suggestion: {md_escape(s)}")
            if c["error"]:
                st.markdown(f"    - :orange[critique failed:] {md_escape(c['error'])}")
                if c["raw"]:
                    st.code(c["raw"][:2000], language=None)
        if rnd["revision"]:
            st.markdown(f"Revision after round {rnd['round']:d}:")
            st.code(rnd["revision"], language=None, wrap_lines=True)


def _run(prefix: str, message_id: int) -> None:
    state = st.session_state
    try:
        critique_service.critique_message(get_rs(), current_actor(), message_id)
        state.pop(f"{prefix}{message_id:d}.error", None)
    except RagscopeError as e:
        state[f"{prefix}{message_id:d}.error"] = str(e)


def critique_expander(prefix: str, message_id: int, runs: list[dict] | None) -> None:
    """Under an answer: its latest critique run (older ones counted) and a button to run the
    critics (revising up to RAGSCOPE_CRITIQUE_MAX_ROUNDS times)."""
    runs = runs or []
    label = (f"Critiques: {runs[0]['status']} after {runs[0]['rounds']:d} round(s)" if runs
             else "Critiques")
    with st.expander(md_escape(label), icon=":material/rate_review:"):
        if runs:
            show_run(runs[0])
            if len(runs) > 1:
                st.caption(f"{len(runs) - 1:d} earlier run(s) on the Critics page.")
        else:
            st.caption("Not critiqued yet.")
        error = st.session_state.get(f"{prefix}{message_id:d}.error")
        if error:
            st.error(md_escape(error))
        st.button("Critique this answer", key=f"{prefix}{message_id:d}.run",
                  icon=":material/fact_check:", on_click=_run, args=(prefix, message_id),
                  help="The active critics rate the answer; one below its threshold makes "
                       "the model revise it (slow with a local model).")
