"""CPU per search in one process, without HTTP (issue 25, section 6: "server CPU per search"):
the service call an API search makes (`search_service.search` for the bench principal, whose
ACL scope is a collection filter), and the same query unfiltered (`Scope.everything()`).

Process CPU time (`time.process_time`, all threads) per query, so the figure holds on a
loaded machine better than wall time; queries are the goldenset's questions made unique (no
query-embedding cache hits), one at a time. Setup as bench/bench_api.py (sample corpus,
read-only principal `bench`).

    python bench/bench_search_cpu.py --queries 200
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from bench_api import _questions, prepare  # noqa: E402


def run(data_dir: Path, n: int, warmup: int) -> dict:
    from backend.services import search as search_service
    from backend.security.access import Actor, Scope
    from backend.api.deps import SCOPE_ROLE
    from backend.config import Settings
    from backend.retrieval import RetrievalParams, Retriever
    from backend.services.container import Ragscope

    rs = Ragscope(Settings(data_dir=data_dir))
    actor = Actor.principal("bench", SCOPE_ROLE["read"])  # as a read token's request
    qs = _questions()
    out: dict[str, list[float]] = {"api search (ACL filter)": [], "retrieve, no filter": []}
    try:
        for i in range(warmup + n):
            q = f"{qs[i % len(qs)]} ({i})"
            for name in out:
                t0 = time.process_time()
                if name.startswith("api"):
                    search_service.search(rs, actor, q, offset=0, limit=10)
                else:
                    Retriever(rs).retrieve(q, RetrievalParams(k=11, persist_trace=False),
                                           scope=Scope.everything())
                if i >= warmup:
                    out[name].append((time.process_time() - t0) * 1000)
    finally:
        rs.close()
    return {name: {"p50": statistics.median(v), "mean": statistics.fmean(v)}
            for name, v in out.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--data-dir", type=Path, help="reuse a prepared data dir")
    a = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    data_dir = a.data_dir or Path(tempfile.mkdtemp(prefix="bench-search-cpu-")) / "var"
    prepare(data_dir)
    load0 = os.getloadavg()[0]
    res = run(data_dir, a.queries, a.warmup)
    print(f"{a.queries} queries, load average {load0:.1f} -> {os.getloadavg()[0]:.1f}, "
          f"nproc {os.cpu_count()}")
    for name, r in res.items():
        print(f"{name}: CPU per search p50 {r['p50']:.1f} ms, mean {r['mean']:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
