"""AppTest for the crawl page: editors see it, viewers get an error; invalid sources show the
seed-003 field errors and store nothing; a valid source pointing at a tiny site on 127.0.0.1
(allow-listed) runs with "Run now" and shows up in the history with its counts, changes and
skipped URLs; editing a schedule; deleting asks for confirmation."""
from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from backend.config import Settings
from backend.crawl.sources import SourceSpec
from backend.ui import crawl as crawl_ui
from backend.ui import state as K
from tests.page_support import (  # noqa: F401  (fixtures)
    APP,
    ROOT,
    app,
    bare,
    components,
    errors,
    login_as,
    open_page,
    plain,
    shared_model,
    successes,
)

# Through app.py once the page is in its PAGES list; until then the page file directly
# (what Streamlit does for a crafted URL to a file in pages/ anyway).
REGISTERED = '"pages/crawl.py"' in open(APP, encoding="utf-8").read()


def _html(title: str, text: str, *links: str) -> bytes:
    nav = " ".join(f'<a href="{h}">{h}</a>' for h in links)
    return (f"<html><head><title>{title}</title></head><body><h1>{title}</h1><p>{text}</p>"
            f"<nav>{nav}</nav></body></html>").encode()


SITE = {
    "/": _html("Harbour guide", "The harbour guide explains berths, tides and fees for "
               "visiting boats in some detail.", "/berths", "/tides", "/private/log"),
    "/berths": _html("Berths", "Berths are assigned by the harbour master on arrival; "
                     "long boats use the outer pier.", "/"),
    "/tides": _html("Tides", "Tide tables are published weekly; the channel is shallow at "
                    "low water springs.", "/"),
    "/robots.txt": b"User-agent: *\nDisallow: /private/\n",
}
DELAYS: dict[str, float] = {}  # path -> seconds the server waits before answering


@pytest.fixture
def site():
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            time.sleep(DELAYS.get(self.path, 0.0))
            body = SITE.get(self.path)
            status = 200 if body is not None else 404
            body = body if body is not None else b"not found"
            ctype = "text/plain" if self.path.endswith(".txt") or status != 200 else "text/html"
            self.send_response(status)
            self.send_header("Content-Type", f"{ctype}; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    DELAYS.clear()
    server.shutdown()
    server.server_close()


@pytest.fixture(autouse=True)
def _stop_consoles():
    """Each test's dashboard console (crawl threads, scheduler lease) ends with the test."""
    yield
    from pages._crawl_common import _console

    crawl_ui.shutdown_all()
    _console.clear()


@pytest.fixture
def crawl_page(app, monkeypatch, components):
    """crawl_page(data_dir, user) -> an AppTest showing the crawl page, signed in."""
    def make(data, user):
        if REGISTERED:
            return open_page(app(data, user), "crawl")
        from streamlit.testing.v1 import AppTest

        monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(data))
        at = AppTest.from_file(str(ROOT / "pages" / "crawl.py"), default_timeout=60)
        at._bidi_component_manager = components
        login_as(at, user)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        return at
    return make


def _console_of(data) -> crawl_ui.CrawlConsole:
    c = crawl_ui.console_for(Settings(data_dir=data).db_url)
    assert c is not None
    return c


def _fill(at, target, **values):
    """Set the form's fields; kind and schedule first (outside the form, each choice shows
    its own fields)."""
    nonce = at.session_state[K.CRAWL_NONCE]
    for field in ("kind", "schedule_kind"):
        if field in values:
            key = K.crawl_field(target, nonce, field)
            next(w for w in at.radio if w.key == key).set_value(values.pop(field)).run()
    for field, value in values.items():
        key = K.crawl_field(target, nonce, field)
        widget = next(w for w in (*at.text_input, *at.number_input, *at.selectbox, *at.checkbox)
                      if w.key == key)
        widget.set_value(value)
    return at


def _save(at):
    at.button(key=K.CRAWL_SAVE).click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _frames(at) -> list:
    return [df.value for df in at.dataframe]


def test_editor_sees_the_page_viewer_gets_an_error(crawl_page, bare):
    at = crawl_page(bare[0], "editor")
    assert at.title[0].value == "Crawl" and not errors(at)
    assert at.button(key=K.CRAWL_SAVE).label == "Create source"
    assert any("No crawl sources yet" in i.value for i in at.info)

    viewer = crawl_page(bare[0], "viewer")
    assert any("Access denied" in e and "editor" in e for e in errors(viewer))
    assert not viewer.text_input and not viewer.dataframe


def test_invalid_source_shows_field_errors_and_stores_nothing(crawl_page, bare):
    at = crawl_page(bare[0], "editor")
    _fill(at, "new", name="Bad Name!", start_url="ftp://user:pw@example.org/",
          collection="Bad_Collection", max_pages=501, max_depth=11, delay_s=0.0,
          schedule_kind="interval", interval_min=1)
    _save(at)
    errs = errors(at)
    assert "The source was not saved: correct the marked fields." in errs
    assert not any(e.startswith("name") for e in errs)  # "Bad Name!" becomes bad-name
    for part in ("invalid or unreachable URL",
                 "collection name may only contain", "at most 500 pages allowed",
                 "maximum depth is 10", "interval must be between 5 and 525600 minutes"):
        assert any(part in e for e in errs), (part, errs)
    assert _console_of(bare[0]).service.sources.list() == []
    assert at.session_state[K.CRAWL_PICK] is None

    # a loopback URL that is not allow-listed, zero pages and a broken crontab
    _fill(at, "new", name="local", start_url="http://127.0.0.1:9/", collection="docs",
          max_pages=0, max_depth=3, schedule_kind="cron", cron="every day at noon")
    _save(at)
    errs = errors(at)
    assert any("loopback" in e for e in errs), errs
    assert any("at most 500 pages allowed" in e for e in errs)
    assert any("invalid crontab expression" in e for e in errs)
    assert not any("maximum depth" in e for e in errs)
    assert _console_of(bare[0]).service.sources.list() == []


def test_create_run_now_history_edit_and_delete(crawl_page, bare, site, monkeypatch):
    host = site.removeprefix("http://")
    monkeypatch.setenv("RAGSCOPE_CRAWL_ALLOWED_HOSTS", host)  # before the app's Settings
    at = crawl_page(bare[0], "editor")
    _fill(at, "new", name="harbour", start_url=site + "/", collection="harbour-docs",
          max_pages=10, max_depth=2, delay_s=0.0, concurrency=2)
    _save(at)
    assert not errors(at), errors(at)
    console = _console_of(bare[0])
    (src,) = console.service.sources.list()
    assert (src.name, src.collection, src.max_pages, src.max_depth) == (
        "harbour", "harbour-docs", 10, 2)
    assert at.session_state[K.CRAWL_PICK] == src.id
    assert "Created source harbour." in successes(at)
    assert _frames(at)[0]["name"].tolist() == ["harbour"]

    # run now: a background run of this process's crawl service
    at.button(key=K.CRAWL_RUN_NOW).click().run()
    assert not at.exception and not errors(at), errors(at)
    (run,) = console.service.history(src.id)
    done = console.service.wait(run.run_id, timeout=40)
    assert done.status == "done", done
    assert done.counters.get("new") == 3, done.counters
    assert any(e.url.endswith("/private/log") and "robots" in e.reason
               for e in console.service.events(run.run_id, "skipped"))

    at.run()
    assert not at.exception
    frames = _frames(at)
    hist = next(f for f in frames if "run" in f.columns and "status" in f.columns)
    row = hist.iloc[0]
    assert (row["run"], row["status"], row["pages"], row["new"]) == (run.run_id, "done", 3, 3)
    assert [m.value for m in at.metric if m.label == "New pages"] == ["3"]
    new_urls = next(f for f in frames if list(f.columns) == ["url"])["url"].tolist()
    assert sorted(u.removeprefix(site) for u in new_urls) == ["/", "/berths", "/tides"]
    skipped = next(f for f in frames if "outcome" in f.columns)
    assert any(u.endswith("/private/log") for u in skipped["url"])
    assert any("robots" in r for r in skipped["reason"])
    assert any(c.value == "No crawl is running." for c in at.caption)

    # edit: an interval schedule and a new page limit
    _fill(at, str(src.id), schedule_kind="interval", interval_min=30, max_pages=20)
    _save(at)
    assert not errors(at), errors(at)
    src = console.service.sources.get(src.id)
    assert (src.schedule_kind, src.schedule_value, src.max_pages) == ("interval", "30", 20)
    assert _frames(at)[0]["schedule"].tolist() == ["every 30 min"]
    # an invalid edit shows the error next to the field and keeps the stored values
    _fill(at, str(src.id), max_depth=0)
    _save(at)
    assert any("maximum depth is 10" in e for e in errors(at))
    assert console.service.sources.get(src.id).max_depth == 2

    # delete asks first; cancel keeps the source, confirm deletes it (documents stay)
    at.button(key=K.CRAWL_DELETE).click().run()
    assert any("Delete the source **harbour**" in plain(w.value) for w in at.warning)
    assert console.service.sources.list()
    at.button(key=K.CRAWL_DELETE_CANCEL).click().run()
    assert not at.warning and console.service.sources.list()
    at.button(key=K.CRAWL_DELETE).click().run()
    at.button(key=K.CRAWL_DELETE_CONFIRM).click().run()
    assert not at.exception
    assert console.service.sources.list() == []
    assert any("Deleted source harbour" in s for s in successes(at))
    assert at.session_state[K.CRAWL_PICK] is None
    from backend.security.access import Scope
    from backend.services.documents import ExplorerFilter, list_documents

    assert list_documents(console.service.rs, ExplorerFilter(), 1, 10,
                          scope=Scope.everything()).total == 3


def test_live_progress_cancel_and_resume(crawl_page, bare, site, monkeypatch):
    monkeypatch.setenv("RAGSCOPE_CRAWL_ALLOWED_HOSTS", site.removeprefix("http://"))
    # slow enough that the cancel lands before the third page even when the page's script
    # runs take seconds on a loaded machine (1 s each was flaky on 2 cores)
    DELAYS.update({"/berths": 3.0, "/tides": 3.0})
    at = crawl_page(bare[0], "editor")
    console = _console_of(bare[0])
    src = console.service.sources.create(SourceSpec(
        name="slow-harbour", start_url=site + "/", collection="harbour-docs", max_pages=10,
        max_depth=2, delay_s=0.0, concurrency=1, use_sitemap=False))
    at.run()
    at.selectbox(key=K.CRAWL_PICK).set_value(src.id).run()
    at.button(key=K.CRAWL_RUN_NOW).click().run()
    (run,) = console.service.history(src.id)
    deadline = time.monotonic() + 20
    while console.service.progress(run.run_id).pages_done < 1:  # the start page is in
        assert time.monotonic() < deadline
        time.sleep(0.05)

    at.run()  # live progress of the running job
    assert not at.exception, [e.value for e in at.exception]
    bar = at.get("progress")[0]
    assert f"slow-harbour · run {run.run_id}" in plain(bar.proto.text)
    assert "Current URL" in at.get("text")[0].value
    labels = [m.label for m in at.metric]
    assert {"Documents created", "Linked (duplicates)", "Errors"} <= set(labels)
    assert at.button(key=K.CRAWL_RUN_NOW).disabled
    at.button(key=f"{K.CRAWL_CANCEL}.{run.run_id}").click().run()
    assert not errors(at), errors(at)
    cancelled = console.service.wait(run.run_id, timeout=20)
    assert cancelled.status == "cancelled", cancelled
    assert cancelled.counters.get("new", 0) < 3

    at.run()
    resume = at.button(key=f"{K.CRAWL_RESUME}.{run.run_id}")
    resume.click().run()
    assert not errors(at), errors(at)
    for _ in range(400):  # resume runs in a new background thread of the service
        p = console.service.progress(run.run_id)
        if p.status not in ("cancelled", "queued", "running"):
            break
        time.sleep(0.05)
    assert p.status == "done" and p.counters.get("new") == 3, p
    at.run()
    hist = next(df.value for df in at.dataframe if "run" in df.value.columns)
    assert (hist.iloc[0]["status"], hist.iloc[0]["new"]) == ("done", 3)


@pytest.mark.parametrize("end", ["disable", "demote"])
@pytest.mark.parametrize("action", ["save", "run now"])
def test_an_open_page_of_a_disabled_or_demoted_editor_changes_nothing(
        crawl_page, bare, site, monkeypatch, end, action):
    """Button callbacks run before the page's own role check: an editor's page that is
    still open after the admin disabled or demoted the editor must not save or run."""
    from backend.security import auth

    monkeypatch.setenv("RAGSCOPE_CRAWL_ALLOWED_HOSTS", site.removeprefix("http://"))
    data = bare[0]
    at = crawl_page(data, "editor")
    console = _console_of(data)
    src = console.service.sources.create(SourceSpec(
        name="harbour", start_url=site + "/", collection="harbour-docs", max_pages=10,
        max_depth=2, delay_s=0.0))
    at.run()
    at.selectbox(key=K.CRAWL_PICK).set_value(src.id).run()
    _fill(at, str(src.id), max_pages=20, schedule_kind="interval", interval_min=30)

    users = auth.UserStore(auth.AuthPaths.under(data))
    if end == "disable":
        users.set_disabled("editor", True)
    else:
        users.set_role("editor", "viewer")
    at.button(key=K.CRAWL_SAVE if action == "save" else K.CRAWL_RUN_NOW).click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert errors(at) == ["Please sign in first."]  # the session has ended
    assert not at.button  # and nothing of the page is shown
    kept = console.service.sources.get(src.id)
    assert (kept.max_pages, kept.schedule_kind) == (10, "none")
    assert console.service.history(src.id) == []


def test_an_editor_cannot_add_a_watched_folder(crawl_page, bare, tmp_path, monkeypatch):
    folder = tmp_path / "inbox"
    folder.mkdir()
    monkeypatch.setenv("RAGSCOPE_INGEST_ROOTS", str(tmp_path))  # watched folders lie in a root
    at = crawl_page(bare[0], "editor")
    _fill(at, "new", kind="folder", name="etc", start_url="/etc", collection="system")
    _save(at)
    assert any("'watch_folder' needs the admin role" in e for e in errors(at)), errors(at)
    assert _console_of(bare[0]).service.sources.list() == []

    admin = crawl_page(bare[0], "admin")
    _fill(admin, "new", kind="folder", name="inbox", start_url=str(folder), collection="inbox")
    _save(admin)
    assert not errors(admin), errors(admin)
    (src,) = _console_of(bare[0]).service.sources.list()
    assert (src.kind, src.start_url) == ("folder", str(folder.resolve()))


def test_watched_folder_form_shows_its_own_fields_and_says_what_is_wrong(
        crawl_page, bare, tmp_path, monkeypatch):
    """A watched folder shows no web-only field; the schedule is one choice (only its own
    input shown); the name is made a valid one and the result shown; a wrong folder is
    named in words, without settings or errno."""
    (tmp_path / "inbox").mkdir()
    monkeypatch.setenv("RAGSCOPE_INGEST_ROOTS", str(tmp_path))
    at = crawl_page(bare[0], "admin")
    nonce = at.session_state[K.CRAWL_NONCE]

    def keys():
        return {w.key for w in (*at.text_input, *at.number_input, *at.checkbox)}

    def k(field):
        return K.crawl_field("new", nonce, field)

    assert {k("max_pages"), k("delay_s"), k("respect_robots")} <= keys()  # a web site
    _fill(at, "new", kind="folder")
    assert not {k("max_pages"), k("max_depth"), k("delay_s"), k("concurrency"),
                k("respect_robots"), k("use_sitemap"), k("include_subdomains")} & keys()
    assert [w.label for w in at.text_input if w.key == k("start_url")] == ["Folder"]
    assert not {k("interval_min"), k("cron")} & keys()  # schedule "none": neither
    _fill(at, "new", schedule_kind="interval")
    assert k("interval_min") in keys() and k("cron") not in keys()
    _fill(at, "new", schedule_kind="cron")
    assert k("cron") in keys() and k("interval_min") not in keys()

    missing = tmp_path / "no-such-folder"
    _fill(at, "new", name="Board Minutes", start_url=str(missing), collection="minutes")
    _save(at)
    errs = errors(at)
    assert f"folder {missing} does not exist" in errs, errs
    assert not any("Errno" in e or "RAGSCOPE" in e or "crawl_allowed" in e for e in errs)
    _fill(at, "new", start_url=str(tmp_path / "inbox"))
    _save(at)
    assert not errors(at), errors(at)
    (src,) = _console_of(bare[0]).service.sources.list()
    assert (src.name, src.kind, src.schedule_kind) == ("board-minutes", "folder", "cron")
    assert "Created source board-minutes (the name “Board Minutes” became board-minutes: " \
        "lower-case letters, digits, hyphens)." in successes(at), successes(at)
