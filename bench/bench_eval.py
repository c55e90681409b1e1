"""Evaluation benchmark (issue 7, "Measure").

1. BEIR import rate: a generated corpus in BEIR layout (default 2,000 documents) is imported
   with `python -m eval import-beir` semantics (`eval.beir.import_beir`: Ingestor.ingest_many,
   real embeddings) into a fresh data dir; documents/s is recorded. `--per-doc-docs N` adds a
   baseline: the same kind of documents through `Ingestor.ingest_bytes` one at a time.
2. Evaluation speed: 300 queries over a 5,000-document corpus (imported the same way, cached
   under --data-dir and reused) for 3 configurations (hybrid, semantic_only, lexical_only),
   through `eval.runner.evaluate` with query embeddings batched once and shared; ingestion is
   not counted. Traces are persisted (as the CLI does by default) and the runs stored.

The generated corpus (English technical reports of a utility, queries by paraphrase,
keywords or case number): bench/eval_corpus.py.

    python bench/bench_eval.py                 # import 2,000 + evaluate on 5,000 (cached)
    python bench/bench_eval.py --record        # also write our section of docs/benchmarks.md
    python bench/bench_eval.py --import-docs 0 # skip the import-rate measurement
    python bench/bench_eval.py --per-doc-docs 300   # + the one-at-a-time baseline
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from eval_corpus import GEN_VERSION, SEED, generate, write_beir  # noqa: E402  (bench/)

DOC_SECTION = "Evaluation (issue 7)"
CONFIGS = ["hybrid", "semantic_only", "lexical_only"]


def _everything():
    """The scope of a bench: every collection (backend/security/access.py)."""
    from backend.security.access import Scope

    return Scope.everything()


# ---------------------------------------------------------------------------------------
# Measurements
# ---------------------------------------------------------------------------------------

def _fresh_rs(data_dir: Path):
    from backend.config import Settings
    from backend.services.container import Ragscope

    return Ragscope(Settings(data_dir=data_dir))


def measure_import(n_docs: int, work: Path, log) -> dict:
    """Import a generated BEIR corpus of n_docs into a fresh data dir; documents/s."""
    from eval.beir import import_beir

    folder = work / f"beir-src-{n_docs}"
    if not (folder / "corpus.jsonl").exists():
        write_beir(folder, n_docs, max(10, n_docs // 20))
    data = work / f"import-{n_docs}"
    shutil.rmtree(data, ignore_errors=True)
    rs = _fresh_rs(data)
    rs.embedder.encode(["warm up the model"])
    probe = [o["text"] for o in generate(256, 1, seed=SEED + 9)[0]]
    t0 = time.perf_counter()
    rs.embedder.encode(probe)
    embed_rate = len(probe) / (time.perf_counter() - t0)
    t0 = time.perf_counter()

    def progress(p) -> None:
        if p.item is not None and (p.files_done % 500 == 0 or p.files_done == p.files_total):
            log(f"    {p.summary()}")

    r = import_beir(rs, folder, name=f"synth{n_docs}", on_progress=progress)
    chunks = _chunks(rs)
    rs.close()
    shutil.rmtree(data, ignore_errors=True)
    return {"path": "import-beir", "documents": r.documents, "failed": r.failed,
            "seconds": round(r.seconds, 1), "docs_per_s": round(r.docs_per_s, 2),
            "chunks": chunks, "embed_passages_per_s": round(embed_rate, 1),
            "load_avg": round(os.getloadavg()[0], 1)}


def measure_per_document(n_docs: int, work: Path, log) -> dict:
    """Baseline: the same documents through Ingestor.ingest_bytes one at a time."""
    from backend.ingest.service import Ingestor
    from eval.beir import _doc_bytes

    corpus, _, _ = generate(n_docs, 10)
    data = work / f"perdoc-{n_docs}"
    shutil.rmtree(data, ignore_errors=True)
    rs = _fresh_rs(data)
    rs.embedder.encode(["warm up the model"])
    ing = Ingestor(rs)
    t0 = time.perf_counter()
    for o in corpus:
        ing.ingest_bytes(_doc_bytes(o), f"{o['_id']}.txt", collection="perdoc",
                         source_kind="beir", source_uri=f"beir://perdoc/{o['_id']}")
    secs = time.perf_counter() - t0
    chunks = _chunks(rs)
    rs.close()
    shutil.rmtree(data, ignore_errors=True)
    return {"path": "per-document ingest_bytes", "documents": n_docs, "failed": 0,
            "seconds": round(secs, 1), "docs_per_s": round(n_docs / secs, 2), "chunks": chunks,
            "load_avg": round(os.getloadavg()[0], 1)}


def _chunks(rs) -> int:
    from backend.store import repo

    with rs.store.session() as s:
        return repo.counts(s).get("active_chunks", 0)


def ensure_corpus(data: Path, n_docs: int, n_queries: int, log) -> dict:
    """The cached evaluation corpus (real ingestion through import_beir)."""
    from eval.beir import import_beir

    marker = data / "bench_eval.json"
    want = {"gen": GEN_VERSION, "docs": n_docs, "queries": n_queries, "seed": SEED}
    if marker.exists():
        info = json.loads(marker.read_text())
        if all(info.get(k) == v for k, v in want.items()):
            log(f"  reusing corpus in {data}")
            return info
    shutil.rmtree(data, ignore_errors=True)
    folder = write_beir(data / "beir" / f"synth{n_docs}", n_docs, n_queries)
    rs = _fresh_rs(data / "var")

    def progress(p) -> None:
        if p.item is not None and (p.files_done % 500 == 0 or p.files_done == p.files_total):
            log(f"    {p.summary()}")

    r = import_beir(rs, folder, on_progress=progress)
    rs.close()
    info = {**want, "import_s": round(r.seconds, 1), "docs_per_s": round(r.docs_per_s, 2),
            "goldenset": r.name, "goldenset_queries": r.queries}
    marker.write_text(json.dumps(info, indent=1))
    return info


def measure_eval(data: Path, info: dict, log) -> dict:
    from eval.configs import resolve
    from eval.runner import evaluate
    from eval.store import get_goldenset, save_report

    rs = _fresh_rs(data / "var")
    rs.embedder.encode(["warm up the model"])
    rs.vector_index.count()
    rs.keyword_index.count()
    gs = get_goldenset(rs, info["goldenset"])
    from eval.runner import DEFAULT_METRICS, ir_metrics

    t0 = time.perf_counter()  # ranx's numba kernels: loaded/compiled once per process
    ir_metrics({"q": {"d": 1}}, {"q": {"d": 1.0}}, DEFAULT_METRICS)
    t_ranx = time.perf_counter() - t0
    first_config = {}

    def progress(done: int, total: int, label: str) -> None:
        if label != "embedding queries" and not first_config:
            first_config["t"] = time.perf_counter()

    t0 = time.perf_counter()
    report = evaluate(rs, gs, resolve(CONFIGS),
                      scope=_everything(), traces=None, on_progress=progress)
    t_eval = time.perf_counter() - t0
    phases = {"ranx first use (numba, once per process; not in total)": round(t_ranx, 2),
              "embedding 300 queries (one batched call)".replace(
                  "300", str(len(gs.queries))): round(first_config["t"] - t0, 2),
              **{f"{n}: retrieval + metrics + trace" : round(c.duration_s, 2)
                 for n, c in report.configs.items()}}
    t1 = time.perf_counter()
    ids = save_report(rs, report, label="bench")
    t_store = time.perf_counter() - t1
    phases["storing the 3 runs"] = round(t_store, 2)
    counts = {}
    with rs.store.session() as s:
        from backend.store import repo

        counts = repo.counts(s)
    rs.close()
    n = len(report.goldenset.queries)
    return {"queries": n, "configs": CONFIGS, "retrievals": n * len(CONFIGS),
            "eval_s": round(t_eval, 2), "store_s": round(t_store, 2),
            "total_s": round(t_eval + t_store, 2), "phases_s": phases,
            "ms_per_retrieval": round(1000 * sum(c.duration_s for c in report.configs.values())
                                      / (n * len(CONFIGS)), 1),
            "traces": any(r.trace_id for c in report.configs.values()
                          for r in c.per_query.values()),
            "metrics": report.summary(), "runs": ids, "corpus": counts,
            "warnings": len(report.warnings)}


def environment() -> dict:
    cpu = ""
    try:
        cpu = next((line.split(":", 1)[1].strip() for line in
                    Path("/proc/cpuinfo").read_text().splitlines()
                    if line.startswith("model name")), "")
    except OSError:
        pass
    return {"date": dt.date.today().isoformat(), "nproc": os.cpu_count(), "cpu": cpu,
            "python": platform.python_version(), "load_avg": [round(x, 1) for x in
                                                              os.getloadavg()]}


def markdown(res: dict) -> str:
    env, ev, imp = res["env"], res.get("eval"), res.get("import") or []
    lines = [f"## {DOC_SECTION}", "",
             f"`python bench/bench_eval.py{res['argv']}` — {env['date']}, nproc {env['nproc']}"
             f" ({env['cpu']}), Python {env['python']}; load average at the end "
             f"{' / '.join(map(str, env['load_avg']))} (other sessions shared the machine)."]
    if res.get("note"):
        lines += ["", res["note"]]
    for r in imp:
        how = ("`python -m eval import-beir` (Ingestor.ingest_many, 1,000 documents per call)"
               if r["path"] == "import-beir" else
               "baseline: the same documents one at a time through Ingestor.ingest_bytes")
        extra = (f" Embedding alone (256 passages in one call, just before): "
                 f"{r['embed_passages_per_s']} passages/s; load average "
                 f"{r['load_avg']} after the import." if "embed_passages_per_s" in r else "")
        lines += ["", f"**BEIR import** — {how}: {r['documents']:,} generated documents "
                      f"({r['chunks']:,} chunks) in {r['seconds']:,} s = "
                      f"**{r['docs_per_s']} documents/s**.{extra}"]
    if ev:
        m = ev["metrics"]
        lines += ["", f"**Evaluation**: {ev['queries']} queries × {len(ev['configs'])} "
                      f"configurations ({', '.join(ev['configs'])}) over "
                      f"{ev['corpus'].get('documents', 0):,} documents "
                      f"({ev['corpus'].get('active_chunks', 0):,} chunks), query embeddings batched "
                      f"once and shared, traces {'stored' if ev['traces'] else 'not stored'}, "
                      f"runs stored: **{ev['total_s']} s** (evaluate {ev['eval_s']} s + store "
                      f"{ev['store_s']} s; {ev['ms_per_retrieval']} ms per retrieval incl. "
                      f"metrics). Target ≤ 60 s.", "",
                  "| phase | seconds |", "|---|---:|"]
        lines += [f"| {k} | {v} |" for k, v in ev["phases_s"].items()]
        keys = ["hit@1", "hit@10", "recall@10", "mrr@10", "ndcg@10", "map"]
        lines += ["", "| configuration | " + " | ".join(keys) + " |",
                  "|---|" + "---:|" * len(keys)]
        lines += [f"| {c} | " + " | ".join(f"{m[c].get(k, 0):.3f}" for k in keys) + " |"
                  for c in ev["configs"]]
        if "corpus_info" in res:
            ci = res["corpus_info"]
            lines += ["", f"The {ci['docs']:,}-document corpus was built by the same import "
                          f"({ci['import_s']:,} s, {ci['docs_per_s']} documents/s; not counted "
                          f"above)."]
    return "\n".join(lines) + "\n"


def record(md_text: str, path: Path) -> None:
    """Replace our own section in docs/benchmarks.md (or append it); others' sections stay."""
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    pat = re.compile(rf"^## {re.escape(DOC_SECTION)}\n.*?(?=^## |\Z)", re.M | re.S)
    body = md_text.rstrip() + "\n"
    new = pat.sub(lambda _: body + "\n", old, count=1) if pat.search(old) else \
        old.rstrip() + "\n\n" + body
    tmp = path.with_suffix(".md.tmp-bench-eval")
    tmp.write_text(new.rstrip() + "\n", encoding="utf-8")
    os.replace(tmp, path)


def main(argv=None) -> int:
    import backend  # noqa: F401  (offline flags before torch)

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=5000, help="evaluation corpus size")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--import-docs", type=int, default=2000,
                    help="corpus size for the import-rate measurement (0: skip)")
    ap.add_argument("--per-doc-docs", type=int, default=0,
                    help="also measure one-at-a-time ingest_bytes on this many documents")
    ap.add_argument("--skip-eval", action="store_true")
    ap.add_argument("--data-dir", default="/tmp/ragscope-bench-eval")
    ap.add_argument("--record", action="store_true", help="write docs/benchmarks.md")
    ap.add_argument("--json", help="also write the raw results to this file")
    ap.add_argument("--from-json", help="render (and --record) results saved with --json")
    a = ap.parse_args(argv)
    if a.from_json:
        md_text = markdown(json.loads(Path(a.from_json).read_text()))
        print(md_text)
        if a.record:
            record(md_text, ROOT / "docs" / "benchmarks.md")
        return 0
    work = Path(a.data_dir)
    work.mkdir(parents=True, exist_ok=True)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    res: dict = {"argv": "".join(f" {x}" for x in (argv if argv is not None else sys.argv[1:])
                                 if x != "--record"), "import": []}
    if a.import_docs:
        log(f"import rate: {a.import_docs} documents")
        res["import"].append(measure_import(a.import_docs, work, log))
        log(f"  {res['import'][-1]}")
    if a.per_doc_docs:
        log(f"baseline: {a.per_doc_docs} documents one at a time")
        res["import"].append(measure_per_document(a.per_doc_docs, work, log))
        log(f"  {res['import'][-1]}")
    if not a.skip_eval:
        data = work / f"corpus-{a.docs}"
        log(f"evaluation corpus: {a.docs} documents, {a.queries} queries")
        res["corpus_info"] = ensure_corpus(data, a.docs, a.queries, log)
        log("evaluation: " + ", ".join(CONFIGS))
        res["eval"] = measure_eval(data, res["corpus_info"], log)
        log(f"  {json.dumps({k: v for k, v in res['eval'].items() if k != 'metrics'})}")
    res["env"] = environment()
    md_text = markdown(res)
    print(md_text)
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1, default=str))
    if a.record:
        record(md_text, ROOT / "docs" / "benchmarks.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
