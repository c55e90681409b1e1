"""Shared setup of the API and MCP tests: a small corpus in three collections, each in its
own knowledge base, access groups that grant them, principals with tokens, the app, and a
real uvicorn server on 127.0.0.1 (a free port) for the transports that need one."""
from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "samples"

CORPUS = {  # collection -> sample files
    "ops": ["runbook_gateway_failover.md", "lumen_release_notes.md"],
    "public": ["pressemitteilung_wasserpreis_2025.txt", "kundenportal_faq.html"],
    "board": ["protokoll_werkausschuss_2024-03-12.txt"],
}
GROUPS = {  # group -> (knowledge base, permission)
    "g-ops": ("kb-ops", "read"),
    "g-public": ("kb-public", "read"),
    "g-board": ("kb-board", "write"),
}
PRINCIPALS = {  # principal -> (groups, scopes)
    "ops-reader": (["g-ops"], ["read"]),
    "public-reader": (["g-public"], ["read"]),
    "two-kbs": (["g-ops", "g-public"], ["read"]),
    "board-writer": (["g-board"], ["write"]),
    "nobody": ([], ["read"]),
    "root": ([], ["admin"]),
}


@dataclass
class ApiEnv:
    rs: object
    app: object
    client: object
    tokens: dict[str, str]
    docs: dict[str, int]  # file name -> document id
    collection_of: dict[int, str] = field(default_factory=dict)  # document id -> collection

    def headers(self, principal: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[principal]}"}

    def docs_in(self, *collections: str) -> set[int]:
        return {d for d, c in self.collection_of.items() if c in collections}


def build_env(data_dir: Path, embedder, settings=None, client=None) -> ApiEnv:
    """The corpus, groups and tokens on `data_dir` (or on `settings`: the scale-out stack's
    own store and indexes), served in-process by a TestClient (or by `client`)."""
    from fastapi.testclient import TestClient

    from backend.security import acl
    from backend.security.access import Actor
    from backend.api.http import create_app
    from backend.config import Settings
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope

    rs = Ragscope(settings or Settings(data_dir=data_dir, api_rate_per_token=0,  # many requests
                                       api_rate_per_address=0))  # a second (tests/test_api_ratelimit.py)
    rs.embedder = embedder
    docs, coll_of = {}, {}
    for coll, files in CORPUS.items():
        outs = Ingestor(rs).ingest_paths([SAMPLES / f for f in files], collection=coll)
        assert all(o.ok for o in outs), [o.error for o in outs]
        for o in outs:
            docs[o.filename] = o.document_id
            coll_of[o.document_id] = coll
    system = Actor.system("tests")
    for group, (kb, perm) in GROUPS.items():
        acl.create_knowledge_base(rs, system, kb)
        acl.assign_collection(rs, system, kb.removeprefix("kb-"), kb)
    tokens = grant_and_issue(rs, GROUPS, PRINCIPALS)
    app = create_app(rs)
    client = client or TestClient(app, raise_server_exceptions=False)
    return ApiEnv(rs, app, client, tokens, docs, coll_of)


@pytest.fixture(scope="session")
def api_env(request, tmp_path_factory, shared_embedder):
    """One corpus for all API test modules (built once: ingest is the slow part). Tests
    that add documents record them in `collection_of`, so expectations stay exact. With
    RAGSCOPE_TEST_STACK (tests/stack_mode.py) the corpus goes into the stack's own store and
    indexes, and `client` talks HTTP to the stack's API workers."""
    from tests import stack_mode

    if stack_mode.ENABLED:  # one corpus in the stack's one store, for every module
        if "env" in _STACK_ENV:  # each module importing this fixture has its own instance
            yield _STACK_ENV["env"]
            return
        import httpx

        stack = request.getfixturevalue("test_stack")
        client = httpx.Client(base_url=f"http://127.0.0.1:{stack.ports['api']}", timeout=120)
        env = _STACK_ENV["env"] = build_env(stack.data_dir, shared_embedder,
                                            stack_mode.stack_settings(stack), client)
    else:
        env = _copy_of_template(tmp_path_factory, shared_embedder)
    yield env
    env.client.close()
    env.rs.close()


_STACK_ENV: dict = {}  # the stack's api_env, built once per session
_TEMPLATE: dict = {}  # the corpus built once per session, closed; every module gets a copy


def _copy_of_template(tmp_path_factory, embedder) -> ApiEnv:
    """A module's own env: a copy (shutil.copytree) of the data dir `build_env` made once in
    this session, opened with the settings `build_env` uses. Each module importing `api_env`
    has its own instance of the fixture (and so its own data it may change), as before; only
    the ingest of the corpus is shared, and the template itself is never opened again."""
    import shutil

    from fastapi.testclient import TestClient

    from backend.api.http import create_app
    from backend.config import Settings
    from backend.services.container import Ragscope

    if "dir" not in _TEMPLATE:
        built = build_env(tmp_path_factory.mktemp("api-template") / "var", embedder)
        built.client.close()
        built.rs.close()
        _TEMPLATE.update(dir=built.rs.settings.data_dir, tokens=built.tokens, docs=built.docs,
                         collection_of=built.collection_of)
    data_dir = tmp_path_factory.mktemp("api") / "var"
    shutil.copytree(_TEMPLATE["dir"], data_dir)
    rs = Ragscope(Settings(data_dir=data_dir, api_rate_per_token=0, api_rate_per_address=0))
    rs.embedder = embedder
    app = create_app(rs)
    return ApiEnv(rs, app, TestClient(app, raise_server_exceptions=False),
                  dict(_TEMPLATE["tokens"]), dict(_TEMPLATE["docs"]),
                  dict(_TEMPLATE["collection_of"]))


def grant_and_issue(rs, groups: dict, principals: dict) -> dict[str, str]:
    """Access groups (`group: (knowledge base, permission)`) and principals (`name: (groups,
    scopes)`) with one API token each; returns the tokens by principal."""
    from backend.security import acl
    from backend.security.access import Actor
    from backend.api.tokens import create_token

    system = Actor.system("tests")
    for group, (kb, perm) in groups.items():
        acl.create_group(rs, system, group)
        acl.grant(rs, system, group, kb, perm)
    tokens = {}
    for name, (member_of, scopes) in principals.items():
        for g in member_of:
            acl.add_member(rs, system, g, "principal", name)
        tokens[name] = create_token(rs.store, name, scopes, created_by="tests")[1]
    return tokens


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """uvicorn serving an app on 127.0.0.1:<free port> in a thread of this process."""

    def __init__(self, app):
        import uvicorn

        self.port = free_port()
        # log_config=None: uvicorn's loggers propagate, so tests can read every record
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port,
                                                    log_config=None, log_level="info"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> "LiveServer":
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(30)
