"""ACL matrix for the analysis layer (backend/analysis/): extractor results, summaries,
section lists, version and document comparisons and cross-references, through the service,
the chat's analysis route and the CLI, for a user of every combination of the three
knowledge bases. A document outside the reader's scope behaves exactly like a missing one
(the same NotFound message); comparisons and cross-references never read, name or count a
document outside it."""
from __future__ import annotations

import pytest

from backend.security.access import Actor, Scope, scope_of
from backend.analysis.compare import compare_documents, compare_versions
from backend.analysis.service import analyze_document, sections_of
from backend.analysis.summaries import summarize_document, summarize_section
from backend.analysis.xref import cross_reference
from backend.chat.service import ChatService
from backend.errors import NotFound
from tests.acl_fixtures import (
    COLLECTION,
    FILENAME,
    KBS,
    MARK,
    QUERY,
    Matrix,
    build,
    combos,
    dump,
    text,
    user_name,
)
from tests.page_support import shared_model  # noqa: F401  (fixture: the CLI loads the model)

MISSING = 987654


def minutes_v2(kb: str) -> bytes:
    """A second version of a matrix document: one decision and one action more."""
    return text(kb) + (f"\n## Beschlüsse\n\nBeschluss: Der Wartungsplan {MARK[kb]} wird ab "
                       f"sofort monatlich geprüft.\n\nAufgabe: Das {kb} team prüft die Pumpen "
                       "bis zum 30.06.2031.\n").encode()


@pytest.fixture(scope="module")
def matrix(tmp_path_factory, shared_embedder) -> Matrix:
    from backend.ingest.identity import Identity
    from backend.ingest.service import Ingestor

    m = build(tmp_path_factory.mktemp("acl_analysis") / "var", shared_embedder)
    rs = m.rs(shared_embedder)
    try:
        ing = Ingestor(rs)
        for kb in KBS:  # every document gets a second version to compare
            out = ing.ingest_bytes(minutes_v2(kb), FILENAME[kb], collection=COLLECTION[kb],
                                   identity=Identity.version_of(m.doc[kb]))
            assert out.ok and out.document_id == m.doc[kb], out
            m.version[kb] = out.version_id
    finally:
        rs.close()
    return m


@pytest.fixture
def rs(matrix, shared_embedder):
    r = matrix.rs(shared_embedder)
    yield r
    r.close()


def _message(fn, ref) -> str:
    with pytest.raises(NotFound) as e:
        fn(ref)
    return str(e.value).replace(str(ref), "REF")


@pytest.mark.parametrize("kbs", combos(), ids=lambda c: user_name(c))
def test_analysis_results_follow_the_scope(rs, matrix, kbs):
    scope = scope_of(rs, matrix.actor(kbs))
    want = {matrix.doc[k] for k in kbs}
    bad = matrix.forbidden(kbs)
    seen: list = []
    calls = {
        "analyze": lambda d: analyze_document(rs, d, scope=scope),
        "analyze v1": lambda d: analyze_document(rs, d, version=1, what="decisions",
                                                 scope=scope),
        "summary": lambda d: summarize_document(rs, d, length="short", scope=scope),
        "section summary": lambda d: summarize_section(rs, d, "Maintenance", scope=scope),
        "sections": lambda d: sections_of(rs, d, scope=scope),
        "versions": lambda d: compare_versions(rs, d, scope=scope),
        "xref of a section": lambda d: cross_reference(rs, doc=d, section="Maintenance",
                                                       scope=scope),
    }
    for kb in KBS:
        d = matrix.doc[kb]
        for what, call in calls.items():
            if kb in kbs:
                seen.append(call(d))
                seen.append(call(FILENAME[kb]))  # by file name as well
            else:  # the same error as for an id / a name that does not exist
                assert _message(call, d) == _message(call, MISSING), what
                assert _message(call, FILENAME[kb]) == _message(call, "no-such-file.md"), what
    for kb in kbs:
        res = analyze_document(rs, matrix.doc[kb], what="decisions", scope=scope)
        assert any(MARK[kb] in i.text for i in res.items("decisions"))
        cmp = compare_versions(rs, matrix.doc[kb], scope=scope)
        assert (cmp.document_a.version_number, cmp.document_b.version_number) == (1, 2)
        assert any(s.status == "added" for s in cmp.sections)
    # cross-references find sections of readable documents only (the retrieval's ACL filter)
    for kb in kbs:
        xr = cross_reference(rs, doc=matrix.doc[kb], section="Maintenance", scope=scope)
        assert {h.document_id for h in xr.hits} <= want - {matrix.doc[kb]}
    xr = cross_reference(rs, QUERY, scope=scope)
    assert {h.document_id for h in xr.hits} == want
    seen.append(xr)
    for kb in KBS:
        if kb not in kbs:
            with pytest.raises(NotFound, match="unknown collection"):
                cross_reference(rs, QUERY, collections=[COLLECTION[kb]], scope=scope)
    # two documents: both must be readable; a hidden one is "not found", never compared
    for a in KBS:
        for b in KBS:
            if a == b:
                continue
            call = lambda other, a=a: compare_documents(rs, matrix.doc[a], other, scope=scope)
            if a in kbs and b in kbs:
                seen.append(call(matrix.doc[b]))
            elif a in kbs:
                assert _message(call, matrix.doc[b]) == _message(call, MISSING)
            else:
                with pytest.raises(NotFound):
                    call(matrix.doc[b])
    shown = dump(seen)
    for b in bad:
        assert b not in shown, b
    for k in kbs:
        assert MARK[k] in shown


def test_the_operator_analyses_every_document(rs, matrix):
    scope = Scope.everything()
    for kb in KBS:
        assert analyze_document(rs, matrix.doc[kb], scope=scope).document.document_id == \
            matrix.doc[kb]
    c = compare_documents(rs, matrix.doc["alpha"], matrix.doc["gamma"], scope=scope)
    assert {c.document_a.document_id, c.document_b.document_id} == \
        {matrix.doc["alpha"], matrix.doc["gamma"]}


def _trace_document_ids(trace: dict) -> set[int]:
    ids: set[int] = set()
    for st in trace.get("stages", []):
        p = st.get("params") or {}
        for key in ("document_id", "document_b"):
            if isinstance(p.get(key), int):
                ids.add(p[key])
        for key in ("checked", "ranked", "also"):
            ids.update(x for x in p.get(key) or [] if isinstance(x, int))
    ids.update(h["document_id"] for h in trace.get("hits", []))
    return ids


@pytest.mark.parametrize("kbs", [("alpha",), ("beta", "gamma")], ids=lambda c: user_name(c))
def test_the_chats_analysis_route_stays_in_the_scope(rs, matrix, kbs):
    from backend.services import debug

    actor = matrix.actor(kbs)
    scope = scope_of(rs, actor)
    want = {matrix.doc[k] for k in kbs}
    chat = ChatService(rs)
    seen = []
    hidden = next(k for k in KBS if k not in kbs)
    questions = ("Was wurde beschlossen?", f"Fass {FILENAME[hidden]} zusammen",
                 "Was hat sich zwischen Version 1 und 2 geändert?",
                 f"Compare {FILENAME[kbs[0]]} with {FILENAME[hidden]}",
                 "Where else is the maintenance schedule mentioned?")
    for question in questions:
        sess = chat.create_session(actor.username)
        answer = chat.ask(sess.uuid, question, scope=scope, user=actor.username)
        assert {s["document_id"] for s in answer.message.sources} <= want, question
        trace = debug.load_trace(rs, answer.message.trace_id, actor=actor)
        assert _trace_document_ids(trace) <= want, (question, trace)
        stored = [m for m in chat.messages(sess.uuid, scope=scope, user=actor.username)
                  if m.role == "assistant"]
        seen += [answer.message, trace, stored]
    decided = chat.ask(chat.create_session(actor.username).uuid, "Was wurde beschlossen?",
                       scope=scope, user=actor.username).message
    assert decided.provider == "analysis", decided.content
    assert any(MARK[k] in decided.content for k in kbs), decided.content
    shown = dump(seen)
    for q in questions:  # what the user typed may name a hidden document (quoted in the
        shown = shown.replace(q, "QUESTION")  # trace); nothing the system adds does
        for name in FILENAME.values():  # the retrieval trace's exact tokens of the question
            if name in q:
                shown = shown.replace(f'"{name}"', '"QUESTION-TOKEN"')
    for b in matrix.forbidden(kbs):
        assert b not in shown, b


def test_cli_analysis_commands_as_a_user(matrix, monkeypatch, capsys, shared_model):
    from backend.cli.main import main

    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(matrix.data))
    bad = matrix.forbidden(("beta",))
    beta, alpha, gamma = (str(matrix.doc[k]) for k in ("beta", "alpha", "gamma"))
    outputs = []
    for argv in (["analyze", beta, "--json"], ["summarize", FILENAME["beta"]],
                 ["compare", beta], ["xref", QUERY, "--json"],
                 ["xref", "--doc", beta, "--section", "Maintenance"]):
        assert main(["--as", "u-b", *argv]) == 0, argv
        outputs.append(capsys.readouterr().out)
    shown = "\n".join(outputs)
    assert MARK["beta"] in shown
    for b in bad:
        assert b not in shown, b
    for argv in (["analyze", alpha], ["summarize", FILENAME["gamma"]], ["compare", gamma],
                 ["compare", beta, alpha], ["xref", "--doc", alpha, "--section", "Maintenance"],
                 ["xref", QUERY, "-c", COLLECTION["gamma"]]):
        assert main(["--as", "u-b", *argv]) == 2, argv
        err = capsys.readouterr().err
        assert "not found" in err or "unknown collection" in err, err
        err = err.replace(argv[-1], "ARG").replace(argv[1], "ARG")
        assert not any(b in err for b in bad), err
    assert main(["analyze", alpha, "--json"]) == 0  # the operator: every document
    assert MARK["alpha"] in capsys.readouterr().out


def test_an_actor_without_groups_analyses_nothing(rs, matrix):
    scope = scope_of(rs, Actor("u-none", "viewer"))
    for kb in KBS:
        with pytest.raises(NotFound):
            analyze_document(rs, matrix.doc[kb], scope=scope)
    assert cross_reference(rs, QUERY, scope=scope).hits == []
