"""The evaluation page through AppTest: results, charts and the trace link for a viewer (who
cannot run or edit), a run with progress and the goldenset editor for an editor, two runs
compared, and loading the bundled goldenset into an empty store."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from backend.security import auth
from backend.config import Settings
from backend.services.container import Ragscope
from eval import jobs as eval_jobs
from eval import ui_keys as E
from eval.configs import resolve
from eval.goldenset import GoldQuery, Relevant, make_goldenset
from eval.runner import evaluate
from eval.store import get_goldenset, list_runs, save_goldenset, save_report
from backend.security.access import Scope

EVERYTHING = Scope.everything()

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
PAGE = "pages/evaluation.py"
PASSWORDS = {"admin": "admin-password-1", "editor": "editor-password-1",
             "viewer": "viewer-password-1"}
DOCS = {"pumps.md": "# Pumps\n\nPump P-2 at Eichberg is serviced every March; its seals are "
                    "replaced every two years.\n",
        "billing.md": "# Billing\n\nLate invoices cost a fee of 5 EUR after the second "
                      "reminder.\n",
        "gateway.md": "# Gateway\n\nThe gateway listens on port 8443 by default.\n"}


def _goldenset():
    return make_goldenset("mini", [
        GoldQuery("q01", "When is pump P-2 serviced?", [Relevant("pumps.md", 2)],
                  reference_contexts=["Pump P-2 at Eichberg is serviced every March"]),
        GoldQuery("q02", "What does a late invoice cost?", [Relevant("billing.md", 2)]),
        GoldQuery("q03", "Which port does the gateway use?", [Relevant("gateway.md", 2)])])


def _users(data: Path) -> None:
    auth.bootstrap(data, admin_password=PASSWORDS["admin"])
    users = auth.UserStore(auth.AuthPaths.under(data), bcrypt_rounds=4)
    users.add("editor", "editor", password=PASSWORDS["editor"])
    users.add("viewer", "viewer", password=PASSWORDS["viewer"])


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, shared_embedder):
    from backend.ingest.service import Ingestor

    data = tmp_path_factory.mktemp("eval_page") / "var"
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = shared_embedder
    outs = Ingestor(rs).ingest_many([(n, t.encode()) for n, t in DOCS.items()],
                                    total=len(DOCS), collection="mini", source_kind="upload")
    assert all(o.ok for o in outs)
    gs = _goldenset()
    save_goldenset(rs, gs, source="test")
    save_report(rs, evaluate(rs, gs, resolve(["hybrid", "lexical_only"]), traces=True,
                             scope=EVERYTHING),
                label="seed")
    rs.close()
    _users(data)
    return data


@pytest.fixture
def page(monkeypatch, shared_embedder):
    """page(data_dir, user) -> an AppTest on the evaluation page, signed in as `user`."""
    import backend.embed.embedder

    monkeypatch.setattr(backend.embed.embedder, "Embedder", lambda *a, **k: shared_embedder)

    def signed_in(at: AppTest, user: str) -> AppTest:
        from tests.page_support import login_as

        login_as(at, user)
        return at.run()

    def make(data: Path, user: str) -> AppTest:
        monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(data))
        at = signed_in(AppTest.from_file(APP, default_timeout=120), user)
        try:
            at.switch_page(PAGE).run()
        except ValueError:  # app.py does not list the page yet: run the page file itself
            at = signed_in(AppTest.from_file(str(ROOT / PAGE), default_timeout=120), user)
        assert not at.exception, [e.value for e in at.exception]
        return at
    return make


def _button(at: AppTest, key: str):
    return next(b for b in at.button if b.key == key)


def test_viewer_sees_results_charts_and_trace_links(page, corpus):
    at = page(corpus, "viewer")
    assert at.title[0].value == "Evaluation"
    assert _button(at, E.EVAL_RUN).disabled  # viewers look, editors run
    assert any("needs the editor role" in c.value for c in at.caption)
    frames = [d.value for d in at.dataframe]
    metrics = frames[0]
    assert list(metrics["configuration"]) == ["hybrid", "lexical_only"]
    assert {"ndcg@10", "recall@5", "context_recall"} <= set(metrics.columns)
    charts = at.get("plotly_chart")
    assert len(charts) >= 3  # metric bars, per-query heatmap, history
    queries = next(f for f in frames if "trace" in f.columns)
    assert all(str(t).startswith("query_debug?trace=") for t in queries["trace"])
    trace = queries["trace"][0].split("=", 1)[1]
    links = ([f"{e.proto.page}?{e.proto.query_string}" for e in at.get("page_link")]
             + [m.value for m in at.markdown])
    assert any(trace in x for x in links)  # from the selected query to its trace


def test_editor_runs_an_evaluation_with_progress(page, corpus):
    before = len(list_runs(_rs(corpus), "mini", scope=EVERYTHING))
    at = page(corpus, "editor")
    at.multiselect(key=E.EVAL_CONFIGS).set_value(["rrf"]).run()
    _button(at, E.EVAL_RUN).click().run()  # starts the background job and returns
    assert not at.exception and not at.error
    rs = _rs(corpus)
    job = eval_jobs.latest(rs)
    assert job is not None and job.by == "editor"
    deadline = time.monotonic() + 180
    while eval_jobs.latest(rs).running and time.monotonic() < deadline:
        time.sleep(0.1)
    job = eval_jobs.latest(rs)
    assert job.status == "done", job
    at.run()  # what the page's poll does once the job has finished: land on the results
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("1 run of goldenset mini stored" in s.value for s in at.success)
    runs = list_runs(rs, "mini", scope=EVERYTHING)
    assert len(runs) == before + 1 and runs[0].config_name == "rrf"
    assert any("LLM-judged" in i.value.replace("\\", "") for i in at.info)
    # the new run is the one shown on the results tab
    assert list(at.dataframe[0].value["configuration"]) == ["rrf"]


def test_two_runs_compared(page, corpus):
    at = page(corpus, "viewer")
    table = next(d.value for d in at.dataframe if "p (randomisation)" in d.value.columns)
    assert {"ndcg@10", "recall@5"} <= set(table["metric"])
    assert set(table.columns) >= {"B wins", "B losses", "ties", "p (t-test)"}


def test_editor_adds_a_question_marking_a_search_result(page, corpus):
    at = page(corpus, "editor")
    at.selectbox(key=E.EVAL_EDIT_QID).set_value("__new__").run()
    k = f"{E.EVAL_EDIT}.mini.__new__."
    assert at.text_input(key=k + "id").value == "q04"
    at.text_area(key=k + "question").input("How often are the pump seals replaced?").run()
    at.text_input(key=f"{E.EVAL_SEARCH}.mini.__new__").input("pump seals replaced").run()
    _button(at, E.EVAL_SEARCH_GO).click().run()
    at.multiselect(key=E.EVAL_MARK).set_value(["pumps.md"]).run()
    _button(at, E.EVAL_MARK_ADD).click().run()
    _button(at, E.EVAL_SAVE).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    q = get_goldenset(_rs(corpus), "mini").queries[-1]
    assert (q.id, q.question) == ("q04", "How often are the pump seals replaced?")
    assert [(r.doc, r.grade) for r in q.relevant] == [("pumps.md", 2)]
    assert any("Saved question q04" in s.value for s in at.success)


def test_viewer_cannot_edit(page, corpus):
    at = page(corpus, "viewer")
    assert not any(b.key == E.EVAL_SAVE for b in at.button)
    assert at.text_input(key=f"{E.EVAL_EDIT}.mini.q01.id").disabled


def test_empty_store_offers_the_bundled_goldenset(page, tmp_path):
    data = tmp_path / "var"
    Ragscope(Settings(data_dir=data)).close()
    _users(data)
    at = page(data, "editor")
    assert any("No goldenset stored yet" in i.value for i in at.info)
    _button(at, E.EVAL_IMPORT).click().run()
    assert not at.exception
    assert len(get_goldenset(_rs(data), "sample").queries) >= 40
    assert any("Loaded goldenset sample" in s.value for s in at.success)


def _rs(data: Path) -> Ragscope:
    return Ragscope(Settings(data_dir=data))


def test_rated_answers_are_listed_and_one_becomes_a_goldenset_question(page, corpus):
    from backend.chat.service import ChatService
    from backend.security.access import Actor
    from backend.services import feedback

    rs = _rs(corpus)
    chat = ChatService(rs)
    sess = chat.create_session("viewer")
    ans = chat.ask(sess.uuid, "When is pump P-2 serviced?", scope=EVERYTHING).message
    assert any(s["cited"] and s["filename"] == "pumps.md" for s in ans.sources)
    feedback.rate(rs, Actor("viewer", "viewer"), ans.id, "up", "exactly right")
    other = chat.create_session("editor")
    mine = chat.ask(other.uuid, "Which port does the gateway use?", scope=EVERYTHING).message
    feedback.rate(rs, Actor("editor", "editor"), mine.id, "down", "port changed")
    rs.close()

    at = page(corpus, "admin")
    rated = next(d.value for d in at.dataframe if "note" in d.value.columns)
    assert set(rated["note"]) == {"exactly right", "port changed"}
    assert set(rated["who"]) == {"viewer", "editor"}
    assert all(str(t).startswith("query_debug?trace=") for t in rated["trace"])
    at.selectbox(key=E.EVAL_FB_RATING).set_value("up").run()
    rated = next(d.value for d in at.dataframe if "note" in d.value.columns)
    assert list(rated["question"]) == ["When is pump P-2 serviced?"]
    at.selectbox(key=f"{E.EVAL_FB_DRAFT}.target").set_value("__new__").run()
    k = f"{E.EVAL_FB_DRAFT}.{ans.id}.__new__."
    assert at.text_area(key=k + "question").value == "When is pump P-2 serviced?"
    assert at.text_area(key=k + "documents").value == "pumps.md"
    assert "March" in at.text_area(key=k + "answer").value
    assert "[1]" not in at.text_area(key=k + "answer").value
    at.text_input(key=k + "name").input("from-feedback")
    at.text_area(key=k + "answer").input("Every March.")
    at.button(key=f"FormSubmitter:{k}form-Save as goldenset question").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    (q,) = get_goldenset(_rs(corpus), "from-feedback").queries
    assert (q.question, q.reference_answer) == ("When is pump P-2 serviced?", "Every March.")
    assert [(r.doc, r.grade) for r in q.relevant] == [("pumps.md", 2)]
    assert "thumbs-up" in q.tags and q.reference_contexts

    viewer = page(corpus, "viewer")  # a viewer sees the ratings they gave, no draft form
    rated = next(d.value for d in viewer.dataframe if "note" in d.value.columns)
    assert list(rated["who"]) == ["viewer"]
    assert any("needs the editor role" in c.value for c in viewer.caption)
