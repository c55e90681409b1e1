"""Git ingest throughput (issue 14): files/s of `ingest-git` on a generated repository.

The repository (built in a temporary folder with the git command) has `--files` files: Python
modules with classes and functions, Markdown docs with code fences, YAML configs, in a few
folders, plus some files that are skipped (binary, ignored, too large). Three runs on a fresh
data dir: the first sync (read, classify, tree-sitter sections, embed, index), a re-sync after
a commit that changes 5 % of the files, and a re-sync without changes.

    python bench/bench_git.py [--files 300] [--record]
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import backend  # noqa: E402,F401

SECTION = "## Git ingest throughput (issue 14)"
DOC = ROOT / "docs" / "benchmarks.md"


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def module(i: int) -> str:
    funcs = "\n\n".join(
        f"def step_{i}_{k}(value: int) -> int:\n    \"\"\"Step {k} of pipeline {i}.\"\"\"\n"
        f"    total = value * {k + 1}\n    for n in range({k + 3}):\n        total += n\n"
        f"    return total" for k in range(4))
    return (f'"""Pipeline {i}: reads meters, aggregates values, writes reports."""\n'
            f"import math\n\n\nclass Pipeline{i}:\n    \"\"\"Runs the steps of pipeline {i}.\"\"\"\n\n"
            f"    def __init__(self, name: str):\n        self.name = name\n\n"
            f"    def run(self, value: int) -> float:\n        return math.sqrt(value + {i})\n\n\n"
            f"{funcs}\n")


def doc(i: int) -> str:
    return (f"# Service {i}\n\nService {i} aggregates meter readings for district {i % 17}.\n\n"
            f"## Installation\n\n```bash\npip install service-{i}\nservice-{i} --port {8000 + i}\n"
            f"```\n\n## Configuration\n\nSet `SERVICE_{i}_URL` and `service.{i}.timeout_s`.\n\n"
            + "\n\n".join(f"## Topic {k}\n\n" + " ".join(
                f"Sentence {j} about topic {k} of service {i} and its operation." for j in range(8))
                for k in range(3)) + "\n")


def make_repo(path: Path, files: int) -> None:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "bench@example.org")
    git(path, "config", "user.name", "bench")
    for i in range(files):
        kind = i % 3
        folder = path / ("src" if kind == 0 else "docs" if kind == 1 else "config") / f"g{i % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        if kind == 0:
            (folder / f"pipeline_{i}.py").write_text(module(i))
        elif kind == 1:
            (folder / f"service_{i}.md").write_text(doc(i))
        else:
            (folder / f"service_{i}.yaml").write_text(
                f"service:\n  name: s{i}\n  port: {8000 + i}\ndatabase:\n  url: postgres://db/{i}\n")
    (path / ".gitignore").write_text("*.log\n")
    (path / "logo.png.bin").write_bytes(bytes(range(256)) * 40)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "bench")


def change(path: Path, files: int, share: float) -> int:
    """Append a section to the first share x files Markdown docs and commit."""
    n = max(1, int(files * share))
    for f in sorted((path / "docs").rglob("*.md"))[:n]:
        f.write_text(f.read_text() + "\n## Changed\n\nA new paragraph.\n")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "change")
    return n


def main() -> None:
    from backend.config import Settings
    from backend.ingest.git_source import GitSync
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope

    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=300)
    ap.add_argument("--record", action="store_true")
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        repo = Path(d) / "repo"
        make_repo(repo, a.files)
        rs = Ragscope(Settings(data_dir=Path(d) / "var"))
        ing = Ingestor(rs)
        rs.embedder.encode(["warm up"])
        for label, prep in (("first sync", None), ("re-sync, 5 % of files changed", 0.05),
                            ("re-sync, no change", "none")):
            changed = change(repo, a.files, prep) if isinstance(prep, float) else 0
            t = time.perf_counter()
            rep = GitSync(ing, str(repo), collection="bench").run()
            secs = time.perf_counter() - t
            counts = rep.counts()
            considered = len(rep.events)
            rows.append((label, considered, counts, secs))
            print(f"{label:32} {secs:7.1f} s  {considered / secs:7.1f} files/s  {counts}"
                  + (f" (changed {changed})" if changed else ""))
        with rs.store.session() as s:
            from backend.store import repo as store_repo

            chunks = len(store_repo.active_chunk_ids(s))
        rs.close()
    load = os.getloadavg()
    lines = [SECTION, "",
             f"Measured {dt.date.today().isoformat()} on {os.cpu_count()} cores (`nproc`), load "
             f"average at the end {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} (shared machine). "
             f"`python bench/bench_git.py --files {a.files} --record`: a generated repository of "
             f"{a.files} files (Python modules with classes and functions, Markdown docs with "
             "code fences, YAML) plus ignored and unsupported files; full pipeline (read from "
             "the object database, classify, tree-sitter sections, embed on the CPU, both "
             f"indexes); {chunks} chunks after the first sync. Files/s counts every file the run "
             "considered (also unchanged and skipped ones).", "",
             "| run | files considered | outcomes | seconds | files/s |",
             "|---|---:|---|---:|---:|"]
    for label, n, counts, secs in rows:
        outcome = ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or \
            "up to date (same commit: no file read)"
        rate = f"{n / secs:.1f}" if n else "-"
        lines.append(f"| {label} | {n} | {outcome} | {secs:.1f} | {rate} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.record:
        doc = DOC.read_text()
        if SECTION in doc:
            head, _, rest = doc.partition(SECTION)
            nxt = rest.find("\n## ")
            doc = head + text + ("\n" + rest[nxt + 1:] if nxt >= 0 else "")
        else:
            doc = doc.rstrip("\n") + "\n\n" + text
        DOC.write_text(doc)


if __name__ == "__main__":
    main()
