"""Everything ragscope writes under the data dir is private (folders 0700, files 0600),
whatever the umask; an older, readable data dir is tightened on open."""
from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from backend.config import Settings
from backend.ingest.service import Ingestor
from backend.services.container import Ragscope
from tests.conftest import ROOT

DOC = "# Pegel\n\nDie Pegelmessung am Wehr erfolgt stündlich und wird protokolliert.\n"


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _open_to_others(data_dir: Path, skip: tuple[str, ...] = ()) -> list[str]:
    """Every path under data_dir (itself included) with a group or world permission bit."""
    found = []
    for p in [data_dir, *data_dir.rglob("*")]:
        rel = p.relative_to(data_dir)
        if rel.parts and rel.parts[0] in skip:
            continue
        mode = stat.S_IMODE(p.lstat().st_mode)
        if mode & 0o077:
            found.append(f"{rel or '.'} {mode:o}")
    return found


def test_ingest_into_a_fresh_data_dir_creates_nothing_readable_by_others(make_rs, tmp_path,
                                                                         umask_022):
    src = tmp_path / "pegel.md"
    src.write_text(DOC)
    rs = make_rs(data_dir=tmp_path / "neu" / "var")
    [out] = Ingestor(rs).ingest_paths([src])
    assert out.status == "new"
    data_dir = rs.settings.data_dir
    originals = list(rs.settings.originals_dir.rglob("*.md"))
    assert len(originals) == 1 and (data_dir / "ragscope.db-wal").exists()
    # ragscope's own files and folders are 0600/0700 in spite of umask 022 ...
    assert _open_to_others(data_dir, skip=("chroma", "keyword")) == []
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(originals[0].stat().st_mode) == 0o600
    # ... and the index folders, whose inner files native code writes with the process
    # umask, are 0700 themselves, so nothing in them can be reached by others
    for d in (rs.settings.chroma_dir, rs.settings.keyword_dir):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700, d
    assert stat.S_IMODE(data_dir.parent.stat().st_mode) == 0o755  # not ragscope's: left alone


@pytest.mark.slow
def test_cli_ingest_under_umask_022_leaves_nothing_readable_by_others(tmp_path):
    """The command line runs with umask 077, so even the files Chroma and tantivy write
    inside their folders are private (and `up` passes the umask on to the dashboard)."""
    src = tmp_path / "pegel.md"
    src.write_text(DOC)
    data_dir = tmp_path / "var"
    env = {**os.environ, "RAGSCOPE_DATA_DIR": str(data_dir)}
    r = subprocess.run([sys.executable, "-m", "backend", "ingest", str(src), "-q"], cwd=ROOT,
                       env=env, capture_output=True, text=True, timeout=600,
                       preexec_fn=lambda: os.umask(0o022))
    assert r.returncode == 0, r.stderr
    assert "1 new" in r.stdout
    assert any((data_dir / "chroma").rglob("*")) and any((data_dir / "keyword").rglob("*"))
    assert _open_to_others(data_dir) == []


def test_readable_data_dir_from_before_is_tightened_once_on_open(tmp_path, caplog, umask_022):
    data_dir = tmp_path / "var"
    (data_dir / "originals" / "ab").mkdir(parents=True)
    (data_dir / "auth").mkdir()
    for f in ("ragscope.db", "originals/ab/abc.pdf", "auth/users.yaml"):
        (data_dir / f).write_bytes(b"")
        os.chmod(data_dir / f, 0o644)
    for d in (data_dir, data_dir / "originals", data_dir / "originals" / "ab", data_dir / "auth"):
        os.chmod(d, 0o755)
    (tmp_path / "elsewhere.txt").write_text("x")
    (data_dir / "link.txt").symlink_to(tmp_path / "elsewhere.txt")  # not followed
    os.chmod(tmp_path / "elsewhere.txt", 0o644)
    with caplog.at_level(logging.WARNING, logger="backend.security.private_files"):
        Ragscope(Settings(data_dir=data_dir)).close()
        Ragscope(Settings(data_dir=data_dir)).close()
    assert _open_to_others(data_dir, skip=("link.txt",)) == []
    assert stat.S_IMODE((tmp_path / "elsewhere.txt").stat().st_mode) == 0o644
    logged = [r.getMessage() for r in caplog.records if "made it private" in r.getMessage()]
    assert len(logged) == 1 and "tightened 6 files and folders" in logged[0]
