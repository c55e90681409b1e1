"""ACL matrix on the dashboard: every page, rendered through AppTest for a user who may read
one knowledge base (beta), shows nothing of the other two (no title, file name, collection,
text, count or facet value anywhere in the page tree, dataframes and widget options
included); the admin sees all three; a document id outside the scope in the URL behaves
like an unknown one; the Access page manages knowledge bases, groups and members."""
from __future__ import annotations

import pytest

from backend.security import acl
from backend.security.access import Actor, scope_of
from backend.ui import state as K
from tests.acl_fixtures import COLLECTION, GROUP, KBS, MARK, QUERY, Matrix, build
from tests.page_support import app, components, errors, shared_model  # noqa: F401  (fixtures)

PAGES = ("home", "explorer", "document", "structure", "query_debug", "chat", "evaluation",
         "costs", "analysis")
EDITOR_PAGES = ("upload", "crawl")


@pytest.fixture(scope="module")
def matrix(tmp_path_factory, shared_embedder) -> Matrix:
    return build(tmp_path_factory.mktemp("acl_pages") / "var", shared_embedder)


def page_text(at) -> str:
    """Every element of the rendered page as its protobuf text (dataframe cells, widget
    options and labels included)."""
    out: list[str] = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            out.append(str(proto))
        for child in (getattr(node, "children", None) or {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(out)


def _open(app, matrix, user: str, page: str, **query):
    at = app(matrix.data, user)
    at.run()
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _assert_only(at, allowed: tuple[str, ...], matrix: Matrix, page: str) -> str:
    text = page_text(at)
    for bad in matrix.forbidden(allowed):
        assert bad not in text, (page, bad)
    return text


@pytest.mark.parametrize("page", PAGES + EDITOR_PAGES)
def test_a_beta_reader_sees_nothing_of_alpha_or_gamma(app, matrix, shared_model, page):
    user = "u-b-ed" if page in EDITOR_PAGES else "u-b"
    at = _open(app, matrix, user, page)
    if page == "query_debug":
        at.text_input(key=K.DEBUG_QUERY).input(QUERY)
        next(b for b in at.button if "Search" in (b.label or "")).click().run()
        assert at.dataframe, "the search shows its hits"
    elif page == "chat":
        at.chat_input[0].set_value("What is the maintenance schedule?").run()
    elif page == "explorer":
        assert at.dataframe[0].value["collections"].tolist() == [COLLECTION["beta"]]
    assert not at.exception, [e.value for e in at.exception]
    text = _assert_only(at, ("beta",), matrix, page)
    if page in ("explorer", "document", "structure", "query_debug", "chat", "analysis"):
        assert MARK["beta"] in text or COLLECTION["beta"] in text or "Beta" in text, page


def test_the_admin_sees_all_three(app, matrix, shared_model):
    text = page_text(_open(app, matrix, "admin", "explorer"))
    assert all(COLLECTION[k] in text for k in KBS)
    text = page_text(_open(app, matrix, "admin", "home"))
    assert all(COLLECTION[k] in text for k in KBS)


@pytest.mark.parametrize("page", ["document", "structure", "analysis"])
def test_a_document_id_outside_the_scope_is_unknown(app, matrix, shared_model, page):
    hidden = _open(app, matrix, "u-b", page, doc=str(matrix.doc["alpha"]))
    missing = _open(app, matrix, "u-b", page, doc="987654")
    assert errors(hidden) == [e.replace("987654", str(matrix.doc["alpha"]))
                              for e in errors(missing)]
    assert errors(hidden) and "not found" in errors(hidden)[0]
    _assert_only(hidden, ("beta",), matrix, page)


def test_a_trace_of_another_scope_in_the_url_is_unknown(app, matrix, shared_model, rs_factory):
    from backend.services import debug

    rs = rs_factory()
    trace = debug.run_query(rs, QUERY, {}, actor=Actor("u-a", "viewer"))
    at = _open(app, matrix, "u-b", "query_debug", trace=trace["trace"]["id"])
    assert any("No stored trace" in e for e in errors(at))
    _assert_only(at, ("beta",), matrix, "query_debug")


@pytest.fixture
def rs_factory(matrix, shared_embedder):
    made = []

    def make():
        made.append(matrix.rs(shared_embedder))
        return made[-1]
    yield make
    for r in made:
        r.close()


def test_the_access_page_manages_knowledge_bases_groups_and_members(app, matrix, shared_model,
                                                                     rs_factory):
    rs = rs_factory()
    at = _open(app, matrix, "admin", "admin_access")
    text = page_text(at)
    assert all(GROUP[k] in text and COLLECTION[k] in text for k in KBS)
    at.text_input(key=K.ACCESS_KB_NAME).input("delta")
    at.button(key=K.ACCESS_KB_CREATE).click().run()
    assert "delta" in acl.knowledge_base_names(rs)
    at.text_input(key=K.ACCESS_GROUP_NAME).input("g-delta")
    at.button(key=K.ACCESS_GROUP_CREATE).click().run()
    at.selectbox(key=K.ACCESS_GROUP_PICK).set_value("g-delta").run()
    at.selectbox(key=K.ACCESS_GRANT_KB).set_value("gamma").run()
    at.radio(key=K.ACCESS_GRANT_PERMISSION).set_value("read").run()
    at.button(key=K.ACCESS_GRANT).click().run()
    at.selectbox(key=K.ACCESS_MEMBER_USER).set_value("u-none").run()
    at.button(key=K.ACCESS_MEMBER_ADD).click().run()
    assert not at.exception
    assert scope_of(rs, Actor("u-none", "viewer")).readable == {COLLECTION["gamma"]}
    # a duplicate name is refused with a message, nothing else changes
    at.text_input(key=K.ACCESS_GROUP_NAME).input("g-delta")
    at.button(key=K.ACCESS_GROUP_CREATE).click().run()
    assert any("exists already" in e for e in errors(at))
    # undo: the module's other tests expect the original groups
    at.selectbox(key=K.ACCESS_GROUP_PICK).set_value("g-delta").run()
    at.button(key=K.ACCESS_GROUP_DELETE).click().run()
    at.selectbox(key=K.ACCESS_KB_DELETE_PICK).set_value("delta").run()
    at.button(key=K.ACCESS_KB_DELETE).click().run()
    assert not at.exception
    assert scope_of(rs, Actor("u-none", "viewer")).readable == frozenset()
    assert "delta" not in acl.knowledge_base_names(rs)
    # not for editors
    ed = _open(app, matrix, "u-abg-ed", "admin_access")
    assert any("Access denied" in e for e in errors(ed))
