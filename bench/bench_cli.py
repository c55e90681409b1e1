"""CLI startup (issue 15, part 4): wall time of `python -m backend <command>` from process
start to exit, cold and warm, on a data dir holding the sample corpus.

- cold: the page cache is dropped first (`echo 1 > /proc/sys/vm/drop_caches`, needs root;
  otherwise the run is marked "not cold"), so Python, the libraries and the model files come
  from disk, as after a reboot;
- warm: median of `--repeat` runs right after.
Commands: `status`, `list`, `collections` (no model), and `search` with the default backend
(ONNX int8) and with `RAGSCOPE_EMBEDDING_BACKEND=torch` (what every search paid before); then
`search` and `ask` answered by a running `python -m backend api` on the same data dir, and
`ask --local` (in-process) beside them.
For `search` the retrieval's own time (the trace's total, model loading included) is
reported too, and the import time of `backend.cli.main`.

    python bench/bench_cli.py --record
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
SECTION = "## CLI startup (issue 15)"
QUERY = "Wie lange werden die Sicherungen aufbewahrt?"
QUESTION = "What is the default value of gateway.max_connections?"


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def drop_caches() -> bool:
    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("1\n")
        return True
    except OSError:
        return False


def run(env: dict, args: list[str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "backend", *args], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=900)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"{args}: exit {r.returncode}: {r.stderr[-500:]}")
    return wall, r.stdout


def trace_ms(stdout: str) -> float | None:
    try:
        return float(json.loads(stdout)["trace"]["total_ms"])
    except (ValueError, KeyError):
        return None


def measure(label: str, cmd: list[str], env: dict, repeat: int) -> dict:
    """One command: a cold run (page cache dropped if we may), then `repeat` warm runs."""
    cold = drop_caches()
    c_wall, c_out = run(env, cmd)
    warm = [run(env, cmd) for _ in range(repeat)]
    row = {"command": label, "cold_s": c_wall, "cold": cold,
           "warm_s": statistics.median(w for w, _ in warm), "cold_trace_ms": trace_ms(c_out),
           "warm_trace_ms": statistics.median(trace_ms(o) or 0 for _, o in warm)
           if trace_ms(c_out) is not None else None}
    print(row, file=sys.stderr)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-cli-"))
    env = {**os.environ, "RAGSCOPE_DATA_DIR": str(work / "var"), "HF_HUB_OFFLINE": "1",
           "OPENBLAS_NUM_THREADS": "1",
           "RAGSCOPE_EMBEDDING_CACHE_DIR": str(work / "models")}
    load_before = os.getloadavg()
    print("ingesting the sample corpus (not timed)...", file=sys.stderr)
    run(env, ["ingest", str(ROOT / "data" / "samples"), "--collection", "samples", "-q"])
    commands = [("status", ["status"], env), ("list", ["list"], env),
                ("collections", ["collections"], env),
                ("search (onnx-int8)", ["search", QUERY, "--json"], env),
                ("search (torch)", ["search", QUERY, "--json"],
                 {**env, "RAGSCOPE_EMBEDDING_BACKEND": "torch"})]
    rows = []
    imp = subprocess.run([sys.executable, "-X", "importtime", "-c", "import backend.cli.main"],
                         cwd=ROOT, env=env, capture_output=True, text=True)
    import_ms = int(imp.stderr.strip().splitlines()[-1].split("|")[1]) / 1000
    for label, cmd, e in commands:
        rows.append(measure(label, cmd, e, args.repeat))
    # part 4: the same commands answered by a running `python -m backend api` on this data
    # dir (backend/cli/bridge.py), next to `ask` in-process
    from backend.cli import bridge as cli_bridge

    port = free_port()
    api = subprocess.Popen([sys.executable, "-m", "backend", "api", "--port", str(port),
                            "--log-level", "warning"], cwd=ROOT, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 180
        while cli_bridge.find(work / "var") is None:
            if api.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the API process did not start")
            time.sleep(0.2)
        run(env, ["search", QUERY, "--json"])  # the server's first search opens its indexes
        for label, cmd in (("search (running process)", ["search", QUERY, "--json"]),
                           ("ask (running process)", ["ask", QUESTION, "--json"]),
                           ("ask (in-process, --local)", ["ask", QUESTION, "--json", "--local"])):
            rows.append(measure(label, cmd, env, args.repeat))
    finally:
        api.terminate()
        api.wait(30)
    load_after = os.getloadavg()
    lines = [SECTION, "",
             f"Measured {dt.date.today().isoformat()} on {os.cpu_count()} cores; load average "
             f"before {load_before[0]:.1f}, after {load_after[0]:.1f} (1 min). Wall time of "
             "`python -m backend …` from start to exit on a data dir with the sample corpus "
             "(165 chunks); cold: page cache dropped before the run; warm: median of "
             f"{args.repeat} runs after it. `import backend.cli.main`: {import_ms:.0f} ms (warm). "
             "Reproduce: `python bench/bench_cli.py --record` (as root, for the cold runs).", "",
             "| command | cold s | warm s | retrieval in the trace, cold / warm ms |",
             "|---|---:|---:|---:|"]
    for r in rows:
        tr = "–" if r["cold_trace_ms"] is None else \
            f"{r['cold_trace_ms']:.0f} / {r['warm_trace_ms']:.0f}"
        cold = f"{r['cold_s']:.1f}" + ("" if r["cold"] else " (not cold)")
        lines.append(f"| `{r['command']}` | {cold} | {r['warm_s']:.1f} | {tr} |")
    section = "\n".join(lines) + "\n"
    print(section)
    if args.record:
        from bench.docs_record import record_section

        record_section(SECTION, section, DOC)
    import shutil

    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
