"""Ingestion throughput (issue 2, "Measure"): chunks/s of the full pipeline, side by side in
the same process with a bare encode (the backend's encoder without ragscope around it; for
torch `SentenceTransformer.encode`) on the same chunk texts.

Two corpora, each ingested into a fresh data directory under a temporary folder:
  * `data/samples/` (the sample corpus: PDF, DOCX, ODT, HTML, Markdown, TXT);
  * a generated corpus of German and English Markdown/TXT documents (minutes, manuals,
    policies, reports; ~100 chunks per file) with at least `--chunks` chunks.

For each corpus: files, chunks, ingest seconds, chunks/s, and the bare rate: the chunk texts
are read back from the store and encoded by the configured backend's encoder directly
(`--backend`, default the setting's) at the same batch size (`RAGSCOPE_EMBEDDING_BATCH_SIZE`,
default 64) and thread settings.
The ratio of the two rates is the figure of merit (goal >= 0.8). The machine is shared, so the
two are interleaved: after every `--round` files the ingest clock stops, the texts of those files
are encoded bare, and the ingest goes on; both rates thus see the same load. The bare model
lives in a worker process (started by this run, idle while ingesting), so that this process's
peak RSS is the ingest's own. Every ingestion stage is timed by wrapping the functions
the ingestor calls (no backend code changes), so the run also says where the time goes.
Peak memory is the process's RSS high-water mark (`getrusage(RUSAGE_SELF).ru_maxrss`).

    python bench/bench_ingest.py                 # >= 20,000 generated chunks (~20-30 min on 2 cores)
    python bench/bench_ingest.py --quick         # 2,000 chunks, a smoke run
    python bench/bench_ingest.py --record        # also write the section in docs/benchmarks.md
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import backend  # noqa: E402,F401  (sets OPENBLAS_NUM_THREADS & offline flags before numpy loads)

from tqdm import tqdm  # noqa: E402

from bare_encode import BareWorker  # noqa: E402
from ingest_report import SECTION, load_table, record, stage_table, table  # noqa: E402
from ingest_stages import Stages, breakdown, instrument  # noqa: E402
from machine import Phase, cpu_jiffies, cpu_model, peak_rss_mib, uptime, versions  # noqa: E402


# ---- one corpus ------------------------------------------------------------------------------

@dataclass
class Result:
    name: str
    files: int = 0
    failed: int = 0
    chunks: int = 0
    ingest: Phase = field(default_factory=Phase)
    bare: Phase = field(default_factory=Phase)
    grouped: Phase | None = None
    rss_after_ingest: float = 0.0
    stages: list[tuple[str, float, float]] = field(default_factory=list)
    embed_calls: int = 0
    bare_texts: int = 0

    @property
    def rate(self) -> float:
        return self.chunks / self.ingest.wall if self.ingest.wall else 0.0

    @property
    def bare_rate(self) -> float:
        return self.chunks / self.bare.wall if self.bare.wall else 0.0

    @property
    def ratio(self) -> float:
        return self.rate / self.bare_rate if self.bare_rate else 0.0


def make_rs(data_dir: Path, embedder=None):
    from backend.config import Settings
    from backend.services.container import Ragscope

    rs = Ragscope(Settings(data_dir=data_dir))
    if embedder is not None:  # share one loaded model between the two fresh data dirs
        rs.__dict__["embedder"] = embedder
    return rs


def ingest_corpus(name: str, files: list[Path], data_dir: Path, worker: BareWorker,
                  round_files: int, embedder=None, on_round=None):
    """Ingest `files` into a fresh data dir, interleaved with bare encoding of the same chunk
    texts every `round_files` files. Returns (Result, Ragscope)."""
    from sqlalchemy import select

    from backend.ingest.service import Ingestor
    from backend.store.models import Chunk

    rs = make_rs(data_dir, embedder)
    rs.embedder.encode(["warm-up", "Aufwärmen des Modells"])  # model loaded before timing
    rs.index_params()  # opens Chroma and tantivy
    ing = Ingestor(rs)
    stages = Stages()
    instrument(rs, stages)
    res = Result(name)
    hz = os.sysconf("SC_CLK_TCK")
    pause = {"wall": 0.0, "cpu": 0.0, "busy": 0.0}  # this process while bare encoding
    bare = {"wall": 0.0, "cpu": 0.0, "gwall": 0.0, "gcpu": 0.0, "texts": 0}
    pending: list[int] = []
    bar = tqdm(total=len(files), unit="file", desc=f"ingest {name}", dynamic_ncols=True)
    t_start = time.perf_counter()

    def run_round():
        c0, t0, (b0, _) = time.process_time(), time.perf_counter(), cpu_jiffies()
        with rs.store.session() as s:
            rows = s.execute(select(Chunk.version_id, Chunk.text)
                             .where(Chunk.version_id.in_(pending))
                             .order_by(Chunk.version_id, Chunk.ordinal)).all()
        groups: dict[int, list[str]] = defaultdict(list)
        for vid, text in rows:
            groups[vid].append(text)
        w, c, gw, gc = worker.encode(list(groups.values()))
        bare["wall"] += w
        bare["cpu"] += c
        bare["gwall"] += gw
        bare["gcpu"] += gc
        bare["texts"] += len(rows)
        pending.clear()
        pause["wall"] += time.perf_counter() - t0
        pause["cpu"] += time.process_time() - c0
        pause["busy"] += (cpu_jiffies()[0] - b0) / hz
        ingest_wall = time.perf_counter() - t_start - pause["wall"]
        bar.set_postfix(chunks=res.chunks, ingest=f"{res.chunks / ingest_wall:.1f}/s",
                        bare=f"{bare['texts'] / bare['wall']:.1f}/s" if bare["wall"] else "-",
                        refresh=True)
        if on_round:
            on_round(res, bare)

    def progress(p):  # an IngestProgress: after every file (outcome set) and embedded batch
        out = p.outcome
        if out is None:
            return
        res.chunks += out.chunks
        bar.update(1)
        bar.set_postfix(chunks=res.chunks, refresh=False)
        if out.ok and out.chunks:
            pending.append(out.version_id)
        if pending and (len(pending) >= round_files or p.files_done == p.files_total):
            run_round()

    try:
        whole, outcomes = Phase.run(
            lambda: ing.ingest_paths(files, collection=name, on_progress=progress))
    finally:
        bar.close()
        stages.restore()
    if pending:  # last files were cancelled or the callback was not reached
        run_round()
    res.rss_after_ingest = peak_rss_mib()
    ingest_wall = whole.wall - pause["wall"]
    ingest_cpu = whole.cpu - pause["cpu"]
    busy_total = whole.others_cores * whole.wall + whole.cpu  # machine busy seconds
    res.ingest = Phase(ingest_wall, ingest_cpu,
                       max(0.0, busy_total - pause["busy"] - ingest_cpu) / ingest_wall,
                       whole.load)
    res.bare = Phase(bare["wall"], bare["cpu"],
                     max(0.0, pause["busy"] - bare["cpu"] - pause["cpu"]) / max(pause["wall"], 1e-9),
                     whole.load)
    if bare["gwall"]:
        res.grouped = Phase(bare["gwall"], bare["gcpu"], 0.0, whole.load)
    res.files = len(outcomes)
    res.failed = sum(not o.ok for o in outcomes)
    for o in outcomes:
        if not o.ok:
            print(f"  failed: {o.error}", file=sys.stderr)
    res.stages = breakdown(stages, res.ingest.wall)
    res.embed_calls = stages.calls["embed"]
    res.bare_texts = bare["texts"]
    with rs.store.session() as s:
        n = s.query(Chunk).count()
    if n != res.chunks or bare["texts"] != res.chunks:
        print(f"  note: store holds {n} chunks, outcomes reported {res.chunks}, "
              f"bare encoded {bare['texts']}", file=sys.stderr)
    return res, rs


# ---- main ------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chunks", type=int, default=20000,
                    help="minimum chunks in the generated corpus (default 20000)")
    ap.add_argument("--quick", action="store_true", help="smoke run: 2,000 generated chunks")
    ap.add_argument("--per-file", type=int, default=100, help="chunks per generated file")
    ap.add_argument("--grouped", action="store_true",
                    help="also time a bare encode with one call per document (as the ingestor)")
    ap.add_argument("--round", type=int, default=5,
                    help="files ingested between two bare-encode rounds (default 5)")
    ap.add_argument("--record", action="store_true",
                    help=f"write the section '{SECTION[3:]}' in docs/benchmarks.md")
    ap.add_argument("--json", type=Path, help="also write the results as JSON here")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    ap.add_argument("--backend", help="embedding backend (RAGSCOPE_EMBEDDING_BACKEND); "
                    "default: the setting's")
    args = ap.parse_args(argv)
    import signal

    # a plain `kill` still runs the finally blocks: worker stopped, temporary folder removed
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    target = 2000 if args.quick else args.chunks

    import logging

    logging.basicConfig(level=logging.WARNING)
    from backend.config import Settings
    from backend.embed.embedder import Embedder
    from backend.ingest.chunking import chunk_text
    from backend.ingest.extract import extract
    from backend.ingest.normalise import normalise
    from backend.ingest.structure import build_sections
    from corpus import write_corpus

    uptime_before = uptime()
    started = dt.datetime.now().astimezone()
    print(f"machine: {os.cpu_count()} cores, {cpu_model()}; {uptime_before}", file=sys.stderr)
    tmp = Path(tempfile.mkdtemp(prefix="ragscope-bench-"))
    if args.backend:
        os.environ["RAGSCOPE_EMBEDDING_BACKEND"] = args.backend
    os.environ.setdefault("RAGSCOPE_EMBEDDING_CACHE_DIR", str(tmp / "models"))  # one export
    settings = Settings(data_dir=tmp / "probe")
    batch_size = settings.embedding_batch_size

    def count_chunks(path: Path) -> int:
        text = normalise(extract(path.read_bytes(), path.name))
        return len(chunk_text(text, build_sections(text), settings.chunk_size,
                              settings.chunk_overlap))

    try:
        with tqdm(total=target, unit="chunk", desc="generate corpus", dynamic_ncols=True) as bar:
            gen_files, expected = write_corpus(tmp / "corpus", target, args.per_file,
                                               count_chunks=count_chunks, progress=bar)
        gen_bytes = sum(f.stat().st_size for f in gen_files)
        print(f"generated {len(gen_files)} files, {gen_bytes / 1e6:.1f} MB, "
              f"{expected:,} chunks expected", file=sys.stderr)
        sample_files = sorted(p for p in (ROOT / "data" / "samples").iterdir() if p.is_file())

        rss_start = peak_rss_mib()
        worker = BareWorker(settings.embedding_model, batch_size, args.grouped)
        worker_load_s = worker.load_s

        def on_round(res, bare):
            if args.json:
                args.json.with_suffix(".partial.json").write_text(json.dumps({
                    "corpus": res.name, "chunks_so_far": res.chunks, "bare": bare,
                    "uptime": uptime()}))

        try:
            r_samples, rs1 = ingest_corpus("samples", sample_files, tmp / "data_samples", worker,
                                           args.round)
            r_gen, _ = ingest_corpus(f"generated ({len(gen_files)} files)", gen_files,
                                     tmp / "data_generated", worker, args.round,
                                     embedder=rs1.embedder, on_round=on_round)
        finally:
            worker_rss = worker.rss
            worker.close()
        rss_ingest = peak_rss_mib()
        uptime_after = uptime()
    finally:
        if args.keep:
            print(f"kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    results = [r_samples, r_gen]
    vers = versions()
    cmd = "python bench/bench_ingest.py" + (" --quick" if args.quick else
                                            (f" --chunks {args.chunks}" if args.chunks != 20000 else ""))
    cmd += f" --per-file {args.per_file}" * (args.per_file != 100)
    cmd += f" --round {args.round}" * (args.round != 5)
    cmd += " --grouped" * args.grouped + f" --backend {args.backend}" * bool(args.backend)
    cmd += " --record" * args.record
    grouped_note = ""
    if r_gen.grouped:
        g = r_gen.grouped
        grouped_note = (f"Bare encode with one `encode` call per document (as the ingestor "
                        f"batches): {g.wall:.1f} s = {r_gen.chunks / g.wall:.1f} chunks/s "
                        f"(ingest ÷ this: {r_gen.rate / (r_gen.chunks / g.wall):.2f}).\n")
    emb_w = sum(w for label, w, _ in r_gen.stages if label.startswith("embedding"))  # both threads
    md = (
        f"{SECTION}\n\n"
        f"- Date: {started.date().isoformat()}; machine: {os.cpu_count()} cores (`nproc`), "
        f"{cpu_model()}, {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB.\n"
        f"- Versions: " + ", ".join(f"{k} {v}" for k, v in vers.items()) + ".\n"
        f"- Settings: defaults — {settings.embedding_model}, embedding backend "
        f"{Embedder.from_settings(settings).backend}, chunk size "
        f"{settings.chunk_size}, overlap {settings.chunk_overlap}, batch size {batch_size}, "
        f"Chroma (embedded) + tantivy; SQLite; `OPENBLAS_NUM_THREADS=1`.\n"
        f"- Load before: `{uptime_before}`\n"
        f"- Load after: `{uptime_after}`\n"
        f"- Reproduce: `{cmd}` (from the repository root).\n\n"
        f"{table(results)}\n"
        f"Ingest = one `Ingestor(rs).ingest_paths(files)` call on a fresh data dir (model already "
        f"loaded, as in a running app; loading it takes {worker_load_s:.1f} s). Bare encode = "
        f"the backend's encoder called directly (`encode_passages(texts, {batch_size})`; for "
        f"torch `SentenceTransformer.encode`) with the Embedder's thread settings, on the chunk "
        f"texts read back from the store (`Chunk.text`), in a worker process of the same run. "
        f"The two are interleaved so that both see the same machine load: every {args.round} "
        f"files the ingest clock stops and the worker encodes those files' chunks in one call "
        f"(≈{args.round * args.per_file} texts; encode sorts them by length), while this process "
        f"waits. Ratio = ingest chunks/s ÷ bare chunks/s (goal ≥ 0.8). "
        f"Generated corpus: {len(gen_files)} Markdown/TXT files, {gen_bytes / 1e6:.1f} MB, German "
        f"and English minutes, manuals, policies and reports built from sentence templates "
        f"(`bench/corpus.py`, deterministic).\n\n"
        f"Peak memory of the ingesting process (RSS high-water mark, `ru_maxrss`, model and "
        f"corpus generation included): {rss_start:,.0f} MiB before ingestion, "
        f"{r_samples.rss_after_ingest:,.0f} MiB after the sample corpus, {rss_ingest:,.0f} MiB "
        f"after the generated corpus. The bare-encode worker peaked at "
        f"{worker_rss:,.0f} MiB.\n\n"
        f"Machine load during each phase (other sessions share the 2 cores; 'other processes' is "
        f"busy CPU time from /proc/stat minus this process's CPU time, per wall second):\n\n"
        f"{load_table(results)}\n"
        f"Where the ingest time goes on the generated corpus (each function the ingestor calls, "
        f"timed by wrapping it; exclusive times of the ingest thread, they add up to the total; "
        f"the last row is the embedding thread, which encodes a batch while the next files are "
        f"read and stored). Embedding takes {100 * emb_w / r_gen.ingest.wall:.1f} % of the "
        f"ingest's wall time "
        f"({r_gen.embed_calls} `encode` calls for {r_gen.files} files, "
        f"{r_gen.chunks / max(1, r_gen.embed_calls):.0f} texts per call):\n\n"
        f"{stage_table(r_gen)}\n"
        f"The same for the sample corpus (PDF, DOCX, ODT, HTML, Markdown, TXT; "
        f"{r_samples.chunks / max(1, r_samples.files):.0f} chunks per file, "
        f"{r_samples.embed_calls} `encode` calls):\n\n"
        f"{stage_table(r_samples)}\n"
        f"{grouped_note}"
    )
    print()
    print(md)
    if args.json:
        args.json.write_text(json.dumps({
            "date": started.isoformat(), "cores": os.cpu_count(), "cpu": cpu_model(),
            "versions": vers, "uptime_before": uptime_before, "uptime_after": uptime_after,
            "results": [{"name": r.name, "files": r.files, "failed": r.failed, "chunks": r.chunks,
                         "ingest_s": r.ingest.wall, "ingest_cpu_s": r.ingest.cpu,
                         "bare_s": r.bare.wall, "bare_cpu_s": r.bare.cpu,
                         "grouped_s": r.grouped.wall if r.grouped else None,
                         "rate": r.rate, "bare_rate": r.bare_rate, "ratio": r.ratio,
                         "rss_after_ingest_mib": r.rss_after_ingest,
                         "stages": r.stages} for r in results],
            "rss_mib": {"start": rss_start, "after_ingest": rss_ingest,
                        "bare_worker": worker_rss},
        }, indent=2))
    if args.record:
        record(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
