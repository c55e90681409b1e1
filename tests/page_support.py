"""What the dashboard page tests share (tests/test_pages.py and the page tests of every
feature): an `AppTest` of app.py on a data dir (`app`), data dirs with the three users and
sample documents (`corpus`, `bare`, `fresh`, `build_data_dir`), the test session's embedding
model inside the app (`shared_model`), one scan for Streamlit components (`components`), and
the steps and readings of a page (`open_page`, `errors`, `successes`, `plain`, ...).

Signing in without the form: `login_as(at, name)` sets what a sign-in sets (status, user
name and when the session began: now); the app then takes the role from the users file
of the data dir, so the user must exist there (the fixtures create admin, editor, viewer)."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from backend.config import Settings
from backend.security import auth
from backend.security.safe_markdown import unescape
from backend.services.container import Ragscope
from backend.ui import state as K

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
SAMPLES = ROOT / "data" / "samples"
PASSWORDS = {"admin": "admin-password-1", "editor": "editor-password-1",
             "viewer": "viewer-password-1"}
XSS_MD = (b"# Notes <script>alert('t')</script>\n\nBody with <b>bold</b> and "
          b"<img src=x onerror=alert(1)> [link](javascript:alert(1)).\n\n"
          b"## Second part\n\nMore text about pumps and valves.\n")
FALLBACK = {"notes.md": b"# Pump notes\n\n## Intake\n\nThe intake pump runs daily.\n\n"
                        b"## Outlet\n\nThe outlet valve is checked weekly.\n",
            "faq.txt": b"FAQ\n\nHow do I reset my password? Use the portal.\n"}


def _samples(names: list[str]) -> list[tuple[str, bytes]]:
    out = [(n, (SAMPLES / n).read_bytes()) for n in names if (SAMPLES / n).is_file()]
    return out or list(FALLBACK.items())


def add_users(data: Path) -> None:
    auth.bootstrap(data, admin_password=PASSWORDS["admin"])
    users = auth.UserStore(auth.AuthPaths.under(data), bcrypt_rounds=4)
    users.add("editor", "editor", password=PASSWORDS["editor"])
    users.add("viewer", "viewer", password=PASSWORDS["viewer"])


def build_data_dir(data: Path, embedder, names: list[str]) -> dict[str, int]:
    """Ingest sample files (+ one with HTML in its text) and create the three users.
    Returns {file name: document id}."""
    from backend.ingest.service import Ingestor

    rs = Ragscope(Settings(data_dir=data))
    rs.embedder = embedder
    ing = Ingestor(rs)
    outs = ing.ingest_many(_samples(names), total=len(names), collection="samples",
                           source_kind="upload") if names else []
    outs.append(ing.ingest_bytes(XSS_MD, "xss_notes.md", collection="web"))
    assert all(o.ok for o in outs), [o.error for o in outs]
    rs.close()
    add_users(data)
    return {o.filename: o.document_id for o in outs}


_BUILT: dict = {}  # name -> (data dir, ids): built once per test session, never opened again


def copy_of_built(name: str, tmp_path_factory, embedder, names: list[str],
                  data: Path) -> tuple[Path, dict[str, int]]:
    """`build_data_dir(data, embedder, names)` without building it again: the first call of
    the session builds it in a template dir, every call gets a copy (shutil.copytree) at
    `data` with the same documents, ids and users."""
    return _copy_of(name, tmp_path_factory, lambda d: build_data_dir(d, embedder, names), data)


def _copy_of(name: str, tmp_path_factory, make, data: Path) -> tuple[Path, dict[str, int]]:
    import shutil

    if name not in _BUILT:
        template = tmp_path_factory.mktemp(f"{name}-template") / "var"
        _BUILT[name] = template, make(template)
    template, ids = _BUILT[name]
    shutil.copytree(template, data)
    return data, dict(ids)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, shared_embedder):
    """Read-only corpus shared by the tests of this module (a copy of the session's)."""
    return copy_of_built("pages", tmp_path_factory, shared_embedder,
                         ["kundenportal_faq.html", "runbook_gateway_failover.md"],
                         tmp_path_factory.mktemp("pages") / "var")


@pytest.fixture
def shared_model(shared_embedder, monkeypatch):
    """The app reuses the test session's embedding model instead of loading another."""
    import backend.embed.embedder

    monkeypatch.setattr(backend.embed.embedder, "Embedder", lambda *a, **k: shared_embedder)
    return shared_embedder


@pytest.fixture
def bare(tmp_path, tmp_path_factory, shared_model):
    """A data dir of its own with the three users and no documents (a copy of the
    session's: the admin's bcrypt hash is made once)."""
    return _copy_of("bare", tmp_path_factory, lambda d: add_users(d) or {}, tmp_path / "var")


@pytest.fixture
def fresh(tmp_path, tmp_path_factory, shared_model):
    """A data dir of its own with one small document, for tests that change data (a copy
    of the session's)."""
    return copy_of_built("fresh", tmp_path_factory, shared_model, [], tmp_path / "var")


_COMPONENTS: list = []  # the one scan of this test session


@pytest.fixture(scope="session")
def components():
    """AppTest scans every installed distribution for v2 components on each new instance
    (~0.9 s here); ragscope uses none, so one scan is shared. Each module importing this
    fixture has its own instance of it: the scan is kept here, so it runs once per session,
    not once per module (30 modules)."""
    from streamlit.components.v2.component_manager import BidiComponentManager

    if not _COMPONENTS:
        mgr = BidiComponentManager()
        mgr.discover_and_register_components(start_file_watching=False)
        _COMPONENTS.append(mgr)
    return _COMPONENTS[0]


@pytest.fixture
def app(monkeypatch, components):
    """app(data_dir, user=None) -> an AppTest on that data dir, signed in as `user`."""
    def make(data: Path, user: str | None = None) -> AppTest:
        monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(data))
        at = AppTest.from_file(APP, default_timeout=60)
        at._bidi_component_manager = components
        if user:
            login_as(at, user)
        return at
    return make


def login_as(at: AppTest, username: str) -> None:
    """Sign `at` in as a user of the data dir the app uses, for a session that begins
    now."""
    at.session_state[K.AUTH_STATUS] = True
    at.session_state[K.AUTH_USERNAME] = username
    at.session_state[K.AUTH_BEGAN] = time.time()


def open_page(at: AppTest, page: str) -> AppTest:
    at.run()
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def ask_on_chat_page(app, data: Path, user: str, question: str, *,
                     provider: str = "openai") -> tuple[AppTest, str]:
    """A new chat session of `user` with `provider`, the chat page opened on it and
    `question` asked there; returns the page and the session's uuid."""
    from backend.chat.service import ChatService

    rs = Ragscope(Settings(data_dir=data))
    sess = ChatService(rs).create_session(user, provider=provider)
    rs.close()
    at = app(data, user)
    at.query_params["session"] = sess.uuid
    open_page(at, "chat")
    at.chat_input(key="chat.input").set_value(question).run()
    assert not at.exception, [e.value for e in at.exception]
    return at, sess.uuid


def settle_jobs(at: AppTest, data: Path, timeout: float = 180) -> AppTest:
    """Wait until the background jobs the page started (backend/services/background.py) have
    finished, then run the page again: what its poll does once a job is done."""
    from backend.services import background
    from backend.store import Store
    from backend.store.models import Job

    store = Store(Settings(data_dir=data).db_url)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with store.session() as s:
            ids = [j.id for j in s.query(Job).filter(Job.status == "running")
                   if (j.params or {}).get("runner") == background.RUNNER]
        if not any(background.view(store, i).running for i in ids):
            return at.run()
        time.sleep(0.1)
    raise AssertionError("a background job did not finish")


def plain(text: str) -> str:
    """Messages are Markdown with document-derived parts escaped; compare them unescaped."""
    return unescape(text)


def errors(at: AppTest) -> list[str]:
    return [plain(e.value) for e in at.error]


def successes(at: AppTest) -> list[str]:
    return [plain(e.value) for e in at.success]


def has_button(at: AppTest, key: str) -> bool:
    return any(b.key == key for b in at.button)


def sign_in(at: AppTest, username: str, password: str) -> AppTest:
    at.text_input(key=K.LOGIN_USERNAME).input(username)
    at.text_input(key=K.LOGIN_PASSWORD).input(password)
    return at.button[0].click().run()
