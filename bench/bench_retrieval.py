"""Retrieval latency benchmark (issue 3, "Measure").

On generated corpora (default 10,000 and 100,000 chunks) it measures, in one run per size:

* the bare stage calls: query embedding (`rs.embedder.encode_query`, LRU cache cleared before
  every call), Chroma query (`rs.vector_index.search`, k = default candidates) and keyword query
  (`rs.keyword_index.search`, same k);
* `Retriever(rs).retrieve()` for every policy with default parameters (k=10), once with the
  query embedding computed inside the call (cache cleared before each call) and once with a
  precomputed `query_embedding`, so the pipeline's own overhead is visible;
* the hybrid trace's stage times (where the time of a full call goes);
* peak memory (ru_maxrss) of the process that serves the queries.

The corpus is written straight into the store (SQLAlchemy Core bulk inserts) and into both
indexes (`vector_index.add` / `keyword_index.add` in batches): deterministic German/English text
from templates and a Zipf-weighted vocabulary with per-document topics; chunk vectors are a
normalised mix of 2-4 real MiniLM embeddings of a pool of ~2,000 generated sentences of the
document's topic, plus small Gaussian noise (seeded numpy). Embedding 100k chunks for real would
take ~50 minutes on 2 cores; this keeps vector statistics (clusters, neighbourhood structure)
realistic at a fraction of the cost. The corpus is cached under `--data-dir` and reused.

Every size runs in its own subprocess (build, then measure), so ru_maxrss is the peak of a
process that only opened the corpus and served queries.

    python bench/bench_retrieval.py                       # 10k and 100k, 200 queries
    python bench/bench_retrieval.py --sizes 10000 --queries 50
    python bench/bench_retrieval.py --record              # also write docs/benchmarks.md
    python bench/bench_retrieval.py --sizes 100000 --profile   # + cProfile of the hybrid path
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


from bench.retrieval_corpus import (  # noqa: E402
    GEN_VERSION, SEED, build_corpus, make_queries)
from bench.retrieval_report import (  # noqa: E402
    DOC_SECTION, POLICY_ORDER, environment, markdown, record)

MARKER = "bench_corpus.json"
BUILDING = "bench_corpus.building"


def _everything():
    """The scope of a bench: every collection (backend/security/access.py)."""
    from backend.security.access import Scope

    return Scope.everything()


# ---------------------------------------------------------------------------------------
# Measuring
# ---------------------------------------------------------------------------------------

def pct(xs, q):
    import numpy as np

    return float(np.percentile(np.asarray(xs, dtype=float), q)) if xs else float("nan")


def measure(data_dir: Path, n_queries: int, warmup: int, profile: bool, log) -> dict:
    import numpy as np
    import psutil

    from backend.config import Settings
    from backend.index.base import IndexFilter
    from backend.retrieval.engine import Retriever
    from backend.retrieval.query import parse_query
    from backend.retrieval.types import RetrievalParams
    from backend.services.container import Ragscope

    proc = psutil.Process()
    rs = Ragscope(Settings(data_dir=data_dir))
    t0 = time.perf_counter()
    rs.embedder.warm_up()
    vi, ki = rs.vector_index, rs.keyword_index
    n_vec, n_kw = vi.count(), ki.count()
    open_s = time.perf_counter() - t0
    r = Retriever(rs)
    defaults = RetrievalParams()
    ncand = defaults.candidates
    params = {p: RetrievalParams(policy=p, k=10) for p in POLICY_ORDER}
    queries = make_queries(n_queries, SEED + 2)
    warm = make_queries(warmup, SEED + 3)
    flt = IndexFilter()  # what retrieve() passes without filters

    log(f"  opened {n_vec} vectors / {n_kw} keyword docs in {open_s:.1f}s; warming up "
        f"({len(warm)} queries)")
    for q in warm:
        rs.embedder.clear_cache()
        e = rs.embedder.encode_query(q)
        vi.search(e, ncand, flt)
        ki.search(q, ncand, flt)
        for p in POLICY_ORDER:
            r.retrieve(q, params[p], query_embedding=e, scope=_everything())
            rs.embedder.clear_cache()
            r.retrieve(q, params[p], scope=_everything())
    if os.environ.get("RAGSCOPE_BENCH_GC_FREEZE", "1") == "1":
        # as the serving process does after start-up (`python -m backend api`): what start-up
        # made leaves the garbage collector's view; A/B with --variant RAGSCOPE_BENCH_GC_FREEZE=0
        from backend.api.cli import freeze_startup_objects

        freeze_startup_objects()
    rss_ready = proc.memory_info().rss

    times: dict[str, list[float]] = {"embed": [], "chroma": [], "keyword": []}
    for p in POLICY_ORDER:
        times[f"full:{p}"] = []
        times[f"pre:{p}"] = []
    trace_stages: dict[str, list[float]] = {}
    hybrid_unaccounted: list[float] = []
    hits_returned: dict[str, list[int]] = {p: [] for p in POLICY_ORDER}
    load_before = os.getloadavg()
    t_run = time.perf_counter()
    pc = time.perf_counter
    for qi, q in enumerate(queries):
        text = parse_query(q, inventory=False).text
        rs.embedder.clear_cache()
        t = pc()
        e = rs.embedder.encode_query(text)
        times["embed"].append((pc() - t) * 1000)
        ops = [("chroma", None), ("keyword", None)] + \
              [("full", p) for p in POLICY_ORDER] + [("pre", p) for p in POLICY_ORDER]
        k = qi % len(ops)
        for op, p in ops[k:] + ops[:k]:  # rotate the order: no op always runs first/last
            if op == "chroma":
                t = pc()
                vi.search(e, ncand, flt)
                times["chroma"].append((pc() - t) * 1000)
            elif op == "keyword":
                t = pc()
                ki.search(text, ncand, flt, fuzzy=False)
                times["keyword"].append((pc() - t) * 1000)
            elif op == "full":
                rs.embedder.clear_cache()
                t = pc()
                res = r.retrieve(q, params[p], scope=_everything())
                ms = (pc() - t) * 1000
                times[f"full:{p}"].append(ms)
                hits_returned[p].append(len(res.hits))
                if p == "hybrid":
                    st = {s.name: s.ms for s in res.trace.stages}
                    for name, v in st.items():
                        trace_stages.setdefault(name, []).append(v)
                    trace_stages.setdefault("total (trace)", []).append(res.trace.total_ms)
                    trace_stages.setdefault("total (caller)", []).append(ms)
                    par = max(st.get("query_embedding", 0) + st.get("vector_search", 0),
                              st.get("keyword_search", 0))
                    seq = sum(st.get(x, 0) for x in ("query", "filter", "fusion", "lookup",
                                                     "boost", "resolve"))
                    hybrid_unaccounted.append(ms - par - seq)
            else:
                t = pc()
                r.retrieve(q, params[p], query_embedding=e, scope=_everything())
                times[f"pre:{p}"].append((pc() - t) * 1000)
        if (qi + 1) % 50 == 0:
            log(f"  {qi + 1}/{len(queries)} queries, {time.perf_counter() - t_run:.0f}s")
    load_after = os.getloadavg()
    trace_stages["unaccounted (handoff, Hit building, glue)"] = hybrid_unaccounted

    stats = {name: {"p50": pct(v, 50), "p95": pct(v, 95), "mean": float(np.mean(v)), "n": len(v)}
             for name, v in times.items()}
    stage_stats = {name: {"p50": pct(v, 50), "p95": pct(v, 95), "mean": float(np.mean(v))}
                   for name, v in trace_stages.items()}
    out = {
        "chunks": n_vec, "keyword_docs": n_kw, "queries": len(queries), "warmup": len(warm),
        "candidates": ncand, "stats": stats, "hybrid_stages": stage_stats,
        "hits_mean": {p: float(np.mean(v)) for p, v in hits_returned.items()},
        "loadavg_before": load_before, "loadavg_after": load_after,
        "rss_ready_mib": round(rss_ready / 2**20),
        "maxrss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "run_s": round(time.perf_counter() - t_run, 1),
    }
    if profile:
        out["profile"] = run_profile(rs, r, queries, params, data_dir, log)
    rs.close()
    return out


def run_profile(rs, r, queries, params, data_dir: Path, log) -> dict:
    """cProfile of the hybrid path with precomputed embeddings (the searches run in pool
    threads, which cProfile does not see: the thread-side work is profiled separately by
    calling the engine's _vector/_keyword in the main thread)."""
    import cProfile
    import io
    import pstats

    from backend.index.base import IndexFilter

    embs = {q: rs.embedder.encode_query(q) for q in queries}
    out = {}
    for label, fn in (
        ("retrieve_hybrid_precomputed", lambda q: r.retrieve(q, params["hybrid"], query_embedding=embs[q],
                                                             scope=_everything())),
        ("retrieve_section_first_precomputed", lambda q: r.retrieve(q, params["section_first"], query_embedding=embs[q],
                                                                    scope=_everything())),
        ("keyword_stage", lambda q: r._keyword(q, 50, IndexFilter(), False, 10)),
        ("vector_stage", lambda q: r._vector(q, 50, IndexFilter(), embs[q])),
    ):
        prof = cProfile.Profile()
        prof.enable()
        for q in queries:
            fn(q)
        prof.disable()
        prof.dump_stats(str(data_dir / f"profile_{label}.prof"))
        buf = io.StringIO()
        st = pstats.Stats(prof, stream=buf).sort_stats("tottime")
        st.print_stats(18)
        out[label] = buf.getvalue()
        log(f"\n===== cProfile {label} ({len(queries)} calls), by tottime =====\n"
            + _trim_pstats(buf.getvalue()))
    return out


def _trim_pstats(text: str) -> str:
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if "function calls" in l), 0)
    return "\n".join(l for l in lines[start:] if l.strip())




# ---------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------

def data_dir_for(template: str | None, n: int, multi: bool) -> Path:
    if not template:
        return Path(f"/tmp/ragscope-bench-{n}")
    if "{n}" in template:
        return Path(template.format(n=n))
    return Path(f"{template}-{n}") if multi else Path(template)


def corpus_ready(d: Path, n: int) -> dict | None:
    m = d / MARKER
    if not m.exists():
        return None
    info = json.loads(m.read_text())
    if info.get("gen_version") == GEN_VERSION and info.get("chunks") == n and info.get("seed") == SEED:
        return info
    return None


def ensure_corpus(d: Path, n: int, log) -> dict:
    info = corpus_ready(d, n)
    if info:
        log(f"[{n}] corpus cached in {d}")
        return info
    if d.exists() and any(d.iterdir()):
        if not ((d / MARKER).exists() or (d / BUILDING).exists()):
            raise SystemExit(f"{d} exists and is not a benchmark corpus; choose another --data-dir")
        log(f"[{n}] removing stale corpus in {d}")
        shutil.rmtree(d)
    d.mkdir(parents=True, exist_ok=True)
    (d / BUILDING).write_text("")
    log(f"[{n}] building corpus in {d}")
    out = d / "build_result.json"
    subprocess.run([sys.executable, __file__, "--worker", "build", "--size", str(n),
                    "--data-dir", str(d), "--out", str(out)], check=True)
    info = json.loads(out.read_text())
    (d / MARKER).write_text(json.dumps(info, indent=2))
    (d / BUILDING).unlink()
    return info


def main(argv=None) -> int:
    global DOC_SECTION
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=30, help="warm-up queries (not timed)")
    ap.add_argument("--data-dir", default=None,
                    help="corpus directory (default /tmp/ragscope-bench-<N>; '{n}' is replaced "
                         "by the size; with several sizes '-<N>' is appended otherwise)")
    ap.add_argument("--record", action="store_true",
                    help=f"replace/append the section '{DOC_SECTION}' in docs/benchmarks.md")
    ap.add_argument("--profile", action="store_true",
                    help="cProfile the hybrid path at every size (files land in the data dir)")
    ap.add_argument("--json", default=None, help="also write all results to this file")
    ap.add_argument("--build-only", action="store_true", help="build (or check) the corpora, measure nothing")
    ap.add_argument("--variant", action="append", default=[], metavar="KEY=VAL[,KEY=VAL]",
                    help="also measure with these environment variables set (A/B; repeatable), "
                         "e.g. OMP_WAIT_POLICY=PASSIVE")
    ap.add_argument("--notes", default=None, metavar="FILE",
                    help="with --record: markdown put under the tables (otherwise the notes "
                         "already in the section are kept)")
    ap.add_argument("--from-json", default=None, metavar="FILE",
                    help="render (and with --record, record) the results saved by --json, "
                         "measure nothing")
    ap.add_argument("--section", default=None,
                    help=f"title of the docs/benchmarks.md section (default '{DOC_SECTION}')")
    ap.add_argument("--worker", choices=["build", "measure"], help=argparse.SUPPRESS)
    ap.add_argument("--size", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    DOC_SECTION = a.section or DOC_SECTION
    import logging
    logging.basicConfig(level=logging.WARNING)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

    if a.worker:
        d = Path(a.data_dir)
        if a.worker == "build":
            res = build_corpus(d, a.size, log)
        else:
            res = measure(d, a.queries, a.warmup, a.profile, log)
        Path(a.out).write_text(json.dumps(res, indent=2))
        return 0

    if a.from_json:
        saved = json.loads(Path(a.from_json).read_text())
        results = {int(n): r for n, r in saved["results"].items()}
        cmd = saved.get("cmd") or ("python bench/bench_retrieval.py --sizes "
                                   + " ".join(map(str, sorted(results))) + " --record")
        text = markdown(results, saved["env"], cmd, DOC_SECTION)
        print(text)
        if a.record:
            record(text, ROOT / "docs" / "benchmarks.md",
                   Path(a.notes).read_text(encoding="utf-8") if a.notes else None, DOC_SECTION)
            log(f"recorded in {ROOT / 'docs' / 'benchmarks.md'}")
        return 0

    results: dict[int, dict] = {}
    multi = len(a.sizes) > 1
    for n in a.sizes:
        d = data_dir_for(a.data_dir, n, multi)
        info = ensure_corpus(d, n, log)
        if a.build_only:
            log(f"[{n}] {json.dumps(info)}")
            continue
        log(f"[{n}] measuring ({a.queries} queries)")
        out = d / "measure_result.json"
        cmd = [sys.executable, __file__, "--worker", "measure", "--size", str(n), "--data-dir",
               str(d), "--out", str(out), "--queries", str(a.queries), "--warmup", str(a.warmup)]
        if a.profile:
            cmd.append("--profile")
        subprocess.run(cmd, check=True)
        res = json.loads(out.read_text())
        res["corpus"] = info
        res["variants"] = {}
        for var in a.variant:
            env = dict(os.environ)
            env.update(dict(kv.split("=", 1) for kv in var.split(",")))
            log(f"[{n}] measuring with {var}")
            subprocess.run([c for c in cmd if c != "--profile"], check=True, env=env)
            res["variants"][var] = json.loads(out.read_text())
        results[n] = res
    if a.build_only:
        return 0
    env = environment()
    cmd = "python bench/bench_retrieval.py --sizes " + " ".join(map(str, a.sizes)) + \
          f" --queries {a.queries}" + "".join(f" --variant {v}" for v in a.variant) + \
          (f" --section '{a.section}'" if a.section else "") + " --record"
    text = markdown(results, env, cmd, DOC_SECTION)
    print(text)
    if a.json:
        Path(a.json).write_text(json.dumps({"env": env, "cmd": cmd, "results": results}, indent=2))
    if a.record:
        record(text, ROOT / "docs" / "benchmarks.md",
                   Path(a.notes).read_text(encoding="utf-8") if a.notes else None, DOC_SECTION)
        log(f"recorded in {ROOT / 'docs' / 'benchmarks.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
