"""Streamlit glue for background jobs (backend/services/background.py): a running job is shown
live (progress bar, cancel button) in a fragment that polls the job row, so the rest of the
page stays usable; the page that watched it run lands on its result once it has finished.
A reload or a second tab finds the running job in the store and follows it (no second run)."""
from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from backend.services import background
from backend.services.background import JobView
from backend.ui import state as K
from pages._common import get_rs, md_escape, show_errors

POLL_S = 1.0  # one job-row read per second per open page; the progress moves at most this late


def start(begin: Callable[[], int], then: Callable[[], None] | None = None) -> None:
    """Start a job (`begin` returns its id; a refusal, e.g. JobRunning naming the job that
    runs, is shown as an error) and follow it from the next run on, also when it finishes
    before that run. `then`: what the page does once it has started."""
    job_id = show_errors(begin)
    if job_id is None:
        return
    st.session_state[f"{K.JOBS_WATCH}.{background.view(get_rs().store, job_id).kind}"] = job_id
    if then is not None:
        then()
    st.rerun()


def follow(job: JobView | None) -> JobView | None:
    """Show `job` (the newest of its kind) while it runs. Returns it once, when it has
    finished and this session watched it run: the page then lands on its result."""
    if job is None:
        return None
    watch = f"{K.JOBS_WATCH}.{job.kind}"
    if job.running:
        st.session_state[watch] = job.id
        _live(job.id)
        return None
    if st.session_state.get(watch) == job.id:
        st.session_state[watch] = None
        return job
    if job.status in ("failed", "interrupted"):  # e.g. the server stopped while it ran
        at = f" at {job.finished_at:%H:%M} UTC" if job.finished_at else ""
        st.caption(md_escape(f"The last {job.title.split(' ', 1)[-1]} (job {job.id}) "
                             f"failed{at}: {job.error or 'no reason given'}"))
    return None


@st.fragment(run_every=POLL_S)
def _live(job_id: int) -> None:
    v = background.view(get_rs().store, job_id)
    if not v.running:
        st.rerun()  # the whole page: it lands on the result
    st.progress(v.fraction, text=md_escape(f"{v.title}: {v.progress_text()}"))
    who = f" by {v.by}" if v.by else ""
    at = f" at {v.started_at:%H:%M} UTC" if v.started_at else ""
    st.caption(f"Job {v.id:d} started{md_escape(who)}{at}. It runs on the server: you can use "
               "other pages or reload, and come back to see it.")
    if v.cancel_requested:
        st.caption("Cancel requested: it stops at its next step.")
    elif v.cancellable and st.button("Cancel", key=f"{K.JOBS_CANCEL}.{v.id}",
                                     icon=":material/cancel:"):
        background.cancel(get_rs().store, v.id)
        st.rerun(scope="fragment")


def show_outcome(job: JobView, done_text: str = "") -> bool:
    """The end of a job in one line: True for done (after `done_text` as success), else the
    reason it failed, was cancelled or interrupted (never a traceback)."""
    if job.status == "done":
        if done_text:
            st.success(md_escape(done_text))
        return True
    if job.status == "cancelled":
        st.warning(md_escape(f"{job.title} (job {job.id}) was cancelled."))
    else:
        st.error(md_escape(f"{job.title} (job {job.id}) failed: {job.error or 'no reason given'}"))
    return False
