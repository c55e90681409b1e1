"""The service-level tests against the scale-out stack (issue 25, section 5; docs/deployment.md,
"The service-level tests against the stack"):

    RAGSCOPE_TEST_STACK=1 python -m pytest -n 0 -m stack

starts `python -m backend stack` once for the session (PostgreSQL, a Chroma server, the
OpenSearch node, 2 API workers, dashboard, crawl scheduler; all on free 127.0.0.1 ports,
`backend.deploy.stack.Stack`) and runs every test marked `stack` with its settings pointing at
those servers: each data dir a test opens (`Settings(data_dir=...)`) gets its own PostgreSQL
database, Chroma collection and OpenSearch index prefix, found again whenever that data dir
is opened again (`patch_settings`); a test's are dropped after it, the session's and the
modules' at the end. The API tests' corpus (`api_env`, tests/api_support.py) goes into the stack's own
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
)
# Not on the stack, and why (tests/test_deletion.py is left out whole: it reads the SQLite
# file itself to prove that nothing of a deleted document is left in it).
EXCLUDED = {
    "tests/test_retrieval.py::test_cli_search_json_prints_hits_and_trace":
        "runs the CLI in a subprocess, which finds its servers in the environment only",
    "tests/test_membership_filters.py::"
    "test_stale_tokens_in_the_exact_search_log_are_found_and_repaired":
        "a Chroma server keeps no exact-search log",
}


def selected(nodeid: str) -> bool:
    return nodeid.split("::", 1)[0] in MODULES and nodeid not in EXCLUDED


class StackResources:
    """Per data dir, a database, a Chroma collection and an OpenSearch index prefix on the
    stack: a data dir the tests open again (a module's corpus reopened per test) finds its
    store and indexes again, as an embedded data dir would."""

    def __init__(self, stack):
        self.stack = stack
        p = stack.ports
        self.pg = f"postgresql+psycopg://postgres@127.0.0.1:{p['postgres']}"
        self.chroma = f"http://127.0.0.1:{p['chroma']}"
        self.opensearch = f"http://127.0.0.1:{p['search']}"
        self.by_dir: dict[Path, str] = {}

    def _sql(self, statement: str) -> None:
        from sqlalchemy import create_engine, text

        admin = create_engine(f"{self.pg}/postgres", isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as c:
                c.execute(text(statement))
        finally:
            admin.dispose()

    def settings_for(self, data_dir) -> dict[str, str]:
        """The server settings of this data dir (created at first sight)."""
        key = Path(data_dir).resolve()
        tag = self.by_dir.get(key)
        if tag is None:
            tag = uuid.uuid4().hex[:12]
            self._sql(f'CREATE DATABASE "rs_{tag}"')
            self.by_dir[key] = tag
        return {"database_url": f"{self.pg}/rs_{tag}", "chroma_url": self.chroma,
                "chroma_collection": f"t_{tag}", "keyword_backend": "opensearch",
                "opensearch_url": self.opensearch, "opensearch_index_prefix": f"t{tag}"}

    def drop_under(self, root: Path | None = None) -> None:
        """Drop what the data dirs under `root` (all: None) have on the stack."""
        for key, tag in list(self.by_dir.items()):
            if root is None or key.is_relative_to(Path(root).resolve()):
                self.drop(tag)
                del self.by_dir[key]

    def drop(self, tag: str) -> None:
        """Everything of one data dir (errors ignored: a test may have dropped it itself)."""
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


def patch_settings(mp: pytest.MonkeyPatch, resources: StackResources) -> None:
    """Every `Settings(data_dir=...)` of a test (that names no database) points at the stack:
    its data dir's own database, collection and index prefix; what a test sets explicitly
    (`keyword_backend="tantivy"`, a SQLite URL) stays."""
    from backend.config import Settings

    original = Settings.__init__

    def init(self, *args, **kw):
        data_dir = kw.get("data_dir") or os.environ.get("RAGSCOPE_DATA_DIR")  # CLI: from env
        if data_dir and "database_url" not in kw and "RAGSCOPE_DATABASE_URL" not in os.environ:
            for k, v in resources.settings_for(data_dir).items():
                if f"RAGSCOPE_{k.upper()}" not in os.environ:
                    kw.setdefault(k, v)
        original(self, *args, **kw)

    mp.setattr(Settings, "__init__", init)


def start_stack(build: str):
    """The stack on free ports in a folder the postgres user can enter; stopped by the
    caller."""
    from backend.index.search_node import free_port
    from backend.deploy.stack import DEFAULT_PORTS, Stack

    root = Path(tempfile.mkdtemp(prefix="ragscope-test-stack."))
    root.chmod(0o755)
    ports: dict[str, int] = {}
    for name in DEFAULT_PORTS:
        while (p := free_port()) in ports.values() or p + 100 in ports.values():
            pass
        ports[name] = p
    # the suites send many requests a second from one address (limits: test_api_ratelimit.py)
    os.environ.setdefault("RAGSCOPE_API_RATE_PER_TOKEN", "0")
    os.environ.setdefault("RAGSCOPE_API_RATE_PER_ADDRESS", "0")
    stack = Stack(root / "stack", ports=ports, workers=2, build=Path(build))
    try:
        stack.start(echo=lambda line: print(f"test stack: {line}"))
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return stack, root


def stack_settings(stack):
    """The settings of the stack's own processes (its store, collection and index prefix,
    not a test scope's), for a test that works beside its API workers."""
    from backend.config import Settings

    env = {k.removeprefix("RAGSCOPE_").lower(): v for k, v in stack.env().items()}
    defaults = Settings.model_fields
    return Settings(**env, chroma_collection=defaults["chroma_collection"].default,
                    opensearch_index_prefix=defaults["opensearch_index_prefix"].default)
