"""The chat page's answers as replayable ask jobs (backend/services/ask_jobs.py, issue 26):
the answer is made in a worker thread and its events are stored, so a reload of the page
mid-answer (a new script run; the old one is stopped) finds the job in the URL (`?job=`)
and follows it from its first event instead of losing the answer."""
from __future__ import annotations

import json
import time
import streamlit as st

from backend.api import ask_events
from backend.errors import NotFound
from backend.security.safe_markdown import answer_markdown
from backend.services import ask_jobs, auto_critique
from backend.services.ask_jobs import status as job_state
from pages._common import current_actor, md_escape

JOB_PARAM = "job"
RENDER_S = 0.15  # a followed answer is re-rendered at most this often (as the direct flow)


def start(rs, user, question: str, events) -> str:
    """Start the job over the chat's `events`, note it in the URL, return its id."""
    events = auto_critique.with_critique(rs, current_actor(), events)  # RAGSCOPE_CRITIQUE_AUTO
    job = ask_jobs.start_events(rs, user, question, events, encode=ask_events.encode)
    st.query_params[JOB_PARAM] = job.id
    return job.id


def follow(rs, user, job_id: str, rich: bool, bold: bool = False) -> None:
    """Show the job's events as they are stored; at its answer (or error) forget the job and
    rerun, so the stored answer is shown from the session with its sources. `bold`: the
    extractive answer's bold value is shown bold (backend/security/safe_markdown.py)."""
    status, body, text, shown_at = st.empty(), st.empty(), "", 0.0
    for _, name, data in ask_jobs.stream(rs, user, job_id):
        d = json.loads(data)
        if name == "sources":
            status.caption(f"{len(d['sources'])} source(s) found in "
                           f"{d['retrieval_ms']:.0f} ms")
        elif name == "delta":
            text += d["text"]
            if time.monotonic() - shown_at >= RENDER_S:
                body.markdown(answer_markdown(text, rich=rich, bold=bold) + "▌")
                shown_at = time.monotonic()
        elif name == "status" and d.get("phase") == "critiquing":
            status.caption("critiquing… (the critics check the answer; a revision may "
                           "replace it)")
        elif name == "notice":
            text, rich, bold = "", False, True  # the extractive answer follows
            body.warning(md_escape(d["message"]))
        elif name == "error":
            st.query_params.pop(JOB_PARAM, None)
            st.error(md_escape(d["error"]["message"]))
            return
    st.query_params.pop(JOB_PARAM, None)
    st.rerun()


def pending(rs, user) -> ask_jobs.JobInfo | None:
    """The running job named in the URL, if it is the user's; a finished or unknown one is
    dropped from the URL (its answer, if any, is in the session's history)."""
    job_id = st.query_params.get(JOB_PARAM)
    if not job_id:
        return None
    try:
        job = job_state(rs, user, job_id)
    except NotFound:
        job = None
    if job is None or job.status != "running":
        st.query_params.pop(JOB_PARAM, None)
        if job is not None and job.status in ("failed", "stale"):
            st.error(f"The answer to “{md_escape(job.question[:80])}” could not be completed "
                     f"({md_escape(job.status)}); ask again.")
        return None
    return job
