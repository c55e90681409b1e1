"""ACL matrix (service layer and CLI): three knowledge bases, three groups, a user for every
combination of the groups. Every read path returns exactly the documents of the user's
groups and nothing of the others: hits, inventory answers, listings, counts, facets, stored
traces, chat sources, evaluation runs; ids outside the scope raise the NotFound of a missing
id. Writes need a writable collection. Admins see everything; group changes take effect at
the next call. The admin functions refuse bad input with clear errors."""
from __future__ import annotations

import pytest

from backend.security import acl, auth
from backend.services import debug
from backend.services import documents as docs
from backend.security import access
from backend.services import document_actions
from backend.services import system
from backend.security.access import Actor, Scope, scope_of
from backend.chat.service import ChatService
from backend.errors import AccessConfigError, NotFound
from backend.retrieval import RetrievalParams, Retriever
from tests.acl_fixtures import (
    COLLECTION,
    FILENAME,
    GROUP,
    KBS,
    MARK,
    QUERY,
    Matrix,
    build,
    combos,
    dump,
    user_name,
)
from tests.page_support import shared_model  # noqa: F401  (fixture)

POLICIES = ("hybrid", "lexical_only", "document_first", "section_first")


@pytest.fixture(scope="module")
def matrix(tmp_path_factory, shared_embedder) -> Matrix:
    return build(tmp_path_factory.mktemp("acl") / "var", shared_embedder)


@pytest.fixture
def rs(matrix, shared_embedder):
    r = matrix.rs(shared_embedder)
    yield r
    r.close()


def _ids(kbs, matrix) -> set[int]:
    return {matrix.doc[k] for k in kbs}


def _missing_message(fn, bad_id: int) -> str:
    with pytest.raises(NotFound) as e:
        fn(bad_id)
    return str(e.value).replace(str(bad_id), "ID")


@pytest.mark.parametrize("kbs", combos(), ids=lambda c: user_name(c))
def test_every_read_path_returns_exactly_the_groups_documents(rs, matrix, kbs):
    actor = matrix.actor(kbs)
    scope = scope_of(rs, actor)
    want = _ids(kbs, matrix)
    bad = matrix.forbidden(kbs)
    assert scope.readable == {COLLECTION[k] for k in kbs}
    assert scope.writable == frozenset()  # viewers change nothing, whatever the grant
    seen: list = []

    # retrieval, every policy; the filter is applied before the indexes are searched
    for policy in POLICIES:
        res = Retriever(rs).retrieve(QUERY, RetrievalParams(policy=policy, k=20), scope=scope)
        assert {h.document_id for h in res.hits} == want, policy
        assert {d.document_id for d in res.documents} <= want
        seen.append(res.to_dict())
    # inventory answers: all documents, and those about a topic
    for q in ("Welche Dokumente gibt es?", "Which documents cover the maintenance schedule?"):
        res = Retriever(rs).retrieve(q, scope=scope)
        assert res.mode == "inventory"
        assert {d.document_id for d in res.documents} == want, q
        seen.append(res.to_dict())

    # listings, counts and facets
    page = docs.list_documents(rs, docs.ExplorerFilter(), 1, 100, scope=scope)
    assert {r.id for r in page.rows} == want and page.total == len(want)
    text_page = docs.list_documents(rs, docs.ExplorerFilter(text="maintenance"), scope=scope)
    assert {r.id for r in text_page.rows} == want
    opts = docs.filter_options(rs, scope=scope)
    assert opts.collections == sorted(COLLECTION[k] for k in kbs)
    assert opts.file_types == (["md"] if kbs else [])
    status = system.system_status(rs, scope=scope)
    assert status.counts["documents"] == len(want)
    assert status.counts["collections"] == len(kbs)
    assert (status.counts["active_chunks"] > 0) == bool(kbs)
    assert [c for c, _ in status.collections] == sorted(COLLECTION[k] for k in kbs)
    assert status.jobs == [] and status.index_meta == {"vector": None, "keyword": None}
    assert [c.name for c in acl.collections(rs, scope)] == sorted(COLLECTION[k] for k in kbs)
    assert {k.name for k in acl.knowledge_bases(rs, scope)} >= set(kbs)
    assert debug.filter_choices(rs, scope=scope)["collections"] == opts.collections
    seen += [page, text_page, opts, status]

    # ids: readable ones work, the others behave exactly like ids that do not exist
    for kb in KBS:
        d, v = matrix.doc[kb], matrix.version[kb]
        calls = {
            "detail": lambda i: docs.document_detail(rs, i, scope=scope),
            "text": lambda i: docs.version_text(rs, i, scope=scope),
            "sections": lambda i: docs.section_tree(rs, i, scope=scope),
            "chunks": lambda i: docs.chunks_of(rs, i, scope=scope),
            "original": lambda i: docs.original_file(rs, i, scope=scope),
            "default version": lambda i: docs.default_version_id(rs, i, scope=scope),
        }
        for what, call in calls.items():
            the_id = d if what in ("detail", "default version") else v
            if kb in kbs:
                seen.append(call(the_id))
            else:
                assert _missing_message(call, the_id) == _missing_message(call, 999999), what
        if kb in kbs:
            assert access.resolve_document(rs, FILENAME[kb], scope=scope) == d
            assert MARK[kb] in docs.version_text(rs, v, scope=scope)
        else:
            with pytest.raises(NotFound):
                access.resolve_document(rs, FILENAME[kb], scope=scope)
            with pytest.raises(NotFound) as e:  # naming its collection: "unknown", lists none
                Retriever(rs).retrieve(QUERY, RetrievalParams(collections=[COLLECTION[kb]]),
                                       scope=scope)
            named = str(e.value).replace(f"'{COLLECTION[kb]}'", "'X'")  # the name asked for
            assert named.startswith("unknown collection 'X'")
            assert not any(b in named for b in bad), named

    # query debug: the persisted trace and its listing
    result = debug.run_query(rs, QUERY, {"k": 20}, actor=actor)
    assert {h["document_id"] for h in result["hits"]} == want
    stored = debug.load_trace(rs, result["trace"]["id"], actor=actor)
    assert result["trace"]["id"] in {t["id"] for t in debug.past_traces(rs, actor=actor)}
    seen += [result, stored]

    # chat: sources of the answer and of the stored messages
    chat = ChatService(rs)
    sess = chat.create_session(actor.username)
    answer = chat.ask(sess.uuid, "What is the maintenance schedule?", scope=scope,
                      user=actor.username)
    assert {s["document_id"] for s in answer.message.sources} == want
    seen += [answer, chat.messages(sess.uuid, scope=scope, user=actor.username)]

    text = dump(seen)
    for b in bad:
        assert b not in text, b
    for k in kbs:
        assert MARK[k] in text


def test_admins_and_the_operator_see_everything(rs, matrix):
    for actor in (Actor("admin", "admin"), Actor.system("cli")):
        scope = scope_of(rs, actor)
        assert scope.unrestricted
        res = Retriever(rs).retrieve(QUERY, RetrievalParams(k=20), scope=scope)
        assert {h.document_id for h in res.hits} == set(matrix.doc.values())
        assert system.system_status(rs, scope=scope).index_meta["vector"] is not None


def test_a_principal_gets_the_scope_of_its_groups_only(rs, matrix):
    scope = scope_of(rs, Actor.principal("bot-a", "viewer"))
    assert scope.readable == {COLLECTION["alpha"]}
    # a principal is no dashboard user: the all-users group does not include it
    assert scope_of(rs, Actor.principal("u-abg", "viewer")).readable == frozenset()
    assert scope_of(rs, None) == Scope.nothing()
    res = Retriever(rs).retrieve(QUERY, scope=scope)
    assert {h.document_id for h in res.hits} == {matrix.doc["alpha"]}


def test_writes_need_a_writable_collection(rs, matrix):
    editor_b = Actor("u-b-ed", "editor")  # g-beta grants write on beta
    editor_a = Actor("u-a-ed", "editor")  # g-alpha grants read only
    assert scope_of(rs, editor_b).writable == {COLLECTION["beta"]}
    out = document_actions.ingest_uploads(rs, [("beta_extra.md", b"# Beta extra\n\nMore beta text.\n")],
                              editor_b, collection=COLLECTION["beta"])
    assert out[0].ok
    with pytest.raises(auth.PermissionDenied, match="may read but not change"):
        document_actions.ingest_uploads(rs, [("a.md", b"# A\n\nalpha\n")], editor_a,
                            collection=COLLECTION["alpha"])
    with pytest.raises(NotFound, match="unknown collection"):  # cannot even read it
        document_actions.ingest_uploads(rs, [("g.md", b"# G\n\ngamma\n")], editor_b,
                            collection=COLLECTION["gamma"])
    with pytest.raises(NotFound, match="unknown knowledge base 'beta'"):  # not even readable
        document_actions.ingest_uploads(rs, [("n.md", b"# N\n\nnew\n")], editor_a, collection="brand-new",
                            knowledge_base="beta")
    with pytest.raises(auth.PermissionDenied, match="may not add collections to knowledge "
                                                    "base 'alpha'"):
        document_actions.ingest_uploads(rs, [("n.md", b"# N\n\nnew\n")], editor_a, collection="brand-new",
                            knowledge_base="alpha")
    with pytest.raises(NotFound):
        document_actions.delete_document(rs, matrix.doc["gamma"], editor_b)
    with pytest.raises(auth.PermissionDenied):
        document_actions.delete_document(rs, matrix.doc["alpha"], editor_a)
    with pytest.raises(auth.PermissionDenied):  # a viewer in a write group: the role decides
        document_actions.ingest_uploads(rs, [("v.md", b"# V\n\nv\n")], Actor("u-b", "viewer"),
                            collection=COLLECTION["beta"])
    assert document_actions.delete_document(rs, out[0].document_id, editor_b) == out[0].document_id
    assert "brand-new" not in {c.name for c in acl.collections(rs, Scope.everything())}


def test_titles_profiles_and_forced_versions_need_write_on_the_document(rs, matrix):
    """Document changes from the classification layer (title, profile) and a forced "new
    version of DOC" upload: write on the document's collections, NotFound when unreadable."""
    from backend.services import classification as classes

    editor_b, editor_a = Actor("u-b-ed", "editor"), Actor("u-a-ed", "editor")
    beta, alpha, gamma = (matrix.doc[k] for k in ("beta", "alpha", "gamma"))
    classes.set_title(rs, beta, "Beta renamed", editor_b)
    assert docs.document_detail(rs, beta, scope=Scope.everything()).title == "Beta renamed"
    classes.reset_title(rs, beta, editor_b)
    assert docs.document_detail(rs, beta, scope=Scope.everything()).title != "Beta renamed"
    with pytest.raises(auth.PermissionDenied, match="may only read"):
        classes.set_title(rs, alpha, "Alpha renamed", editor_a)
    with pytest.raises(auth.PermissionDenied, match="may only read"):
        classes.set_profile(rs, alpha, "web_structured", editor_a)
    with pytest.raises(NotFound):
        classes.set_title(rs, gamma, "Gamma renamed", editor_b)
    with pytest.raises(auth.PermissionDenied):  # the role decides first
        classes.set_title(rs, beta, "x", Actor("u-b", "viewer"))
    with pytest.raises(auth.PermissionDenied, match="may read but not change document"):
        document_actions.ingest_uploads(rs, [("v2.md", b"# Alpha v2\n\nnew text\n")], editor_a,
                            collection=COLLECTION["alpha"], identity="version_of",
                            version_of=str(alpha))
    with pytest.raises(NotFound):  # unreadable: like a document that does not exist
        document_actions.ingest_uploads(rs, [("v2.md", b"# Gamma v2\n\nnew text\n")], editor_b,
                            collection=COLLECTION["beta"], identity="version_of",
                            version_of=FILENAME["gamma"])
    assert docs.document_detail(rs, alpha, scope=Scope.everything()).title != "Alpha renamed"


def test_group_changes_apply_at_the_next_call_and_hide_earlier_results(rs, matrix):
    """A user who loses access no longer sees the document in traces and chat sources made
    while they had it."""
    name = "u-a"  # in g-alpha only
    actor = Actor(name, "viewer")
    trace = debug.run_query(rs, QUERY, {"k": 5}, actor=actor)
    chat = ChatService(rs)
    sess = chat.create_session(name)
    chat.ask(sess.uuid, "What is the maintenance schedule?", scope=scope_of(rs, actor),
             user=name)
    admin = Actor("admin", "admin")
    acl.remove_member(rs, admin, GROUP["alpha"], "user", name)
    try:
        scope = scope_of(rs, actor)
        assert scope.readable == frozenset()
        stored = debug.load_trace(rs, trace["trace"]["id"], actor=actor)
        assert stored["hits"] == [] and stored["documents"] == []
        assert all(not st["candidates"] for st in stored["trace"]["stages"])
        msgs = chat.messages(sess.uuid, scope=scope, user=name)
        sources = [s for m in msgs for s in m.sources]
        assert sources and all(s.get("hidden") and s["document_id"] is None for s in sources)
        assert MARK["alpha"] not in dump([stored, msgs[-1].sources])
        # the admin still sees the trace whole
        assert debug.load_trace(rs, trace["trace"]["id"], actor=admin)["hits"]
    finally:
        acl.add_member(rs, admin, GROUP["alpha"], "user", name)
    assert scope_of(rs, actor).readable == {COLLECTION["alpha"]}


def test_evaluation_runs_and_goldensets_follow_the_scope(rs, matrix):
    from eval import service
    from eval.goldenset import GoldQuery, Relevant, make_goldenset
    from eval.store import get_run, list_goldensets, list_runs, save_goldenset

    gs = make_goldenset("acl-matrix", [GoldQuery(f"q{k}", f"{MARK[k]} maintenance schedule",
                                                 [Relevant(FILENAME[k])]) for k in KBS])
    save_goldenset(rs, gs)
    save_goldenset(rs, make_goldenset("acl-beta-only", gs.queries, collection=COLLECTION["beta"]))
    a, abc = Actor("u-a", "viewer"), Actor("u-abg", "viewer")
    a_scope = scope_of(rs, a)
    report, (a_run,) = service.run(rs, gs, ["hybrid"], scope=a_scope)
    ranked = {d for r in report.configs["hybrid"].per_query.values() for d, _ in r.ranking}
    assert ranked == {FILENAME["alpha"]}  # the corpus is what u-a may read
    _, (all_run,) = service.run(rs, gs, ["hybrid"], scope=Scope.everything())
    assert {r.id for r in list_runs(rs, "acl-matrix", scope=a_scope)} == {a_run}
    assert {r.id for r in list_runs(rs, "acl-matrix", scope=scope_of(rs, abc))} >= \
        {a_run, all_run}
    b_scope = scope_of(rs, Actor("u-b", "viewer"))
    assert list_runs(rs, "acl-matrix", scope=b_scope) == []
    with pytest.raises(Exception, match="no evaluation run"):
        get_run(rs, a_run, scope=b_scope)
    assert "acl-beta-only" not in {g.name for g in list_goldensets(rs, scope=a_scope)}
    assert "acl-beta-only" in {g.name for g in list_goldensets(rs, scope=b_scope)}
    hits = service.search_documents(rs, gs, "maintenance schedule", scope=a_scope)
    assert {h.key for h in hits} == {FILENAME["alpha"]}


def test_cli_as_a_user_shows_only_their_documents(matrix, monkeypatch, capsys, shared_model):
    from backend.cli.main import main

    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(matrix.data))
    bad = matrix.forbidden(("beta",))
    outputs = []
    for argv in (["list"], ["collections"], ["status"], ["search", QUERY, "--json"],
                 ["search", "Welche Dokumente gibt es?"], ["show", FILENAME["beta"]],
                 ["access", "u-b"]):
        assert main(["--as", "u-b", *argv] if argv[0] != "access" else argv) == 0, argv
        outputs.append(capsys.readouterr().out)
    text = "\n".join(outputs)
    assert MARK["beta"] in text and FILENAME["beta"] in text
    for b in bad:
        assert b not in text, b
    for argv in (["show", str(matrix.doc["alpha"])], ["original", str(matrix.doc["gamma"])],
                 ["show", FILENAME["gamma"]], ["search", QUERY, "-c", COLLECTION["alpha"]],
                 ["list", "-c", COLLECTION["gamma"]], ["delete", str(matrix.doc["alpha"])]):
        assert main(["--as", "u-b", *argv]) == 2, argv
        err = capsys.readouterr().err
        assert "not found" in err or "unknown collection" in err
        err = err.replace(argv[-1], "ARG")  # the error may repeat what was asked for
        assert not any(b in err for b in bad), err
    assert main(["--as", "nobody", "list"]) == 2
    assert "no such enabled dashboard user" in capsys.readouterr().err
    assert main(["list"]) == 0  # the operator: everything
    out = capsys.readouterr().out
    assert all(c in out for c in COLLECTION.values())


def test_cli_document_changes_as_a_user_need_write(matrix, monkeypatch, capsys, shared_model):
    from backend.cli.main import main

    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(matrix.data))
    alpha, beta, gamma = (str(matrix.doc[k]) for k in ("alpha", "beta", "gamma"))
    assert main(["--as", "u-b-ed", "set-title", FILENAME["beta"], "Beta by CLI"]) == 0
    assert f"document {beta}: title set" in capsys.readouterr().out
    assert main(["--as", "u-b-ed", "set-title", beta, "--reset"]) == 0
    for argv, words in ((["set-title", alpha, "A"], "may only read"),
                        (["set-profile", alpha, "web_structured"], "may only read"),
                        (["set-title", gamma, "G"], "not found"),
                        (["set-title", FILENAME["gamma"], "--reset"], "not found"),
                        (["reclassify", "--all", "--dry-run"], "needs the admin role")):
        assert main(["--as", "u-ab-ed", *argv]) == 2, argv
        err = capsys.readouterr().err
        assert words in err, (argv, err)
        assert FILENAME["gamma"] not in err.replace(argv[1], "ARG"), err


# ---- admin functions: bad input ---------------------------------------------------------


def test_admin_functions_refuse_bad_input(rs, matrix):
    admin = Actor("admin", "admin")
    with pytest.raises(NotFound, match="unknown access group 'nope'"):
        acl.grant(rs, admin, "nope", "alpha", "read")
    with pytest.raises(NotFound, match="unknown knowledge base 'nope'"):
        acl.grant(rs, admin, GROUP["alpha"], "nope", "read")
    with pytest.raises(AccessConfigError, match="permission must be one of read, write"):
        acl.grant(rs, admin, GROUP["alpha"], "alpha", "admin")
    with pytest.raises(AccessConfigError, match="exists already"):
        acl.create_group(rs, admin, GROUP["alpha"])
    with pytest.raises(AccessConfigError, match="exists already"):
        acl.create_knowledge_base(rs, admin, "  alpha ")
    with pytest.raises(AccessConfigError, match="must not be empty"):
        acl.create_knowledge_base(rs, admin, "   ")
    with pytest.raises(AccessConfigError, match="at most 200"):
        acl.create_group(rs, admin, "x" * 201)
    with pytest.raises(AccessConfigError, match="control characters"):
        acl.create_group(rs, admin, "bad\x00name")
    with pytest.raises(AccessConfigError, match="still holds collection"):
        acl.delete_knowledge_base(rs, admin, "alpha")
    with pytest.raises(AccessConfigError, match="default knowledge base"):
        acl.delete_knowledge_base(rs, admin, "default")
    with pytest.raises(AccessConfigError, match="member kind must be one of user, principal"):
        acl.add_member(rs, admin, GROUP["alpha"], "robot", "x")
    with pytest.raises(NotFound, match="unknown user 'ghost'"):
        acl.add_member(rs, admin, GROUP["alpha"], "user", "ghost")
    with pytest.raises(NotFound, match="is not a member"):
        acl.remove_member(rs, admin, GROUP["alpha"], "user", "u-b")
    with pytest.raises(NotFound, match="has no grant"):
        acl.revoke(rs, admin, GROUP["alpha"], "beta")
    with pytest.raises(NotFound, match="unknown collection"):
        acl.assign_collection(rs, admin, "no-such-collection", "alpha")
    for who in (Actor("u-abg-ed", "editor"), Actor.principal("bot-a", "editor"), None):
        with pytest.raises(auth.PermissionDenied):
            acl.create_knowledge_base(rs, who, "sneaky")
    assert "sneaky" not in acl.knowledge_base_names(rs)


def test_group_changes_never_restrict_an_admin(rs, matrix):
    admin = Actor("admin", "admin")
    acl.create_knowledge_base(rs, admin, "lonely")
    acl.create_group(rs, admin, "empty", all_users=True)
    acl.set_all_users(rs, admin, "everyone", False)
    try:
        assert scope_of(rs, admin).unrestricted
        assert scope_of(rs, Actor("u-none", "viewer")).readable == frozenset()
    finally:
        acl.set_all_users(rs, admin, "everyone", True)
        acl.delete_group(rs, admin, "empty")
        acl.delete_knowledge_base(rs, admin, "lonely")
    assert "lonely" not in acl.knowledge_base_names(rs)


def test_moving_a_collection_moves_its_documents_between_scopes(rs, matrix):
    admin = Actor("admin", "admin")
    a_only = Actor("u-a", "viewer")
    acl.assign_collection(rs, admin, COLLECTION["gamma"], "alpha")
    try:
        assert COLLECTION["gamma"] in scope_of(rs, a_only).readable
        res = Retriever(rs).retrieve(QUERY, scope=scope_of(rs, a_only))
        assert matrix.doc["gamma"] in {h.document_id for h in res.hits}
        eff = acl.effective_access(rs, "user", "u-a")
        assert set(eff.groups) == {"g-alpha", "everyone"}
        assert {c.name for c in eff.collections} == {COLLECTION["alpha"], COLLECTION["gamma"]}
    finally:
        acl.assign_collection(rs, admin, COLLECTION["gamma"], "gamma")
    assert COLLECTION["gamma"] not in scope_of(rs, a_only).readable


# ---- migration 0016 on an existing install ----------------------------------------------


def test_upgrade_puts_existing_collections_into_the_default_knowledge_base(tmp_path, db_url):
    """Before knowledge bases: a collection and a document in none. After the upgrade both
    are in the knowledge base `default`, which the group `everyone` (every user) may
    write: viewers read everything as before, editors change it."""
    from datetime import datetime, timezone

    import sqlalchemy as sa

    from backend.config import Settings
    from backend.services.container import Ragscope
    from backend.store.db import make_engine, upgrade

    data = tmp_path / "var"
    settings = Settings(data_dir=data, database_url=db_url)
    settings.ensure_dirs()
    engine = make_engine(settings.db_url)
    upgrade(engine, "0007")
    now = datetime.now(timezone.utc)
    md = sa.MetaData()
    docs_t, colls, links = (sa.Table(n, md, autoload_with=engine)
                            for n in ("documents", "collections", "collection_documents"))
    with engine.begin() as c:  # ids from the database (PostgreSQL sequences advance)
        ids = [c.execute(docs_t.insert().returning(docs_t.c.id), {
            "title": f"doc {i}", "filename": f"d{i}.md", "source_kind": "file",
            "source_uri": f"/f/d{i}.md", "file_type": "md", "doc_type": "generic",
            "status": "active", "meta": {}, "created_at": now, "updated_at": now}).scalar_one()
            for i in (1, 2)]
        coll = c.execute(colls.insert().returning(colls.c.id), {
            "name": "old", "description": "", "created_at": now}).scalar_one()
        c.execute(links.insert(), {"collection_id": coll, "document_id": ids[0], "added_at": now})
    engine.dispose()

    rs = Ragscope(settings)  # migrates to head
    try:
        kbs = {k.name: k for k in acl.knowledge_bases(rs, Scope.everything())}
        assert set(kbs) == {"default"}
        assert {c.name: c.documents for c in kbs["default"].collections} == {"old": 1,
                                                                             "default": 1}
        assert kbs["default"].grants == {"everyone": "write"}
        [everyone] = acl.groups(rs)
        assert everyone.all_users and everyone.members == []
        viewer, editor = Actor("v", "viewer"), Actor("e", "editor")
        assert scope_of(rs, viewer).readable == {"old", "default"}
        assert scope_of(rs, viewer).writable == frozenset()
        assert scope_of(rs, editor).writable == {"old", "default"}
        assert docs.list_documents(rs, docs.ExplorerFilter(), scope=scope_of(rs, viewer)).total == 2
    finally:
        rs.close()
