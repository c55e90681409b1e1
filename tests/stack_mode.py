"""The service-level tests against the scale-out stack (issue 25, section 5; docs/deployment.md,
"The service-level tests against the stack"):

    RAGSCOPE_TEST_STACK=1 python -m pytest -m stack

starts `python -m backend stack` once for the session (PostgreSQL, a Chroma server, the
OpenSearch node, 2 API workers, dashboard, crawl scheduler; all on free 127.0.0.1 ports,
`backend.stack.Stack`) and runs every test marked `stack` with its settings pointing at
those servers: each test — and each module- and session-wide fixture — gets its own
PostgreSQL database, Chroma collection and OpenSearch index prefix through the
`RAGSCOPE_*` environment (a `Settings(...)` of the test reads it), dropped again when that
scope ends. The API tests' corpus (`api_env`, tests/api_support.py) goes into the stack's own
store instead, and their requests go over HTTP to the stack's API workers. Without
RAGSCOPE_TEST_STACK the same tests run embedded as always."""
from __future__ import annotations

import os
import shutil
import tempfile
import urllib.request
import uuid
from pathlib import Path

import pytest

ENABLED = os.environ.get("RAGSCOPE_TEST_STACK", "").lower() in ("1", "true", "yes")

# The service-level tests that run against the stack (marked `stack`): ingest, deletion,
# consistency, hybrid retrieval and collection filters, ACL, the HTTP API and its contract,
# and the stack's own API workers. A test module here must not depend on the embedded
# backends (tantivy, Chroma's files, SQLite).
MODULES = (
    "tests/test_api_http.py",  # over HTTP to the stack's 2 API workers (tests/api_support.py)
    "tests/test_api_contract.py",
    "tests/test_acl.py",
    "tests/test_membership_filters.py",
    "tests/test_retrieval.py",
    "tests/test_ingest.py",
    "tests/test_deletion.py",
)


def selected(nodeid: str) -> bool:
    return nodeid.split("::", 1)[0] in MODULES


class StackResources:
    """Creates and drops the per-scope database, collection and index prefix on the stack."""

    def __init__(self, stack):
        self.stack = stack
        p = stack.ports
        self.pg = f"postgresql+psycopg://postgres@127.0.0.1:{p['postgres']}"
        self.chroma = f"http://127.0.0.1:{p['chroma']}"
        self.opensearch = f"http://127.0.0.1:{p['search']}"

    def _sql(self, statement: str) -> None:
        from sqlalchemy import create_engine, text

        admin = create_engine(f"{self.pg}/postgres", isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as c:
                c.execute(text(statement))
        finally:
            admin.dispose()

    def create(self) -> tuple[str, dict[str, str]]:
        tag = uuid.uuid4().hex[:12]
        self._sql(f'CREATE DATABASE "rs_{tag}"')
        return tag, {
            "RAGSCOPE_DATABASE_URL": f"{self.pg}/rs_{tag}",
            "RAGSCOPE_CHROMA_URL": self.chroma,
            "RAGSCOPE_CHROMA_COLLECTION": f"t_{tag}",
            "RAGSCOPE_KEYWORD_BACKEND": "opensearch",
            "RAGSCOPE_OPENSEARCH_URL": self.opensearch,
            "RAGSCOPE_OPENSEARCH_INDEX_PREFIX": f"t{tag}",
        }

    def drop(self, tag: str) -> None:
        """Everything of one scope (errors ignored: a test may have dropped it itself)."""
        try:
            self._sql(f'DROP DATABASE IF EXISTS "rs_{tag}" WITH (FORCE)')
        except Exception:  # noqa: BLE001
            pass
        req = urllib.request.Request(f"{self.opensearch}/t{tag}-*?ignore_unavailable=true",
                                     method="DELETE")
        try:
            urllib.request.urlopen(req, timeout=30).read()
        except Exception:  # noqa: BLE001
            pass
        try:
            from backend.index.chroma_clients import chroma_settings
            import chromadb

            client = chromadb.HttpClient(host="127.0.0.1", port=self.stack.ports["chroma"],
                                         settings=chroma_settings())
            client.delete_collection(f"t_{tag}")
        except Exception:  # noqa: BLE001
            pass


def start_stack(build: str):
    """The stack on free ports in a folder the postgres user can enter; stopped by the
    caller."""
    from backend.index.search_node import free_port
    from backend.stack import DEFAULT_PORTS, Stack

    root = Path(tempfile.mkdtemp(prefix="ragscope-test-stack."))
    root.chmod(0o755)
    ports: dict[str, int] = {}
    for name in DEFAULT_PORTS:
        while (p := free_port()) in ports.values() or p + 100 in ports.values():
            pass
        ports[name] = p
    stack = Stack(root / "stack", ports=ports, workers=2, build=Path(build))
    try:
        stack.start(echo=lambda line: print(f"test stack: {line}"))
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return stack, root


def scoped_env(resources: StackResources):
    """A generator for a fixture: this scope's own database/collection/prefix while it
    runs (the enclosing scope's come back afterwards)."""
    mp = pytest.MonkeyPatch()
    tag, env = resources.create()
    for k, v in env.items():
        mp.setenv(k, v)
    try:
        yield env
    finally:
        mp.undo()
        resources.drop(tag)


def stack_settings(stack):
    """The settings of the stack's own processes (its store, collection and index prefix,
    not a test scope's), for a test that works beside its API workers."""
    from backend.config import Settings

    env = {k.removeprefix("RAGSCOPE_").lower(): v for k, v in stack.env().items()}
    defaults = Settings.model_fields
    return Settings(**env, chroma_collection=defaults["chroma_collection"].default,
                    opensearch_index_prefix=defaults["opensearch_index_prefix"].default)
