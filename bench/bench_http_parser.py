"""What the slow-client protection costs per request (issue 21): `GET /api/health` on one
keep-alive connection, served by the API app with uvicorn's plain httptools parser and with
`backend/api/head_deadline.py`'s GuardedH11 and GuardedHttpTools (h11 / httptools plus a head
deadline; `python -m backend api` uses GuardedHttpTools when httptools is installed). Loopback only; `--requests` per round after 300 warm-up ones.

    python bench/bench_http_parser.py [--requests 3000] [--rounds 2]
"""
from __future__ import annotations

import argparse
import http.client
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

WARMUP = 300


def _serve(rs, protocol, port: int):
    import uvicorn

    from backend.api.http import create_app

    server = uvicorn.Server(uvicorn.Config(create_app(rs), host="127.0.0.1", port=port,
                                           log_level="warning", access_log=False, http=protocol,
                                           log_config=None))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    return server, thread


def measure(rs, protocol, n: int) -> tuple[float, float]:
    """p50 and p95 in ms of `n` health requests on one connection."""
    from tests.api_support import free_port

    port = free_port()
    server, thread = _serve(rs, protocol, port)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    times = []
    try:
        for i in range(WARMUP + n):
            t = time.perf_counter()
            conn.request("GET", "/api/health")
            conn.getresponse().read()
            if i >= WARMUP:
                times.append(time.perf_counter() - t)
    finally:
        conn.close()
        server.should_exit = True
        thread.join(10)
    times.sort()
    return statistics.median(times) * 1000, times[int(len(times) * 0.95)] * 1000


def main() -> None:
    from backend.api.head_deadline import guarded_protocol
    from backend.config import Settings
    from backend.services.container import Ragscope

    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    rs = Ragscope(Settings(data_dir=Path(tempfile.mkdtemp()) / "var"))
    for r in range(a.rounds):
        for name, proto in (("httptools", "httptools"),
                            ("GuardedH11", guarded_protocol(10, "h11")),
                            ("GuardedHttpTools", guarded_protocol(10, "httptools"))):
            p50, p95 = measure(rs, proto, a.requests)
            print(f"round {r} {name:<16} p50 {p50:.3f} ms  p95 {p95:.3f} ms", flush=True)


if __name__ == "__main__":
    main()
