"""What every scenario of the fault campaign (bench/bench_faults.py) checks after its fault:
does `check` notice it (`detect`), does the restoring command end in `check --full` ok with
every stored original unchanged and a marker sentence found again (`restore`); the
`Outcome` row of the matrix, the `python -m backend` calls on a data dir, and the generated
Markdown files with their markers."""
from __future__ import annotations

import hashlib
import os
import random
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORDS = ("pump valve pressure line service check filter tank sensor plant motor gauge relay "
         "switch cable panel meter water flow level alarm drive belt seal gasket bolt frame "
         "shaft bearing").split()
ENV = {**os.environ, "HF_HUB_OFFLINE": "1", "OPENBLAS_NUM_THREADS": "1",
       "TOKENIZERS_PARALLELISM": "false"}


@dataclass
class Outcome:
    scenario: str
    fault: str = ""
    detected: bool | None = None
    check_says: str = ""
    restored_by: str = ""
    restored: bool | None = None
    originals_kept: bool | None = None
    marker_found: bool | None = None
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    skipped: str = ""

    @property
    def passed(self) -> bool:
        return bool(self.skipped) or bool(self.detected is not False and self.restored
                                          and self.originals_kept and self.marker_found
                                          is not False)


def write_docs(dest: Path, n: int, seed: int, prefix: str = "doc", paras: int = 4) -> list[str]:
    """`n` small Markdown files of random words, each with one unique marker; the markers."""
    rng = random.Random(seed)
    dest.mkdir(parents=True, exist_ok=True)
    markers = []
    for i in range(n):
        marker = f"ZQ{seed:02d}{i:04d}X"
        body = [" ".join(rng.choice(WORDS) for _ in range(60)) + "." for _ in range(paras)]
        (dest / f"{prefix}{seed:02d}_{i:03d}.md").write_text(
            f"# {prefix.title()} {seed}-{i}\n\n" + "\n\n".join(body)
            + f"\n\nThe marker of this file is {marker}.\n", encoding="utf-8")
        markers.append(marker)
    return markers


def cli(data_dir: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {**ENV, "RAGSCOPE_DATA_DIR": str(data_dir)}
    return subprocess.run([sys.executable, "-m", "backend", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)


def originals(data_dir: Path) -> dict[str, str]:
    """Relative path → SHA-256 of every stored original."""
    base = data_dir / "originals"
    return {str(p.relative_to(base)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(base.rglob("*")) if p.is_file()}


def problem_lines(proc: subprocess.CompletedProcess) -> str:
    """The lines of `check` output that say what differs (progress bars and the documents
    each problem affects left out: the matrix has room for the problems and the errors)."""
    lines = [ln.strip() for ln in (proc.stdout + "\n" + proc.stderr).splitlines()
             if ln.strip() and "reading back" not in ln and "Loading" not in ln
             and not re.match(r"(document \d+ |\.\.\. and \d+ more document)", ln.strip())]
    text = " / ".join(lines[:4])
    return re.sub(r" \(e\.g\. [0-9a-f, ]+\)", "", text)[:400]  # ids say nothing here


def marker_found(data_dir: Path, marker: str) -> bool:
    proc = cli(data_dir, "search", marker, "--k", "5", "--local", "--json")
    return proc.returncode == 0 and marker in proc.stdout


def restore(out: Outcome, data_dir: Path, before: dict[str, str], marker: str,
            command: tuple[str, ...] = ("check", "--repair")) -> None:
    """Run the restoring command, then the full check; compare originals; search a marker."""
    fix = cli(data_dir, *command)
    out.restored_by = " ".join(command)
    if fix.returncode not in (0, 1):
        out.notes.append(f"{out.restored_by} exited {fix.returncode}: {problem_lines(fix)}")
    full = cli(data_dir, "check", "--full")
    out.restored = full.returncode == 0
    if not out.restored:
        out.notes.append(f"check --full after restore: {problem_lines(full)}")
    after = originals(data_dir)
    lost = [k for k, v in before.items() if after.get(k) != v]
    out.originals_kept = not lost
    if lost:
        out.notes.append(f"{len(lost)} stored originals lost or changed")
    out.marker_found = marker_found(data_dir, marker)


def detect(out: Outcome, data_dir: Path) -> None:
    proc = cli(data_dir, "check")
    out.detected = proc.returncode != 0
    out.check_says = problem_lines(proc)
