"""HTTP API capacity and open-loop load (issue 25, section 6): searches per second with 1 and 2
API worker processes on this machine, server CPU per search, and an open-loop load at a fixed
rate of half the measured capacity from 20 concurrent clients.

    python bench/bench_api_load.py                        # 1 and 2 workers, print the figures
    python bench/bench_api_load.py --workers 1 --record   # one configuration, into benchmarks.md

Setup as bench/bench_api.py (sample corpus, a read-only principal whose every request computes
its ACL scope, `POST /api/search` with goldenset questions made unique so that no request hits
the query-embedding cache). A "worker" is one `python -m backend api` process on its own port
of 127.0.0.1; with two, the clients alternate between the ports (the balancing a reverse proxy
would do). Phases per configuration:
1. single client, closed loop: p50/p95 of one request at a time (the reference);
2. capacity: 4 clients per worker in a closed loop; searches/s and the servers' CPU seconds
   (user + system, from /proc via psutil) per search;
3. open loop: requests scheduled at a fixed rate of half the capacity for `--seconds`, served by
   20 client threads; latency counted from the scheduled time, so a server that falls behind
   shows it (no coordinated omission). Goal: p95 <= 3x the single client's p95, 0 errors."""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import queue
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from bench_api import _free_port, _questions, prepare, start_server  # noqa: E402
from docs_record import record_section  # noqa: E402

HEADING = "## HTTP API capacity and open-loop load (issue 25)"


class Requests:
    """Unique questions (no embedding cache hits) and a round robin over the workers."""

    def __init__(self, urls: list[str], token: str):
        self.urls, self.token = urls, token
        self.questions = _questions()
        self.n = 0
        self.lock = threading.Lock()

    def next(self) -> tuple[str, str]:
        with self.lock:
            self.n += 1
            n = self.n
        return self.urls[n % len(self.urls)], f"{self.questions[n % len(self.questions)]} ({n})"


def _search(client, url: str, q: str) -> bool:
    import httpx

    try:
        r = client.post(f"{url}/api/search", json={"query": q, "limit": 10})
        return r.status_code == 200 and "hits" in r.json()
    except httpx.HTTPError:
        return False


def _quantiles(lat: list[float]) -> dict:
    q = statistics.quantiles(lat, n=100) if len(lat) >= 2 else [lat[0]] * 99
    return {"p50_ms": round(q[49], 1), "p95_ms": round(q[94], 1), "max_ms": round(max(lat), 1)}


def closed_loop(reqs: Requests, clients: int, per_client: int) -> dict:
    import httpx

    lat: list[float] = []
    errors = [0]
    lock = threading.Lock()

    def run() -> None:
        with httpx.Client(timeout=120, headers={"Authorization": f"Bearer {reqs.token}"}) as c:
            for _ in range(per_client):
                url, q = reqs.next()
                t0 = time.perf_counter()
                ok = _search(c, url, q)
                ms = (time.perf_counter() - t0) * 1000
                with lock:
                    (lat.append(ms) if ok else errors.__setitem__(0, errors[0] + 1))

    threads = [threading.Thread(target=run) for _ in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    return {"clients": clients, "requests": clients * per_client, "errors": errors[0],
            "rps": round(len(lat) / wall, 1), **_quantiles(lat)}


def open_loop(reqs: Requests, rate: float, seconds: float, clients: int = 20) -> dict:
    """`rate` requests/s for `seconds`, handed to `clients` threads; latency from the
    scheduled start."""
    import httpx

    due: queue.Queue = queue.Queue()
    lat: list[float] = []
    errors = [0]
    lock = threading.Lock()
    n = int(rate * seconds)
    start = time.perf_counter() + 0.5
    for i in range(n):
        due.put(start + i / rate)

    def run() -> None:
        with httpx.Client(timeout=120, headers={"Authorization": f"Bearer {reqs.token}"}) as c:
            while True:
                try:
                    at = due.get_nowait()
                except queue.Empty:
                    return
                wait = at - time.perf_counter()
                if wait > 0:
                    time.sleep(wait)
                url, q = reqs.next()
                ok = _search(c, url, q)
                ms = (time.perf_counter() - at) * 1000
                with lock:
                    (lat.append(ms) if ok else errors.__setitem__(0, errors[0] + 1))

    threads = [threading.Thread(target=run) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"clients": clients, "rate_rps": round(rate, 1), "requests": n, "errors": errors[0],
            **_quantiles(lat)}


def cpu_seconds(procs) -> float:
    import psutil

    total = 0.0
    for p in procs:
        ps = psutil.Process(p.pid)
        for q in [ps, *ps.children(recursive=True)]:
            t = q.cpu_times()
            total += t.user + t.system
    return total


def measure(data_dir: Path, token: str, workers: int, seconds: float,
            per_client: int = 20) -> dict:
    procs = [start_server(data_dir, _free_port()) for _ in range(workers)]
    try:
        urls = [f"http://127.0.0.1:{p.args[p.args.index('--port') + 1]}" for p in procs]
        reqs = Requests(urls, token)
        closed_loop(reqs, workers, 5)  # warm-up: model loaded, indexes open in each worker
        single = closed_loop(reqs, 1, 40)
        cpu0 = cpu_seconds(procs)
        cap = closed_loop(reqs, 4 * workers, per_client)
        cpu = cpu_seconds(procs) - cpu0
        cap["cpu_ms_per_search"] = round(cpu * 1000 / max(1, cap["requests"]), 1)
        load = open_loop(reqs, cap["rps"] / 2, seconds)
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(30)
    load["p95_ratio"] = round(load["p95_ms"] / single["p95_ms"], 2)
    return {"workers": workers, "single": single, "capacity": cap, "open_loop": load}


def report(results: list[dict], seconds: float) -> str:
    la = " ".join(f"{x:.1f}" for x in os.getloadavg())
    rows = []
    for r in results:
        s, c, o = r["single"], r["capacity"], r["open_loop"]
        ok = o["errors"] == 0 and o["p95_ratio"] <= 3
        rows.append(f"| {r['workers']} | {s['p50_ms']} / {s['p95_ms']} | {c['rps']} | "
                    f"{c['cpu_ms_per_search']} | {o['rate_rps']} | {o['p50_ms']} / {o['p95_ms']} "
                    f"| {o['p95_ratio']}x | {o['errors']} | {'met' if ok else 'NOT met'} |")
    return f"""{HEADING}

Measured {dt.date.today().isoformat()} on {os.cpu_count()} cores, Python
{platform.python_version()}, load average at the end {la}. Reproduce:
`python bench/bench_api_load.py --seconds {seconds:g}` (method in the script's docstring:
single client closed loop; capacity with 4 clients per worker; open loop at half that rate
from 20 clients for {seconds:g} s, latency from the scheduled start).

| workers | single client p50 / p95 ms | capacity searches/s | server CPU ms per search | open-loop rate/s | open-loop p50 / p95 ms | p95 / single p95 | errors | goal (p95 <= 3x, 0 errors) |
|---:|---:|---:|---:|---:|---:|---:|---:|---|
{chr(10).join(rows)}

"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, action="append",
                    help="worker processes to measure (repeatable; default 1 and 2)")
    ap.add_argument("--seconds", type=float, default=30.0, help="open-loop duration")
    ap.add_argument("--data-dir", type=Path, help="reuse a prepared data dir")
    ap.add_argument("--per-client", type=int, default=20,
                    help="capacity phase: searches per client (more: a steadier CPU figure)")
    ap.add_argument("--record", action="store_true", help="write docs/benchmarks.md")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="bench-api-load-")) / "var"
    token = prepare(data_dir)
    results = [measure(data_dir, token, w, args.seconds, args.per_client)
               for w in (args.workers or [1, 2])]
    print(json.dumps(results, indent=1))
    text = report(results, args.seconds)
    print(text)
    if args.record:
        record_section(HEADING, text)
    return 0 if all(r["open_loop"]["errors"] == 0 for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
