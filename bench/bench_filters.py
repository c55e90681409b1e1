"""Collection filters (issue 15, part 5): query latency with a collection filter evaluated by
the indexes (membership tokens, docs/retrieval.md "Filters") against the same query
unfiltered and against the earlier way (the collection resolved to a `$in` list of document
ids in the store), on a corpus of `--docs` documents.

Corpus: bench/retrieval_corpus.py's generator (German/English texts, sections, synthetic
MiniLM-shaped vectors) with `--chunks-per-doc` chunks per document, written straight into the
store and both indexes; then four collections: `all` (every document), `half` (every 2nd),
`tenth` (every 10th), `hundredth` (every 100th), linked in the store and written to the
indexes' membership tokens. Cached under `--data-dir` and reused.

Per query (precomputed query embedding, so the embedding's noise stays out; k=10, default
candidates) every configuration runs once, in an order rotating per query: unfiltered, and
for each collection the index-level filter and the document-id filter. Bare stage calls
(Chroma query, keyword query) likewise. p50/p95 in ms.

    python bench/bench_filters.py --record            # 5,000 documents x 20 chunks
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import backend  # noqa: E402,F401  (offline flags, thread env before numpy)

import bench_retrieval as br  # noqa: E402
from bench import retrieval_corpus as corpus  # noqa: E402

DOC = ROOT / "docs" / "benchmarks.md"
SECTION = "## Collection filters (issue 15)"
COLLECTIONS = {"all": 1, "half": 2, "tenth": 10, "hundredth": 100}
MARKER = "bench_filters.json"


def build(data_dir: Path, n_docs: int, per_doc: int, log) -> dict:
    from sqlalchemy import insert

    from backend.config import Settings
    from backend.index.base import membership_tokens
    from backend.services.container import Ragscope
    from backend.store import repo
    from backend.store.models import Collection, CollectionDocument

    marker = data_dir / MARKER
    want = {"gen": corpus.GEN_VERSION, "docs": n_docs, "per_doc": per_doc}
    if marker.exists() and json.loads(marker.read_text()).get("want") == want:
        log(f"reusing {data_dir}")
        return json.loads(marker.read_text())
    import shutil

    shutil.rmtree(data_dir, ignore_errors=True)
    data_dir.mkdir(parents=True)
    corpus.CHUNKS_PER_DOC = per_doc
    t0 = time.perf_counter()
    info = corpus.build_corpus(data_dir, n_docs * per_doc, log)
    rs = Ragscope(Settings(data_dir=data_dir))
    t1 = time.perf_counter()
    with rs.store.session() as s:
        for i, (name, every) in enumerate(COLLECTIONS.items(), start=1):
            s.execute(insert(Collection), [{"id": i, "name": name, "description": ""}])
            s.execute(insert(CollectionDocument),
                      [{"collection_id": i, "document_id": d}
                       for d in range(1, n_docs + 1) if (d - 1) % every == 0])
        chunks = repo.active_chunks_of_documents(s, list(range(1, n_docs + 1)))
        members = repo.memberships(s, list(chunks))
    tokens = {cid: membership_tokens(members[d]) for d, cids in chunks.items() for cid in cids}
    rs.vector_index.set_memberships(tokens)
    rs.keyword_index.set_memberships(tokens)
    rs.close()
    info.update(want=want, memberships_s=round(time.perf_counter() - t1, 1),
                total_s=round(time.perf_counter() - t0, 1))
    marker.write_text(json.dumps(info, indent=1))
    return info


def measure(data_dir: Path, n_queries: int, warmup: int, log) -> dict:
    from backend.config import Settings
    from backend.index import chroma_search
    from backend.index.base import IndexFilter
    from backend.retrieval.engine import Retriever
    from backend.retrieval.query import parse_query
    from backend.retrieval.types import RetrievalParams
    from backend.services.container import Ragscope
    from backend.store import repo

    rs = Ragscope(Settings(data_dir=data_dir))
    rs.embedder.warm_up()
    vi, ki = rs.vector_index, rs.keyword_index
    by_ids = Retriever(rs)
    by_ids._memberships_indexed = lambda s: False  # the earlier way: document-id lists
    by_index = Retriever(rs)
    with rs.store.session() as s:
        coll = {n: repo.get_collection(s, n).id for n in COLLECTIONS}
        docs = {n: repo.document_ids(s, repo.DocumentFilter(collections=[n])) for n in COLLECTIONS}
    n_cand = RetrievalParams().candidates
    # (label, retriever, collection, Chroma post-filter on)
    configs = [("unfiltered", by_index, None, True)]
    for n in COLLECTIONS:
        configs += [(f"{n}: index", by_index, n, True),
                    (f"{n}: index, Chroma where", by_index, n, False),
                    (f"{n}: doc ids (before)", by_ids, n, False)]
    stage_flts = [("unfiltered", IndexFilter(), True)]
    for n in COLLECTIONS:
        members = IndexFilter(memberships={"collection": [coll[n]]})
        stage_flts += [(f"{n}: index", members, True),
                       (f"{n}: index, Chroma where", members, False),
                       (f"{n}: doc ids (before)", IndexFilter(document_ids=docs[n]), False)]
    queries = corpus.make_queries(n_queries, corpus.SEED + 2)
    warm = corpus.make_queries(warmup, corpus.SEED + 3)
    embs = {q: rs.embedder.encode_query(parse_query(q, inventory=False).text)
            for q in queries + warm}
    times: dict[str, list[float]] = {}
    pc = time.perf_counter
    t_run = pc()
    load_before = os.getloadavg()
    for qi, q in enumerate(warm + queries):
        timed = qi >= len(warm)
        text, e = parse_query(q, inventory=False).text, embs[q]
        ops = [("retrieve", c) for c in configs] + [("vector", f) for f in stage_flts] + \
              [("keyword", f) for f in stage_flts if "Chroma where" not in f[0]]
        k = qi % len(ops)
        for kind, what in ops[k:] + ops[:k]:
            chroma_search.POSTFILTER = what[-1]
            t = pc()
            if kind == "retrieve":
                name, r, c, _ = what
                r.retrieve(q, RetrievalParams(k=10, collections=[c] if c else None),
                           query_embedding=e, scope=br._everything())
            elif kind == "vector":
                name = what[0]
                vi.search(e, n_cand, what[1])
            else:
                name = what[0]
                ki.search(text, n_cand, what[1])
            if timed:
                times.setdefault(f"{kind}|{name}", []).append((pc() - t) * 1000)
        if (qi + 1) % 50 == 0:
            log(f"  {qi + 1}/{len(warm) + len(queries)} queries, {pc() - t_run:.0f}s")
    chroma_search.POSTFILTER = True
    rs.close()
    stats = {k: {"p50": br.pct(v, 50), "p95": br.pct(v, 95), "n": len(v)}
             for k, v in times.items()}
    return {"stats": stats, "documents": {n: len(d) for n, d in docs.items()},
            "queries": len(queries), "load_before": load_before,
            "load_after": os.getloadavg(), "run_s": round(pc() - t_run, 1)}


def render(res: dict, meta: dict) -> str:
    st = res["stats"]
    lines = [SECTION, "",
             f"Measured {meta['date']} on {meta['nproc']} cores; load average before "
             f"{res['load_before'][0]:.1f}, after {res['load_after'][0]:.1f} (1 min). "
             f"Corpus: {meta['docs']:,} documents × {meta['per_doc']} chunks "
             f"({meta['docs'] * meta['per_doc']:,} chunks; bench/bench_retrieval.py's generator, "
             f"synthetic vectors), {res['queries']} queries with precomputed query embeddings, "
             "every configuration once per query in rotating order. `index`: the collection as "
             "a membership filter evaluated by the indexes (Chroma: nearest chunks first, "
             "filtered on their stored tokens, Chroma's `where` only when too few pass); "
             "`index, Chroma where`: the same filter always as Chroma's `where`; `doc ids "
             "(before)`: the earlier way, the collection resolved to its document ids in the "
             "store and passed as `$in` / terms lists to Chroma's `where` and the keyword "
             f"index. Reproduce: `{meta['command']}`.", "",
             "| filter | documents | retrieve p50 ms | p95 ms | vs unfiltered p50 | "
             "Chroma p50 | keyword p50 |", "|---|---:|---:|---:|---:|---:|---:|"]
    base = st["retrieve|unfiltered"]["p50"]
    keys = ["unfiltered"] + [f"{n}: {how}" for n in COLLECTIONS
                             for how in ("index", "index, Chroma where", "doc ids (before)")]
    for key in keys:
        coll = key.split(":")[0]
        n = res["documents"].get(coll, meta["docs"])
        r = st[f"retrieve|{key}"]
        kw = st.get(f"keyword|{key.replace(', Chroma where', '')}")
        lines.append(f"| {key} | {n:,} | {r['p50']:.1f} | {r['p95']:.1f} | "
                     f"{r['p50'] / base:.2f} | {st[f'vector|{key}']['p50']:.1f} | "
                     f"{kw['p50']:.1f} |")
    return "\n".join(lines) + "\n"


def record(section: str) -> None:
    from bench.docs_record import record_section

    record_section(SECTION, section, DOC)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=5000)
    ap.add_argument("--chunks-per-doc", type=int, default=20)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--data-dir", type=Path, default=Path("/tmp/ragscope-bench-filters"))
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    os.environ.setdefault("RAGSCOPE_EMBEDDING_CACHE_DIR", str(args.data_dir / "models"))

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    data = args.data_dir / f"d{args.docs}x{args.chunks_per_doc}"
    info = build(data, args.docs, args.chunks_per_doc, log)
    res = measure(data, args.queries, args.warmup, log)
    meta = {"date": dt.date.today().isoformat(), "nproc": os.cpu_count(), "docs": args.docs,
            "per_doc": args.chunks_per_doc,
            "command": "python bench/bench_filters.py " + " ".join(argv or sys.argv[1:])}
    section = render(res, meta)
    print(section)
    if args.json:
        args.json.write_text(json.dumps({"build": info, "result": res, "meta": meta}, indent=1))
    if args.record:
        record(section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
