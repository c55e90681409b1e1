"""Report of bench_retrieval: the markdown tables, the environment line and the section
it replaces in docs/benchmarks.md."""
from __future__ import annotations

import datetime as dt
import os
import platform
import re
import subprocess
from pathlib import Path

DOC_SECTION = "Retrieval latency (issue 3)"
POLICY_ORDER = ("hybrid", "semantic_only", "lexical_only", "document_first", "section_first")


def fmt(x: float) -> str:
    return f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def tables(results: dict[int, dict]) -> str:
    sizes = sorted(results)
    lines = []
    head = "| call | " + " | ".join(f"{n // 1000}k p50 | {n // 1000}k p95" for n in sizes) + " |"
    lines += [head, "|---|" + "---:|---:|" * len(sizes)]

    def row(label, key):
        cells = []
        for n in sizes:
            s = results[n]["stats"][key]
            cells += [fmt(s["p50"]), fmt(s["p95"])]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")

    cand = results[sizes[0]]["candidates"]
    row("query embedding (`encode_query`, uncached)", "embed")
    row(f"Chroma query (`vector_index.search`, k={cand})", "chroma")
    row(f"tantivy query (`keyword_index.search`, k={cand})", "keyword")
    for p in POLICY_ORDER:
        row(f"`retrieve()` {p}", f"full:{p}")
    for p in POLICY_ORDER:
        row(f"`retrieve()` {p}, precomputed embedding", f"pre:{p}")
    lines.append("")
    lines.append("All times in ms. `retrieve()` uses default parameters (k=10, "
                 f"{cand} candidates per retriever, weighted fusion).")
    lines.append("")
    # Goals
    lines += ["| goal | " + " | ".join(f"{n // 1000}k" for n in sizes) + " |",
              "|---|" + "---:|" * len(sizes)]
    g1, g2, g3, g4 = [], [], [], []
    for n in sizes:
        st = results[n]["stats"]
        base = st["embed"]["p50"] + max(st["chroma"]["p50"], st["keyword"]["p50"])
        hyb = st["full:hybrid"]["p50"]
        g1.append(fmt(base))
        g2.append(f"{hyb / base:.2f} {'✅' if hyb <= 1.25 * base else '❌'}")
        g3.append(f"{fmt(hyb)} {'✅' if hyb <= 16 else '❌'}" if n == 100_000 else f"{fmt(hyb)}")
        g4.append(f"{results[n]['maxrss_mib']} MiB")
    lines.append("| embedding p50 + slower search p50 (ms) | " + " | ".join(g1) + " |")
    lines.append("| hybrid p50 / that (goal ≤ 1.25) | " + " | ".join(g2) + " |")
    lines.append("| hybrid p50 ms (issue 15 goal: ≤ 16 at 100k) | " + " | ".join(g3) + " |")
    lines.append("| peak RSS of the query process (ru_maxrss) | " + " | ".join(g4) + " |")
    lines.append("")
    # Hybrid trace breakdown
    lines.append("Where a full hybrid call spends its time (medians of the trace's stage "
                 "times; query embedding + vector search run one after the other, concurrently "
                 "with the keyword search; \"unaccounted\" = caller's wall time minus the "
                 "critical path of the traced stages):")
    lines.append("")
    lines += ["| hybrid stage | " + " | ".join(f"{n // 1000}k p50 | {n // 1000}k mean" for n in sizes) + " |",
              "|---|" + "---:|---:|" * len(sizes)]
    names = list(results[sizes[-1]]["hybrid_stages"])
    for name in names:
        cells = []
        for n in sizes:
            s = results[n]["hybrid_stages"].get(name)
            cells += [fmt(s["p50"]), fmt(s["mean"])] if s else ["", ""]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("")
    if any(results[n].get("variants") for n in sizes):
        lines.append("A/B in the same run: the same queries in a fresh process with extra "
                     "environment variables (times in ms):")
        lines.append("")
        lines += ["| variant | size | embedding p50 | Chroma p50 | tantivy p50 | hybrid p50 | "
                  "hybrid p95 | hybrid, precomputed emb. p50 | hybrid / (emb. + slower search) |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for n in sizes:
            for label, res in [("as configured", results[n])] + list(results[n]["variants"].items()):
                st = res["stats"]
                base = st["embed"]["p50"] + max(st["chroma"]["p50"], st["keyword"]["p50"])
                lines.append(f"| {label} | {n // 1000}k | {fmt(st['embed']['p50'])} | "
                             f"{fmt(st['chroma']['p50'])} | {fmt(st['keyword']['p50'])} | "
                             f"{fmt(st['full:hybrid']['p50'])} | {fmt(st['full:hybrid']['p95'])} | "
                             f"{fmt(st['pre:hybrid']['p50'])} | {st['full:hybrid']['p50'] / base:.2f} |")
        lines.append("")
    lines.append("| run | " + " | ".join(f"{n // 1000}k" for n in sizes) + " |")
    lines.append("|---|" + "---:|" * len(sizes))
    lines.append("| documents / sections | " + " | ".join(
        f"{results[n]['corpus']['documents']} / {results[n]['corpus']['sections']}" for n in sizes) + " |")
    lines.append("| corpus on disk | " + " | ".join(f"{results[n]['corpus']['disk_mib']} MiB" for n in sizes) + " |")
    lines.append("| RSS after open + warm-up | " + " | ".join(f"{results[n]['rss_ready_mib']} MiB" for n in sizes) + " |")
    lines.append("| peak RSS of the build process | " + " | ".join(
        f"{results[n]['corpus'].get('build_maxrss_mib', '?')} MiB" for n in sizes) + " |")
    lines.append("| build time (gen / store / Chroma / tantivy) | " + " | ".join(
        "{generate:.0f} / {store:.0f} / {chroma:.0f} / {tantivy:.0f} s".format(**results[n]['corpus']['build_s'])
        for n in sizes) + " |")
    lines.append("| load average before → after the timed loop | " + " | ".join(
        f"{results[n]['loadavg_before'][0]:.2f} → {results[n]['loadavg_after'][0]:.2f}" for n in sizes) + " |")
    lines.append("| queries timed (warm-up) | " + " | ".join(
        f"{results[n]['queries']} ({results[n]['warmup']})" for n in sizes) + " |")
    return "\n".join(lines)


def environment() -> dict:
    import importlib.metadata as md
    import sqlite3

    cpu = ""
    try:
        cpu = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                   if l.startswith("model name"))
    except (OSError, StopIteration):
        cpu = platform.processor()
    versions = {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version}
    for pkg in ("chromadb", "tantivy", "sentence-transformers", "torch", "SQLAlchemy", "numpy"):
        try:
            versions[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            versions[pkg] = "-"
    nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    from backend.config import Settings
    from backend.embed import resolve_backend

    st = Settings()
    return {"embedding_backend": resolve_backend(st.embedding_model, st.embedding_backend),
            "date": dt.date.today().isoformat(), "nproc": nproc or str(os.cpu_count()),
            "cpu": cpu, "versions": versions,
            "mem_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30)}


def markdown(results: dict[int, dict], env: dict, cmd: str, section: str = DOC_SECTION) -> str:
    v = env["versions"]
    vers = ", ".join(f"{k} {x}" for k, x in v.items())
    busy = max(r["loadavg_before"][0] for r in results.values())
    load_note = "" if busy < float(env["nproc"] or 1) else (
        f"\n**Caveat:** the machine was shared with other jobs during this run (1-minute load "
        f"average up to {busy:.1f} on {env['nproc']} cores, see the last table); the figures "
        f"are upper bounds, the embedding ones most of all.\n")
    return f"""## {section}

Measured {env['date']} on {env['nproc']} cores ({env['cpu']}), {env['mem_gib']} GiB RAM;
{vers}. Embedding model all-MiniLM-L6-v2 on CPU ({env.get('embedding_backend', 'torch')} backend);
tantivy keyword backend; embedded Chroma (HNSW M=32, ef_search=200). Reproduce: `{cmd}`.

**Method.** `bench/bench_retrieval.py` writes a generated corpus straight into the store
(SQLAlchemy Core bulk inserts: 100 chunks per document, each document with a root, 3-6 chapters
and 0-3 subsections per chapter; versions `indexed` and active) and into both indexes in
batches of 10,000 chunks (`vector_index.add`, `keyword_index.add`). Texts are deterministic
German (55 %), English (35 %) and mixed (10 %) sentences from 20 templates per language, with a
Zipf-weighted vocabulary (~1,000 nouns incl. German compounds; 280 config keys such as
`backup_retention_days`, `smtp.port`, `RAGSCOPE_LOG_LEVEL`, paragraph and form numbers) and 50
topics, each favouring its own nouns, keys and roles, so BM25 sees realistic term statistics.
**Vectors are synthetic but MiniLM-shaped:** 2,000 generated sentences (40 per topic) were
embedded once with the real model; each chunk vector is a normalised weighted sum of 2-4 pool
vectors (85 % from the document's topic) plus Gaussian noise of norm 0.15, renormalised (seeded
numpy). Embedding 100k chunks for real would take ~50 minutes here (torch). Queries: {results[min(results)]['queries']}
distinct generated German (60 %) and English questions, some with config keys or environment
variable names, none in inventory mode; a separate warm-up set runs every call first. Per query
the calls are interleaved (the order rotates per query) so that background load affects all
rows alike. The embedder's LRU cache is cleared before every `encode_query` and every full
`retrieve()`; "precomputed embedding" passes `query_embedding=`. Each size runs in a fresh
process; its peak RSS covers the model, Chroma, tantivy and SQLite serving the queries (not the
build).
{load_note}
{tables(results)}
"""


NOTES_START, NOTES_END = "<!-- bench_retrieval notes -->", "<!-- /bench_retrieval notes -->"


def record(md_text: str, path: Path, notes: str | None = None,
           section: str = DOC_SECTION) -> None:
    """Replace our own section in docs/benchmarks.md (or append it); others' sections stay.
    A hand-written block between the notes markers in our section is kept (or replaced by
    `notes`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    old = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    pat = re.compile(rf"^## {re.escape(section)}\n.*?(?=^## |\Z)", re.M | re.S)
    m = pat.search(old)
    if notes is None and m and NOTES_START in m.group(0):
        sec = m.group(0)
        notes = sec[sec.index(NOTES_START) + len(NOTES_START): sec.index(NOTES_END)].strip()
    body = md_text.rstrip() + "\n"
    if notes:
        body += f"\n{NOTES_START}\n{notes.strip()}\n{NOTES_END}\n"
    if m:
        new = pat.sub(lambda _: body + "\n", old, count=1)
    else:
        new = old.rstrip() + "\n\n" + body
    tmp = path.with_suffix(".md.tmp-bench-retrieval")
    tmp.write_text(new.rstrip() + "\n", encoding="utf-8")
    os.replace(tmp, path)
