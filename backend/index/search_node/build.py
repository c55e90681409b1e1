"""Building the search node's launcher once (Maven, offline first) into
`<data_dir>/search-node/build` with a stamp of the sources; later starts reuse it."""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from backend.config import Settings
from backend.errors import ConfigError
from backend.index.search_node.base import SOURCES, SearchNodeError


def source_hash() -> str:
    """Hash of pom.xml and src/: a changed launcher is built again."""
    h = hashlib.sha256()
    files = [SOURCES / "pom.xml", *sorted(p for p in (SOURCES / "src").rglob("*") if p.is_file())]
    for p in files:
        h.update(str(p.relative_to(SOURCES)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def build_dir(settings: Settings) -> Path:
    return Path(settings.search_node_build_dir or settings.data_dir / "search-node" / "build")


def _tool(name: str, hint: str) -> str:
    java_home = os.environ.get("JAVA_HOME")
    if name == "java" and java_home and (Path(java_home) / "bin" / "java").exists():
        return str(Path(java_home) / "bin" / "java")
    found = shutil.which(name)
    if not found:
        raise ConfigError(f"search-node needs `{name}` on PATH ({hint})")
    return found


def classpath(out: Path) -> str:
    return os.pathsep.join([str(out / "search-node-1.jar"), str(out / "lib" / "*")])


def build(settings: Settings) -> tuple[str, float | None]:
    """(classpath, seconds the build took or None when an earlier build was reused).
    Maven runs offline first (everything cached in ~/.m2), online only when that fails."""
    out = build_dir(settings)
    out.parent.mkdir(parents=True, exist_ok=True)
    stamp_file, want = out / "stamp.json", source_hash()
    with open(out.parent / "build.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two starts at once build once
        if _stamp(stamp_file).get("hash") == want and (out / "search-node-1.jar").exists():
            return classpath(out), None
        mvn = _tool("mvn", "Maven 3, e.g. `apt-get install maven`")
        _tool("java", "Java 17, e.g. `apt-get install openjdk-17-jdk-headless`")
        started = time.monotonic()
        shutil.rmtree(out / "lib", ignore_errors=True)  # no jars of an older pom.xml left
        cmd = [mvn, "-q", "-B", "-f", str(SOURCES / "pom.xml"), f"-Dsearchnode.build={out}",
               "package"]
        res = subprocess.run([*cmd[:1], "-o", *cmd[1:]], capture_output=True, text=True)
        mode = "offline"
        if res.returncode != 0:
            res, mode = subprocess.run(cmd, capture_output=True, text=True), "online"
        if res.returncode != 0:
            tail = (res.stdout + res.stderr).strip().splitlines()[-15:]
            raise SearchNodeError("building the search node failed (" + " ".join(cmd) + "):\n"
                                  + "\n".join(tail))
        seconds = time.monotonic() - started
        stamp_file.write_text(json.dumps({"hash": want, "seconds": round(seconds, 1),
                                          "maven": mode, "built_at": time.time()}))
        return classpath(out), seconds


def _stamp(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
