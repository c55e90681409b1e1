"""Where the ingest time goes (bench/bench_ingest.py): every function the ingestor calls is
timed by wrapping it (no backend code changes; `Stages.restore()` undoes the wrapping), and
`breakdown` turns the inclusive times into exclusive rows that add up to the total.

The ingest embeds a batch in a thread of its own while the next files are extracted and
stored (backend/ingest/batches.py): time spent in other threads is kept apart
(`Stages.bg_wall`, `bg_cpu`), the ingest thread's wait for the embeddings is a row of its own, and
the embedding thread's encode time is the last row, beside the sum. CPU seconds are the
calling thread's (`time.thread_time`); in the last row the process's during the encodes (the
encoder computes in threads of its own; the ingest thread's work meanwhile is in it too)."""
from __future__ import annotations

import sys
import threading
import time
from collections import defaultdict


class Stages:
    """Accumulates wall/CPU seconds of wrapped callables; `restore()` undoes the wrapping."""

    def __init__(self):
        self.wall: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        # `cpu` is the main thread's; wall/cpu spent outside it (the embedding thread) here
        self.bg_wall: dict[str, float] = defaultdict(float)
        self.bg_cpu: dict[str, float] = defaultdict(float)
        self._undo: list[tuple[object, str, object, bool]] = []

    def wrap(self, owner: object, attr: str, label: str) -> None:
        if not hasattr(owner, attr):  # the ingestor was refactored: time what is there
            print(f"  note: {getattr(owner, '__name__', owner)!s}.{attr} not found, not timed",
                  file=sys.stderr)
            return
        had_own = attr in getattr(owner, "__dict__", {})
        orig = getattr(owner, attr)

        def timed(*args, **kwargs):
            c0, p0, t0 = time.thread_time(), time.process_time(), time.perf_counter()
            try:
                return orig(*args, **kwargs)
            finally:
                wall = time.perf_counter() - t0
                self.wall[label] += wall
                self.calls[label] += 1
                if threading.current_thread() is threading.main_thread():
                    self.cpu[label] += time.thread_time() - c0
                else:  # the encoder computes in threads of its own: the process's CPU
                    self.bg_wall[label] += wall
                    self.bg_cpu[label] += time.process_time() - p0

        self._undo.append((owner, attr, orig, had_own))
        setattr(owner, attr, timed)

    def restore(self) -> None:
        for owner, attr, orig, had_own in reversed(self._undo):
            if had_own:
                setattr(owner, attr, orig)
            else:
                delattr(owner, attr)
        self._undo.clear()


def instrument(rs, stages: Stages) -> None:
    from backend.ingest import batches, indexing, pipeline, publish, writing
    from backend.ingest import service as svc

    # what one file goes through before the store (backend/ingest/pipeline.py calls these by
    # the names it imported, so they are wrapped there)
    for name, label in [("extract", "extract"), ("normalise", "normalise"),
                        ("build_sections", "structure"), ("chunk_text", "chunking"),
                        ("classify", "classify")]:
        stages.wrap(pipeline, name, label)
    for name, label in [("update_job", "job_update"),
                        ("start_job", "job_start_finish"), ("finish_job", "job_start_finish"),
                        ("sha256_bytes", "sha256")]:
        stages.wrap(svc, name, label)
    stages.wrap(writing, "detect_language", "language")  # the store stage's (VersionWriter)
    # the Ingestor's stages and the collaborators that run them, under the labels used below
    for owner, name, label in [
            (svc.Ingestor, "ingest_file", "ingest_file"),
            (svc.Ingestor, "ingest_bytes", "ingest_bytes"),
            (svc.Ingestor, "_ingest_bytes", "_ingest_bytes"),
            (svc.Ingestor, "_prepare", "_prepare"),
            (svc.Ingestor, "_store_original", "_store_original"),
            (writing.VersionWriter, "write", "_store"),
            (publish.Publisher, "publish", "_index_pending"),
            (indexing.IndexWriter, "encode", "_encode"),
            (indexing.IndexWriter, "add", "_add_to_indexes"),
            (indexing.IndexWriter, "deactivate", "_deactivate"),
            (indexing.IndexWriter, "record_counts", "_record_index_counts"),
            (svc.Ingestor, "check_guardrails", "check_guardrails"),
            (svc.Ingestor, "repair_interrupted", "repair_interrupted"),
            (publish.Publisher, "read_back", "_read_back"),
            (batches.Pipeline, "_take_embedded", "embed_wait")]:
        stages.wrap(owner, name, label)
    stages.wrap(rs.embedder, "encode", "embed")
    stages.wrap(rs.vector_index, "add", "chroma_add")
    stages.wrap(rs.keyword_index, "add", "tantivy_add")


EMBED_THREAD = "embedding thread: Embedder.encode (beside the rows above, not in the total)"


def breakdown(st: Stages, total: float) -> list[tuple[str, float, float]]:
    """Exclusive (stage, wall s, cpu s) rows of the ingest thread that add up to `total`
    wall seconds, and last the embedding thread's encode time (it runs beside them)."""
    # the ingest (main) thread's times; the embedding thread's only in the last row
    w = defaultdict(float, {k: v - st.bg_wall[k] for k, v in st.wall.items()})
    c = st.cpu

    def row(label, *, minus=(), key=None):
        k = key or label
        return (label, w[k] - sum(w[m] for m in minus), c[k] - sum(c[m] for m in minus))

    rows = [
        ("extraction", w["extract"], c["extract"]),
        ("normalise", w["normalise"], c["normalise"]),
        ("structure (sections)", w["structure"], c["structure"]),
        ("chunking", w["chunking"], c["chunking"]),
        ("language + classify", w["language"] + w["classify"], c["language"] + c["classify"]),
        row("read file", minus=("ingest_bytes", "_ingest_bytes"), key="ingest_file"),
        ("sha256", w["sha256"], c["sha256"]),
        ("store original file", w["_store_original"], c["_store_original"]),
        row("SQLite: document/version rows", key="_ingest_bytes",
            minus=("_prepare", "_store", "_store_original", "sha256")),
        row("SQLite: text, sections, chunks", key="_store", minus=("language",)),
        row("SQLite: activate versions", key="_index_pending",
            minus=("_encode", "_add_to_indexes", "_record_index_counts", "_deactivate",
                   "_read_back")),
        ("read-back (own-vector search of a sample)", w["_read_back"], c["_read_back"]),
        ("SQLite: index counts", w["_record_index_counts"], c["_record_index_counts"]),
        ("SQLite: job progress", w["job_update"] + w["job_start_finish"],
         c["job_update"] + c["job_start_finish"]),
        ("guardrails + repair (once)", w["check_guardrails"] + w["repair_interrupted"],
         c["check_guardrails"] + c["repair_interrupted"]),
        ("embedding (Embedder.encode) in the ingest thread", w["embed"], c["embed"]),
        ("waiting for the embedding thread", w["embed_wait"], c["embed_wait"]),
        ("Chroma add", w["chroma_add"], c["chroma_add"]),
        ("tantivy add", w["tantivy_add"], c["tantivy_add"]),
        row("_add_to_indexes other (incl. waiting for the write lock)", key="_add_to_indexes",
            minus=("chroma_add", "tantivy_add")),
        ("deactivate old versions", w["_deactivate"], c["_deactivate"]),
    ]
    prepared = ("extract", "normalise", "structure", "chunking", "classify")  # in _prepare
    prep_rest = w["_prepare"] - sum(w[k] for k in prepared)
    prep_rest_c = c["_prepare"] - sum(c[k] for k in prepared)
    rows.append(("_prepare other", prep_rest, prep_rest_c))
    top = (w["ingest_file"] + w["_index_pending"] + w["job_update"] + w["job_start_finish"]
           + w["check_guardrails"] + w["repair_interrupted"] + w["embed_wait"])
    rows.append(("loop, progress bar, other", total - top, 0.0))
    rows.append((EMBED_THREAD, st.bg_wall["embed"], st.bg_cpu["embed"]))
    return rows
