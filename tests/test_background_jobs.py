"""Background jobs of the dashboard (backend/services/background.py, dashboard_jobs.py,
eval/jobs.py): progress and result in the job row, cancel, failure with its reason (never a
traceback), one job of a kind per key at a time, a dead worker read as interrupted; and the
real work behind them: an evaluation run, a reindex, a reclassification, an upload batch."""
from __future__ import annotations

import threading
import time

import pytest

from backend.errors import ConfigError
from backend.security import auth
from backend.security.access import Actor, Scope
from backend.services import background, dashboard_jobs
from backend.services.jobs import start_job
from backend.store.models import Job

ADMIN = Actor("admin", "admin")
WAIT_S = 120  # a loaded 2-core machine: waits are on conditions, generous


def _until(store, job_id: int, check) -> background.JobView:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        v = background.view(store, job_id)
        if check(v):
            return v
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} never got there: {background.view(store, job_id)}")


def _finished(store, job_id: int) -> background.JobView:
    return _until(store, job_id, lambda v: not v.running)


@pytest.fixture
def gate():
    """Work that reports step 1 of 3, then waits for the test to let it go on."""
    go = threading.Event()

    def work(task: background.Task) -> dict:
        task.progress(1, 3, "first")
        assert go.wait(WAIT_S)
        task.progress(3, 3, "last")
        return {"answer": 42}
    work.go = go
    return work


def test_progress_then_result(rs, gate):
    job_id = background.start(rs.store, "demo", gate, title="A demo", by="ann", unit="steps")
    v = _until(rs.store, job_id, lambda v: v.done == 1)
    assert v.running and v.total == 3 and v.fraction == pytest.approx(1 / 3)
    assert v.progress_text() == "1 of 3 steps · first" and v.by == "ann"
    gate.go.set()
    v = _finished(rs.store, job_id)
    assert (v.status, v.result, v.done) == ("done", {"answer": 42}, 3)
    assert background.latest(rs.store, "demo").id == job_id


def test_one_job_of_a_kind_and_key_at_a_time(rs, gate):
    first = background.start(rs.store, "demo", gate, title="A demo", by="ann")
    _until(rs.store, first, lambda v: v.done == 1)
    with pytest.raises(background.JobRunning) as e:
        background.start(rs.store, "demo", gate, title="A demo", by="bob")
    assert f"job {first}" in str(e.value) and "by ann" in str(e.value)
    assert e.value.job.id == first
    other = background.start(rs.store, "demo", lambda t: {}, title="A demo", key="other")
    assert _finished(rs.store, other).status == "done"  # another key is another slot
    gate.go.set()
    _finished(rs.store, first)
    again = background.start(rs.store, "demo", lambda t: {"n": 2}, title="A demo")
    assert _finished(rs.store, again).result == {"n": 2}


def test_cancel_stops_the_work_at_its_next_step(rs):
    steps = []

    def work(task):
        for i in range(10_000):
            steps.append(i)
            task.progress(i, 10_000)
            time.sleep(0.01)
        return {"finished": True}

    job_id = background.start(rs.store, "demo", work, title="A demo")
    _until(rs.store, job_id, lambda v: v.done > 0)
    assert background.cancel(rs.store, job_id).cancel_requested
    v = _finished(rs.store, job_id)
    assert v.status == "cancelled" and "finished" not in v.result
    assert len(steps) < 10_000


def test_a_failure_keeps_its_reason_not_a_traceback(rs):
    def bad_input(task):
        raise ConfigError("goldenset 'x': no query names a document of the corpus")

    def bug(task):
        return {}["missing"]

    v = _finished(rs.store, background.start(rs.store, "demo", bad_input, title="A demo"))
    assert (v.status, v.error) == ("failed", "goldenset 'x': no query names a document of "
                                             "the corpus")
    v = _finished(rs.store, background.start(rs.store, "demo", bug, title="A demo"))
    assert v.status == "failed" and v.error == "KeyError: 'missing'"
    assert "Traceback" not in v.error


def test_a_dead_worker_reads_as_interrupted(rs):
    job_id = start_job(rs.store, "demo", params={"runner": background.RUNNER, "key": "",
                                                 "title": "A demo"})
    with rs.store.session() as s:  # the pid of a process that has exited
        job = s.get(Job, job_id)
        job.params = {**job.params, "pid": 2 ** 22 + 12345}
    v = background.latest(rs.store, "demo")
    assert v.status == "interrupted" and "stopped before it finished" in v.error
    assert background.running(rs.store, "demo") is None  # a new run may start
    with rs.store.session() as s:
        assert s.get(Job, job_id).status == "failed"


def test_reindex_job_lands_its_summary_and_refuses_a_viewer(ingestor, rs):
    assert all(o.ok for o in ingestor.ingest_many(
        [("a.md", b"# A\n\nThe pump runs daily.\n"), ("b.md", b"# B\n\nValves weekly.\n")],
        total=2))
    with pytest.raises(auth.PermissionDenied):
        dashboard_jobs.start_reindex(rs, Actor("viewer", "viewer"))
    assert background.latest(rs.store, dashboard_jobs.REINDEX) is None
    v = _finished(rs.store, dashboard_jobs.start_reindex(rs, ADMIN))
    assert v.status == "done" and v.result["versions"] == 2, v
    assert v.result["summary"].startswith(f"Reindexed {v.result['chunks']} chunks of 2 versions")
    assert not v.cancellable
    assert _job_kinds(rs) == ["ingest", "reindex"]  # one row for the run (Home listed two)


def test_reclassify_job(ingestor, rs):
    ingestor.ingest_many([("a.md", b"# A\n\nThe pump runs daily.\n")], total=1)
    v = _finished(rs.store, dashboard_jobs.start_reclassify(rs, ADMIN, dry_run=True))
    assert v.status == "done" and v.result["summary"].startswith("would change: "), v
    assert v.total == 1 and v.unit == "documents"
    assert _job_kinds(rs).count("reclassify") == 1


def _job_kinds(rs) -> list[str]:
    with rs.store.session() as s:
        return [j.kind for j in s.query(Job).order_by(Job.id)]


def test_upload_job_records_every_file_and_a_bad_one_does_not_stop_the_batch(rs):
    files = [("good.md", b"# Good\n\nThe pump runs daily.\n"), ("bad.xyz", b"\x00\x01"),
             ("also.md", b"# Also\n\nValves are tested weekly.\n")]
    job_id = dashboard_jobs.start_upload(rs, files, ADMIN, collection="plant")
    v = _finished(rs.store, job_id)
    assert v.status == "done", v
    outcomes = {o["filename"]: o for o in v.result["outcomes"]}
    assert outcomes["good.md"]["status"] == "new" and outcomes["also.md"]["status"] == "new"
    assert outcomes["bad.xyz"]["status"] == "failed" and outcomes["bad.xyz"]["error"]
    assert (v.done, v.failed, v.total) == (2, 1, 3)
    with pytest.raises(background.JobRunning):  # the same collection while one runs
        gate = threading.Event()
        background.start(rs.store, dashboard_jobs.UPLOAD, lambda t: gate.wait(WAIT_S) and {},
                         title="An upload", key="plant")
        try:
            dashboard_jobs.start_upload(rs, files[:1], ADMIN, collection="plant")
        finally:
            gate.set()


def test_a_cancelled_upload_keeps_the_files_stored_so_far(rs, monkeypatch):
    from backend.services.jobs import request_cancel

    def cancel_on_first_note(task, message):  # the user clicks Cancel after the first file
        request_cancel(task.store, task.job_id)

    monkeypatch.setattr(background.Task, "note", cancel_on_first_note)
    files = [(f"n{i}.md", f"# N{i}\n\nPump P-{i} runs on day {i}.\n".encode())
             for i in range(40)]  # the batch embeds and reports every 16 files (FLUSH_FILES)
    v = _finished(rs.store, dashboard_jobs.start_upload(rs, files, ADMIN, collection="plant"))
    assert v.status == "cancelled", v
    stored = [o for o in v.result["outcomes"] if o["status"] == "new"]
    assert 1 <= len(stored) < len(files)  # stopped at a batch; what is stored stays
    from backend.store.models import Document
    with rs.store.session() as s:
        assert s.query(Document).count() == len(stored)


def _eval_corpus(rs, ingestor):
    from eval.goldenset import GoldQuery, Relevant, make_goldenset
    from eval.store import save_goldenset

    docs = {"pumps.md": b"# Pumps\n\nPump P-2 is serviced every March.\n",
            "billing.md": b"# Billing\n\nLate invoices cost a fee of 5 EUR.\n"}
    assert all(o.ok for o in ingestor.ingest_many(list(docs.items()), total=2))
    gs = make_goldenset("mini", [
        GoldQuery("q01", "When is pump P-2 serviced?", [Relevant("pumps.md", 2)]),
        GoldQuery("q02", "What does a late invoice cost?", [Relevant("billing.md", 2)])])
    save_goldenset(rs, gs, source="test")
    return gs


def test_evaluation_job_stores_runs_and_lands_on_their_batch(rs, ingestor):
    from eval import jobs as eval_jobs
    from eval.goldenset import GoldensetError
    from eval.store import get_run, list_runs

    gs = _eval_corpus(rs, ingestor)
    job_id = eval_jobs.start_eval(rs, gs, ["hybrid", "lexical_only"], scope=Scope.everything(),
                                  by="editor", traces=False)
    v = _finished(rs.store, job_id)
    assert v.status == "done", v
    assert (v.done, v.total) == (6, 6)  # 2 questions: embedded, then x 2 configurations
    runs = [get_run(rs, i, scope=Scope.everything()) for i in v.result["run_ids"]]
    assert sorted(r.info.config_name for r in runs) == ["hybrid", "lexical_only"]
    assert {r.info.batch for r in runs} == {v.result["batch"]}
    assert len(list_runs(rs, "mini", scope=Scope.everything())) == 2
    with pytest.raises(GoldensetError, match="unknown configuration"):  # before any job
        eval_jobs.start_eval(rs, gs, ["no_such_config"], scope=Scope.everything(), by="x")


def test_a_cancelled_evaluation_stores_nothing(rs, ingestor, monkeypatch):
    from eval import jobs as eval_jobs
    from eval import service
    from eval.store import list_runs

    gs = _eval_corpus(rs, ingestor)
    real, asked = service.run, threading.Event()

    def slow_progress(*a, on_progress, **kw):  # a cancel arrives after the first query
        def progress(done, total, what):
            on_progress(done, total, what)
            if not asked.is_set():
                asked.set()
                background.cancel(rs.store, eval_jobs.latest(rs).id)
            time.sleep(background.PROGRESS_EVERY_S)
        return real(*a, on_progress=progress, **kw)

    monkeypatch.setattr(service, "run", slow_progress)
    v = _finished(rs.store, eval_jobs.start_eval(rs, gs, ["hybrid"], scope=Scope.everything(),
                                                 by="editor", traces=False))
    assert v.status == "cancelled", v
    assert list_runs(rs, "mini", scope=Scope.everything()) == []
