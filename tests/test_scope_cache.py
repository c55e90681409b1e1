"""The per-process scope cache (backend/security/scope_cache.py): a scope computed once is
reused only while the store's ACL generation is unchanged, so a change of a membership,
grant, group, knowledge base or collection applies at the next call — made through the
service in this process, through a second Store on the same database, from another process,
or in plain SQL. SQLite always, PostgreSQL when configured (`db_url`)."""
from __future__ import annotations

import subprocess
import sys

import pytest
from sqlalchemy import event, text

from backend.config import Settings
from backend.security import acl
from backend.security.access import Actor, scope_of
from backend.services.container import Ragscope
from backend.store import repo

SYSTEM = Actor.system("test")
READER = Actor.principal("reader", "viewer")


def _rs(tmp_path, db_url, name="var") -> Ragscope:
    return Ragscope(Settings(data_dir=tmp_path / name, database_url=db_url))


@pytest.fixture
def rs(tmp_path, db_url):
    """A knowledge base `k1` with collection `c1`, a group `g1` granted read on it; the
    principal `reader` is not a member yet."""
    r = _rs(tmp_path, db_url)
    acl.create_knowledge_base(r, SYSTEM, "k1")
    acl.create_knowledge_base(r, SYSTEM, "k2")
    with r.store.session() as s:
        repo.get_or_create_collection(s, "c1", knowledge_base="k1")
        repo.get_or_create_collection(s, "c2", knowledge_base="k2")
    acl.create_group(r, SYSTEM, "g1")
    acl.grant(r, SYSTEM, "g1", "k1", "read")
    yield r
    r.close()


def _readable(rs) -> set[str]:
    return set(scope_of(rs, READER).readable)


def test_service_changes_apply_at_the_next_call(rs):
    assert _readable(rs) == set() and _readable(rs) == set()  # second call: from the cache
    acl.add_member(rs, SYSTEM, "g1", "principal", "reader")
    assert _readable(rs) == {"c1"}
    acl.grant(rs, SYSTEM, "g1", "k2", "read")
    assert _readable(rs) == {"c1", "c2"}
    acl.revoke(rs, SYSTEM, "g1", "k1")
    assert _readable(rs) == {"c2"}
    acl.assign_collection(rs, SYSTEM, "c1", "k2")  # a collection moves into a granted kb
    assert _readable(rs) == {"c1", "c2"}
    with rs.store.session() as s:
        repo.get_or_create_collection(s, "c3", knowledge_base="k2")  # a new collection
    assert _readable(rs) == {"c1", "c2", "c3"}
    acl.remove_member(rs, SYSTEM, "g1", "principal", "reader")
    assert _readable(rs) == set()
    acl.add_member(rs, SYSTEM, "g1", "principal", "reader")
    acl.delete_group(rs, SYSTEM, "g1")
    assert _readable(rs) == set()


def test_a_cached_scope_costs_only_the_read_of_the_generation(rs):
    """Without the cache every call runs the two scope queries; with it a repeated call
    runs only the single-row read of the ACL generation (on a DB-API cursor, which these
    events do not see: backend/store/generation_cache.py)."""
    acl.add_member(rs, SYSTEM, "g1", "principal", "reader")
    assert _readable(rs) == {"c1"}
    statements: list[str] = []
    event.listen(rs.store.engine, "before_cursor_execute",
                 lambda conn, cur, sql, *a: statements.append(sql))
    assert _readable(rs) == {"c1"}
    assert statements == [], statements
    # another principal, another role: computed on their own
    other = Actor.principal("reader", "editor")
    assert set(scope_of(rs, other).readable) == {"c1"} and len(statements) == 2


def test_changes_through_a_second_store_apply_at_the_next_call(rs, tmp_path, db_url):
    acl.add_member(rs, SYSTEM, "g1", "principal", "reader")
    assert _readable(rs) == {"c1"}
    other = _rs(tmp_path, db_url, "var2")  # another Store (another process's view) on the db
    try:
        acl.remove_member(other, SYSTEM, "g1", "principal", "reader")
        assert _readable(rs) == set()
        acl.add_member(other, SYSTEM, "g1", "principal", "reader")
        assert _readable(rs) == {"c1"}
    finally:
        other.close()
    with rs.store.engine.begin() as c:  # plain SQL, past every service function
        c.execute(text("DELETE FROM access_grants"))
    assert _readable(rs) == set()


def test_changes_from_another_process_apply_at_the_next_call(rs, tmp_path, db_url):
    acl.add_member(rs, SYSTEM, "g1", "principal", "reader")
    assert _readable(rs) == {"c1"}
    code = ("import sys; from pathlib import Path; from backend.config import Settings; "
            "from backend.security import acl; from backend.security.access import Actor; "
            "from backend.services.container import Ragscope; "
            "rs = Ragscope(Settings(data_dir=Path(sys.argv[1]), database_url=sys.argv[2])); "
            "acl.remove_member(rs, Actor.system('p'), 'g1', 'principal', 'reader'); "
            "rs.close(); print('ok')")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "var3"), db_url],
                         capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "ok", out.stderr[-800:]
    assert _readable(rs) == set()


def test_a_schema_without_the_generation_computes_every_time(tmp_path, db_url):
    """A Store opened without migrations on a schema before 0021 still gets right scopes."""
    from backend.store.db import make_engine, upgrade
    from backend.store.store import Store

    engine = make_engine(db_url)
    upgrade(engine, "0020")
    engine.dispose()
    from types import SimpleNamespace

    rs = SimpleNamespace(store=Store(db_url, migrate=False),
                         settings=Settings(data_dir=tmp_path / "var"))
    try:
        acl.create_knowledge_base(rs, SYSTEM, "k1")
        with rs.store.session() as s:
            repo.get_or_create_collection(s, "c1", knowledge_base="k1")
        acl.create_group(rs, SYSTEM, "g1")
        acl.grant(rs, SYSTEM, "g1", "k1", "read")
        assert _readable(rs) == set()
        acl.add_member(rs, SYSTEM, "g1", "principal", "reader")
        assert _readable(rs) == {"c1"}
    finally:
        rs.store.dispose()
