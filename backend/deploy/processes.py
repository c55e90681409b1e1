"""Processes and probes of the stack (backend/deploy/stack.py): is a pid alive, stop a
process group, probe an HTTP endpoint, quote a log's tail; and the error a failed part raises."""
from __future__ import annotations

import os
import re
import signal
import time
import urllib.error
import urllib.request
from pathlib import Path

from backend.errors import RagscopeError

STOP_TIMEOUT_S = 20.0


class StackError(RagscopeError):
    """A part of the stack could not be started or stopped; the message names it."""


def alive(pid: int) -> bool:
    """The process exists and is no zombie."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def terminate_group(pid: int | None, timeout: float = STOP_TIMEOUT_S) -> bool:
    """SIGTERM the process group `pid` leads (uvicorn's workers, chroma's children), SIGKILL
    after `timeout`; True when it was running."""
    if not pid or not alive(pid):
        return False
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(pid, sig)
        except (ProcessLookupError, PermissionError):  # no group of its own: the process
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                return True
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if not alive(pid) and not group_members(pid):
                return True
            time.sleep(0.2)
    raise StackError(f"pid {pid} did not stop")


def group_members(pgid: int) -> list[int]:
    """Live processes of process group `pgid` (workers outliving their supervisor)."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[2] == str(pgid) and fields[0] != "Z":
                out.append(int(d.name))
    return out


def http_ok(url: str, timeout: float = 3.0) -> tuple[bool, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status == 200, ""
    except urllib.error.HTTPError as exc:
        return False, f"HTTP {exc.code}"
    except (urllib.error.URLError, OSError) as exc:
        return False, str(getattr(exc, "reason", exc))[:200]


def tail(path: Path, lines: int = 15) -> str:
    """The log's last lines without terminal colours (Chroma writes them to files too)."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join(re.sub(r"\x1b\[[0-9;]*m", "", text).splitlines()[-lines:])
