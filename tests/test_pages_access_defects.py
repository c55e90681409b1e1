"""Issue 23 item 6, admin and access defects, through AppTest where a user meets them: a
reader without access is told so (not "no document matches the filters"); revoking a token
asks first; the new-knowledge-base and new-group forms are empty after Create; "Current
member" shows the member just added."""
from __future__ import annotations

import pytest

from backend.api import tokens
from backend.security.access import NO_ACCESS
from backend.ui import state as K
from tests.acl_fixtures import QUERY, Matrix, build
from tests.page_support import app, components, errors, open_page, plain, shared_model  # noqa: F401
from tests.page_support import bare, successes  # noqa: F401


@pytest.fixture(scope="module")
def matrix(tmp_path_factory, shared_embedder) -> Matrix:
    return build(tmp_path_factory.mktemp("access_defects") / "var", shared_embedder)


def _open(app, matrix, user: str, page: str):
    at = app(matrix.data, user)
    return open_page(at, page)


def _shown(at) -> list[str]:
    return [plain(e.value) for kind in (at.info, at.warning, at.error) for e in kind]


def test_a_reader_without_access_is_told_to_ask_an_admin(app, matrix, shared_model):
    at = _open(app, matrix, "u-none", "explorer")
    assert NO_ACCESS in _shown(at)
    at = _open(app, matrix, "u-none", "query_debug")
    at.text_input(key=K.DEBUG_QUERY).input(QUERY)
    next(b for b in at.button if "Search" in (b.label or "")).click().run()
    assert NO_ACCESS in _shown(at)
    assert not any("no document matches" in m for m in _shown(at))
    at = _open(app, matrix, "u-none", "chat")
    assert NO_ACCESS in _shown(at)


def test_create_clears_the_form_and_a_new_member_is_current(app, matrix, shared_model):
    at = _open(app, matrix, "admin", "admin_access")
    at.text_input(key=K.ACCESS_KB_NAME).input("delta")
    at.text_input(key=K.ACCESS_KB_DESCRIPTION).input("fourth")
    at.button(key=K.ACCESS_KB_CREATE).click().run()
    assert any("Created knowledge base delta" in m for m in successes(at))
    assert at.text_input(key=K.ACCESS_KB_NAME).value == ""
    assert at.text_input(key=K.ACCESS_KB_DESCRIPTION).value == ""
    at.text_input(key=K.ACCESS_GROUP_NAME).input("g-delta")
    at.button(key=K.ACCESS_GROUP_CREATE).click().run()
    assert at.text_input(key=K.ACCESS_GROUP_NAME).value == ""
    assert at.selectbox(key=K.ACCESS_GROUP_PICK).value == "g-delta"  # the new group is open
    at.selectbox(key=K.ACCESS_MEMBER_USER).set_value("u-none").run()
    at.button(key=K.ACCESS_MEMBER_ADD).click().run()
    assert not at.exception
    assert at.selectbox(key=K.ACCESS_MEMBER_PICK).value == "user:u-none"
    at.radio(key=K.ACCESS_MEMBER_KIND).set_value("principal").run()
    at.text_input(key=K.ACCESS_MEMBER_PRINCIPAL).input("openwebui").run()
    at.button(key=K.ACCESS_MEMBER_ADD).click().run()
    assert at.selectbox(key=K.ACCESS_MEMBER_PICK).value == "principal:openwebui"
    assert at.text_input(key=K.ACCESS_MEMBER_PRINCIPAL).value == ""
    at.button(key=K.ACCESS_GROUP_DELETE).click().run()  # undo for the module's other tests
    at.selectbox(key=K.ACCESS_KB_DELETE_PICK).set_value("delta").run()
    at.button(key=K.ACCESS_KB_DELETE).click().run()
    assert not at.exception


def test_revoking_a_token_asks_first(app, bare):
    at = open_page(app(bare[0], "admin"), "admin_tokens")
    at.text_input(key=K.TOKENS_PRINCIPAL).input("claude-desktop")
    at.button[0].click().run()
    at.button(key=K.TOKENS_REVOKE).click().run()
    assert any("Revoke token" in plain(w.value) and "claude-desktop" in plain(w.value)
               for w in at.warning)
    assert list(at.dataframe[0].value["status"]) == ["active"]  # nothing revoked yet
    at.button(key=K.TOKENS_REVOKE_CANCEL).click().run()
    assert not at.warning and list(at.dataframe[0].value["status"]) == ["active"]
    at.button(key=K.TOKENS_REVOKE).click().run()
    at.button(key=K.TOKENS_REVOKE_CONFIRM).click().run()
    assert any("revoked" in m for m in successes(at))
    assert list(at.dataframe[0].value["status"]) == [tokens.REVOKED if hasattr(
        tokens, "REVOKED") else "revoked"]


def test_a_search_without_access_says_so_for_api_principals_too(make_rs):
    """The API and MCP call the same retrieval: a principal in no group gets the message."""
    from backend.ingest.service import Ingestor
    from backend.retrieval import Retriever
    from backend.security.access import Actor, Scope, scope_of

    rs = make_rs()
    assert Ingestor(rs).ingest_bytes(b"# Pumps\n\nThe pump runs daily.\n", "p.md").ok
    scope = scope_of(rs, Actor("nobody-bot", "viewer", kind="principal"))
    assert scope.reads_nothing and not Scope.everything().reads_nothing
    res = Retriever(rs).retrieve("pump", scope=scope)
    assert res.hits == [] and res.warnings == [NO_ACCESS]
