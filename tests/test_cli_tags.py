"""`python -m backend tags list|add|remove|set` and `search --tag/--category` (docs/tags.md):
the operator and `--as USER` (role and access groups apply), errors as one line and exit 2."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from backend.cli import common
from backend.cli.main import main
from backend.ingest.records import IngestItem
from backend.security import auth
from tests.conftest import ROOT

TEXT = ("# Pumpwerk {n}\n\nDie Druckerhöhungsanlage im Pumpwerk {n} wird jährlich gewartet."
        "\n\n## Wartung\n\nDer Fachbetrieb prüft Ventile im Pumpwerk {n}.")


@pytest.fixture
def cli(ingestor, monkeypatch):
    rs = ingestor.rs
    outs = ingestor.ingest_many([IngestItem(f"{n}.md", data=TEXT.format(n=n).encode(),
                                            source_uri=f"test://{n}") for n in ("nord", "sued")],
                                collection="netz")
    monkeypatch.setattr(common, "_rs", lambda: rs)
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(rs.settings.data_dir))
    return rs, {o.filename: o.document_id for o in outs}


def _run(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_add_list_remove_set_as_the_operator(cli, capsys):
    rs, docs = cli
    code, out, _ = _run(capsys, "tags", "add", "nord.md", "Druck", " druck ", "Wasser")
    assert code == 0 and "added: Druck, Wasser" in out
    code, out, _ = _run(capsys, "tags", "list", "nord.md", "--json")
    assert json.loads(out)["tags"] == ["Druck", "Wasser"]
    code, out, _ = _run(capsys, "tags", "list")
    assert "    1  Druck" in out and "2 tags" in out
    code, out, _ = _run(capsys, "tags", "remove", str(docs["nord.md"]), "WASSER")
    assert code == 0 and "removed: Wasser" in out and "Druck" in out
    code, out, _ = _run(capsys, "tags", "set", "sued.md", "Ventile")
    assert code == 0 and f"document {docs['sued.md']}: Ventile" in out
    code, out, _ = _run(capsys, "search", "Pumpwerk Wartung", "--tag", "ventile", "--local",
                        "--json")
    assert {h["filename"] for h in json.loads(out)["hits"]} == {"sued.md"}
    code, out, _ = _run(capsys, "search", "Pumpwerk", "--category", "legal", "--local", "--json")
    assert json.loads(out)["hits"] == []


def test_bad_input_and_roles_are_one_line_errors(cli, capsys):
    rs, docs = cli
    code, _, err = _run(capsys, "tags", "add", "nord.md", "a;b")
    assert code == 2 and err.startswith("error: tags: tag 'a;b' contains ';'")
    code, _, err = _run(capsys, "tags", "add", "nord.md")
    assert code == 2 and "at least one tag" in err
    code, _, err = _run(capsys, "tags", "list", "no-such.md")
    assert code == 2 and "not found" in err
    code, _, err = _run(capsys, "search", "Pumpwerk", "--category", "nonsense", "--local")
    assert code == 2 and "unknown category 'nonsense'" in err
    users = auth.UserStore(auth.AuthPaths.under(rs.settings.data_dir), bcrypt_rounds=4)
    users.add("vera", "viewer", password="tags-password-1")
    code, out, _ = _run(capsys, "--as", "vera", "tags", "list", "nord.md")
    assert code == 0 and "Druck" not in out  # reads the default collection (group everyone)
    code, _, err = _run(capsys, "--as", "vera", "tags", "add", "nord.md", "Druck")
    assert code == 2 and "vera" in err and "edit_document" in err
    users.add("ed", "admin", password="tags-password-1")
    code, out, _ = _run(capsys, "--as", "ed", "tags", "add", "nord.md", "Druck")
    assert code == 0 and "Druck" in out


@pytest.mark.slow
def test_the_command_runs_as_a_process(cli):
    rs, docs = cli
    env = {**os.environ, "RAGSCOPE_DATA_DIR": str(rs.settings.data_dir)}
    r = subprocess.run([sys.executable, "-m", "backend", "tags", "add", "nord.md", "--suggested",
                        "--json"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["suggestions"] == []
