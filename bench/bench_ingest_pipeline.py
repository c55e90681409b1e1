"""Pipelined ingestion (issue 15, part 3): chunks/s of `Ingestor.ingest_paths` with the
pipeline (extraction of the next files overlaps embedding and publishing of the current
batch) against the sequential baseline (`backend.ingest.batches.OVERLAP = False`: each batch
is embedded and published before the next files are extracted) and a bare encode of the
same chunk texts, for each embedding backend, in one run.

Corpus: generated German/English Markdown and text files (bench/corpus.py, ~`--per-file`
chunks each) plus the sample corpus (PDF, DOCX, ODT, HTML), split into `--rounds` parts. Per
part the three modes run one after the other in an order that rotates per round, so that the
machine's background load hits all alike; sequential and pipelined ingest each into their own
fresh data dir (the parts add up there). Bare encode: `Embedder.encode` of the part's chunk
texts (made beforehand with the ingestor's own extraction and chunking) in batches of
FLUSH_CHUNKS, the pipeline's batch size. Load: other processes' busy cores (from /proc/stat
minus this process) per mode.

    python bench/bench_ingest_pipeline.py --record          # onnx-int8 and torch
    python bench/bench_ingest_pipeline.py --backends onnx-int8 --chunks 1000
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import backend  # noqa: E402,F401  (offline flags, thread env before numpy)

from machine import cpu_jiffies, cpu_model, peak_rss_mib, uptime  # noqa: E402

DOC = ROOT / "docs" / "benchmarks.md"
SECTION = "## Pipelined ingestion (issue 15)"
MODES = ("bare", "sequential", "pipelined")


def timed(fn):
    """(result, wall s, process CPU s, other processes' average busy cores)."""
    hz = os.sysconf("SC_CLK_TCK")
    b0, _ = cpu_jiffies()
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    b1, _ = cpu_jiffies()
    return out, wall, cpu, max(0.0, (b1 - b0) / hz - cpu) / wall if wall else 0.0


def chunk_texts(files: list[Path], settings) -> dict[Path, list[str]]:
    from backend.ingest.chunking import chunk_text
    from backend.ingest.extract import extract
    from backend.ingest.normalise import normalise
    from backend.ingest.structure import build_sections

    out = {}
    for f in files:
        text = normalise(extract(f.read_bytes(), f.name))
        out[f] = [c.text for c in chunk_text(text, build_sections(text), settings.chunk_size,
                                              settings.chunk_overlap)]
    return out


def run_backend(name: str, files: list[Path], texts: dict[Path, list[str]], rounds: int,
                work: Path, log) -> dict:
    from backend.config import Settings
    from backend.embed.embedder import Embedder
    from backend.ingest import batches as pipeline
    from backend.ingest.records import FLUSH_CHUNKS
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope

    emb = Embedder.from_settings(Settings(embedding_backend=name, data_dir=work / "probe"),
                                 cache_dir=work / "models")
    emb.encode(["warm up", "Aufwärmen"])
    rss = {}
    for mode in ("sequential", "pipelined"):
        rs = Ragscope(Settings(data_dir=work / f"{name}-{mode}", embedding_backend=name))
        rs.embedder = emb
        rs.index_params()  # open both indexes before the clock starts
        rss[mode] = rs
    tot = {m: {"wall": 0.0, "cpu": 0.0, "others": 0.0, "chunks": 0} for m in MODES}
    parts = [files[i::rounds] for i in range(rounds)]
    for r, part in enumerate(parts):
        order = MODES[r % 3:] + MODES[:r % 3]
        for mode in order:
            if mode == "bare":
                flat = [t for f in part for t in texts[f]]

                def run(flat=flat):
                    for i in range(0, len(flat), FLUSH_CHUNKS):
                        emb.encode(flat[i:i + FLUSH_CHUNKS])
                    return len(flat)
            else:
                pipeline.OVERLAP = mode == "pipelined"

                def run(rs=rss[mode], part=part):
                    outs = Ingestor(rs).ingest_paths(part, collection="bench")
                    bad = [o.error for o in outs if not o.ok]
                    if bad:
                        raise RuntimeError(f"{len(bad)} files failed: {bad[:3]}")
                    return sum(o.chunks for o in outs)
            n, wall, cpu, others = timed(run)
            t = tot[mode]
            t["wall"] += wall
            t["cpu"] += cpu
            t["others"] += others * wall
            t["chunks"] += n
            log(f"  {name} round {r + 1}/{rounds} {mode}: {n} chunks in {wall:.1f} s "
                f"({n / wall:.1f}/s, others {others:.2f} cores)")
    pipeline.OVERLAP = True
    for rs in rss.values():
        rs.close()
    out = {"backend": name}
    for m, t in tot.items():
        out[m] = {"chunks": t["chunks"], "wall_s": round(t["wall"], 1),
                  "cpu_s": round(t["cpu"], 1), "chunks_per_s": t["chunks"] / t["wall"],
                  "others_cores": t["others"] / t["wall"]}
    return out


def render(res: dict) -> str:
    m = res["meta"]
    lines = [SECTION, "",
             f"Measured {m['date']} on {m['nproc']} cores ({m['cpu']}); load before: "
             f"`{m['load_before']}`; after: `{m['load_after']}`. Reproduce: `{m['command']}`. "
             f"Corpus: {m['files']} files ({m['generated']} generated Markdown/TXT of about "
             f"{m['per_file']} chunks, the {m['samples']} sample files: PDF, DOCX, ODT, HTML, "
             f"Markdown, TXT), {m['chunks']:,} chunks, in {m['rounds']} parts; per part the "
             "three modes in rotating order. Peak RSS of the run: "
             f"{m['rss_mib']:,.0f} MiB.", "",
             "| backend | mode | chunks | wall s | chunks/s | vs bare encode | "
             "vs sequential | other processes (cores) |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for b in res["backends"]:
        bare, seq = b["bare"]["chunks_per_s"], b["sequential"]["chunks_per_s"]
        for mode in MODES:
            r = b[mode]
            vs_seq = "" if mode == "bare" else f"{r['chunks_per_s'] / seq:.2f}"
            lines.append(f"| {b['backend']} | {mode} | {r['chunks']:,} | {r['wall_s']:.1f} | "
                         f"{r['chunks_per_s']:.1f} | {r['chunks_per_s'] / bare:.2f} | {vs_seq} | "
                         f"{r['others_cores']:.2f} |")
    return "\n".join(lines) + "\n"


def record(section: str) -> None:
    from bench.docs_record import record_section

    record_section(SECTION, section, DOC)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backends", default="onnx-int8,torch")
    ap.add_argument("--chunks", type=int, default=3000, help="generated chunks (at least)")
    ap.add_argument("--per-file", type=int, default=20, help="chunks per generated file")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)

    from backend.config import Settings
    from corpus import write_corpus

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    meta = {"date": dt.date.today().isoformat(), "nproc": os.cpu_count(), "cpu": cpu_model(),
            "load_before": uptime().split("load average:")[-1].strip(),
            "command": "python bench/bench_ingest_pipeline.py " + " ".join(argv or sys.argv[1:]),
            "per_file": args.per_file, "rounds": args.rounds}
    work = Path(tempfile.mkdtemp(prefix="bench-pipeline-"))
    try:
        settings = Settings(data_dir=work / "probe")
        samples = sorted(p for p in (ROOT / "data" / "samples").iterdir() if p.is_file())
        texts = chunk_texts(samples, settings)

        def count(path: Path) -> int:
            texts.update(chunk_texts([path], settings))
            return len(texts[path])

        gen, _ = write_corpus(work / "corpus", args.chunks, args.per_file, count_chunks=count)
        files = gen + samples
        meta.update(files=len(files), generated=len(gen), samples=len(samples),
                    chunks=sum(len(texts[f]) for f in files))
        log(f"corpus: {len(files)} files, {meta['chunks']} chunks")
        res = {"meta": meta, "backends": [run_backend(b, files, texts, args.rounds, work, log)
                                          for b in args.backends.split(",")]}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    meta["load_after"] = uptime().split("load average:")[-1].strip()
    meta["rss_mib"] = peak_rss_mib()
    section = render(res)
    print(section)
    if args.json:
        args.json.write_text(json.dumps(res, indent=2))
    if args.record:
        record(section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
