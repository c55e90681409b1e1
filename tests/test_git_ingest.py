"""`ingest-git` on repositories built in the test with the git command: text and code files,
.gitignore, symlinks (never followed), a 200 MB file (skipped before reading), re-sync by
commit (only changed files, deleted ones archived), branch/subpath, file:// URLs, code
sections from tree-sitter, Markdown code fences kept whole, and bad sources."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from backend.security.access import Scope
from backend.errors import PathRefused, RepositoryError
from backend.ingest.git_source import GitSync
from backend.retrieval import RetrievalParams, Retriever
from backend.store import repo as store_repo

if shutil.which("git") is None:
    pytest.skip("the git command is not installed", allow_module_level=True)

README = """# Widget Service

The widget service stores widgets for the billing team.

## Installation

Install the package and start the server:

```bash
pip install widget-service
widget serve --port 8080 --workers 4
widget migrate --database postgresql://localhost/widgets
```

## Configuration

The variable `WIDGET_DB_URL` selects the database; `WIDGET_LOG_LEVEL` the log level.
"""

APP = '''"""Widget service."""
import os


class WidgetStore:
    """Keeps widgets in memory."""

    def __init__(self):
        self.items = {}

    def add(self, name, value):
        """Add a widget under its name."""
        self.items[name] = value


def serve(port: int = 8080):
    """Start the HTTP server on the port."""
    return port
'''


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture
def repo(tmp_path) -> Path:
    r = tmp_path / "widget"
    (r / "src").mkdir(parents=True)
    (r / "docs").mkdir()
    git(r, "init", "-q", "-b", "main")
    git(r, "config", "user.email", "dev@example.org")
    git(r, "config", "user.name", "Dev")
    (r / "README.md").write_text(README)
    (r / "src" / "app.py").write_text(APP)
    (r / "config.yaml").write_text("server:\n  port: 8080\ndatabase:\n  url: sqlite://\n")
    (r / "docs" / "notes.rst").write_text("Operations\n==========\n\nRestart with care.\n")
    (r / ".gitignore").write_text("*.log\nbuild/\n")
    (r / "debug.log").write_text("a log line that is tracked anyway\n")
    (r / "build").mkdir()
    (r / "build" / "out.md").write_text("# generated\n")  # untracked (ignored)
    (r / "logo.bin").write_bytes(b"\x00\x01\x02binary")
    (r / "docs" / "passwd.md").symlink_to("../../../../etc/passwd")  # outside the repository
    (r / "docs" / "host.txt").symlink_to("/etc/hostname")  # absolute: outside
    (r / "docs" / "readme.md").symlink_to("../README.md")  # inside
    (r / "src" / "blob.txt").write_bytes(b"\x00binary in a text file")
    git(r, "add", "-A")
    git(r, "add", "-f", "debug.log")
    git(r, "commit", "-q", "-m", "init")
    return r


def _events(rep) -> dict[str, tuple[str, str]]:
    return {e.path: (e.outcome, e.reason) for e in rep.events}


def test_ingests_text_and_code_and_reports_every_skipped_file(ingestor, repo):
    rep = GitSync(ingestor, str(repo), collection="code").run()
    ev = _events(rep)
    assert {p for p, (o, _) in ev.items() if o == "new"} == {
        "README.md", "src/app.py", "config.yaml", "docs/notes.rst"}
    assert ev["debug.log"] == ("skipped", "ignored by .gitignore")
    assert "build/out.md" not in ev  # untracked: never seen
    assert ev[".gitignore"][0] == "skipped"
    assert ev["logo.bin"] == ("skipped", "unsupported file type '.bin'")
    assert ev["src/blob.txt"][0] == "skipped" and "binary" in ev["src/blob.txt"][1]
    assert ev["docs/passwd.md"][0] == "refused" and "outside the repository" in ev["docs/passwd.md"][1]
    assert ev["docs/host.txt"][0] == "refused"
    assert ev["docs/readme.md"][0] == "skipped" and "within the repository" in ev["docs/readme.md"][1]
    assert not rep.ok  # refused symlinks make the run report a problem
    with ingestor.store.session() as s:
        doc = store_repo.get_document(s, "src/app.py")  # the repository path is the title
        assert doc.source_kind == "git" and doc.doc_type == "source_code_file"
        sections = [(x.kind, x.title) for x in store_repo.sections_of(s, doc.active_version_id)]
        v = s.get(type(doc.versions[0]), doc.active_version_id)
        assert v.processing_profile == "code_structured"
    assert ("symbol", "class WidgetStore") in sections
    assert ("symbol", "def serve(port: int = 8080)") in sections


def test_symlink_targets_are_never_read(ingestor, repo):
    GitSync(ingestor, str(repo), collection="code").run()
    hits = Retriever(ingestor.rs).retrieve("root:x:0:0 /bin/bash", RetrievalParams(
        k=10, collections=["code"], policy="lexical_only"), scope=Scope.everything()).hits
    assert all("root:x:0:0" not in h.text for h in hits)
    with ingestor.store.session() as s:
        names = {d.title for d in store_repo.list_documents(s, store_repo.DocumentFilter())[0]}
    assert not any(n.startswith("docs/passwd") or n.startswith("docs/host") for n in names)


def test_code_fence_stays_whole_in_one_chunk(ingestor, repo):
    GitSync(ingestor, str(repo), collection="code").run()
    with ingestor.store.session() as s:
        doc = store_repo.get_document(s, "README.md")
        chunks = [c.text for c in store_repo.chunks_of(s, doc.active_version_id)]
    fence = "pip install widget-service\nwidget serve --port 8080 --workers 4\nwidget migrate"
    assert sum(fence in c for c in chunks) >= 1


def test_resync_reads_only_changed_files_and_archives_deleted_ones(ingestor, repo):
    first = GitSync(ingestor, str(repo), collection="code").run()
    again = GitSync(ingestor, str(repo), collection="code").run()
    assert again.up_to_date and again.commit == first.commit and again.events == []
    (repo / "README.md").write_text(README + "\n## Support\n\nMail the billing team.\n")
    (repo / "config.yaml").unlink()
    (repo / "src" / "tool.py").write_text("def tool():\n    return 42\n")
    second_commit = commit(repo, "second")
    rep = GitSync(ingestor, str(repo), collection="code").run()
    ev = _events(rep)
    assert rep.commit == second_commit and rep.previous == first.commit
    assert ev["README.md"][0] == "changed" and ev["src/tool.py"][0] == "new"
    assert ev["src/app.py"] == ("unchanged", "same blob")
    assert ev["config.yaml"][0] == "archived"
    with ingestor.store.session() as s:
        readme = store_repo.get_document(s, "README.md")
        assert [v.number for v in readme.versions] == [1, 2]
        assert store_repo.get_document(s, "config.yaml").status == "archived"
        expected = store_repo.active_chunk_ids(s)
    assert ingestor.rs.vector_index.ids() == expected == ingestor.rs.keyword_index.ids()


def test_branch_subpath_and_file_url(ingestor, repo):
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "src" / "feature.py").write_text("def feature_flag():\n    return True\n")
    commit(repo, "feature")
    git(repo, "checkout", "-q", "main")
    rep = GitSync(ingestor, f"file://{repo}", collection="feat", branch="feature",
                  subpath="src").run()
    ev = _events(rep)
    assert set(ev) == {"src/app.py", "src/feature.py", "src/blob.txt"}
    assert ev["src/feature.py"][0] == "new"
    mirrors = list((ingestor.settings.data_dir / "git").glob("*.git"))
    assert len(mirrors) == 1  # a URL is cloned bare into the data dir ...
    git(repo, "checkout", "-q", "feature")
    (repo / "src" / "feature.py").write_text("def feature_flag():\n    return False\n")
    commit(repo, "flip")
    git(repo, "checkout", "-q", "main")
    again = GitSync(ingestor, f"file://{repo}", collection="feat", branch="feature",
                    subpath="src").run()  # ... and fetched on the next run
    assert again.previous == rep.commit and again.commit != rep.commit
    assert _events(again)["src/feature.py"][0] == "changed"
    assert _events(again)["src/app.py"] == ("unchanged", "same blob")
    with pytest.raises(RepositoryError, match="has no branch 'nope'"):
        GitSync(ingestor, str(repo), collection="x", branch="nope").run()


def test_a_200_mb_file_is_skipped_without_reading_it(ingestor, repo, monkeypatch):
    with open(repo / "huge.txt", "wb") as f:  # 200 MB of text-like content, sparse on disk
        f.truncate(200 * 1024 * 1024)
    commit(repo, "huge")
    read = []
    from backend.ingest import git_source

    original = git_source.Repository.read
    monkeypatch.setattr(git_source.Repository, "read",
                        lambda self, blob: read.append(blob) or original(self, blob))
    rep = GitSync(ingestor, str(repo), collection="code").run()
    outcome, reason = _events(rep)["huge.txt"]
    assert outcome == "skipped" and "200.0 MiB, over the limit of 5 MiB" in reason
    big = git(repo, "rev-parse", "HEAD:huge.txt").strip()
    assert big not in read


def test_bad_sources_fail_with_the_reason(ingestor, repo, tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.md").write_text("# not a repository\n")
    with pytest.raises(RepositoryError, match="plain: not a Git repository"):
        GitSync(ingestor, str(plain), collection="x").run()
    with pytest.raises(RepositoryError, match="is a folder inside the Git repository .*--subpath src"):
        GitSync(ingestor, str(repo / "src"), collection="x").run()
    with pytest.raises(RepositoryError, match="only https, http, ssh, git and file URLs"):
        GitSync(ingestor, "ext::sh -c touch% /tmp/pwned", collection="x").run()
    with pytest.raises(PathRefused, match="inside ragscope's own data"):
        GitSync(ingestor, str(ingestor.settings.data_dir), collection="x").run()
    with pytest.raises(RepositoryError, match="leaves the repository"):
        GitSync(ingestor, str(repo), collection="x", subpath="../etc")


def test_cli_ingest_git(ingestor, repo, monkeypatch, capsys):
    from backend.cli import main as cli

    monkeypatch.setattr("backend.cli.common._ingestor", lambda: ingestor)
    assert cli.main(["ingest-git", str(repo), "--collection", "code", "-q"]) == 1  # refused links
    out = capsys.readouterr()
    assert "4 new" in out.out and "REFUSED docs/passwd.md" in out.err
    assert cli.main(["ingest-git", str(repo), "--collection", "code", "-q"]) == 0
    assert "up to date at" in capsys.readouterr().out
    monkeypatch.setattr("backend.cli.common._rs", lambda: ingestor.rs)
    monkeypatch.setattr(ingestor.rs, "close", lambda: None)
    assert cli.main(["git-sources"]) == 0
    listing = capsys.readouterr().out
    assert f"{repo.resolve()} -> code: commit " in listing
    assert cli.main(["ingest-git", str(repo.parent), "--collection", "code", "-q"]) == 2
    assert "not a Git repository" in capsys.readouterr().err
