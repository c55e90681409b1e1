"""Crawl throughput: pages per second on a generated local site, at concurrency 1 and 4.

    python bench/bench_crawl.py [--pages 200] [--latency-ms 20] [--write]

The site (served on 127.0.0.1, allow-listed) has N pages in a tree (10 links per index
page) plus cross links; every page has unique text. The politeness delay is 0 for the
benchmark; the server waits `--latency-ms` before each answer to stand in for a remote host.
Two modes per concurrency:
- `fetch`: the crawler with ingestion stubbed out (fetch, robots, sitemap, links, frontier,
  bookkeeping in SQLite) — what concurrency speeds up;
- `full`: fetch + trafilatura extraction + chunking + embedding + both indexes (pages go
  through one pipelined `ingest_many`: extraction and embedding of fetched pages overlap the
  fetching of the next ones).
`--write` appends a dated section with `nproc` to docs/benchmarks.md."""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WORDS = ("harbour ferry berth tide pilot anchor buoy quay vessel cargo crane dock lock "
         "mooring channel beacon lighthouse tug dredge pier warehouse customs manifest").split()


def make_site(n: int) -> dict[str, bytes]:
    pages: dict[str, bytes] = {}
    for i in range(n):
        children = [c for c in range(i * 10 + 1, i * 10 + 11) if c < n]
        cross = [(i * 7 + 3) % n, (i * 13 + 5) % n]
        links = " ".join(f'<a href="/p/{c}">page {c}</a>' for c in children + cross)
        text = " ".join(WORDS[(i * k) % len(WORDS)] for k in range(1, 60))
        path = "/" if i == 0 else f"/p/{i}"
        pages[path] = (f"<html><head><title>Page {i}</title></head><body><h1>Page {i}</h1>"
                       f"<p>Page number {i}. {text}.</p><p>{links}</p></body></html>").encode()
    pages["/robots.txt"] = b"User-agent: *\nAllow: /\n"
    return pages


def serve(pages: dict[str, bytes], latency_s: float) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            time.sleep(latency_s)
            body = pages.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "text/html" if body else "text/plain")
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def stub_ingestor(rs):
    from backend.ingest.service import Ingestor, IngestOutcome

    class NullIngestor(Ingestor):
        def check_guardrails(self) -> None:
            pass

        def _ingest_item(self, item, **kw) -> IngestOutcome:  # every page goes through here
            return IngestOutcome(item.name, "new")

    return NullIngestor(rs)


def run_once(port: int, n: int, concurrency: int, mode: str, embedder=None) -> dict:
    from backend.config import Settings
    from backend.crawl.service import CrawlService
    from backend.services.container import Ragscope

    with tempfile.TemporaryDirectory() as tmp:
        rs = Ragscope(Settings(data_dir=Path(tmp), crawl_allowed_hosts=f"127.0.0.1:{port}"))
        if embedder is not None:
            rs.embedder = embedder
        if mode == "full":  # load model and indexes before the clock starts
            rs.index_params()
        svc = CrawlService(rs, ingestor=stub_ingestor(rs) if mode == "fetch" else None)
        t0 = time.perf_counter()
        p = svc.crawl_url(f"http://127.0.0.1:{port}/", "bench", max_pages=n, max_depth=10,
                          delay_s=0, concurrency=concurrency, use_sitemap=False)
        dt = time.perf_counter() - t0
        rs.close()
    assert p.status == "done", p.error
    return {"mode": mode, "concurrency": concurrency, "pages": p.pages_done, "seconds": dt,
            "pages_per_s": p.pages_done / dt}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=200)
    ap.add_argument("--latency-ms", type=float, default=20.0)
    ap.add_argument("--modes", default="fetch,full")
    ap.add_argument("--write", action="store_true", help="append to docs/benchmarks.md")
    a = ap.parse_args()
    import backend  # noqa: F401  (thread limits and offline flags)

    srv = serve(make_site(a.pages), a.latency_ms / 1000)
    port = srv.server_address[1]
    embedder = None
    rows = []
    try:
        for mode in a.modes.split(","):
            if mode == "full" and embedder is None:
                from backend.config import Settings
                from backend.embed.embedder import Embedder

                s = Settings()
                embedder = Embedder(s.embedding_model, device=s.embedding_device,
                                    batch_size=s.embedding_batch_size)
            for conc in (1, 4):
                r = run_once(port, a.pages, conc, mode, embedder)
                rows.append(r)
                print(f"{mode:<5} concurrency {conc}: {r['pages']} pages in "
                      f"{r['seconds']:.1f} s = {r['pages_per_s']:.1f} pages/s", flush=True)
    finally:
        srv.shutdown()
    if a.write:
        write_section(rows, a)
    return 0


def write_section(rows: list[dict], a) -> None:
    out = ROOT / "docs" / "benchmarks.md"
    out.parent.mkdir(exist_ok=True)
    head = "" if out.exists() else "# Benchmarks\n"
    lines = [head, f"\n## Crawl throughput ({date.today().isoformat()}, nproc {len(os.sched_getaffinity(0))})\n",
             f"`python bench/bench_crawl.py --pages {a.pages} --latency-ms {a.latency_ms:g}`: "
             f"a generated {a.pages}-page site on 127.0.0.1, politeness delay 0, server latency "
             f"{a.latency_ms:g} ms per answer, robots.txt on, sitemap off. `fetch` stubs "
             "ingestion out; `full` includes extraction, embedding (CPU) and both indexes. "
             "Other jobs shared the machine, so treat the figures as indicative.\n\n",
             "| mode | concurrency | pages | seconds | pages/s |\n|---|---:|---:|---:|---:|\n"]
    lines += [f"| {r['mode']} | {r['concurrency']} | {r['pages']} | {r['seconds']:.1f} | "
              f"{r['pages_per_s']:.1f} |\n" for r in rows]
    with out.open("a") as f:
        f.write("".join(lines))
    print(f"appended to {out}")


if __name__ == "__main__":
    raise SystemExit(main())
