"""Keyword search latency: embedded tantivy against an OpenSearch node, side by side in one
run (issue 25, section 6, first point; nDCG on the sample goldenset is in docs/benchmarks.md).

For each size the same generated chunks (bench/retrieval_corpus.py's deterministic German/English
corpus generator: Zipf vocabulary, per-document topics, titles, file names) are written to
a fresh tantivy index and to a fresh OpenSearch index; then the same queries
(retrieval_corpus.make_queries) run against both, alternating per query so that both see
the same machine load. Timed: `keyword_index.search(q, k=50, highlight_limit=20)` as
hybrid retrieval calls it (the engine highlights every hit in the same request).

The node: `--opensearch-url`, or one started here with `search-node` on a free port
(stopped at the end).

    python bench/bench_keyword_engines.py --sizes 10000 100000 --queries 200
    python bench/bench_keyword_engines.py --sizes 10000 --record
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_retrieval import pct  # noqa: E402
from bench.retrieval_corpus import CHUNKS_PER_DOC, Vocab, doc_plan, make_queries  # noqa: E402

K, HIGHLIGHT_LIMIT, BATCH = 50, 20, 2000


def chunks(n: int):
    """n IndexedChunks in batches (document d has CHUNKS_PER_DOC chunks)."""
    from backend.index.base import IndexedChunk

    vocab, batch = Vocab(), []
    for d in range((n + CHUNKS_PER_DOC - 1) // CHUNKS_PER_DOC):
        plan = doc_plan(vocab, d, min(CHUNKS_PER_DOC, n - d * CHUNKS_PER_DOC))
        for o, text in enumerate(plan["chunks"]):
            batch.append(IndexedChunk(f"c{d}-{o}", text, d + 1, d + 1, plan["doc_type"],
                                      plan["title"], plan["filename"], "",
                                      "" if plan["lang"] == "mixed" else plan["lang"]))
            if len(batch) == BATCH:
                yield batch
                batch = []
    if batch:
        yield batch


def measure(n: int, n_queries: int, warmup: int, url: str, log) -> dict:
    from backend.config import Settings
    from backend.index.opensearch_index import OpenSearchKeywordIndex
    from backend.index.tantivy_index import TantivyKeywordIndex

    tmp = Path(tempfile.mkdtemp(prefix=f"bench-kw-{n}-"))
    tantivy = TantivyKeywordIndex(Settings(data_dir=tmp))
    engine = OpenSearchKeywordIndex(Settings(data_dir=tmp, keyword_backend="opensearch",
                                             opensearch_url=url,
                                             opensearch_index_prefix=f"bench-kw-{n}"),
                                    request_timeout=60)
    engine.reset()
    write = {"tantivy": 0.0, "opensearch": 0.0}
    done = 0
    for batch in chunks(n):
        for name, ix in (("tantivy", tantivy), ("opensearch", engine)):
            t0 = time.perf_counter()
            ix.add(batch)
            write[name] += time.perf_counter() - t0
        done += len(batch)
        if done % 100_000 == 0 and done < n:  # a bounded run that is stopped says how far it got
            log(f"{n}: {done:,} written (tantivy {write['tantivy']:.0f} s, "
                f"opensearch {write['opensearch']:.0f} s, load {os.getloadavg()[0]:.1f})")
    log(f"{n}: written (tantivy {write['tantivy']:.0f} s, opensearch {write['opensearch']:.0f} s)")
    assert tantivy.count() == n and engine.count() == n
    row = query(n, tantivy, engine, n_queries, warmup)
    engine.drop()
    engine.close()
    tantivy.close()
    return {**row, "write_s": write}


def measure_existing(n: int, data_dir: Path, url: str, n_queries: int, warmup: int) -> dict:
    """The queries of size `n` against the indexes a run stopped while writing left behind
    (its tantivy data dir, its node's index `bench-kw-<n>-chunks`): what that run reached."""
    from backend.config import Settings
    from backend.index.opensearch_index import OpenSearchKeywordIndex
    from backend.index.tantivy_index import TantivyKeywordIndex

    tantivy = TantivyKeywordIndex(Settings(data_dir=data_dir))
    engine = OpenSearchKeywordIndex(Settings(data_dir=data_dir, keyword_backend="opensearch",
                                             opensearch_url=url,
                                             opensearch_index_prefix=f"bench-kw-{n}"),
                                    request_timeout=60)
    try:
        counts = {"tantivy": tantivy.count(), "opensearch": engine.count()}
        return {**query(n, tantivy, engine, n_queries, warmup), "reached": counts,
                "write_s": {"tantivy": float("nan"), "opensearch": float("nan")}}
    finally:
        engine.close()
        tantivy.close()


def query(n: int, tantivy, engine, n_queries: int, warmup: int) -> dict:
    """The same queries against both, alternating which goes first."""
    queries = make_queries(warmup + n_queries, seed=n)
    times: dict[str, list[float]] = {"tantivy": [], "opensearch": []}
    hits: dict[str, int] = {"tantivy": 0, "opensearch": 0}
    for i, q in enumerate(queries):
        order = (("tantivy", tantivy), ("opensearch", engine))
        for name, ix in order if i % 2 else order[::-1]:
            t0 = time.perf_counter()
            found = ix.search(q, K, highlight_limit=HIGHLIGHT_LIMIT)
            if i >= warmup:
                times[name].append((time.perf_counter() - t0) * 1000)
                hits[name] += bool(found)
    return {"size": n, "hits": hits, "queries": n_queries,
            **{f"{name}_p{q}": pct(ts, q) for name, ts in times.items() for q in (50, 95)}}


def markdown(rows: list[dict], cmd: str) -> str:
    load = os.getloadavg()[0]
    out = [f"\n### Keyword search: tantivy vs OpenSearch ({dt.date.today()}, nproc "
           f"{os.cpu_count()}, load average {load:.1f}, shared machine)\n",
           f"`{cmd}`; k={K}, highlights for the first {HIGHLIGHT_LIMIT}, OpenSearch 2.19.6 "
           "node from `search-node start` (heap 512 MB) on the same 2 cores.\n",
           "| chunks | tantivy p50 | tantivy p95 | OpenSearch p50 | OpenSearch p95 | "
           "write tantivy | write OpenSearch | queries with hits (t / OS) |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        size = f"{r['size']:,}"
        if "reached" in r:  # a stopped run's indexes
            size = (f"{r['reached']['tantivy']:,} / {r['reached']['opensearch']:,} "
                    f"(run for {r['size']:,} stopped)")
        w = {k: "–" if v != v else f"{v:.0f} s" for k, v in r["write_s"].items()}  # nan: –
        out.append(f"| {size} | {r['tantivy_p50']:.1f} ms | {r['tantivy_p95']:.1f} ms | "
                   f"{r['opensearch_p50']:.1f} ms | {r['opensearch_p95']:.1f} ms | "
                   f"{w['tantivy']} | {w['opensearch']} | "
                   f"{r['hits']['tantivy']} / {r['hits']['opensearch']} of {r['queries']} |")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--opensearch-url", help="a running node (default: start one here)")
    ap.add_argument("--record", action="store_true", help="append the table to docs/benchmarks.md")
    ap.add_argument("--existing", type=Path, metavar="DATA_DIR",
                    help="only query the indexes a stopped run left (its bench-kw-N-* data "
                         "dir and --opensearch-url of its node, restarted); one --sizes N")
    a = ap.parse_args(argv)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    node = None
    url = a.opensearch_url
    if not url:
        from backend.config import Settings
        from backend.index.search_node import SearchNode, free_port

        node = SearchNode(Settings(data_dir=Path(tempfile.mkdtemp(prefix="bench-node-"))),
                          free_port())
        url = node.start().url
    try:
        rows = []
        for n in a.sizes:  # each row logged when measured: a run stopped later keeps it
            rows.append(measure_existing(n, a.existing, url, a.queries, a.warmup)
                        if a.existing else measure(n, a.queries, a.warmup, url, log))
            log(json.dumps({**rows[-1], "load": os.getloadavg(), "at": dt.datetime.now(
                dt.timezone.utc).isoformat(timespec="seconds")}))
    finally:
        if node is not None:
            node.stop()
    cmd = "python bench/bench_keyword_engines.py --sizes " + " ".join(map(str, a.sizes)) + \
        f" --queries {a.queries}"
    md = markdown(rows, cmd)
    print(md)
    if a.record:
        with open(ROOT / "docs" / "benchmarks.md", "a", encoding="utf-8") as f:
            f.write(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
