"""Hostile file names on the terminal: a newline cannot forge output lines, an ESC sequence
cannot drive the terminal, a right-to-left override cannot spoof an extension (shown as
visible escapes, backend/security/display.py); a reader that leaves the pipe early gets no traceback."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from backend.security.display import safe_text
from tests.conftest import ROOT

pytestmark = pytest.mark.slow

FORGED = "x\nSKIPPED shadow.txt: hidden file\nleer.txt"
CLEARS = "\x1b[2J\x1b[Hklar.md"
SPOOF = "bericht\u202etxt.md"


def _cli(env, *args):
    return subprocess.run([sys.executable, "-m", "backend", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_safe_text_escapes_controls_and_bidi_and_keeps_the_rest():
    assert safe_text(FORGED) == "x\\nSKIPPED shadow.txt: hidden file\\nleer.txt"
    assert safe_text(CLEARS) == "\\x1b[2J\\x1b[Hklar.md"
    assert safe_text(SPOOF) == "bericht\\u202etxt.md"
    assert safe_text("Prüfung der Pumpen – §4.txt") == "Prüfung der Pumpen – §4.txt"


def test_the_terminal_guard_escapes_what_drives_a_terminal_and_passes_files_through():
    import io

    from backend.security.display import TerminalGuard

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty, pipe = Tty(), io.StringIO()
    TerminalGuard.over(tty).write("a\x1b[2Jb\u202ec\x07 100%\r\n")
    assert tty.getvalue() == "a\\x1b[2Jb\\u202ec\\x07 100%\r\n"  # progress bars keep \r
    assert TerminalGuard.over(pipe) is pipe  # `> out.csv` keeps its bytes


def test_hostile_names_stay_one_escaped_line_in_ingest_list_and_show(tmp_path):
    env = {**os.environ, "RAGSCOPE_DATA_DIR": str(tmp_path / "var")}
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    for name in (FORGED, CLEARS, SPOOF):  # empty: failed, listed under their names
        (inbox / name).write_bytes(b"")
    (inbox / "gut.md").write_text("# Klar\n\nDer Klärschlamm wird wöchentlich abgefahren.\n")
    r = _cli(env, "ingest", str(inbox), "-q")
    assert r.returncode == 1
    out = r.stdout + r.stderr
    assert not [ln for ln in out.splitlines() if ln.startswith("SKIPPED")]  # none forged
    failed = [ln for ln in r.stderr.splitlines() if ln.startswith("FAILED")]
    assert sorted(failed) == ["FAILED \\x1b[2J\\x1b[Hklar.md: file is empty",
                              "FAILED bericht\\u202etxt.md: file is empty",
                              "FAILED x\\nSKIPPED shadow.txt: hidden file\\nleer.txt: "
                              "file is empty"]
    r = _cli(env, "list")
    assert r.returncode == 0
    assert "\x1b" not in r.stdout and "\u202e" not in r.stdout
    assert "\\x1b[2J\\x1b[Hklar" in r.stdout and "bericht\\u202etxt" in r.stdout
    assert "x\\nSKIPPED shadow.txt: hidden file\\nleer" in r.stdout
    r = _cli(env, "show", f"{CLEARS}")
    assert r.returncode == 0, r.stderr
    assert "  file: \\x1b[2J\\x1b[Hklar.md (md)" in r.stdout and "\x1b" not in r.stdout


def test_show_into_a_closed_pipe_ends_quietly(tmp_path):
    """`python -m backend show X | head`: the reader leaves before the output is written."""
    env = {**os.environ, "RAGSCOPE_DATA_DIR": str(tmp_path / "var")}
    doc = tmp_path / "lang.md"
    doc.write_text("".join(f"## Abschnitt {i}\n\nText {i} über Pumpen.\n\n" for i in range(400)))
    assert _cli(env, "ingest", str(doc), "-q").returncode == 0
    p = subprocess.Popen([sys.executable, "-m", "backend", "show", "lang.md"], cwd=ROOT,
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()  # like `head` that has read its lines
    err = p.stderr.read().decode()
    assert p.wait(timeout=120) == 141
    assert "Traceback" not in err and "BrokenPipe" not in err and err == ""
