"""Shared fixtures: real embedded parts in tmp_path (SQLite, Chroma, tantivy), one embedding
model per test session, and PostgreSQL when RAGSCOPE_TEST_POSTGRES_URL is set."""
from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

import backend  # noqa: F401  (sets OPENBLAS_NUM_THREADS and offline flags first)

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"

# Settings come from the environment; keep a developer's RAGSCOPE_* out of the tests.
for _k in [k for k in os.environ if k.startswith("RAGSCOPE_") and not k.startswith("RAGSCOPE_TEST_")
           and k not in ("RAGSCOPE_ELASTICSEARCH_URL", "RAGSCOPE_OPENSEARCH_URL")]:
    os.environ.pop(_k)
# the node .ci/run started, for the `opensearch_url` fixture only (not a setting of every test)
OPENSEARCH_URL = os.environ.pop("RAGSCOPE_OPENSEARCH_URL", None)


@pytest.fixture(scope="session")
def search_node_build_dir(tmp_path_factory):
    """One build of the search-node launcher per session (RAGSCOPE_TEST_SEARCH_NODE_BUILD_DIR,
    set by .ci/run, or a session temp dir); skips without mvn/java."""
    import shutil

    if not (shutil.which("mvn") and shutil.which("java")):
        pytest.skip("mvn and java are needed to build the search node")
    from backend.config import Settings
    from backend.index.search_node import build

    path = os.environ.get("RAGSCOPE_TEST_SEARCH_NODE_BUILD_DIR") or tmp_path_factory.mktemp("sn-build")
    _, seconds = build(Settings(data_dir=tmp_path_factory.mktemp("sn-data"),
                                search_node_build_dir=path))
    print(f"search node build: {'reused' if seconds is None else f'{seconds:.1f} s'}")
    return str(path)


@pytest.fixture
def own_search_node(tmp_path, search_node_build_dir):
    """A node of the test's own on a free port (a test may stop and restart it); stopped
    afterwards."""
    from backend.config import Settings
    from backend.index.search_node import SearchNode, free_port

    node = SearchNode(Settings(data_dir=tmp_path / "search-node",
                               search_node_build_dir=search_node_build_dir), free_port())
    node.start()
    yield node
    node.stop()


@pytest.fixture(scope="session")
def opensearch_url(request, tmp_path_factory):
    """URL of an OpenSearch node: RAGSCOPE_OPENSEARCH_URL (`.ci/run` starts one), else a node
    started here on a free 127.0.0.1 port with `search-node` (built once per session, or
    in RAGSCOPE_TEST_SEARCH_NODE_BUILD_DIR) and stopped at the end of the session."""
    if OPENSEARCH_URL:
        yield OPENSEARCH_URL
        return
    from backend.config import Settings
    from backend.index.search_node import SearchNode, free_port

    build = request.getfixturevalue("search_node_build_dir")
    node = SearchNode(Settings(data_dir=tmp_path_factory.mktemp("opensearch"),
                               search_node_build_dir=build), free_port())
    try:
        yield node.start().url
    finally:
        node.stop()


# ---- the scale-out stack (RAGSCOPE_TEST_STACK=1 python -m pytest -n 0 -m stack; tests/stack_mode.py)
def pytest_collection_modifyitems(config, items):
    from tests import stack_mode

    for item in items:
        if stack_mode.selected(item.nodeid):
            item.add_marker(pytest.mark.stack)


@pytest.fixture(scope="session")
def test_stack(search_node_build_dir):
    """The stack of this test session (only with RAGSCOPE_TEST_STACK); stopped at the end."""
    import shutil

    from tests import stack_mode

    if not stack_mode.ENABLED:
        pytest.skip("RAGSCOPE_TEST_STACK is not set")
    stack, root = stack_mode.start_stack(search_node_build_dir)
    yield stack
    stack.stop()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def _stack_session(request, embedding_cache_dir):
    from tests import stack_mode

    if not stack_mode.ENABLED:
        yield None
        return
    resources = stack_mode.StackResources(request.getfixturevalue("test_stack"))
    mp = pytest.MonkeyPatch()
    stack_mode.patch_settings(mp, resources)
    yield resources
    mp.undo()
    resources.drop_under(None)


@pytest.fixture(autouse=True)
def _stack_test(request, _stack_session):
    """After a test: drop the stack's databases/collections of its own tmp_path."""
    yield
    tmp = request.node.funcargs.get("tmp_path") if hasattr(request.node, "funcargs") else None
    if _stack_session is not None and tmp is not None:
        _stack_session.drop_under(tmp)


@pytest.fixture(scope="session", autouse=True)
def embedding_cache_dir(tmp_path_factory):
    """One folder for the ONNX export of the embedding model per test session, also for the
    CLI subprocesses the tests start (RAGSCOPE_EMBEDDING_CACHE_DIR): exported once."""
    d = tmp_path_factory.mktemp("models")
    os.environ["RAGSCOPE_EMBEDDING_CACHE_DIR"] = str(d)
    yield d
    os.environ.pop("RAGSCOPE_EMBEDDING_CACHE_DIR", None)


@pytest.fixture(scope="session")
def shared_embedder(embedding_cache_dir):
    from backend.config import Settings
    from backend.embed.embedder import Embedder

    return Embedder.from_settings(Settings())


def _postgres_url() -> str | None:
    return os.environ.get("RAGSCOPE_TEST_POSTGRES_URL") or None


@pytest.fixture
def postgres_db_url():
    """A fresh PostgreSQL database for one test (skipped when no server is configured)."""
    base = _postgres_url()
    if not base:
        pytest.skip("RAGSCOPE_TEST_POSTGRES_URL not set")
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"rs_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    yield make_url(base).set(database=name).render_as_string(hide_password=False)
    with admin.connect() as c:
        c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """Store tests run on SQLite always and on PostgreSQL when configured."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return request.getfixturevalue("postgres_db_url")


@pytest.fixture
def settings(tmp_path):
    from backend.config import Settings

    return Settings(data_dir=tmp_path / "var")


@pytest.fixture
def make_rs(tmp_path, shared_embedder):
    """Factory for a Ragscope on a temporary data dir, sharing the session's model."""
    from backend.config import Settings
    from backend.services.container import Ragscope

    made = []

    def make(**overrides):
        overrides.setdefault("data_dir", tmp_path / "var")
        rs = Ragscope(Settings(**overrides))
        default = Settings()
        if (rs.settings.embedding_model, rs.settings.embedding_backend) == \
                (default.embedding_model, default.embedding_backend):
            rs.embedder = shared_embedder
        made.append(rs)
        return rs

    yield make
    for rs in made:
        rs.close()


@pytest.fixture
def rs(make_rs):
    return make_rs()


@pytest.fixture
def ingestor(rs):
    from backend.ingest.service import Ingestor

    return Ingestor(rs)


@pytest.fixture(scope="session")
def sample_rs(tmp_path_factory, shared_embedder):
    """The sample corpus ingested once per test session (collection `samples`, and the
    manual also in `handbuch`). Read-only: tests must not change it."""
    from backend.config import Settings
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope

    rs = Ragscope(Settings(data_dir=tmp_path_factory.mktemp("samples") / "var"))
    rs.embedder = shared_embedder
    outs = Ingestor(rs).ingest_paths([SAMPLES], collection="samples")
    assert all(o.ok for o in outs), [o.error for o in outs if not o.ok]
    Ingestor(rs).ingest_paths([SAMPLES / "lumen_handbuch.pdf"], collection="handbuch")
    yield rs
    rs.close()


@pytest.fixture(autouse=True)
def _stop_crawl_schedulers():
    """The dashboard starts a crawl scheduler per process and data dir; stop what a test
    started so no thread outlives its temporary data directory."""
    yield
    import sys

    if "backend.ui.crawl" in sys.modules:
        sys.modules["backend.ui.crawl"].shutdown_all()
    if "pages._crawl_common" in sys.modules:
        sys.modules["pages._crawl_common"]._console.clear()


@pytest.fixture(scope="module")
def answer_rs(sample_rs, tmp_path_factory):
    """A writable copy of the sample corpus's store (SQLite backup) reusing the sample
    indexes and model read-only, once per module: answers and their traces are written to
    the copy, never to the shared sample store."""
    import sqlite3

    from backend.config import Settings
    from backend.services.container import Ragscope

    data = tmp_path_factory.mktemp("answers") / "var"
    data.mkdir()
    src = sqlite3.connect(sample_rs.settings.data_dir / "ragscope.db")
    dst = sqlite3.connect(data / "ragscope.db")
    src.backup(dst)
    src.close()
    dst.close()
    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = sample_rs.embedder
    rs.vector_index = sample_rs.vector_index
    rs.keyword_index = sample_rs.keyword_index
    yield rs
    rs.close()
