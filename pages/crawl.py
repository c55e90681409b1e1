"""Crawl: web sites and watched folders as sources with schedules (create, edit, delete, with
the validation rules of seed 003), run now, live progress with cancel and resume, the history
of runs, what the last re-crawl changed, and the skipped/refused URLs with their reasons.
Everything goes through backend/ui/crawl.py (CrawlService); URL and page text is shown
escaped or in dataframes, never as HTML.

Button callbacks run before this script (and so before `require_page`): each one resolves
the caller from the users file first (`_actor`), and crawl_ui checks the role again."""
import streamlit as st

from backend.security.access import Actor
from backend.errors import InvalidCrawlSource, RagscopeError
from backend.ui import crawl as crawl_ui
from backend.ui import state as K
from pages._common import current_actor, current_scope, md_escape, require_page
from pages._crawl_common import get_console

REFRESH_S = 2.0

require_page("editor", "managing crawl sources")
console = get_console()

st.title("Crawl")
flash = st.session_state.get(K.CRAWL_FLASH)
if flash:
    level, msg = flash
    getattr(st, level, st.info)(md_escape(msg))
    st.session_state[K.CRAWL_FLASH] = None
st.caption(md_escape(crawl_ui.scheduler_status(console)))


def _flash(level: str, msg: str) -> None:
    st.session_state[K.CRAWL_FLASH] = (level, msg)


def _actor() -> Actor | None:
    """The caller, resolved now: an ended session gives None (this run's `require_page`
    then shows the sign-in error), a role without the right gives a flash error."""
    actor = current_actor()
    if actor is not None and not actor.can("crawl"):
        _flash("error", f"Access denied: managing crawl sources needs the editor role; you "
                        f"are signed in as {actor.username} ({actor.role}).")
        return None
    return actor


def _try(fn, ok: str | None = None):
    """Run a service call from a callback as the current actor; a RagscopeError becomes
    the flash message."""
    actor = _actor()
    if actor is None:
        return None
    try:
        out = fn(actor)
    except RagscopeError as e:
        _flash("error", str(e))
        return None
    if ok:
        _flash("success", ok.format(out=out))
    return out


# ---- callbacks (run before the next script run, so they may set widget state) ------------


def _save(source_id: int | None, target: str, nonce: int) -> None:
    actor = _actor()
    if actor is None:
        return
    values = {f: st.session_state.get(K.crawl_field(target, nonce, f))
              for f in crawl_ui.FORM_FIELDS}
    try:
        src = crawl_ui.save_source(console, actor, source_id, values)
    except InvalidCrawlSource as e:
        st.session_state[K.CRAWL_ERRORS] = {"target": target, "errors": crawl_ui.form_errors(e)}
        return
    except RagscopeError as e:
        _flash("error", str(e))
        return
    st.session_state[K.CRAWL_ERRORS] = None
    _flash("success", crawl_ui.saved_message(values.get("name"), src, source_id is None))
    if source_id is None:
        st.session_state[K.CRAWL_NONCE] += 1  # a fresh form next time "new" is chosen
        st.session_state[K.CRAWL_PICK] = src.id


def _run_now(source_id: int) -> None:
    _try(lambda a: crawl_ui.run_now(console, a, source_id), "Started crawl run {out}.")


def _cancel(run_id: int) -> None:
    _try(lambda a: crawl_ui.cancel_run(console, a, run_id),
         f"Cancelling run {run_id}: requests in flight finish, fetched pages stay.")


def _resume(run_id: int) -> None:
    _try(lambda a: crawl_ui.resume_run(console, a, run_id), "Resumed run {out}.")


def _ask_delete(source_id: int) -> None:
    st.session_state[K.CRAWL_CONFIRM_DELETE] = source_id


def _delete(source_id: int) -> None:
    st.session_state[K.CRAWL_CONFIRM_DELETE] = None
    if _try(lambda a: crawl_ui.delete_source(console, a, source_id),
            "Deleted source {out}; its documents stay.") is not None:
        st.session_state[K.CRAWL_PICK] = None


def _cancel_delete() -> None:
    st.session_state[K.CRAWL_CONFIRM_DELETE] = None


# ---- live progress -----------------------------------------------------------------------

scope = current_scope()  # sources and runs of readable collections only
active = tuple(p.run_id for p in crawl_ui.active_runs(console, scope))


@st.fragment(run_every=REFRESH_S if active else None)
def live_runs(shown: tuple[int, ...]) -> None:
    runs = crawl_ui.active_runs(console, current_scope())
    actor = current_actor()  # a fragment rerun skips require_page: check here too
    if actor is None or not actor.can("crawl") or tuple(p.run_id for p in runs) != shown:
        st.rerun()  # a run started or finished: refresh history and tables too
    head, button = st.columns([5, 1])
    head.subheader("Running now", anchor=False)
    button.button("Refresh", key=K.CRAWL_REFRESH, icon=":material/refresh:")
    if not runs:
        st.caption("No crawl is running.")
        return
    for p in runs:
        r = crawl_ui.live(console, p)
        with st.container(border=True):
            st.progress(r.fraction, text=f"{md_escape(r.source)} · run {r.run_id:d} · "
                                         f"{md_escape(r.status)} · {r.pages_done:d} of "
                                         f"{r.pages_total:d} pages")
            st.text(f"Current URL: {r.current_url or '–'}")
            m = st.columns([1, 1, 1, 1])
            m[0].metric("Documents created", int(r.created))
            m[1].metric("Linked (duplicates)", int(r.linked))
            m[2].metric("Errors", int(r.errors))
            m[3].button("Cancel", key=f"{K.CRAWL_CANCEL}.{r.run_id}", icon=":material/stop:",
                        on_click=_cancel, args=(r.run_id,), disabled=r.status != "running")


live_runs(active)

# ---- sources -----------------------------------------------------------------------------

st.subheader("Sources", anchor=False)
rows = crawl_ui.source_rows(console, scope)
if rows:
    st.dataframe(rows, hide_index=True)
else:
    st.info("No crawl sources yet. Create one below.")
names = {r["id"]: r["name"] for r in rows}
if st.session_state.get(K.CRAWL_PICK) not in names:
    st.session_state[K.CRAWL_PICK] = None
sid = st.selectbox("Source", [None, *names], key=K.CRAWL_PICK,
                   format_func=lambda i: "New source…" if i is None else names[i])
src = None
if sid is not None:
    src = next((s for s in crawl_ui.list_sources(console, scope) if s.id == sid), None)
target = "new" if src is None else str(src.id)
nonce = st.session_state[K.CRAWL_NONCE]
init = crawl_ui.form_values(src)
err_state = st.session_state.get(K.CRAWL_ERRORS)
field_errors = err_state["errors"] if err_state and err_state["target"] == target else {}


def key(field: str) -> str:
    return K.crawl_field(target, nonce, field)


def error_under(field: str) -> None:
    if field in field_errors:
        st.error(md_escape(field_errors[field]))


SCHEDULE_LABELS = {"none": "none (manual only)", "interval": "every N minutes",
                   "cron": "cron expression (UTC)"}
KIND_LABELS = {"web": "web site", "folder": "watched folder"}
st.markdown("**New source**" if src is None else f"**Edit {md_escape(src.name)}**")
# kind and schedule outside the form: changing them shows that choice's fields at once
c = st.columns(2)
with c[0]:
    kind = st.radio("Kind", [md_escape(k) for k in crawl_ui.KINDS],
                    index=crawl_ui.KINDS.index(init["kind"]), key=key("kind"),
                    format_func=lambda k: md_escape(KIND_LABELS[k]), horizontal=True)
    error_under("kind")
with c[1]:
    schedule = st.radio("Schedule", [md_escape(k) for k in crawl_ui.SCHEDULE_KINDS],
                        index=crawl_ui.SCHEDULE_KINDS.index(init["schedule_kind"]),
                        key=key("schedule_kind"), horizontal=True,
                        format_func=lambda k: md_escape(SCHEDULE_LABELS[k]))
    error_under("schedule_kind")
web = kind == "web"
with st.form(f"{K.CRAWL_FORM}.{target}"):
    if field_errors:
        st.error("The source was not saved: correct the marked fields.")
        for f, msg in field_errors.items():
            if f not in crawl_ui.FORM_FIELDS:
                st.error(md_escape(f"{f}: {msg}"))
    c = st.columns([2, 1])
    with c[0]:
        st.text_input("Name", value=init["name"], key=key("name"),
                      help="Becomes lower-case letters, digits and hyphens (“Board minutes” "
                           "→ board-minutes); at most 100 characters.")
        error_under("name")
    with c[1]:
        st.text_input("Collection", value=init["collection"], key=key("collection"),
                      help="Lower-case letters, digits and hyphens; at most 255 characters.")
        error_under("collection")
    if web:
        st.text_input("Start URL", value=init["start_url"], key=key("start_url"),
                      help="http(s) only, no credentials; loopback, private and metadata "
                           "addresses are refused unless an administrator allows the host.")
    else:
        st.text_input("Folder", value=init["start_url"], key=key("start_url"),
                      placeholder="/srv/documents/minutes",
                      help="A folder on the server; its supported files are ingested and "
                           "re-checked on every run.")
    error_under("start_url")
    if web:  # crawl limits and politeness: web sites only
        c = st.columns(4)
        with c[0]:
            st.number_input("Max pages", value=init["max_pages"], step=1, key=key("max_pages"),
                            help=f"1–{crawl_ui.MAX_PAGES:d}")
            error_under("max_pages")
        with c[1]:
            st.number_input("Max depth", value=init["max_depth"], step=1, key=key("max_depth"),
                            help=f"1–{crawl_ui.MAX_DEPTH:d}; the start page is depth 0")
            error_under("max_depth")
        with c[2]:
            st.number_input("Delay (s)", value=init["delay_s"], step=0.5, format="%.1f",
                            key=key("delay_s"), help="Between requests to a host; 0–60")
            error_under("delay_s")
        with c[3]:
            st.number_input("Concurrency", value=init["concurrency"], step=1,
                            key=key("concurrency"), help="Requests at once per host; 1–16")
            error_under("concurrency")
    c = st.columns(4)
    if web:
        c[0].checkbox("Respect robots.txt", value=init["respect_robots"],
                      key=key("respect_robots"))
        c[1].checkbox("Use sitemap.xml", value=init["use_sitemap"], key=key("use_sitemap"))
        c[2].checkbox("Include subdomains", value=init["include_subdomains"],
                      key=key("include_subdomains"))
        st.checkbox("Render JavaScript (Chromium)", value=init["render_js"],
                    key=key("render_js"),
                    help="Run each page's scripts before extraction, for sites that write "
                         "their text with JavaScript; every request the page makes passes "
                         "the SSRF guard. Slower; off by default.")
    c[3].checkbox("Enabled (scheduled runs)", value=init["enabled"], key=key("enabled"))
    if schedule == "interval":
        st.number_input("Interval (minutes)", value=init["interval_min"], step=5,
                        key=key("interval_min"), help="5–525600")
    elif schedule == "cron":
        st.text_input("Cron expression", value=init["cron"], key=key("cron"),
                      help="5 fields (minute hour day month weekday), UTC")
    st.form_submit_button("Create source" if src is None else "Save changes", type="primary",
                          key=K.CRAWL_SAVE, on_click=_save,
                          args=(None if src is None else src.id, target, nonce))

if src is None:
    st.stop()

# ---- actions on the chosen source --------------------------------------------------------

busy = any(p.source_id == src.id for p in crawl_ui.active_runs(console))
resume = crawl_ui.resumable(console, src.id)
a = st.columns([1, 1, 1, 3])
a[0].button("Run now", type="primary", key=K.CRAWL_RUN_NOW, icon=":material/play_arrow:",
            on_click=_run_now, args=(src.id,), disabled=busy)
if resume is not None:
    a[1].button(f"Resume run {resume.run_id:d}", key=f"{K.CRAWL_RESUME}.{resume.run_id}",
                icon=":material/replay:", on_click=_resume, args=(resume.run_id,),
                disabled=busy, help=f"The run is {md_escape(resume.status)}; it continues "
                                    "from its saved frontier.")
if st.session_state.get(K.CRAWL_CONFIRM_DELETE) != src.id:
    a[2].button("Delete source…", key=K.CRAWL_DELETE, icon=":material/delete:",
                on_click=_ask_delete, args=(src.id,))
else:
    st.warning(f"Delete the source **{md_escape(src.name)}** with its schedule, run history "
               "and page states? Its documents stay in the collection.")
    yes, no, _ = st.columns([1, 1, 4])
    yes.button("Yes, delete", type="primary", key=K.CRAWL_DELETE_CONFIRM, on_click=_delete,
               args=(src.id,))
    no.button("Cancel", key=K.CRAWL_DELETE_CANCEL, on_click=_cancel_delete)

# ---- history, changes, events ------------------------------------------------------------

hist_tab, change_tab, event_tab = st.tabs(["Run history", "Last changes", "Skipped & refused"])
with hist_tab:
    history = crawl_ui.history_rows(console, src.id)
    if history:
        st.dataframe(history, hide_index=True)
        for row in history[:5]:
            if row["error"]:
                st.error(md_escape(f"Run {row['run']} ({row['status']}): {row['error']}"))
    else:
        st.info("This source has not run yet.")
with change_tab:
    changes = crawl_ui.last_changes(console, src.id)
    st.caption("What the last finished run changed.")
    cols = st.columns(3)
    for col, (kind, label) in zip(cols, (("new", "New pages"), ("changed", "Changed pages"),
                                         ("removed", "Removed pages"))):
        col.metric(md_escape(label), len(changes[kind]))
        if changes[kind]:
            col.dataframe({"url": changes[kind]}, hide_index=True)
with event_tab:
    ids = crawl_ui.run_ids(console, src.id)
    if not ids:
        st.info("No runs yet.")
    else:
        if st.session_state.get(K.CRAWL_EVENTS_RUN) not in ids:
            st.session_state[K.CRAWL_EVENTS_RUN] = ids[0]
        c = st.columns([1, 3])
        run_id = c[0].selectbox("Run", ids, key=K.CRAWL_EVENTS_RUN)
        outcomes = c[1].multiselect("Outcomes", crawl_ui.OUTCOMES,
                                    default=list(crawl_ui.PROBLEM_OUTCOMES),
                                    key=K.CRAWL_EVENTS_OUTCOMES)
        events = crawl_ui.event_rows(console, run_id, outcomes or crawl_ui.OUTCOMES)
        if events:
            st.dataframe(events, hide_index=True)
        else:
            st.caption("No URLs with these outcomes in this run.")
