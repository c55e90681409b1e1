"""`python -m backend …`: everything the dashboard does, scriptable. Errors from the
RagscopeError hierarchy become one line on stderr and a non-zero exit, here and only here."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from backend.config import Settings
from backend.errors import RagscopeError


def _rs():
    from backend.services import Ragscope

    return Ragscope(Settings())


def _ingestor():
    from backend.ingest.service import Ingestor

    return Ingestor(_rs())


def cmd_ingest(a) -> int:
    from tqdm import tqdm

    from backend.ingest.service import iter_files

    ing = _ingestor()
    files = iter_files(a.paths)
    missing = [p for p in files if not p.exists()]
    for p in missing:
        print(f"error: {p}: no such file or folder", file=sys.stderr)
    files = [p for p in files if p.exists()]
    bar = tqdm(total=len(files), unit="file", disable=a.quiet or not files, file=sys.stderr)

    def progress(i, total, out):
        bar.update(1)
        bar.set_postfix_str(out.filename[:40])
        if not out.ok:
            tqdm.write(f"FAILED {out.error}", file=sys.stderr)

    outcomes = ing.ingest_paths(files, collection=a.collection, on_progress=progress)
    bar.close()
    by = {}
    for o in outcomes:
        by[o.status] = by.get(o.status, 0) + 1
    chunks = sum(o.chunks for o in outcomes)
    summary = ", ".join(f"{n} {k}" for k, n in sorted(by.items())) or "nothing to do"
    print(f"{len(outcomes)} files: {summary}; {chunks} chunks indexed")
    for o in outcomes:
        for w in o.warnings:
            print(f"warning: {o.filename}: {w}", file=sys.stderr)
    return 1 if (missing or any(not o.ok for o in outcomes)) else 0


def cmd_list(a) -> int:
    from backend.store import repo

    rs = _rs()
    with rs.store.session() as s:
        f = repo.DocumentFilter(collections=[a.collection] if a.collection else None)
        if a.collection:
            repo.get_collection(s, a.collection)
        docs, total = repo.list_documents(s, f, limit=a.limit)
        rows = [(d.id, d.status, d.doc_type, d.file_type,
                 next((v.number for v in d.versions if v.id == d.active_version_id), "-"),
                 len(d.versions), ",".join(repo.document_collections(s, d.id)), d.title)
                for d in docs]
    print(f"{'id':>4}  {'status':<8} {'type':<9} {'file':<5} {'ver':>3}/{'n':<2} "
          f"{'collections':<18} title")
    for r in rows:
        print(f"{r[0]:>4}  {r[1]:<8} {r[2]:<9} {r[3]:<5} {r[4]:>3}/{r[5]:<2} {r[6][:18]:<18} {r[7]}")
    print(f"{len(rows)} of {total} documents")
    return 0


def cmd_show(a) -> int:
    from backend.store import repo

    rs = _rs()
    with rs.store.session() as s:
        d = repo.get_document(s, a.doc)
        print(f"document {d.id}: {d.title}")
        print(f"  file: {d.filename} ({d.file_type}), type: {d.doc_type}, status: {d.status}")
        print(f"  source: {d.source_kind} {d.source_uri}")
        print(f"  collections: {', '.join(repo.document_collections(s, d.id)) or '-'}")
        for v in d.versions:
            mark = "*" if v.id == d.active_version_id else " "
            extra = f" error: {v.error}" if v.error else ""
            print(f"  {mark} version {v.number} (id {v.id}) {v.status}, {v.size_bytes} bytes, "
                  f"sha256 {v.sha256[:12]}, pages {v.page_count or '-'}, "
                  f"lang {v.language or '-'}{extra}")
        vid = d.active_version_id
        if a.version:
            vid = next((v.id for v in d.versions if v.number == a.version), None)
            if vid is None:
                raise RagscopeError(f"document {d.id} has no version {a.version}")
        if vid is None:
            return 0
        secs = repo.sections_of(s, vid)
        nchunks = {}
        for c in repo.chunks_of(s, vid):
            nchunks[c.section_id] = nchunks.get(c.section_id, 0) + 1
        print("  sections:")
        for sec in secs:
            if sec.parent_id is None and sec.kind == "document":
                continue
            pages = (f"p. {sec.page_start}" + (f"-{sec.page_end}" if sec.page_end != sec.page_start
                                                else "")) if sec.page_start else ""
            indent = "    " + "  " * max(0, sec.level - 1)
            print(f"{indent}{sec.title}  [{sec.kind}, chars {sec.start}-{sec.end}"
                  f"{', ' + pages if pages else ''}, {nchunks.get(sec.id, 0)} chunks]")
    return 0


def cmd_original(a) -> int:
    from backend.store import repo

    rs = _rs()
    with rs.store.session() as s:
        d = repo.get_document(s, a.doc)
        v = next((v for v in d.versions if (v.number == a.version if a.version
                                            else v.id == d.active_version_id)), None)
        if v is None or not v.original_path:
            raise RagscopeError(f"document {d.id} has no stored original for that version")
        src = rs.settings.originals_dir / v.original_path
        out = Path(a.out or v.filename)
    out.write_bytes(src.read_bytes())
    print(f"wrote {out}")
    return 0


def cmd_delete(a) -> int:
    doc_id = _ingestor().delete_document(a.doc)
    print(f"deleted document {doc_id}")
    return 0


def cmd_activate(a) -> int:
    _ingestor().activate(a.version_id)
    print(f"version {a.version_id} is now active")
    return 0


def cmd_reindex(a) -> int:
    from tqdm import tqdm

    bar = tqdm(unit="chunk", file=sys.stderr, disable=a.quiet)

    def progress(done, total):
        bar.total = total
        bar.n = done
        bar.refresh()

    res = _ingestor().reindex(on_progress=progress)
    bar.close()
    print(f"reindexed {res['chunks']} chunks of {res['versions']} versions "
          f"({res['rechunked']} re-chunked)")
    return 0


def cmd_check(a) -> int:
    ing = _ingestor()
    report = ing.repair() if a.repair else ing.check()
    problems = {k: v for k, v in report.items() if v}
    if not problems:
        print("ok: store and both indexes agree")
        return 0
    for k, v in problems.items():
        print(f"{k}: {len(v)}" + (f" (e.g. {', '.join(map(str, v[:3]))})" if v else ""))
    if a.repair:
        print("repaired")
        return 0
    print("run `python -m backend check --repair` to fix")
    return 1


def cmd_collections(a) -> int:
    from backend.store import repo

    rs = _rs()
    with rs.store.session() as s:
        for c, n in repo.list_collections(s):
            print(f"{c.name}\t{n} documents")
    return 0


def cmd_status(a) -> int:
    from backend.store import repo

    rs = _rs()
    with rs.store.session() as s:
        info = {"counts": repo.counts(s),
                "index_meta": {m: (lambda x: x and {"backend": x.backend, "params": x.params,
                                                     "chunks": x.chunk_count})(
                    repo.get_index_meta(s, m)) for m in ("vector", "keyword")}}
    print(json.dumps(info, indent=2, default=str))
    return 0


def cmd_search(a) -> int:
    from backend.retrieval import RetrievalParams, Retriever

    params = RetrievalParams(policy=a.policy, k=a.k,
                             collections=[a.collection] if a.collection else None,
                             fusion=a.fusion or RetrievalParams().fusion,
                             expand=a.expand, persist_trace=a.save_trace)
    res = Retriever(_rs()).retrieve(a.query, params)
    if a.json:
        print(json.dumps(res.to_dict(), ensure_ascii=False, indent=2, default=str))
        return 0
    for w in res.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if res.mode == "inventory":
        print(f"documents for: {res.trace.stages[0].params.get('inventory_topic') or '(all)'}")
        for d in res.documents:
            print(f"{d.rank:>3}. {d.title}  ({d.filename}, {d.doc_type}, score {d.score:.3f})")
        return 0

    def f(x, r):
        return "-" if x is None else f"{x:.3f}#{r}"

    print(f"{'#':>3} {'final':>7} {'vector':>11} {'bm25':>11} {'fused':>11} "
          f"{'rerank':>7}  document › section (page)")
    for h in res.hits:
        page = f" (p. {h.page})" if h.page else ""
        rr = "-" if h.rerank_score is None else f"{h.rerank_score:.3f}"
        print(f"{h.rank:>3} {h.score:>7.3f} {f(h.vector_score, h.vector_rank):>11} "
              f"{f(h.keyword_score, h.keyword_rank):>11} {f(h.fused_score, h.fused_rank):>11} "
              f"{rr:>7}  {h.document_title} › {h.breadcrumb or '-'}{page}")
        snippet = " ".join(h.text.split())[:160]
        print(f"{'':>12}{snippet}")
    print(f"{len(res.hits)} hits in {res.trace.total_ms:.1f} ms (trace {res.trace.id})")
    return 0


def cmd_up(a) -> int:
    """Ingest the sample corpus (idempotent) and start the dashboard."""
    import os

    root = Path(__file__).resolve().parent.parent
    if not a.no_samples:
        rc = cmd_ingest(argparse.Namespace(paths=[str(root / "data" / "samples")],
                                           collection="samples", quiet=False))
        if rc not in (0, 1):
            return rc
    cmd = [sys.executable, "-m", "streamlit", "run", str(root / "app.py"),
           "--server.address", a.address, "--server.port", str(a.port),
           "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    print(f"starting the dashboard on http://{a.address}:{a.port}", flush=True)
    os.execvp(cmd[0], cmd)
    return 0  # not reached


def cmd_settings(a) -> int:
    """Print every setting with type, default and help (Markdown with --markdown)."""
    for line in settings_markdown().splitlines() if a.markdown else _settings_lines():
        print(line)
    return 0


def _settings_lines():
    for name, f in Settings.model_fields.items():
        yield f"RAGSCOPE_{name.upper()}={f.default!s:<20} {f.description}"


def settings_markdown() -> str:
    rows = ["| variable | type | default | meaning |", "|---|---|---|---|"]
    for name, f in Settings.model_fields.items():
        typ = (getattr(f.annotation, "__name__", None) or str(f.annotation).replace("typing.", "")).replace("|", "or")
        default = "" if f.default is None else f.default
        rows.append(f"| `RAGSCOPE_{name.upper()}` | {typ} | `{default}` | "
                    f"{(f.description or '').replace('|', '/')} |")
    return "\n".join(rows)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m backend", description="ragscope command line")
    sub = p.add_subparsers(dest="cmd", required=True)
    x = sub.add_parser("ingest", help="ingest files and folders")
    x.add_argument("paths", nargs="+")
    x.add_argument("--collection", "-c")
    x.add_argument("--quiet", "-q", action="store_true")
    x.set_defaults(fn=cmd_ingest)
    x = sub.add_parser("list", help="list documents")
    x.add_argument("--collection", "-c")
    x.add_argument("--limit", type=int, default=200)
    x.set_defaults(fn=cmd_list)
    x = sub.add_parser("show", help="show a document's metadata, versions and section tree")
    x.add_argument("doc", help="document id, title or file name")
    x.add_argument("--version", type=int, help="version number (default: the active one)")
    x.set_defaults(fn=cmd_show)
    x = sub.add_parser("original", help="write a document's stored original file")
    x.add_argument("doc")
    x.add_argument("--version", type=int)
    x.add_argument("--out", "-o")
    x.set_defaults(fn=cmd_original)
    x = sub.add_parser("delete", help="delete a document with all versions")
    x.add_argument("doc")
    x.set_defaults(fn=cmd_delete)
    x = sub.add_parser("activate", help="make a document version the active one")
    x.add_argument("version_id", type=int)
    x.set_defaults(fn=cmd_activate)
    x = sub.add_parser("reindex", help="rebuild both indexes from the store")
    x.add_argument("--quiet", "-q", action="store_true")
    x.set_defaults(fn=cmd_reindex)
    x = sub.add_parser("check", help="check that store and indexes agree")
    x.add_argument("--repair", action="store_true", help="fix what differs")
    x.set_defaults(fn=cmd_check)
    x = sub.add_parser("collections", help="list collections")
    x.set_defaults(fn=cmd_collections)
    x = sub.add_parser("status", help="counts and index metadata as JSON")
    x.set_defaults(fn=cmd_status)
    x = sub.add_parser("search", help="hybrid search with per-stage scores")
    x.add_argument("query")
    x.add_argument("--policy", default="hybrid",
                   choices=["hybrid", "semantic_only", "lexical_only", "document_first",
                            "section_first"])
    x.add_argument("--k", type=int, default=10)
    x.add_argument("--collection", "-c")
    x.add_argument("--fusion", choices=["rrf", "weighted"])
    x.add_argument("--expand", default="none", choices=["none", "neighbours", "section"])
    x.add_argument("--save-trace", action="store_true", help="persist the trace")
    x.add_argument("--json", action="store_true", help="print the whole result as JSON")
    x.set_defaults(fn=cmd_search)
    from backend import cli_chat, cli_crawl

    cli_crawl.register(sub)
    cli_chat.register(sub)
    x = sub.add_parser("up", help="ingest the sample corpus and start the dashboard")
    x.add_argument("--address", default="127.0.0.1")
    x.add_argument("--port", type=int, default=8501)
    x.add_argument("--no-samples", action="store_true")
    x.set_defaults(fn=cmd_up)
    x = sub.add_parser("settings", help="list every setting with default and help")
    x.add_argument("--markdown", action="store_true")
    x.set_defaults(fn=cmd_settings)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.fn(args)
    except RagscopeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except ValueError as e:  # settings validation and similar bad input
        print(f"error: {e}", file=sys.stderr)
        return 2
