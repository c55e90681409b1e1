"""The layout rewrite script (backend/devtools/relayout.py): what it changes in a branch
written against the old layout, what it leaves alone, and that a second run changes nothing."""
from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from backend.devtools import relayout

OLD_PY = '''\
from unittest import mock

from backend import __version__, access, documents as docs, search_service
from backend.config import Settings
from backend.services import Ragscope
import backend.embedding
import backend.services


def test_x(monkeypatch):
    monkeypatch.setattr("backend.acl.repo.add", None)
    with mock.patch("backend.embedding.Embedder.encode"):
        from backend.services import Ragscope as R
    subprocess.run([sys.executable, "-m", "backend.stack", "status"])
    name = "frontend.documents and backend_documents and backend.documentsx"
'''

NEW_PY = '''\
from unittest import mock

from backend import __version__
from backend.security import access
from backend.services import documents as docs, search as search_service
from backend.config import Settings
from backend.services.container import Ragscope
import backend.embed.embedder
import backend.services.container


def test_x(monkeypatch):
    monkeypatch.setattr("backend.security.acl.repo.add", None)
    with mock.patch("backend.embed.embedder.Embedder.encode"):
        from backend.services.container import Ragscope as R
    subprocess.run([sys.executable, "-m", "backend.deploy.stack", "status"])
    name = "frontend.documents and backend_documents and backend.documentsx"
'''

OLD_MD = """The explorer calls `backend/documents.py`; the stack is `backend/stack.py` and
`backend/cli/stack.py` (unchanged), the bridge `backend/api/cli.py`.
Services: backend/services.py. See mybackend/documents.py (not ours).
"""

NEW_MD = """The explorer calls `backend/services/documents.py`; the stack is `backend/deploy/stack.py` and
`backend/cli/stack.py` (unchanged), the bridge `backend/api/cli.py`.
Services: backend/services/container.py. See mybackend/documents.py (not ours).
"""


def _repo(tmp_path: Path) -> Path:
    (tmp_path / "tests").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "tests" / "test_old.py").write_text(OLD_PY)
    (tmp_path / "docs" / "guide.md").write_text(OLD_MD)
    (tmp_path / "docs" / "picture.png").write_bytes(b"backend/documents.py \xff\xfe")
    return tmp_path


def test_rewrites_imports_mock_paths_and_doc_paths(tmp_path):
    root = _repo(tmp_path)
    assert relayout.run(root, [], check=False, out=io.StringIO()) > 0
    assert (root / "tests" / "test_old.py").read_text() == NEW_PY
    assert (root / "docs" / "guide.md").read_text() == NEW_MD
    assert (root / "docs" / "picture.png").read_bytes() == b"backend/documents.py \xff\xfe"


def test_second_run_changes_nothing_and_check_is_clean(tmp_path):
    root = _repo(tmp_path)
    relayout.run(root, [], check=False, out=io.StringIO())
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    out = io.StringIO()
    assert relayout.run(root, [], check=False, out=out) == 0
    assert out.getvalue() == ""
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before
    assert relayout.main(["--check", "--root", str(root)]) == 0


def test_check_lists_stale_references_and_changes_nothing(tmp_path):
    root = _repo(tmp_path)
    res = subprocess.run([sys.executable, "-m", "backend.devtools.relayout", "--check",
                          "--root", str(root)], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parent.parent)
    assert res.returncode == 1
    line = next(x for x in res.stdout.splitlines() if x.startswith("tests/test_old.py:5: "))
    assert "from backend.services import Ragscope  ->  " in line
    assert "from backend.services.container import Ragscope" in line
    assert "docs/guide.md:1:" in res.stdout
    assert (root / "tests" / "test_old.py").read_text() == OLD_PY


def test_parenthesised_imports_keep_their_comments():
    text = ("from backend.chat.types import (  # noqa: F401  (re-exported: public names)\n"
            "    CONTEXT_LIMITS,\n)\n"
            "from backend.jobs import (  # noqa: F401  (re-exported)\n"
            "    finish_job,\n    start_job,\n)\n"
            "    from backend import (acl,  # the rule\n        auth)\n")
    assert relayout.rewrite(text, python=True) == (
        "from backend.chat.types import (  # noqa: F401  (re-exported: public names)\n"
        "    CONTEXT_LIMITS,\n)\n"
        "from backend.services.jobs import (  # noqa: F401  (re-exported)\n"
        "    finish_job,\n    start_job,\n)\n"
        "    from backend.security import (acl,  # the rule\n        auth)\n")


def test_new_style_imports_are_left_alone():
    text = ("from backend.services import documents, search\n"
            "from backend.services.container import Ragscope\n"
            "from backend.security import access\n"
            "import backend.services.documents as docs\n"
            "x = 'backend.services.navigation.resolve'\n"
            "# nothing below imports `backend.services`\n")
    assert relayout.rewrite(text, python=True) == text


def test_split_symbols_follow_their_module(monkeypatch):
    """A name a split moved to a sibling: from-imports split, dotted strings and module
    attributes follow it, and the module attribute gets its import."""
    monkeypatch.setattr(relayout, "SYMBOLS", {
        "backend.services.documents": {"ingest_uploads": "backend.services.document_actions"}})
    monkeypatch.setattr(relayout, "CHILDREN", {"backend.services": {
        "documents", "document_actions", "container"}})
    old = ("from backend.documents import ExplorerFilter, ingest_uploads\n"
           "from backend import documents as docs\n"
           "docs.ingest_uploads(rs, [])\n"
           "docs.list_documents(rs)\n"
           "mock.patch('backend.documents.ingest_uploads')\n")
    new = relayout.rewrite(old, python=True)
    assert new == ("from backend.services.documents import ExplorerFilter\n"
                   "from backend.services.document_actions import ingest_uploads\n"
                   "from backend.services import documents as docs\n"
                   "from backend.services import document_actions\n"
                   "document_actions.ingest_uploads(rs, [])\n"
                   "docs.list_documents(rs)\n"
                   "mock.patch('backend.services.document_actions.ingest_uploads')\n")
    assert relayout.rewrite(new, python=True) == new


def test_split_symbols_in_functions_import_where_the_alias_is_bound(monkeypatch):
    """The import goes into the function that binds the alias; an import left unused goes."""
    monkeypatch.setattr(relayout, "SYMBOLS", {
        "backend.services.documents": {"delete_document": "backend.services.document_actions",
                                       "resolve_document": "backend.security.access"}})
    old = ("from backend.security import access\n\n\n"
           "def cmd_show(a):\n"
           "    from backend.services import documents\n\n"
           "    return documents.detail(documents.resolve_document(a))\n\n\n"
           "def cmd_delete(a):\n"
           "    from backend.services import documents\n\n"
           "    return documents.delete_document(documents.resolve_document(a))\n\n\n"
           "def cmd_other(document_actions):\n"
           "    from backend.services import documents\n\n"
           "    return documents.delete_document(document_actions)\n")
    new = relayout.rewrite(old, python=True)
    assert new == ("from backend.security import access\n\n\n"
                   "def cmd_show(a):\n"
                   "    from backend.services import documents\n\n"
                   "    return documents.detail(access.resolve_document(a))\n\n\n"
                   "def cmd_delete(a):\n"
                   "    from backend.services import document_actions\n\n"
                   "    return document_actions.delete_document(access.resolve_document(a))\n"
                   "\n\n"
                   "def cmd_other(document_actions):\n"
                   "    from backend.services import documents\n\n"
                   "    return documents.delete_document(document_actions)\n")
    problems = []
    relayout.rewrite(old, python=True, problems=problems)
    assert problems == ["line 19: `documents.delete_document` moved to "
                        "backend.services.document_actions, but the name `document_actions` "
                        "is taken in this file; fix by hand"]


ANSWER_OLD = '''\
from backend.analysis import chat_route
from backend.analysis import chat_answers as answers
from backend.llm import extractive
from backend.analysis.intents import DocCandidate
mock.patch("backend.evidence.scoring.assess")
"""backend/evidence/scoring.py, backend/analysis/chat_route.py and analysis/chat_compose.py;
backend.analysis.types and backend/analysis/types.py stay."""
'''

ANSWER_NEW = '''\
from backend.answer import route as chat_route
from backend.answer import analysis_answers as answers
from backend.answer import extractive
from backend.answer.intents import DocCandidate
mock.patch("backend.answer.evidence.scoring.assess")
"""backend/answer/evidence/scoring.py, backend/answer/route.py and answer/compose.py;
backend.analysis.types and backend/analysis/types.py stay."""
'''


def test_the_answer_path_move_is_in_the_same_tables():
    """The move into backend/answer/ (issue 22): a module imported from its old package under
    a new file name keeps its local name; the package's folder path goes on with the file."""
    assert relayout.rewrite(ANSWER_OLD, True) == ANSWER_NEW
    assert relayout.rewrite(ANSWER_NEW, True) == ANSWER_NEW
