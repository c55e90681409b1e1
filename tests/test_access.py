"""backend/security/access.py and the crawl console's actions: every action that changes something
checks the role of the actor it is given, whatever a page did before."""
from __future__ import annotations

import time

import pytest

from backend.security import access, auth, sessions
from backend.security.access import Actor
from backend.config import Settings
from backend.services.container import Ragscope
from backend.ui import crawl as crawl_ui

EDITOR, ADMIN = Actor("ed", "editor"), Actor("root", "admin")


@pytest.fixture
def console(tmp_path):
    rs = Ragscope(Settings(data_dir=tmp_path / "var", crawl_allowed_hosts="127.0.0.1:9",
                           ingest_roots=str(tmp_path)))  # watched folders lie in a root
    c = crawl_ui.open_console(rs, start_scheduler=False)
    yield c
    rs.close()


def _web_values(**changes) -> dict:
    values = crawl_ui.form_values(None)
    values.update(name="docs", kind="web", start_url="http://127.0.0.1:9/", collection="docs")
    values.update(changes)
    return values


def test_resolve_gives_the_current_role_and_nothing_for_ended_sessions(tmp_path):
    users = auth.UserStore(auth.AuthPaths.under(tmp_path), bcrypt_rounds=4)
    users.add("root", "admin")
    users.add("ed", "editor")
    session = sessions.Session("ed", time.time())
    assert access.resolve(users, session) == EDITOR
    users.set_role("ed", "viewer")  # a demotion ends the session ...
    assert access.resolve(users, session) is None
    # ... and the next session resolves as a viewer
    assert access.resolve(users, sessions.Session("ed", time.time())) == Actor("ed", "viewer")
    users.set_disabled("ed", True)
    assert access.resolve(users, sessions.Session("ed", time.time())) is None
    assert access.resolve(users, sessions.Session("ghost", time.time())) is None
    with pytest.raises(auth.PermissionDenied, match="session has ended"):
        access.require(None, "crawl")


@pytest.mark.parametrize("actor", [Actor("ed", "viewer"), None])
def test_crawl_actions_refuse_a_demoted_or_missing_actor(console, actor):
    src = crawl_ui.save_source(console, EDITOR, None, _web_values())
    repo = console.service.sources
    calls = {
        "create": lambda: crawl_ui.save_source(console, actor, None, _web_values(name="other")),
        "edit": lambda: crawl_ui.save_source(console, actor, src.id,
                                             _web_values(max_pages=99, schedule_kind="interval",
                                                         interval_min=30)),
        "run now": lambda: crawl_ui.run_now(console, actor, src.id),
        "cancel": lambda: crawl_ui.cancel_run(console, actor, 1),
        "resume": lambda: crawl_ui.resume_run(console, actor, 1),
        "delete": lambda: crawl_ui.delete_source(console, actor, src.id),
    }
    for what, call in calls.items():
        with pytest.raises(auth.PermissionDenied):
            call()
    (kept,) = repo.list()
    assert (kept.name, kept.max_pages, kept.schedule_kind) == ("docs", 50, "none")
    assert console.service.history(src.id) == []


def test_watched_folders_need_an_admin(console, tmp_path):
    folder = tmp_path / "inbox"
    folder.mkdir()
    values = _web_values(name="inbox", kind="folder", start_url=str(folder))
    with pytest.raises(auth.PermissionDenied, match="watch_folder.*admin"):
        crawl_ui.save_source(console, EDITOR, None, values)
    etc = _web_values(name="etc", kind="folder", start_url="/etc")
    with pytest.raises(auth.PermissionDenied):
        crawl_ui.save_source(console, EDITOR, None, etc)
    assert console.service.sources.list() == []
    src = crawl_ui.save_source(console, ADMIN, None, values)
    assert src.kind == "folder"
    with pytest.raises(auth.PermissionDenied):  # an editor cannot point it elsewhere
        crawl_ui.save_source(console, EDITOR, src.id, {**values, "start_url": "/etc"})
    web = crawl_ui.save_source(console, EDITOR, None, _web_values())
    with pytest.raises(auth.PermissionDenied):  # nor turn a web source into a folder
        crawl_ui.save_source(console, EDITOR, web.id, {**_web_values(), "kind": "folder",
                                                       "start_url": "/etc"})
    assert console.service.sources.get(src.id).start_url == str(folder.resolve())
    assert console.service.sources.get(web.id).kind == "web"
