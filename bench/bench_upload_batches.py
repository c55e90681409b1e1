"""Upload batches from the dashboard (issue 23, "long work never blocks the page"): how long
an upload batch takes in the page, by number of files and by size, to choose when the upload
page runs it as a background job instead (backend/services/dashboard_jobs.py
BACKGROUND_UPLOAD_FILES / BACKGROUND_UPLOAD_BYTES). Each batch goes through
`document_actions.ingest_uploads` (what the page calls) into a fresh data dir; the model is
loaded and warmed before timing. Also the cost of one poll of a job row
(`background.view`, what the page's progress fragment does once a second).

    python bench/bench_upload_batches.py              # sample files x 1, 3, 5, 10, 15; 1/4/8 MiB
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SENTENCE = ("Pump station {n} moves {m} cubic metres an hour; its valves are tested every "
            "{w} weeks and the seals replaced after {y} years. ")


def prose(size: int) -> bytes:
    """Plain text of about `size` bytes, in paragraphs of distinct sentences."""
    out, n = [], 0
    while sum(len(x) for x in out) < size:
        n += 1
        out.append(SENTENCE.format(n=n, m=100 + n % 900, w=n % 7 + 1, y=n % 11 + 2)
                   + ("\n\n" if n % 6 == 0 else ""))
    return "".join(out).encode()


def fresh_rs(tmp: Path, embedder):
    from backend.config import Settings
    from backend.services.container import Ragscope

    rs = Ragscope(Settings(data_dir=tmp / f"d{time.monotonic_ns()}"))
    rs.__dict__["embedder"] = embedder
    return rs


def timed_batch(tmp: Path, embedder, files: list[tuple[str, bytes]]) -> tuple[float, int]:
    from backend.security.access import Actor
    from backend.services import document_actions

    rs = fresh_rs(tmp, embedder)
    try:
        t0 = time.perf_counter()
        outs = document_actions.ingest_uploads(rs, files, Actor("bench", "admin"))
        return time.perf_counter() - t0, sum(o.chunks for o in outs)
    finally:
        rs.close()


def poll_ms(tmp: Path, embedder, rounds: int = 200) -> float:
    from backend.services import background

    rs = fresh_rs(tmp, embedder)
    try:
        job = background.start(rs.store, "bench", lambda t: {}, title="A bench", wait=True)
        times = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            background.view(rs.store, job)
            times.append((time.perf_counter() - t0) * 1000)
        return statistics.median(times)
    finally:
        rs.close()


def main() -> None:
    from backend.config import Settings
    from backend.embed.embedder import Embedder

    ap = argparse.ArgumentParser()
    ap.add_argument("--counts", default="1,3,5,10,15")
    ap.add_argument("--mib", default="1,4,8")
    args = ap.parse_args()
    emb = Embedder.from_settings(Settings())
    emb.encode(["warm-up", "Aufwärmen des Modells"])
    samples = sorted(p for p in (ROOT / "data" / "samples").iterdir() if p.is_file())
    tmp = Path(tempfile.mkdtemp(prefix="ragscope-bench-upload-"))
    print("| batch | bytes | chunks | seconds |\n|---|---|---|---|")
    for k in (int(x) for x in args.counts.split(",")):
        files = [(p.name, p.read_bytes()) for p in samples[:k]]
        s, chunks = timed_batch(tmp, emb, files)
        print(f"| {k} sample files | {sum(len(d) for _, d in files):,} | {chunks} | {s:.1f} |")
    for mib in (float(x) for x in args.mib.split(",")):
        data = prose(int(mib * 1024 * 1024))
        s, chunks = timed_batch(tmp, emb, [("prose.txt", data)])
        print(f"| 1 text file of {mib:g} MiB | {len(data):,} | {chunks} | {s:.1f} |")
    print(f"\none job-row poll (background.view): median {poll_ms(tmp, emb):.2f} ms")


if __name__ == "__main__":
    main()
