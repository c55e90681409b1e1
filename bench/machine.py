"""The machine a bench runs on, for its report: CPU model, load (`uptime`), busy CPU time
of the whole machine (/proc/stat), this process's peak RSS, library versions, and `Phase`:
wall and CPU seconds of one timed phase and how busy the other processes kept the machine
meanwhile (the 2 cores are shared)."""
from __future__ import annotations

import os
import platform
import resource
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "load average: %.2f, %.2f, %.2f" % os.getloadavg()


def cpu_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine, from /proc/stat."""
    f = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = f[3] + (f[4] if len(f) > 4 else 0)
    return sum(f[:8]) - idle, sum(f[:8])


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for dist in ("torch", "sentence-transformers", "chromadb", "tantivy", "SQLAlchemy"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = "-"
    return out


@dataclass
class Phase:
    """Wall and CPU seconds of one timed phase, and how busy the rest of the machine was."""

    wall: float = 0.0
    cpu: float = 0.0
    others_cores: float = 0.0  # average cores used by other processes meanwhile
    load: tuple[float, float] = (0.0, 0.0)  # 1-min load average at start and end

    @classmethod
    def run(cls, fn):
        load0 = os.getloadavg()[0]
        busy0, _ = cpu_jiffies()
        c0, t0 = time.process_time(), time.perf_counter()
        result = fn()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        busy1, _ = cpu_jiffies()
        hz = os.sysconf("SC_CLK_TCK")
        others = max(0.0, (busy1 - busy0) / hz - cpu) / wall if wall else 0.0
        return cls(wall, cpu, others, (load0, os.getloadavg()[0])), result
