"""Crawl sources (seed-003 validation rules), schedules with a persisted APScheduler job
store, the single-scheduler lease, and the watched import folder."""
from __future__ import annotations

import os
import time
from datetime import timedelta

import pytest
from sqlalchemy import update

from backend.crawl.guard import UrlGuard
from backend.crawl.schedule import CrawlScheduler, SchedulerLease
from backend.crawl.service import CrawlService
from backend.crawl.sources import SourceRepo, SourceSpec
from backend.errors import InvalidCrawlSource
from backend.ingest.paths import PathPolicy
from backend.store import Store, repo
from backend.store.crawl_models import SchedulerLock
from backend.store.models import utcnow

PUBLIC = {"docs.example.org": ["93.184.216.34"]}


@pytest.fixture
def store(tmp_path):
    st = Store(f"sqlite:///{tmp_path / 'crawl.db'}")
    yield st
    st.dispose()


@pytest.fixture
def sources(store):
    return SourceRepo(store, UrlGuard(resolver=lambda host, port: PUBLIC[host]))


def spec(**kw) -> SourceSpec:
    base = dict(name="docs", start_url="https://docs.example.org/", collection="example-docs")
    return SourceSpec(**{**base, **kw})


@pytest.mark.parametrize("changes,field,message", [
    (dict(max_pages=501), "max_pages", "at most 500 pages"),
    (dict(max_pages=0), "max_pages", "at most 500 pages"),
    (dict(max_depth=11), "max_depth", "maximum depth is 10"),
    (dict(max_depth=0), "max_depth", "maximum depth is 10"),
    (dict(collection="Example Docs"), "collection", "lower-case letters, digits and hyphens"),
    (dict(collection="x" * 256), "collection", "at most 255"),
    (dict(name="Docs!"), "name", "lower-case"),
    (dict(start_url="http://localhost/"), "start_url", "invalid or unreachable URL"),
    (dict(start_url="http://app.localhost:8080/"), "start_url", "loopback name"),
    (dict(start_url="http://192.168.0.10/"), "start_url", "private address"),
    (dict(start_url="http://10.0.0.1/"), "start_url", "private address"),
    (dict(start_url="http://172.20.1.1/"), "start_url", "private address"),
    (dict(start_url="http://127.0.0.1/"), "start_url", "loopback"),
    (dict(start_url="ftp://docs.example.org/"), "start_url", "scheme"),
    (dict(start_url="file:///etc/passwd"), "start_url", "scheme"),
    (dict(schedule_kind="interval", schedule_value="2"), "schedule", "between 5 and"),
    (dict(schedule_kind="cron", schedule_value="every day"), "schedule", "crontab"),
    (dict(delay_s=-1), "delay_s", "between 0 and 60"),
])
def test_validation_rules(sources, changes, field, message):
    with pytest.raises(InvalidCrawlSource) as e:
        sources.create(spec(**changes))
    assert message in e.value.errors[field]


def test_name_refused_after_resolution(store):
    guard = UrlGuard(resolver=lambda host, port: {"intranet": ["127.0.0.1", "::1"]}[host])
    with pytest.raises(InvalidCrawlSource) as e:
        SourceRepo(store, guard).create(spec(start_url="http://intranet:8080/"))
    assert "loopback" in e.value.errors["start_url"]


def test_crud(sources):
    src = sources.create(spec(max_pages=500, max_depth=10, schedule_kind="cron",
                              schedule_value="0 3 * * 1"))
    assert (src.max_pages, src.max_depth) == (500, 10)
    with pytest.raises(InvalidCrawlSource) as e:
        sources.create(spec())
    assert "already exists" in e.value.errors["name"]
    updated = sources.update(src.id, max_pages=20, schedule_kind="interval", schedule_value="60")
    assert (updated.max_pages, updated.schedule_value) == (20, "60")
    with pytest.raises(InvalidCrawlSource):
        sources.update(src.id, max_depth=42)
    assert sources.get("docs").max_depth == 10  # the refused update changed nothing
    sources.delete(src.id)
    assert sources.list() == []


def test_lease_single_holder_and_takeover(store):
    a = SchedulerLease(store, 60, owner="host-a:1:a")
    b = SchedulerLease(store, 60, owner="host-b:2:b")
    assert a.acquire() and not b.acquire()
    assert a.renew() and not b.renew()
    assert a.holder()[0] == "host-a:1:a"
    with store.session() as s:  # a crashed elsewhere: its lease runs out
        s.execute(update(SchedulerLock).values(expires_at=utcnow() - timedelta(seconds=1)))
    assert b.acquire() and not a.renew() and not a.acquire()
    b.release()
    assert a.acquire()


def test_lease_of_dead_local_process_is_taken_at_once(store):
    import socket

    dead = SchedulerLease(store, 3600, owner=f"{socket.gethostname()}:{2**22 + 12345}:x")
    assert dead.acquire()
    assert SchedulerLease(store, 3600).acquire()


class FakeService:
    def __init__(self, store, settings):
        self.store = store
        self.rs = type("RS", (), {"settings": settings})()
        self.runs: list[int] = []

    def prepare(self, source_id, trigger="manual"):
        return source_id

    def execute(self, run_id):
        self.runs.append(run_id)


def test_one_scheduler_and_persistent_job_store(store, sources, settings):
    src = sources.create(spec(schedule_kind="interval", schedule_value="60"))
    first = CrawlScheduler(FakeService(store, settings), sync_s=3600)
    second = CrawlScheduler(FakeService(store, settings), sync_s=3600)
    try:
        assert first.start() is True
        assert second.start() is False and not second.is_leader
        runs = first.next_runs()
        assert list(runs) == [src.id]
        assert second.next_runs() == runs  # a standby dashboard can show the schedule
    finally:
        first.stop()
    # a new scheduler instance finds the persisted job with its next run time unchanged
    third = CrawlScheduler(FakeService(store, settings), sync_s=3600)
    try:
        assert third.start() is True
        assert third.next_runs() == runs
        assert third.sync() == {"added": 0, "changed": 0, "removed": 0}
        sources.update(src.id, schedule_kind="cron", schedule_value="15 4 * * *")
        assert third.sync() == {"added": 0, "changed": 1, "removed": 0}
        assert third.next_runs()[src.id].hour == 4
        sources.update(src.id, schedule_kind="none", schedule_value="")
        assert third.sync() == {"added": 0, "changed": 0, "removed": 1}
        assert third.next_runs() == {}
    finally:
        third.stop()
        second.stop()


def test_scheduled_job_runs_in_the_leader(store, sources, settings):
    from backend.crawl import schedule

    src = sources.create(spec(schedule_kind="interval", schedule_value="5"))
    svc = FakeService(store, settings)
    sched = CrawlScheduler(svc, sync_s=3600)
    try:
        assert sched.start()
        sched.aps.get_job(f"{schedule.JOB_PREFIX}{src.id}").modify(next_run_time=utcnow())
        sched.aps.wakeup()
        deadline = time.monotonic() + 10
        while not svc.runs and time.monotonic() < deadline:
            time.sleep(0.05)
        assert svc.runs == [src.id]
    finally:
        sched.stop()
    schedule.run_scheduled_source(src.id)  # not the leader any more: nothing runs
    assert svc.runs == [src.id]


def test_watched_folder(make_rs, tmp_path):
    rs = make_rs(ingest_roots=str(tmp_path))  # watched folders must lie in an allowed root
    folder = tmp_path / "inbox"
    folder.mkdir()
    (folder / "a.md").write_text("# Alpha\n\nHarbour dues are paid monthly at the office.\n")
    (folder / "b.txt").write_text("Bravo: the ferry leaves at nine from pier two.\n")
    (folder / "c.md").write_text("# Charlie\n\nPilots board ships outside the breakwater.\n")
    svc = CrawlService(rs)
    p = svc.watch_folder(str(folder), "inbox")
    assert p.status == "done" and p.counters["new"] == 3

    (folder / "b.txt").write_text("Bravo: the ferry now leaves at ten from pier three.\n")
    os.utime(folder / "c.md", (time.time() + 5, time.time() + 5))  # touched, same content
    (folder / "a.md").unlink()
    (folder / "d.md").write_text("# Delta\n\nTugs assist vessels over 200 metres.\n")
    p2 = svc.watch_folder(str(folder), "inbox")
    outcome = {os.path.basename(e.url): (e.outcome, e.reason) for e in svc.events(p2.run_id)}
    assert outcome == {"b.txt": ("changed", "content changed: new version"),
                       "c.md": ("unchanged", "same content hash"),
                       "d.md": ("new", "new document"),
                       "a.md": ("archived", "file removed from the folder")}
    with rs.store.session() as s:
        a = repo.document_by_source(s, str((folder / "a.md").resolve()))
        b = repo.document_by_source(s, str((folder / "b.txt").resolve()))
        assert a.status == "archived" and a.source_kind == "sync"
        assert len(b.versions) == 2 and b.status == "active"
        assert repo.document_collections(s, b.id) == ["inbox"]
    p3 = svc.watch_folder(str(folder), "inbox")
    assert {e.outcome for e in svc.events(p3.run_id)} == {"unchanged"}
    assert [x.name for x in svc.sources.list()] == ["folder-inbox-inbox"]


def test_run_of_a_dead_process_becomes_interrupted_and_resumable(store, sources):
    from backend.crawl import runs
    from backend.store.models import Job

    src = sources.create(spec())
    run_id = runs.new_run(store, src.id, "manual", [["https://docs.example.org/", 0, None]], 50)
    job_id = runs.begin(store, run_id, "crawl")
    assert runs.mark_interrupted(store) == 0  # our own process is alive
    with store.session() as s:
        job = s.get(Job, job_id)
        job.params = {**job.params, "pid": 2**22 + 4321}  # no such process
    assert runs.mark_interrupted(store) == 1
    p = runs.progress(store, run_id)
    assert p.status == "interrupted" and p.status in runs.RESUMABLE and p.frontier_left == 1
    with store.session() as s:
        assert s.get(Job, job_id).status == "failed"


@pytest.fixture
def folder_sources(store, tmp_path):
    """Sources with the folder rules: data dir tmp/var, allowed root tmp/allowed."""
    (tmp_path / "var").mkdir()
    (tmp_path / "allowed" / "inbox").mkdir(parents=True)
    policy = PathPolicy([tmp_path / "var"], [tmp_path / "allowed"], explicit=True)
    return SourceRepo(store, UrlGuard(resolver=lambda host, port: PUBLIC[host]), policy)


def folder(path) -> SourceSpec:
    return spec(name="inbox", kind="folder", start_url=str(path))


@pytest.mark.parametrize("path,message", [
    ("/etc", "/etc is in the system folder /etc, which cannot be watched (an administrator can "
             "allow a folder there)"),
    ("/proc", "/proc is in the system folder /proc"),
    ("/root", "/root is in the system folder /root"),
    ("/var/lib", "/var/lib is in the system folder /var/lib"),
    ("/", "/ is the whole file system and cannot be watched"),
    ("{tmp}/var", "{tmp}/var holds ragscope's own data and cannot be watched"),
    ("{tmp}/allowed/../var", "holds ragscope's own data"),
    ("{tmp}/elsewhere", "{tmp}/elsewhere is not in a folder that may be watched: {tmp}/allowed"),
    ("{tmp}/allowed/.ssh", "is a hidden folder"),
    ("{tmp}/allowed/missing", "folder {tmp}/allowed/missing does not exist"),
    ("{tmp}/allowed/notes.txt", "{tmp}/allowed/notes.txt is a file, not a folder"),
    ("", "enter the path of the folder to watch"),
])
def test_watched_folder_outside_the_allowed_roots_is_refused(folder_sources, tmp_path, path,
                                                             message):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "allowed" / ".ssh").mkdir()
    (tmp_path / "allowed" / "notes.txt").write_text("x")
    tmp = str(tmp_path.resolve())
    with pytest.raises(InvalidCrawlSource) as e:
        folder_sources.create(folder(path.format(tmp=tmp)))
    shown = e.value.errors["start_url"]
    assert message.format(tmp=tmp) in shown
    assert "Errno" not in shown and "RAGSCOPE" not in shown  # the user's words, no internals
    assert folder_sources.list() == []


def test_folder_errors_never_offer_a_root_that_is_refused(tmp_path):
    """Running as root, the default roots are the working directory and /root; /root is a
    system path, so it is not offered as a watchable folder (the two messages contradicted
    each other: "outside the folders that may be watched (/tmp/nc, /root)" and "inside
    /root, a system path")."""
    work = tmp_path / "work"
    (work / "docs").mkdir(parents=True)
    (tmp_path / "srv").mkdir()
    default = PathPolicy([tmp_path / "var"], [work, "/root"], explicit=False)
    assert default.watchable_roots() == [work.resolve()]
    outside = default.check_watched(tmp_path / "srv")
    assert outside.endswith(f"is not in a folder that may be watched: {work.resolve()}")
    assert "/root" not in outside
    assert default.check_watched("/root").startswith("/root is in the system folder /root")
    assert default.check_watched(work / "docs") is None
    nothing = PathPolicy([tmp_path / "var"], ["/root"], explicit=False)
    assert nothing.check_watched(tmp_path / "srv") == (
        "no folder may be watched on this server yet (an administrator chooses the folders)")


def test_watched_folder_inside_an_allowed_root_is_accepted(folder_sources, tmp_path):
    src = folder_sources.create(folder(tmp_path / "allowed" / "inbox"))
    assert src.start_url == str((tmp_path / "allowed" / "inbox").resolve())
    with pytest.raises(InvalidCrawlSource, match="in the system folder /etc"):
        folder_sources.update(src.id, start_url="/etc")
    # without a path policy no folder source is accepted at all
    with pytest.raises(InvalidCrawlSource, match="not available"):
        SourceRepo(folder_sources.store, folder_sources.guard).create(
            spec(name="other", kind="folder", start_url=str(tmp_path / "allowed")))


def test_allowed_root_named_explicitly_opens_a_system_path(tmp_path):
    inside = PathPolicy([tmp_path / "var"], ["/usr/share"], explicit=True)
    assert inside.check_watched("/usr/share") is None
    assert "system folder" in inside.check_watched("/usr/lib")
    default = PathPolicy([tmp_path / "var"], ["/"], explicit=False)  # e.g. cwd is /
    assert "system folder" in default.check_watched("/usr/share")
    assert "system folder" in default.check_watched("/etc")
