"""Generated corpus of the retrieval benchmarks (bench_retrieval, bench_filters,
bench_keyword_engines): document plans, the bulk build into store and indexes, and the query
set; the vocabularies are bench/retrieval_vocab.py's.

Texts are deterministic German/English sentences from templates and a Zipf-weighted vocabulary
with per-document topics; chunk vectors are a normalised mix of 2-4 real MiniLM embeddings of a
pool of ~2,000 generated sentences of the document's topic, plus small Gaussian noise (seeded
numpy). Embedding 100k chunks for real would take ~50 minutes on 2 cores; this keeps vector
statistics (clusters, neighbourhood structure) realistic at a fraction of the cost.
"""
from __future__ import annotations

import hashlib
import random
import re
import resource
import time
from pathlib import Path

from bench.retrieval_vocab import (
    DE_HEADINGS,
    DE_KINDS,
    DE_QUERIES,
    DOC_TYPES,
    EN_HEADINGS,
    EN_KINDS,
    EN_QUERIES,
    EXTS,
    N_TOPICS,
    SEED,
    Vocab,
)

GEN_VERSION = 1  # bump when the generator changes: cached corpora are rebuilt
CHUNKS_PER_DOC = 100
POOL_PER_TOPIC = 40  # 50 x 40 = 2,000 pool sentences embedded with the real model
NOISE = 0.15  # norm of the Gaussian noise added to a unit-length mixed vector

# ---------------------------------------------------------------------------------------
# Corpus generation
# ---------------------------------------------------------------------------------------

def doc_plan(vocab: Vocab, d: int, n_chunks: int):
    """One document: metadata, sections and chunk texts (deterministic in d)."""
    rng = random.Random(SEED + 7919 * d)
    topic = rng.randrange(N_TOPICS)
    r = rng.random()
    lang = "de" if r < 0.55 else "en" if r < 0.9 else "mixed"
    main = "en" if lang == "en" else "de"
    kind = rng.choice(DE_KINDS if main == "de" else EN_KINDS)
    subject = vocab.topics[topic][main][rng.randrange(4)]
    title = f"{kind} {subject} {rng.randint(2019, 2025)}"
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower().replace("ä", "ae").replace("ö", "oe")
                  .replace("ü", "ue").replace("ß", "ss")).strip("-")
    ext = rng.choice(EXTS)
    filename = f"{slug}-{d}.{ext}"
    heads = DE_HEADINGS if main == "de" else EN_HEADINGS
    # Sections: root, 3-6 chapters, each with 0-3 subsections; chunks go to the leaves.
    chapters = []
    for ci, h in enumerate(rng.sample(heads, rng.randint(3, 6)), 1):
        subs = [f"{ci}.{si} {vocab.noun(rng, main, topic)}" for si in range(1, rng.randint(0, 3) + 1)]
        chapters.append((f"{ci} {h}", subs))
    leaves = []  # (chapter index, sub index or None)
    for ci, (_, subs) in enumerate(chapters):
        leaves += [(ci, si) for si in range(len(subs))] if subs else [(ci, None)]
    # Distribute the chunks over the leaves in reading order (every leaf gets one or more).
    cuts = sorted(rng.sample(range(1, n_chunks), len(leaves) - 1)) if len(leaves) > 1 else []
    bounds = [0] + cuts + [n_chunks]
    chunk_texts = []
    for o in range(n_chunks):
        clang = main if lang != "mixed" else ("en" if rng.random() < 0.3 else "de")
        target = rng.randint(450, 800)
        parts, size = [], 0
        while size < target:
            s = vocab.sentence(rng, clang, topic)
            parts.append(s)
            size += len(s) + 1
        chunk_texts.append(" ".join(parts))
    return {"topic": topic, "lang": lang, "title": title, "filename": filename, "ext": ext,
            "doc_type": DOC_TYPES.get(kind, "generic"), "chapters": chapters, "leaves": leaves,
            "bounds": bounds, "chunks": chunk_texts}


def _chunk_id(n_total: int, d: int, o: int) -> str:
    return hashlib.sha256(f"ragscope-bench:{GEN_VERSION}:{n_total}:{d}:{o}".encode()).hexdigest()[:32]


def build_corpus(data_dir: Path, n_chunks: int, log) -> dict:
    import numpy as np
    from sqlalchemy import insert, text as sql_text, update

    from backend.config import Settings
    from backend.index.base import IndexedChunk
    from backend.services.container import Ragscope
    from backend.store import repo
    from backend.store.models import Chunk, Document, DocumentVersion, Section

    if n_chunks % CHUNKS_PER_DOC:
        raise SystemExit(f"size must be a multiple of {CHUNKS_PER_DOC}")
    n_docs = n_chunks // CHUNKS_PER_DOC
    t_start = time.perf_counter()
    vocab = Vocab()
    rs = Ragscope(Settings(data_dir=data_dir))
    emb = rs.embedder

    # 1. Pool sentences, embedded once with the real model.
    t0 = time.perf_counter()
    prng = random.Random(SEED + 1)
    pool, pool_topic = [], []
    for t in range(N_TOPICS):
        for i in range(POOL_PER_TOPIC):
            lang = "de" if i % 5 < 3 else "en"
            pool.append(" ".join(vocab.sentence(prng, lang, t) for _ in range(prng.randint(1, 3))))
            pool_topic.append(t)
    # The pool is the same for every size: cached next to the corpora, keyed by its texts.
    key = hashlib.sha256("\n".join(pool).encode()).hexdigest()[:12]
    cache = data_dir.parent / f"ragscope-bench-pool-{key}.npy"
    if cache.exists():
        pool_vecs = np.load(cache)
        log(f"  pool: {len(pool)} sentence vectors from {cache}")
    else:
        pool_vecs = emb.encode(pool, batch_size=64)
        np.save(cache, pool_vecs)
        log(f"  pool: {len(pool)} sentences embedded in {time.perf_counter() - t0:.1f}s")
    by_topic = [np.flatnonzero(np.asarray(pool_topic) == t) for t in range(N_TOPICS)]
    nrng = np.random.default_rng(SEED)
    dim = pool_vecs.shape[1]

    sec_id = 0
    t_gen = t_db = t_vec = t_kw = 0.0
    batch_docs = 100  # documents per store/index batch (= 10,000 chunks)
    for b0 in range(0, n_docs, batch_docs):
        t0 = time.perf_counter()
        docs, versions, sections, chunks, indexed, vecs = [], [], [], [], [], []
        for d in range(b0, min(n_docs, b0 + batch_docs)):
            plan = doc_plan(vocab, d, CHUNKS_PER_DOC)
            doc_id = ver_id = d + 1
            sha = hashlib.sha256(f"ragscope-bench-version:{n_chunks}:{d}".encode()).hexdigest()
            # Version text: headings and chunk texts; offsets follow from it.
            pieces, pos = [], 0
            chunk_pos, head_pos = [], {}

            def put(s: str) -> tuple[int, int]:
                nonlocal pos
                a = pos
                pieces.append(s)
                pos += len(s) + 2  # "\n\n"
                return a, a + len(s)

            put(plan["title"])
            leaf_of_chunk = []
            for li, (ci, si) in enumerate(plan["leaves"]):
                if si is None or si == 0:
                    head_pos[(ci, None)] = put(plan["chapters"][ci][0])[0]
                if si is not None:
                    head_pos[(ci, si)] = put(plan["chapters"][ci][1][si])[0]
                for o in range(plan["bounds"][li], plan["bounds"][li + 1]):
                    chunk_pos.append(put(plan["chunks"][o]))
                    leaf_of_chunk.append((ci, si))
            full = "\n\n".join(pieces)
            n = len(full)
            docs.append({"id": doc_id, "title": plan["title"], "filename": plan["filename"],
                         "source_kind": "file", "source_uri": f"bench://{n_chunks}/{plan['filename']}",
                         "file_type": plan["ext"], "doc_type": plan["doc_type"], "status": "active",
                         "meta": {"bench": True, "topic": plan["topic"]}})
            versions.append({"id": ver_id, "document_id": doc_id, "number": 1, "sha256": sha,
                             "size_bytes": len(full.encode()), "original_path": None,
                             "filename": plan["filename"], "text": full,
                             "page_count": CHUNKS_PER_DOC // 3 + 1,
                             "language": "" if plan["lang"] == "mixed" else plan["lang"],
                             "status": "indexed", "is_active": True, "meta": {"bench": True}})
            # Sections: root, chapters, subsections (ids assigned here, parents first).
            root = sec_id = sec_id + 1
            sec_rows = [{"id": root, "version_id": ver_id, "ordinal": 0, "parent_id": None,
                         "level": 0, "kind": "document", "title": plan["title"], "number": None,
                         "start": 0, "end": n, "page_start": 1, "page_end": CHUNKS_PER_DOC // 3 + 1}]
            ids_of = {}
            ch_starts = sorted((head_pos[(ci, None)], ci) for ci in range(len(plan["chapters"])))
            for k, (a, ci) in enumerate(ch_starts):
                end = ch_starts[k + 1][0] if k + 1 < len(ch_starts) else n
                sec_id += 1
                ids_of[(ci, None)] = sec_id
                title, subs = plan["chapters"][ci]
                sec_rows.append({"id": sec_id, "version_id": ver_id, "ordinal": len(sec_rows),
                                 "parent_id": root, "level": 1, "kind": "chapter", "title": title,
                                 "number": str(ci + 1), "start": a, "end": end,
                                 "page_start": None, "page_end": None})
                for si in range(len(subs)):
                    sa = head_pos[(ci, si)]
                    se = head_pos[(ci, si + 1)] if si + 1 < len(subs) else end
                    sec_id += 1
                    ids_of[(ci, si)] = sec_id
                    sec_rows.append({"id": sec_id, "version_id": ver_id, "ordinal": len(sec_rows),
                                     "parent_id": ids_of[(ci, None)], "level": 2, "kind": "section",
                                     "title": subs[si], "number": f"{ci + 1}.{si + 1}",
                                     "start": sa, "end": se, "page_start": None, "page_end": None})
            sections += sec_rows
            titles = {r["id"]: r["title"] for r in sec_rows}
            # Chunks and their vectors.
            topic = plan["topic"]
            for o, ((a, e), leaf) in enumerate(zip(chunk_pos, leaf_of_chunk)):
                cid = _chunk_id(n_chunks, d, o)
                sid = ids_of[leaf]
                chunks.append({"id": cid, "version_id": ver_id, "document_id": doc_id,
                               "section_id": sid, "ordinal": o, "start": a, "end": e,
                               "page": o // 3 + 1, "page_end": o // 3 + 1,
                               "text": plan["chunks"][o]})
                indexed.append(IndexedChunk(
                    chunk_id=cid, text=plan["chunks"][o], document_id=doc_id, version_id=ver_id,
                    doc_type=plan["doc_type"], title=plan["title"], filename=plan["filename"],
                    section_title=titles[sid],
                    language="" if plan["lang"] == "mixed" else plan["lang"]))
                m = int(nrng.integers(2, 5))
                own = nrng.random(m) < 0.85
                picks = np.where(own, nrng.choice(by_topic[topic], m),
                                 nrng.integers(0, len(pool), m))
                w = nrng.uniform(0.5, 1.5, m).astype(np.float32)
                v = (w[:, None] * pool_vecs[picks]).sum(0)
                v /= np.linalg.norm(v)
                v += nrng.normal(0.0, NOISE / np.sqrt(dim), dim).astype(np.float32)
                vecs.append(v / np.linalg.norm(v))
        t_gen += time.perf_counter() - t0

        t0 = time.perf_counter()
        with rs.store.session() as s:
            s.execute(insert(Document), docs)
            s.execute(insert(DocumentVersion), versions)
            s.execute(insert(Section), sections)
            s.execute(insert(Chunk), chunks)
            s.execute(update(Document).where(Document.id.in_([x["id"] for x in docs]))
                      .values(active_version_id=Document.id))
        t_db += time.perf_counter() - t0
        t0 = time.perf_counter()
        rs.vector_index.add(indexed, np.asarray(vecs, dtype=np.float32))
        t_vec += time.perf_counter() - t0
        t0 = time.perf_counter()
        rs.keyword_index.add(indexed)
        t_kw += time.perf_counter() - t0
        done = min(n_docs, b0 + batch_docs) * CHUNKS_PER_DOC
        log(f"  {done:>7} chunks  gen {t_gen:.0f}s  store {t_db:.0f}s  chroma {t_vec:.0f}s  "
            f"tantivy {t_kw:.0f}s")

    with rs.store.session() as s:
        s.execute(sql_text("ANALYZE"))
        params = rs.index_params()
        for name, count in (("vector", rs.vector_index.count()), ("keyword", rs.keyword_index.count())):
            repo.put_index_meta(s, name, params[name]["backend"], params[name], count, rebuilt=True)
    counts = {"vector": rs.vector_index.count(), "keyword": rs.keyword_index.count()}
    if counts["vector"] != n_chunks or counts["keyword"] != n_chunks:
        raise RuntimeError(f"index counts {counts} != {n_chunks}")
    info = {"gen_version": GEN_VERSION, "seed": SEED, "chunks": n_chunks, "documents": n_docs,
            "sections": sec_id, "pool_sentences": len(pool),
            "build_s": {"generate": round(t_gen, 1), "store": round(t_db, 1),
                        "chroma": round(t_vec, 1), "tantivy": round(t_kw, 1),
                        "total": round(time.perf_counter() - t_start, 1)},
            "build_maxrss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
            "disk_mib": _du_mib(data_dir)}
    rs.close()
    return info


def _du_mib(path: Path) -> int:
    return round(sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20)


# ---------------------------------------------------------------------------------------
# Queries
# ---------------------------------------------------------------------------------------

def make_queries(n: int, seed: int) -> list[str]:
    """n distinct realistic queries (60 % German), none in inventory mode."""
    from backend.retrieval.query import parse_query

    vocab = Vocab()
    rng = random.Random(seed)
    out: dict[str, None] = {}
    while len(out) < n:
        lang = "de" if rng.random() < 0.6 else "en"
        tpl = rng.choice(DE_QUERIES if lang == "de" else EN_QUERIES)
        q = vocab.fill(tpl, rng, lang, rng.randrange(N_TOPICS))
        q = q[0].upper() + q[1:] if rng.random() < 0.5 else q
        if q not in out and not parse_query(q).inventory:
            out[q] = None
    return list(out)
