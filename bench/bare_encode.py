"""The bare encoder of bench/bench_ingest.py: the backend's encoder without ragscope around
it (for torch `SentenceTransformer.encode`), in a worker process started by the run and idle
while the ingest runs, so that the ingesting process's peak RSS is the ingest's own."""
from __future__ import annotations

import time

from machine import peak_rss_mib


class BareWorker:
    """A child process holding the bare encoder; encodes on request, idle otherwise."""

    def __init__(self, model_name: str, batch_size: int, grouped: bool):
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_bare_worker, args=(child, model_name, batch_size, grouped),
                                daemon=True)
        self.proc.start()
        _, self.load_s, self.rss = self.conn.recv()

    def encode(self, groups: list[list[str]]) -> tuple[float, float, float, float]:
        """(wall, cpu, grouped wall, grouped cpu) seconds of encoding `groups` (one list of
        chunk texts per document)."""
        self.conn.send(groups)
        wall, cpu, gwall, gcpu, self.rss = self.conn.recv()
        return wall, cpu, gwall, gcpu

    def close(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(timeout=30)


def _bare_worker(conn, model_name: str, batch_size: int, grouped: bool) -> None:
    import backend  # noqa: F401  (same environment as the ingestor)
    from backend.config import Settings
    from backend.embed.embedder import Embedder

    # the ingestor's backend, threads and ONNX export (RAGSCOPE_EMBEDDING_* of this run),
    # called below the Embedder: for torch that is SentenceTransformer.encode
    emb = Embedder.from_settings(Settings())
    t0 = time.perf_counter()
    emb.warm_up()
    load_s = time.perf_counter() - t0
    enc = emb._get_encoder()
    enc.encode_passages(["warm-up", "Aufwärmen des Modells"], batch_size)
    conn.send(("ready", load_s, peak_rss_mib()))
    while (groups := conn.recv()) is not None:
        texts = [t for g in groups for t in g]
        c0, t0 = time.process_time(), time.perf_counter()
        enc.encode_passages(texts, batch_size)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        gwall = gcpu = 0.0
        if grouped:
            c0, t0 = time.process_time(), time.perf_counter()
            for g in groups:
                enc.encode_passages(g, batch_size)
            gwall, gcpu = time.perf_counter() - t0, time.process_time() - c0
        conn.send((wall, cpu, gwall, gcpu, peak_rss_mib()))
