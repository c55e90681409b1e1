"""Synthetic chunk vectors shaped like the issue-21 reproduction, for the vector-recall test
and bench (no embedding model needed, so 100k chunks are generated in seconds).

A corpus is a list of documents in ingest order; each document is a block of unit vectors:
  * topical documents: 5-40 chunks around a document direction mixed with one of the corpus's
    topics (chunks of one document at cosine ~0.6, of one topic ~0.3, like the sample corpus);
  * page logs: 500-2,000 near-identical chunks (cosine ~0.98 to each other: "Page N:
    inspection log entry number N ...");
  * vocabulary notes: 200-800 chunks drawn around one direction (cosine ~0.88: Markdown notes
    of random words from a 30-word vocabulary).
`hostile(n)` starts with a small topical corpus, then lets the dense families arrive — the
order that buried chunks in Chroma's HNSW graph — and goes on mixing both kinds."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DIM = 384


@dataclass
class Doc:
    doc_id: int
    kind: str  # topical | log | notes
    vectors: np.ndarray


def _unit(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


class Generator:
    def __init__(self, seed: int = 21, dim: int = DIM, topics: int = 60):
        self.rng = np.random.default_rng(seed)
        self.dim = dim
        self.topics = self.rng.standard_normal((topics, dim))
        self.next_id = 1

    def _doc(self, kind: str, m: int) -> Doc:
        r, d = self.rng, self.dim
        if kind == "log":
            base = r.standard_normal(d)
            x = base + r.standard_normal((m, d)) * 0.14
        elif kind == "notes":
            base = r.standard_normal(d)
            x = base + r.standard_normal((m, d)) * 0.38
        else:
            t = self.topics[r.integers(len(self.topics))]
            x = 0.8 * t + 0.9 * r.standard_normal(d) + r.standard_normal((m, d)) * 0.9
        doc = Doc(self.next_id, kind, _unit(x))
        self.next_id += 1
        return doc

    def topical(self) -> Doc:
        return self._doc("topical", int(self.rng.integers(5, 41)))

    def log(self) -> Doc:
        return self._doc("log", int(self.rng.integers(500, 2001)))

    def notes(self) -> Doc:
        return self._doc("notes", int(self.rng.integers(200, 801)))


def hostile(n: int, seed: int = 21) -> list[Doc]:
    """About n chunks: 2% topical documents first, then a page log and a family of notes
    (the reproduction's order), then topical documents with a dense family every ~8% of n."""
    g = Generator(seed)
    docs: list[Doc] = []
    total = 0

    def put(doc: Doc) -> None:
        nonlocal total
        docs.append(doc)
        total += len(doc.vectors)

    while total < 0.02 * n:
        put(g.topical())
    put(g.log())
    put(g.notes())
    since_family = 0
    while total < n:
        if since_family >= 0.08 * n:
            put(g.log() if g.rng.random() < 0.5 else g.notes())
            since_family = 0
        else:
            d = g.topical()
            put(d)
            since_family += len(d.vectors)
    return docs


# ---- the ingest / delete / re-ingest sequence ------------------------------------------------

def batches(docs: list[Doc], max_chunks: int = 128, max_docs: int = 16) -> list[list[Doc]]:
    """Documents grouped as the ingest pipeline publishes them (FLUSH_CHUNKS, FLUSH_FILES)."""
    out: list[list[Doc]] = [[]]
    for d in docs:
        if out[-1] and (sum(len(x.vectors) for x in out[-1]) >= max_chunks
                        or len(out[-1]) >= max_docs):
            out.append([])
        out[-1].append(d)
    return [b for b in out if b]


def chunk_ids(doc: Doc) -> list[str]:
    return [f"d{doc.doc_id}-{i}" for i in range(len(doc.vectors))]


def run_sequence(index, docs: list[Doc], seed: int = 5, on_batch=None) -> dict[str, np.ndarray]:
    """Ingest every document in order (pipeline batches), delete 10% of them, ingest half of
    those again (same ids and vectors: a re-ingest), replace 5% by a new version (new ids,
    vectors moved a little) and upsert 2% unchanged; returns the active chunks' vectors."""
    from backend.index.base import IndexedChunk

    rng = np.random.default_rng(seed)

    def add(batch: list[Doc], suffix: str = "") -> None:
        chunks, vecs = [], []
        for d in batch:
            for cid, v in zip(chunk_ids(d), d.vectors):
                chunks.append(IndexedChunk(chunk_id=cid + suffix, text="", document_id=d.doc_id,
                                           version_id=d.doc_id, doc_type=d.kind))
                vecs.append(v)
        index.add(chunks, np.asarray(vecs))
        if on_batch:
            on_batch(len(chunks))

    active: dict[str, np.ndarray] = {}
    for b in batches(docs):
        add(b)
        for d in b:
            active.update(zip(chunk_ids(d), d.vectors))
    pick = rng.permutation(len(docs))
    gone = [docs[i] for i in pick[: len(docs) // 10]]
    for d in gone:
        index.delete(chunk_ids(d))
        for cid in chunk_ids(d):
            del active[cid]
    for b in batches(gone[: len(gone) // 2]):
        add(b)
        for d in b:
            active.update(zip(chunk_ids(d), d.vectors))
    kept = [docs[i] for i in pick[len(docs) // 10:]]
    moved = kept[: len(kept) // 20]
    for d in moved:  # a new version: old chunks out, new ones in
        index.delete(chunk_ids(d))
        for cid in chunk_ids(d):
            del active[cid]
        d2 = Doc(d.doc_id, d.kind, _unit(d.vectors + rng.standard_normal(d.vectors.shape)
                                        * 0.02))
        add([d2], suffix="v2")
        active.update((cid + "v2", v) for cid, v in zip(chunk_ids(d2), d2.vectors))
    for b in batches(kept[len(kept) // 20: len(kept) // 20 + len(kept) // 50]):
        add(b)  # the same chunks again (upsert)
    return active


def self_retrieval_misses(index, active: dict[str, np.ndarray], k: int = 10,
                          same: float = 0.9999, block: int = 1000) -> list[str]:
    """Active chunks not among the k nearest of their own stored vector (a chunk whose vector
    another chunk shares, cosine >= `same`, counts as found, as in `check`)."""
    ids = sorted(active)
    stored = index.get_embeddings(ids)
    missing = [c for c in ids if c not in stored]
    ids = [c for c in ids if c in stored]
    for s in range(0, len(ids), block):
        part = ids[s:s + block]
        for cid, hits in zip(part, index.search_many([stored[c] for c in part], k)):
            if not any(h.chunk_id == cid or h.score >= same for h in hits):
                missing.append(cid)
    return missing


def recall_at_k(index, active: dict[str, np.ndarray], queries: np.ndarray, k: int = 10) -> float:
    """Mean overlap of the index's k nearest with exact (numpy) search over the active chunks."""
    ids = sorted(active)
    mat = np.stack([active[c] for c in ids])
    exact = np.argsort(-(queries @ mat.T), axis=1)[:, :k]
    got = index.search_many(list(queries), k)
    return float(np.mean([len({ids[j] for j in e} & {h.chunk_id for h in g}) / k
                          for e, g in zip(exact, got)]))


def queries_near(active: dict[str, np.ndarray], n: int, seed: int = 9,
                 noise: float = 0.03) -> np.ndarray:
    """Query vectors near stored chunks (a question about a passage lands near it)."""
    rng = np.random.default_rng(seed)
    ids = sorted(active)
    base = np.stack([active[ids[i]] for i in rng.choice(len(ids), n, replace=False)])
    return _unit(base + rng.standard_normal(base.shape) * noise)
