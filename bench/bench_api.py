"""HTTP API load benchmark (issue 13, "How it is checked"): 20 concurrent clients doing
`POST /api/search` on the sample corpus against 1 client; p50/p95/max latency and errors.
Goal: no errors, and the 20-client p95 at most 3x the 1-client p95.

Setup: a data dir with `data/samples/` ingested (collection `samples`, knowledge base
`default`), a group `bench-readers` with read on it, a principal `bench` in that group with
a read token (so every request computes the ACL scope, like a real principal). The server is
`python -m backend api` in its own process on 127.0.0.1 (a free port), as deployed.

Queries: the 64 questions of eval/goldenset_sample.yaml, each request with a distinct
suffix (" (n)"), so no request hits the server's query-embedding cache: every search embeds
its query, as unseen questions do. Each client is a thread with its own keep-alive
connection; the single-client phase runs first, then the concurrent one.

    python bench/bench_api.py                      # 1 client x 60, then 20 clients x 15
    python bench/bench_api.py --clients 20 --per-client 15 --single 60 --record
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DOC_SECTION = "HTTP API under load (issue 13)"


def _questions() -> list[str]:
    import yaml

    data = yaml.safe_load((ROOT / "eval" / "goldenset_sample.yaml").read_text("utf-8"))
    return [q["question"] for q in data["queries"]]


def prepare(data_dir: Path) -> str:
    """Ingest the samples (idempotent), grant the bench principal read, return its token."""
    from backend.security import acl
    from backend.security.access import Actor
    from backend.api.tokens import create_token
    from backend.config import Settings
    from backend.errors import AccessConfigError
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope

    rs = Ragscope(Settings(data_dir=data_dir))
    outs = Ingestor(rs).ingest_paths([ROOT / "data" / "samples"], collection="samples")
    assert all(o.ok for o in outs), [o.error for o in outs if not o.ok]
    system = Actor.system("bench")
    try:
        acl.create_group(rs, system, "bench-readers")
        acl.grant(rs, system, "bench-readers", rs.settings.default_knowledge_base, "read")
        acl.add_member(rs, system, "bench-readers", "principal", "bench")
    except AccessConfigError:
        pass  # prepared by an earlier run
    token = create_token(rs.store, "bench", ["read"], created_by="bench", expires_days=1)[1]
    rs.close()
    return token


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(data_dir: Path, port: int) -> subprocess.Popen:
    import httpx

    # the benches measure capacity, so the API's rate limits (600/min per token) are off:
    # past 10 searches/s they would turn requests into 429s
    env = {**os.environ, "RAGSCOPE_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1",
           "OPENBLAS_NUM_THREADS": "1", "RAGSCOPE_API_RATE_PER_TOKEN": "0",
           "RAGSCOPE_API_RATE_PER_ADDRESS": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "backend", "api", "--port", str(port),
                             "--log-level", "warning"], cwd=ROOT, env=env)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            raise RuntimeError("the API server exited")
        time.sleep(0.3)
    proc.terminate()
    raise RuntimeError("the API server did not come up")


class Counter:
    def __init__(self):
        self.n = 0
        self.lock = threading.Lock()

    def next(self) -> int:
        with self.lock:
            self.n += 1
            return self.n


def client_run(url: str, token: str, questions: list[str], counter: Counter, n: int,
               out: list, errors: list, barrier: threading.Barrier | None) -> None:
    import httpx

    with httpx.Client(base_url=url, timeout=120,
                      headers={"Authorization": f"Bearer {token}"}) as c:
        if barrier is not None:
            barrier.wait()
        for _ in range(n):
            i = counter.next()
            q = f"{questions[i % len(questions)]} ({i})"
            t0 = time.perf_counter()
            try:
                r = c.post("/api/search", json={"query": q, "limit": 10})
                ok = r.status_code == 200 and "hits" in r.json()
            except httpx.HTTPError as e:
                ok, r = False, e
            ms = (time.perf_counter() - t0) * 1000
            (out if ok else errors).append(ms if ok else repr(r)[:200])


def phase(url: str, token: str, questions: list[str], counter: Counter, clients: int,
          per_client: int) -> dict:
    lat: list[float] = []
    errors: list[str] = []
    barrier = threading.Barrier(clients) if clients > 1 else None
    threads = [threading.Thread(target=client_run, args=(url, token, questions, counter,
                                                         per_client, lat, errors, barrier))
               for _ in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    q = statistics.quantiles(lat, n=100) if len(lat) >= 2 else [lat[0]] * 99
    return {"clients": clients, "requests": clients * per_client, "ok": len(lat),
            "errors": len(errors), "error_samples": errors[:3],
            "p50_ms": round(q[49], 1), "p95_ms": round(q[94], 1), "max_ms": round(max(lat), 1),
            "throughput_rps": round(len(lat) / wall, 1), "wall_s": round(wall, 1)}


def record(results: dict, args) -> None:
    single, multi = results["single"], results["concurrent"]
    ratio = multi["p95_ms"] / single["p95_ms"]
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    rows = "\n".join(
        f"| {r['clients']} | {r['requests']} | {r['p50_ms']} | {r['p95_ms']} | {r['max_ms']} | "
        f"{r['throughput_rps']} | {r['errors']} |" for r in (single, multi))
    verdict = ("met" if multi["errors"] == 0 and ratio <= 3 else "NOT met")
    text = f"""### Latest `--record` run

Measured {dt.date.today().isoformat()} on {os.cpu_count()} cores, Python
{platform.python_version()}; load average at the end {load} (the machine may be shared with
other work). Reproduce: `python bench/bench_api.py --clients {args.clients} --per-client
{args.per_client} --single {args.single}`; method as above.

| clients | requests | p50 ms | p95 ms | max ms | requests/s | errors |
|---|---:|---:|---:|---:|---:|---:|
{rows}

p95 with {args.clients} clients / p95 with one: **{ratio:.2f}x** (goal: at most 3x, no errors:
{verdict}).

"""
    # only this subsection is replaced: the analysis around it is written by hand
    path = ROOT / "docs" / "benchmarks.md"
    doc = path.read_text("utf-8")
    head, sub = f"## {DOC_SECTION}", "### Latest `--record` run"
    if head not in doc:
        doc = doc.rstrip("\n") + f"\n\n{head}\n\n"
    start = doc.index(head)
    end = doc.find("\n## ", start + len(head))
    end = len(doc) if end == -1 else end + 1
    section = doc[start:end]
    if sub in section:
        a = section.index(sub)
        b = min([i for i in (section.find("\n### ", a + len(sub)),
                             section.find("\n## ", a + len(sub))) if i != -1] or [len(section)])
        section = section[:a] + text + section[b + 1 if b < len(section) else b:]
    else:
        section = section.rstrip("\n") + "\n\n" + text
    doc = doc[:start] + section + doc[end:]
    path.write_text(doc, "utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--per-client", type=int, default=15)
    ap.add_argument("--single", type=int, default=60, help="requests of the single client")
    ap.add_argument("--data-dir", type=Path, help="reuse a prepared data dir")
    ap.add_argument("--record", action="store_true", help="write docs/benchmarks.md")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="bench-api-")) / "var"
    token = prepare(data_dir)
    port = _free_port()
    proc = start_server(data_dir, port)
    url = f"http://127.0.0.1:{port}"
    try:
        questions, counter = _questions(), Counter()
        phase(url, token, questions, counter, 1, 5)  # warm-up: model loaded, indexes open
        results = {"single": phase(url, token, questions, counter, 1, args.single),
                   "concurrent": phase(url, token, questions, counter, args.clients,
                                       args.per_client)}
    finally:
        proc.terminate()
        proc.wait(30)
    results["p95_ratio"] = round(results["concurrent"]["p95_ms"] / results["single"]["p95_ms"],
                                 2)
    print(json.dumps(results, indent=2))
    if args.record:
        record(results, args)
    return 0 if results["concurrent"]["errors"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
