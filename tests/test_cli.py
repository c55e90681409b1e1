"""The command line on the sample corpus: ingest with failures, show prints section trees,
original download; and the sample corpus stays in sync with its goldenset."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT, SAMPLES

pytestmark = pytest.mark.slow


def _cli(env, *args):
    return subprocess.run([sys.executable, "-m", "backend", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def env(sample_rs):
    return {**os.environ, "RAGSCOPE_DATA_DIR": str(sample_rs.settings.data_dir)}


def test_show_prints_the_section_trees_of_minutes_manual_and_policy(env):
    r = _cli(env, "show", "protokoll_werkausschuss_2024-03-12.txt")
    assert r.returncode == 0, r.stderr
    for line in ("TOP 1: Eröffnung", "TOP 6: Verschiedenes", "Anlage 2: Preisblatt"):
        assert line in r.stdout
    assert "agenda_item" in r.stdout and "appendix" in r.stdout
    r = _cli(env, "show", "lumen_handbuch.pdf")
    out = r.stdout
    assert "  2 Installation" in out and "    2.2 Konfiguration" in out  # nested
    assert "p. 2" in out and "version 1" in out
    r = _cli(env, "show", "benutzungsordnung_kundenportal.pdf")
    assert "§ 7 Sperrung des Zugangs" in r.stdout and "paragraph" in r.stdout
    r = _cli(env, "show", "no-such-doc")
    assert r.returncode == 2 and "not found" in r.stderr


def test_list_status_check_and_original(env, tmp_path):
    r = _cli(env, "list", "--collection", "handbuch")
    assert r.returncode == 0 and "lumen_handbuch" not in r.stdout.split("title")[0]
    assert "1 of 1 documents" in r.stdout
    r = _cli(env, "check")
    assert r.returncode == 0 and "agree" in r.stdout
    out = tmp_path / "copy.pdf"
    r = _cli(env, "original", "lumen_handbuch.pdf", "--out", str(out))
    assert r.returncode == 0
    assert out.read_bytes() == (SAMPLES / "lumen_handbuch.pdf").read_bytes()


def test_ingest_batch_with_bad_files_reports_each_and_exits_nonzero(tmp_path):
    env = {**os.environ, "RAGSCOPE_DATA_DIR": str(tmp_path / "var")}
    bad = ROOT / "data" / "bad"
    r = _cli(env, "ingest", str(bad / "encrypted.pdf"), str(bad / "fake.docx"),
             str(bad / "notes.xyz"), str(SAMPLES / "runbook_gateway_failover.md"), "-q")
    assert r.returncode == 1
    failed = [ln for ln in r.stderr.splitlines() if ln.startswith("FAILED")]
    assert len(failed) == 3
    assert any("encrypted.pdf" in ln and "encrypted" in ln.lower() for ln in failed)
    assert any("notes.xyz" in ln and "unsupported" in ln for ln in failed)
    assert "1 new" in r.stdout and "3 failed" in r.stdout


def test_sample_corpus_matches_its_goldenset():
    sys.path.insert(0, str(ROOT / "data"))
    try:
        import check_samples
    finally:
        sys.path.pop(0)
    assert check_samples.check() == 0
