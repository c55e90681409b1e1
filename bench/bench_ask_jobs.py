"""Replayable ask jobs (issue 26, seed 004) against the direct flow: for each of N goldenset
questions, the time to the `answer` event of `POST /api/ask` and of `POST /api/ask-jobs` +
`GET /api/ask-sse/{jobId}` (the job's worker thread, its stored events, the 0.1 s tail), the
events a job stored, and the time to replay a finished job's events.

Setup as bench/bench_api.py: the sample corpus in a data dir, a read principal, and
`python -m backend api` in its own process on 127.0.0.1 (extractive answers, no model).

    python bench/bench_ask_jobs.py --questions 10
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_api import _free_port, _questions, prepare, start_server  # noqa: E402


def _answer_events(client, method: str, url: str, **kw) -> tuple[float, int]:
    """Seconds to the last event, and how many events came."""
    t0, n = time.perf_counter(), 0
    with client.stream(method, url, **kw) as r:
        r.raise_for_status()
        for line in r.iter_lines():
            n += line.startswith("event: ")
    return time.perf_counter() - t0, n


def run(base: str, token: str, questions: list[str]) -> dict:
    import httpx

    h = {"Authorization": f"Bearer {token}"}
    direct, job, replay, stored = [], [], [], []
    with httpx.Client(base_url=base, headers=h, timeout=300) as c:
        for q in questions:
            direct.append(_answer_events(c, "POST", "/api/ask", json={"question": q})[0])
            t0 = time.perf_counter()
            jid = c.post("/api/ask-jobs", json={"question": q}).json()["job_id"]
            secs, _ = _answer_events(c, "GET", f"/api/ask-sse/{jid}")
            job.append(time.perf_counter() - t0)
            secs, n = _answer_events(c, "GET", f"/api/ask-sse/{jid}")
            replay.append(secs)
            stored.append(n)
    ms = lambda xs: round(1000 * statistics.median(xs), 1)  # noqa: E731
    return {"questions": len(questions), "direct_ms_p50": ms(direct), "job_ms_p50": ms(job),
            "replay_ms_p50": ms(replay), "events_p50": statistics.median(stored),
            "events_max": max(stored)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=10)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "var"
        token = prepare(data)
        port = _free_port()
        proc = start_server(data, port)
        try:
            out = run(f"http://127.0.0.1:{port}", token, _questions()[:args.questions])
        finally:
            proc.terminate()
            proc.wait(30)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
