"""Vector recall and self-retrieval (issue 21, section 1): can every stored chunk still be
found by vector search after ingests, deletes and re-ingests, with thousands of
near-duplicates?

Three parts, each run on its own:

  --repro     the issue's reproduction through the CLI in a fresh data dir: ingest
              data/samples, a 2,000-page PDF of near-identical lines (fpdf2), ~540 Markdown
              notes of random words from a 30-word vocabulary plus one marker each, then
              `python -m backend check --full` (real MiniLM vectors; ~3 min on 2 cores).
              `--vector-search hnsw` runs it with Chroma's graph search (the old behaviour).
  --chunks N  the hostile synthetic corpus of tests/vector_corpus.py (N chunks) through
              ChromaVectorIndex: every document ingested in pipeline batches, 10% deleted,
              half of those ingested again, 5% replaced by a new version, 2% upserted
              unchanged; then every active chunk searched with its own stored vector (top 10),
              recall@10 of 1,000 queries near stored chunks against numpy brute force, query
              latency and write time — for each `--modes` (exact, hnsw).
  --sweep     HNSW parameters (M, ef_construction, ef_search) on the same corpus (`--chunks`,
              default 10,000): misses, recall, query latency, build time.
  --readback  ingest speed with and without the read-back after every published batch
              (generated files, bench/corpus.py; alternating parts, two fresh data dirs).

    python bench/bench_vector_recall.py --repro
    python bench/bench_vector_recall.py --chunks 10000
    python bench/bench_vector_recall.py --chunks 100000 --modes exact,hnsw   # by hand (~30 min)
    python bench/bench_vector_recall.py --sweep --chunks 10000
    python bench/bench_vector_recall.py --readback --files 240

Each run prints one JSON line per measurement (and `uptime`: the machine is shared)."""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import backend  # noqa: E402,F401  (sets OPENBLAS_NUM_THREADS & offline flags before numpy loads)

import numpy as np  # noqa: E402

VOCAB = ("pump valve basin filter sludge pipe meter flow pressure level sensor motor gate "
         "screen tank inlet outlet sample report check alarm panel cable drain blower aerator "
         "weir scraper chlorine dosing").split()


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def emit(**row) -> None:
    print(json.dumps(row), flush=True)


# ---- the CLI reproduction ----------------------------------------------------------------------

def make_repro_files(out: Path, pages: int = 2000, notes: int = 540, seed: int = 21) -> None:
    """The issue's inputs: one PDF of `pages` near-identical one-line pages, `notes` Markdown
    files of 4-8 paragraphs of random vocabulary words with one unique marker each."""
    from fpdf import FPDF

    out.mkdir(parents=True, exist_ok=True)
    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    for n in range(1, pages + 1):
        pdf.add_page()
        pdf.cell(0, 10, f"Page {n}: inspection log entry number {n} for the clarifier basin, "
                        "no findings.")
    pdf.output(str(out / "inspection_log.pdf"))
    md = out / "notes"
    md.mkdir(exist_ok=True)
    rnd = random.Random(seed)
    for i in range(notes):
        paras = [" ".join(rnd.choice(VOCAB) for _ in range(rnd.randint(30, 60)))
                 for _ in range(rnd.randint(4, 8))]
        paras.insert(rnd.randrange(len(paras)), f"marker-{i:04d}-{rnd.getrandbits(40):x}")
        (md / f"note_{i:04d}.md").write_text(f"# Note {i}\n\n" + "\n\n".join(paras) + "\n")


def cli(env: dict, *args: str) -> tuple[int, str, str, float]:
    """(exit code, stdout, stderr, seconds) of `python -m backend ARGS`."""
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "backend", *args], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    return res.returncode, res.stdout.strip(), res.stderr.strip(), time.perf_counter() - t0


def repro(vector_search: str, keep: bool) -> None:
    work = Path(tempfile.mkdtemp(prefix="ragscope-repro-"))
    try:
        make_repro_files(work / "in")
        env = {**os.environ, "RAGSCOPE_DATA_DIR": str(work / "data"),
               "RAGSCOPE_VECTOR_SEARCH": vector_search, "HF_HUB_OFFLINE": "1"}
        steps = [("samples", str(ROOT / "data" / "samples")),
                 ("pdf", str(work / "in" / "inspection_log.pdf")),
                 ("notes", str(work / "in" / "notes"))]
        for name, path in steps:
            rc, out, err, secs = cli(env, "ingest", path, "--collection", "s", "-q")
            last = out.splitlines()[0] if out else ""
            rc2, check, _, secs2 = cli(env, "check", "--full", "-q", "--json")
            rep = json.loads(check[check.index("{"):]) if "{" in check else {}
            emit(part="repro", vector_search=vector_search, step=name, ingest_rc=rc,
                 ingest=last, ingest_s=round(secs, 1), check_rc=rc2,
                 active_chunks=rep.get("active_chunks"),
                 vector_unretrievable=len(rep.get("vector_unretrievable") or []),
                 documents=[f"{d['id']} {d['filename']}" for d in
                            (rep.get("documents") or {}).get("vector_unretrievable", [])][:8],
                 readback_warnings=[w for w in err.splitlines() if "cannot be found" in w][:3],
                 check_s=round(secs2, 1))
    finally:
        if keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


# ---- the synthetic sequence ----------------------------------------------------------------------

def sequence(n: int, mode: str, m: int, efc: int, efs: int, queries: int) -> dict:
    from backend.config import Settings
    from backend.index.chroma_index import ChromaVectorIndex
    from tests import vector_corpus as vc

    docs = vc.hostile(n)
    work = Path(tempfile.mkdtemp(prefix="ragscope-recall-"))
    ix = ChromaVectorIndex(Settings(data_dir=work, vector_search=mode, hnsw_m=m,
                                    hnsw_ef_construction=efc, hnsw_ef_search=efs))
    try:
        t0 = time.perf_counter()
        active = vc.run_sequence(ix, docs)
        write_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        misses = vc.self_retrieval_misses(ix, active)
        self_s = time.perf_counter() - t0
        q = vc.queries_near(active, queries)
        recall = vc.recall_at_k(ix, active, q)
        lat = []
        for v in q[:200]:
            t = time.perf_counter()
            ix.search(v, 10)
            lat.append((time.perf_counter() - t) * 1000)
        by_kind: dict[str, int] = {}
        kinds = {f"d{d.doc_id}-": d.kind for d in docs}
        for cid in misses:
            k = kinds.get(cid.split("-")[0] + "-", "?")
            by_kind[k] = by_kind.get(k, 0) + 1
        return dict(chunks=len(active), near_duplicates=sum(len(d.vectors) for d in docs
                                                           if d.kind != "topical"),
                    mode=mode, M=m, ef_construction=efc, ef_search=efs,
                    self_misses=len(misses), misses_by_kind=by_kind,
                    recall_at_10=round(recall, 4),
                    query_p50_ms=round(float(np.percentile(lat, 50)), 2),
                    query_p95_ms=round(float(np.percentile(lat, 95)), 2),
                    write_s=round(write_s, 1), self_check_s=round(self_s, 1))
    finally:
        ix.close()
        shutil.rmtree(work, ignore_errors=True)


# ---- the read-back's cost ----------------------------------------------------------------------

def readback_cost(files: int, rounds: int, chunks_per_file: int) -> dict:
    """Ingest generated files (bench/corpus.py) into two fresh data dirs, one with the
    read-back after every published batch and one without (`Publisher.read_back` replaced by
    a no-op), part by part in alternating order so both see the same machine load."""
    sys.path.insert(0, str(ROOT / "bench"))
    from corpus import make_document

    from backend.config import Settings
    from backend.ingest.publish import Publisher
    from backend.ingest.service import Ingestor
    from backend.services.container import Ragscope

    work = Path(tempfile.mkdtemp(prefix="ragscope-readback-"))
    try:
        paths = []
        for seed in range(files):
            name, text = make_document(seed, chunks_per_file * 640)
            (work / "in").mkdir(exist_ok=True)
            paths.append(work / "in" / name)
            paths[-1].write_text(text, encoding="utf-8")
        on = Ragscope(Settings(data_dir=work / "on"))
        off = Ragscope(Settings(data_dir=work / "off"))
        off.embedder = on.embedder
        on.embedder.encode(["warm-up"])
        real = Publisher.read_back
        spent = {"s": 0.0, "n": 0}

        def timed(self, pending, chunks, embeddings):
            t = time.perf_counter()
            real(self, pending, chunks, embeddings)
            spent["s"] += time.perf_counter() - t
            spent["n"] += 1

        secs = {"on": 0.0, "off": 0.0}
        chunks = {"on": 0, "off": 0}
        warned = 0
        parts = [paths[i::rounds] for i in range(rounds)]
        for r, part in enumerate(parts):
            for mode in (("on", "off") if r % 2 == 0 else ("off", "on")):
                Publisher.read_back = timed if mode == "on" else (lambda *a, **k: None)
                rs = on if mode == "on" else off
                t = time.perf_counter()
                outs = Ingestor(rs).ingest_paths(part, collection="c")
                secs[mode] += time.perf_counter() - t
                chunks[mode] += sum(o.chunks for o in outs)
                warned += sum(bool(o.unretrievable) for o in outs)
        Publisher.read_back = real
        on.close()
        off.close()
        return dict(files=files, chunks=chunks["on"], batches=spent["n"],
                    with_readback_chunks_per_s=round(chunks["on"] / secs["on"], 1),
                    without_chunks_per_s=round(chunks["off"] / secs["off"], 1),
                    readback_s=round(spent["s"], 2), ingest_s=round(secs["on"], 1),
                    readback_share=round(spent["s"] / secs["on"], 4),
                    readback_ms_per_batch=round(1000 * spent["s"] / max(spent["n"], 1), 1),
                    files_warned=warned)
    finally:
        shutil.rmtree(work, ignore_errors=True)


SWEEP = [(16, 100, 100), (32, 200, 200), (32, 400, 200), (48, 400, 200), (64, 400, 200),
         (64, 800, 200), (32, 200, 800), (64, 800, 800)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repro", action="store_true")
    ap.add_argument("--vector-search", default="exact", choices=["exact", "hnsw"])
    ap.add_argument("--keep", action="store_true", help="keep the reproduction's data dir")
    ap.add_argument("--chunks", type=int, default=0)
    ap.add_argument("--modes", default="exact,hnsw")
    ap.add_argument("--sweep", action="store_true")
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--readback", action="store_true",
                    help="ingest speed with and without the read-back after every batch")
    ap.add_argument("--files", type=int, default=240, help="--readback: generated files")
    ap.add_argument("--rounds", type=int, default=6, help="--readback: alternating parts")
    ap.add_argument("--per-file", type=int, default=8, help="--readback: chunks per file")
    a = ap.parse_args()
    emit(started=time.strftime("%Y-%m-%d %H:%M:%S"), nproc=os.cpu_count(), uptime=uptime())
    if a.repro:
        repro(a.vector_search, a.keep)
    if a.readback:
        emit(part="readback", uptime=uptime(),
             **readback_cost(a.files, a.rounds, a.per_file))
    if a.sweep:
        for m, efc, efs in SWEEP:
            emit(part="sweep", uptime=uptime(),
                 **sequence(a.chunks or 10_000, "hnsw", m, efc, efs, a.queries))
    elif a.chunks:
        from backend.config import Settings

        s = Settings()
        for mode in a.modes.split(","):
            emit(part="sequence", uptime=uptime(),
                 **sequence(a.chunks, mode, s.hnsw_m, s.hnsw_ef_construction,
                            s.hnsw_ef_search, a.queries))
    emit(finished=time.strftime("%Y-%m-%d %H:%M:%S"), uptime=uptime())


if __name__ == "__main__":
    main()
