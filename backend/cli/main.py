"""`python -m backend …`: everything the dashboard does, scriptable. Errors from the
RagscopeError hierarchy become one line on stderr and a non-zero exit, here and only here.

Who acts: the operator of the CLI (`Actor.system("cli")`: admin rights, every collection),
or with `--as NAME` the dashboard user NAME with the role and access groups the users file
and the store give it now, so an admin can see exactly what NAME sees (the CLI runs with
the data dir's permissions either way: `--as` narrows, it does not authenticate)."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from backend.config import Settings
from backend.security.display import TerminalGuard, safe_text
from backend.errors import RagscopeError


def _rs():
    from backend.services.container import Ragscope

    return Ragscope(Settings())


def _ingestor():
    from backend.ingest.service import Ingestor

    return Ingestor(_rs())


def actor_of(a, rs=None):
    """The actor of this invocation: the system operator, or the user named by `--as`."""
    from backend.security import access, auth

    name = getattr(a, "as_user", None)
    if not name:
        return access.Actor.system("cli")
    settings = rs.settings if rs is not None else Settings()
    user = auth.UserStore(auth.AuthPaths.under(settings.data_dir)).get(name)
    if user is None or user.disabled:
        raise RagscopeError(f"--as {name}: no such enabled dashboard user")
    return access.Actor(user.username, user.role)


def scope_of(a, rs):
    from backend.security import access

    return access.scope_of(rs, actor_of(a, rs))


def cmd_ingest(a) -> int:
    from tqdm import tqdm

    from backend.security.acl import writable_collection

    ing = _ingestor()
    actor = actor_of(a, ing.rs)
    identity = _identity(a, ing.rs, actor)  # checked before anything is written
    kb = getattr(a, "knowledge_base", None)
    collection = writable_collection(ing.rs, actor, a.collection, kb, action="upload",
                                     create=False)  # made with the first stored file
    files = ing.rs.path_policy.find(a.paths)  # symlinks out of a folder, data dir: refused
    missing = [f.path for f in files if f.readable and not f.path.exists()]
    for p in missing:
        print(f"error: {safe_text(p)}: no such file or folder", file=sys.stderr)
    files = [f for f in files if not (f.readable and f.path in missing)]
    bar = tqdm(total=len(files), unit="file", disable=a.quiet or not files, file=sys.stderr,
               bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}]{postfix}")

    def progress(p):
        out = p.outcome
        if out is not None:
            bar.update(1)
            if out.status == "refused":
                tqdm.write(f"REFUSED {safe_text(out.error)}", file=sys.stderr)
            elif out.status == "skipped":
                pass  # listed with the summary
            elif not out.ok:
                tqdm.write(f"FAILED {safe_text(out.error)}", file=sys.stderr)
        # chunks embedded, rate and ETA (the bar's own ETA counts files, not their size)
        bar.set_postfix_str(p.summary().split(", ", 1)[-1], refresh=out is None)

    outcomes = ing.ingest_paths(files, collection=collection, on_progress=progress,
                                identity=identity, scope=scope_of(a, ing.rs),
                                knowledge_base=kb)
    bar.close()
    by = {}
    for o in outcomes:
        by[o.status] = by.get(o.status, 0) + 1
    chunks = sum(o.chunks for o in outcomes)
    summary = ", ".join(f"{n} {k}" for k, n in sorted(by.items())) or "nothing to do"
    print(f"{len(outcomes)} files: {summary}; {chunks} chunks indexed")
    skipped = [o for o in outcomes if o.status == "skipped"]
    for o in skipped:  # every skipped file by name and reason (unsupported, hidden, symlink)
        print(f"SKIPPED {safe_text(o.error)}")
    for o in outcomes:
        if o.note:
            print(f"note: {safe_text(o.filename)}: {safe_text(o.note)}")
        for w in o.warnings:
            print(f"warning: {safe_text(o.filename)}: {safe_text(w)}", file=sys.stderr)
    lost = [o for o in outcomes if o.unretrievable]
    if lost:  # printed even with -q: search would silently miss these chunks
        n = sum(len(o.unretrievable) for o in lost)
        print(f"WARNING: {n} chunk(s) of {len(lost)} document(s) written by this ingest cannot "
              "be found by vector search with their own vector:", file=sys.stderr)
        for o in lost:
            print(f"  document {o.document_id} ({safe_text(o.filename)}): {len(o.unretrievable)} of "
                  f"{o.read_back} chunk(s) read back", file=sys.stderr)
        print("run `python -m backend check --full` (and `check --repair`)", file=sys.stderr)
    return 1 if (missing or lost or any(not o.ok for o in outcomes)) else 0


def _identity(a, rs, actor):
    """--as-new-document / --new-version-of DOC (backend/ingest/identity.py); DOC must be
    a document the actor may read and change (backend/security/acl.py `version_target`)."""
    from backend.security.acl import version_target
    from backend.ingest.identity import AUTO, Identity

    if getattr(a, "as_new_document", False) and getattr(a, "new_version_of", None):
        raise RagscopeError("--as-new-document and --new-version-of exclude each other")
    if getattr(a, "as_new_document", False):
        return Identity.new_document()
    if getattr(a, "new_version_of", None):
        return Identity.version_of(version_target(rs, actor, a.new_version_of))
    return AUTO


def cmd_list(a) -> int:
    from backend.services import documents
    from backend.store import repo

    rs = _rs()
    scope = scope_of(a, rs)
    if a.collection:
        scope.collections([a.collection])  # outside the scope: "unknown collection"
        with rs.store.session() as s:
            repo.get_collection(s, a.collection)
    page = documents.list_documents(
        rs, documents.ExplorerFilter(collections=(a.collection,) if a.collection else ()),
        1, a.limit, scope=scope)
    total = page.total
    rows = [(d.id, d.status, d.doc_type, d.file_type, d.active_version or "-", d.versions,
             safe_text(",".join(d.collections)), safe_text(d.title)) for d in page.rows]
    print(f"{'id':>4}  {'status':<8} {'type':<18} {'file':<5} {'ver':>3}/{'n':<2} "
          f"{'collections':<18} title")
    for r in rows:
        print(f"{r[0]:>4}  {r[1]:<8} {r[2][:18]:<18} {r[3]:<5} {r[4]:>3}/{r[5]:<2} "
              f"{r[6][:18]:<18} {r[7]}")
    print(f"{len(rows)} of {total} documents")
    return 0


def _version(detail, number: int | None):
    """The version with that number (default: the active one) of a DocumentDetail."""
    if number:
        v = next((v for v in detail.versions if v.number == number), None)
        if v is None:
            raise RagscopeError(f"document {detail.id} has no version {number}")
        return v
    return next((v for v in detail.versions if v.id == detail.active_version_id), None)


def cmd_show(a) -> int:
    from backend.services import documents
    from backend.security import access

    rs = _rs()
    scope = scope_of(a, rs)
    d = documents.document_detail(rs, access.resolve_document(rs, a.doc, scope=scope),
                                  scope=scope)
    print(f"document {d.id}: {safe_text(d.title)}")
    print(f"  file: {safe_text(d.filename)} ({safe_text(d.file_type)}), type: {d.doc_type}, status: {d.status}")
    print(f"  source: {d.source_kind} {safe_text(d.source_uri)}")
    print(f"  collections: {safe_text(', '.join(d.collections)) or '-'}")
    for v in sorted(d.versions, key=lambda v: v.number):
        mark = "*" if v.id == d.active_version_id else " "
        extra = f" error: {safe_text(v.error)}" if v.error else ""
        print(f"  {mark} version {v.number} (id {v.id}) {v.status}, {v.size_bytes} bytes, "
              f"sha256 {v.sha256[:12]}, pages {v.page_count or '-'}, "
              f"lang {v.language or '-'}{extra}")
    if d.active_version_id is not None:
        from backend.services import classification

        cv = classification.view(rs, d.active_version_id)  # the document is visible: checked
        if cv.method != "not classified yet":
            conf = f"{cv.confidence:.2f}" if cv.confidence is not None else "-"
            print(f"  classification: {cv.primary_type} (confidence {conf}, {cv.method}), "
                  f"profile {cv.profile}; traits: {', '.join(cv.traits) or '-'}")
    v = _version(d, a.version)
    root = documents.section_tree(rs, v.id, scope=scope) if v is not None else None
    if root is None:
        return 0
    print("  sections:")
    for sec in root.walk():
        if sec.kind == "document" and sec.parent_id is None:
            continue
        pages = (f"p. {sec.page_start}" + (f"-{sec.page_end}" if sec.page_end != sec.page_start
                                            else "")) if sec.page_start else ""
        indent = "    " + "  " * max(0, sec.level - 1)
        print(f"{indent}{safe_text(sec.title)}  [{sec.kind}, chars {sec.start}-{sec.end}"
              f"{', ' + pages if pages else ''}, {sec.chunks} chunks]")
    return 0


def cmd_original(a) -> int:
    from backend.services import documents
    from backend.security import access

    rs = _rs()
    scope = scope_of(a, rs)
    d = documents.document_detail(rs, access.resolve_document(rs, a.doc, scope=scope),
                                  scope=scope)
    v = _version(d, a.version)
    if v is None or not v.has_original:
        raise RagscopeError(f"document {d.id} has no stored original for that version")
    orig = documents.original_file(rs, v.id, scope=scope)
    out = Path(a.out or orig.filename)
    out.write_bytes(orig.data)
    print(f"wrote {out}")
    return 0


def cmd_delete(a) -> int:
    from backend.security import access
    from backend.services import document_actions

    rs = _rs()
    actor = actor_of(a, rs)
    doc = access.resolve_document(rs, a.doc, scope=scope_of(a, rs))
    doc_id = document_actions.delete_document(rs, doc, actor, purge_answers=a.purge_answers)
    print(f"deleted document {doc_id}" + (" and the chat answers that drew on it"
                                          if a.purge_answers else ""))
    return 0


def cmd_activate(a) -> int:
    from backend.services import document_actions

    rs = _rs()
    document_actions.activate_version(rs, a.version_id, actor_of(a, rs))
    print(f"version {a.version_id} is now active")
    return 0


def cmd_reindex(a) -> int:
    from tqdm import tqdm

    bar = tqdm(unit="chunk", file=sys.stderr, disable=a.quiet)

    def progress(done, total):
        bar.total = total
        bar.n = done
        bar.refresh()

    from backend.services import document_actions

    rs = _rs()
    res = document_actions.reindex(rs, actor_of(a, rs), on_progress=progress)
    bar.close()
    print(f"reindexed {res['chunks']} chunks of {res['versions']} versions "
          f"({res['rechunked']} re-chunked)")
    return 0


def _print_problems(report) -> None:
    """Each problem with its count and examples, and the documents it affects (id, title,
    file name), so a user can tell which documents search cannot find."""
    for k, v in report.problems().items():
        print(f"  {k}: {len(v)}" + (f" (e.g. {', '.join(map(str, v[:3]))})" if v else ""))
        docs = report.documents.get(k) or []
        for d in docs[:DOCS_SHOWN]:
            print(f"    document {d['id']} {d['title']!r} ({d['filename']}): "
                  f"{d['chunks']} chunk(s)")
        if len(docs) > DOCS_SHOWN:
            print(f"    ... and {len(docs) - DOCS_SHOWN} more document(s) (--json lists all)")


DOCS_SHOWN = 20


def cmd_check(a) -> int:
    """Exit 0 when store and both indexes agree (after repairing, with --repair), else 1."""
    from tqdm import tqdm

    from backend.security import access

    ing = _ingestor()
    access.require(actor_of(a, ing.rs), "reindex")
    bar = tqdm(unit="chunk", desc="reading back", file=sys.stderr, disable=a.quiet)

    def progress(done, total):
        bar.total = total
        bar.n = done
        bar.refresh()

    if a.repair:
        rep = ing.repair(full=a.full, on_progress=progress)
        bar.close()
        if a.json:
            print(json.dumps(rep.to_dict(), ensure_ascii=False, indent=2, default=str))
            return 0 if rep.after.ok else 1
        if rep.found.ok and not rep.repaired_anything:
            print(f"ok: store and both indexes agree ({rep.after.summary()})")
            return 0
        if not rep.found.ok:
            print("found:")
            _print_problems(rep.found)
        print(rep.summary())
        report = rep.after
        prefix = "after repair: "
    else:
        report = ing.check(full=a.full, on_progress=progress)
        bar.close()
        prefix = ""
        if a.json:
            print(json.dumps({"ok": report.ok, "summary": report.summary(), **report.to_dict()},
                             ensure_ascii=False, indent=2, default=str))
            return 0 if report.ok else 1
    if report.ok:
        print(f"{prefix}ok: store and both indexes agree ({report.summary()})")
        return 0
    print(f"{prefix}store and indexes differ ({report.summary()}):")
    _print_problems(report)
    if not a.repair:
        print("run `python -m backend check --repair` to fix")
    return 1


def cmd_collections(a) -> int:
    from backend.security import acl

    rs = _rs()
    for c in acl.collections(rs, scope_of(a, rs)):
        print(f"{c.name}\t{c.documents} documents\tknowledge base {c.knowledge_base}")
    return 0


def cmd_status(a) -> int:
    """Counts of what the actor may read; index metadata for an unrestricted actor only."""
    from backend.services import system

    rs = _rs()
    st = system.system_status(rs, scope=scope_of(a, rs))
    info = {"counts": st.counts,
            "index_meta": {m: x and {"backend": x["backend"], "params": x["params"],
                                     "chunks": x["chunks"]} for m, x in st.index_meta.items()}}
    print(json.dumps(info, indent=2, default=str))
    return 0


def cmd_search(a) -> int:
    from backend.cli import bridge as cli_bridge

    link = cli_bridge.link_for(a)
    res = link.search(a) if link else cli_bridge.search_result(_rs(), a)
    if a.json:
        print(json.dumps(res, ensure_ascii=False, indent=2, default=str))
        return 0
    for w in res["warnings"]:
        print(f"warning: {w}", file=sys.stderr)
    if res["mode"] == "inventory":
        stages = res["trace"]["stages"]
        topic = (stages[0].get("params") or {}).get("inventory_topic") if stages else None
        print(f"documents for: {topic or '(all)'}")
        for d in res["documents"]:
            print(f"{d['rank']:>3}. {safe_text(d['title'])}  ({safe_text(d['filename'])}, "
                  f"{d['doc_type']}, "
                  f"score {d['score']:.3f})")
        return 0

    def f(x, r):
        return "-" if x is None else f"{x:.3f}#{r}"

    print(f"{'#':>3} {'final':>7} {'vector':>11} {'bm25':>11} {'fused':>11} "
          f"{'rerank':>7}  document › section (page)")
    for h in res["hits"]:
        page = f" (p. {h['page']})" if h.get("page") else ""
        rr = "-" if h.get("rerank_score") is None else f"{h['rerank_score']:.3f}"
        print(f"{h['rank']:>3} {h['score']:>7.3f} {f(h['vector_score'], h['vector_rank']):>11} "
              f"{f(h['keyword_score'], h['keyword_rank']):>11} "
              f"{f(h['fused_score'], h['fused_rank']):>11} "
              f"{rr:>7}  {safe_text(h['document_title'])} › "
              f"{safe_text(h.get('breadcrumb') or '-')}{page}")
        snippet = " ".join(h["text"].split())[:160]
        print(f"{'':>12}{snippet}")
    via = f" (by the running process {link.pid})" if link else ""
    print(f"{len(res['hits'])} hits in {res['trace']['total_ms']:.1f} ms "
          f"(trace {res['trace']['id']}){via}")
    return 0


def dashboard_command(address: str, port: int, settings: Settings | None = None) -> list[str]:
    """`streamlit run app.py` (app.py declares the `st.App` that puts the upload gate in
    front of Streamlit) with Streamlit's upload limit set to the ingestion limit."""
    from backend.security.upload_gate import upload_limit_mb

    root = Path(__file__).resolve().parents[2]
    return [sys.executable, "-m", "streamlit", "run", str(root / "app.py"),
            "--server.address", address, "--server.port", str(port),
            "--server.headless", "true", "--browser.gatherUsageStats", "false",
            "--server.maxUploadSize", str(upload_limit_mb(settings or Settings()))]


def cmd_up(a) -> int:
    """Ingest the sample corpus (idempotent), start the API + MCP server beside the
    dashboard (unless --no-api) and the dashboard."""
    import os

    root = Path(__file__).resolve().parents[2]
    settings = Settings()
    if a.local_model:  # install (once) and select the model; this run's chat defaults to it
        from backend.cli.chat import cmd_models

        rc = cmd_models(argparse.Namespace(action="install", name=a.local_model, force=False,
                                           no_select=False, json=False, quiet=False))
        if rc:
            return rc
        os.environ["RAGSCOPE_CHAT_DEFAULT_PROVIDER"] = "local"  # the API and dashboard too
        settings = Settings()
    if settings.chat_default_provider == "local":  # fail now, not at the first question
        from backend.llm.local import check_model_file, check_runtime

        check_runtime()
        print(f"chat: local model {check_model_file(settings.local_model_path, settings.data_dir)} "
              "(loaded on the first question)")
    if not a.no_samples:
        rc = cmd_ingest(argparse.Namespace(paths=[str(root / "data" / "samples")],
                                           collection="samples", quiet=False, as_user=None,
                                           as_new_document=False, new_version_of=None))
        if rc not in (0, 1):
            return rc
    if not a.no_api:
        from backend.api.cli import start_api_beside

        print(f"starting the API and MCP server on http://{settings.api_host}:"
              f"{a.api_port or settings.api_port}/api", flush=True)
        start_api_beside(settings.api_host, a.api_port or settings.api_port)
    cmd = dashboard_command(a.address, a.port)
    print(f"starting the dashboard on http://{a.address}:{a.port}", flush=True)
    os.execvp(cmd[0], cmd)
    return 0  # not reached


def cmd_unlock_user(a) -> int:
    """Lift the sign-in lock that failed attempts put on a user name (also `admin`)."""
    from backend.security.auth import AuthPaths
    from backend.security.login_limit import LoginLimiter

    was = LoginLimiter(AuthPaths.under(Settings().data_dir)).unlock(a.name)
    name = a.name.strip().lower()
    print(f"{name}: sign-in unlocked" if was else f"{name}: was not locked")
    return 0


def cmd_settings(a) -> int:
    """Print every setting with type, default and help (Markdown with --markdown)."""
    for line in settings_markdown().splitlines() if a.markdown else _settings_lines():
        print(line)
    return 0


def _settings_lines():
    for name, f in Settings.model_fields.items():
        yield f"RAGSCOPE_{name.upper()}={f.default!s:<20} {f.description}"


SETTINGS_HEADER = """# Settings

Every setting is an environment variable with the prefix `RAGSCOPE_` (pydantic-settings,
`backend/config/`). Generated by `python -m backend settings --markdown`; `tests/test_docs.py`
checks that each one is listed here.
"""


def settings_markdown() -> str:
    """docs/settings.md, whole: `python -m backend settings --markdown > docs/settings.md`."""
    rows = [SETTINGS_HEADER, "| variable | type | default | meaning |", "|---|---|---|---|"]
    for name, f in Settings.model_fields.items():
        typ = (getattr(f.annotation, "__name__", None) or str(f.annotation).replace("typing.", "")).replace("|", "or")
        default = "" if f.default is None else f.default
        rows.append(f"| `RAGSCOPE_{name.upper()}` | {typ} | `{default}` | "
                    f"{(f.description or '').replace('|', '/')} |")
    return "\n".join(rows)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m backend", description="ragscope command line")
    p.add_argument("--as", dest="as_user", metavar="USER",
                   help="act as this dashboard user: its role and access groups apply "
                        "(default: the operator, who sees every collection)")
    sub = p.add_subparsers(dest="cmd", required=True)
    x = sub.add_parser("ingest", help="ingest files and folders")
    x.add_argument("paths", nargs="+")
    x.add_argument("--collection", "-c",
                   help="target collection (default: RAGSCOPE_DEFAULT_COLLECTION)")
    x.add_argument("--knowledge-base", "-k",
                   help="knowledge base of a new collection (default: "
                        "RAGSCOPE_DEFAULT_KNOWLEDGE_BASE)")
    x.add_argument("--quiet", "-q", action="store_true")
    x.add_argument("--as-new-document", action="store_true",
                   help="never make a file a version of a same-named document")
    x.add_argument("--new-version-of", metavar="DOC",
                   help="make the file(s) new versions of this document")
    x.set_defaults(fn=cmd_ingest)
    x = sub.add_parser("list", help="list documents")
    x.add_argument("--collection", "-c")
    x.add_argument("--limit", type=int, default=200, help="at most 500")
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
    x.add_argument("--purge-answers", action="store_true",
                   help="also remove the text of chat answers that drew on the document "
                        "(default: kept; their sources say 'deleted document')")
    x.set_defaults(fn=cmd_delete)
    x = sub.add_parser("activate", help="make a document version the active one")
    x.add_argument("version_id", type=int)
    x.set_defaults(fn=cmd_activate)
    x = sub.add_parser("reindex", help="rebuild both indexes from the store")
    x.add_argument("--quiet", "-q", action="store_true")
    x.set_defaults(fn=cmd_reindex)
    x = sub.add_parser("check", help="check that store and indexes agree and read entries back")
    x.add_argument("--repair", action="store_true",
                   help="fix what differs, report what was repaired, then check again")
    x.add_argument("--full", action="store_true",
                   help="read back every chunk's vector and keyword entry (default: a sample)")
    x.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    x.add_argument("--json", action="store_true",
                   help="print the report as JSON (problems, affected documents)")
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
    x.add_argument("--save-trace", action="store_true",
                   help="persist the trace (owner system:cli, visible to admins; with "
                        "--as: the user's)")
    x.add_argument("--json", action="store_true", help="print the whole result as JSON")
    x.add_argument("--local", action="store_true",
                   help="search in this process even when a ragscope API process runs on "
                        "this data dir (by default it is asked: no model load)")
    x.set_defaults(fn=cmd_search)
    from backend.api import cli as cli_api
    from backend.cli import access as cli_access
    from backend.cli import analysis as cli_analysis
    from backend.cli import chat as cli_chat
    from backend.cli import chatbot as cli_chatbot
    from backend.cli import crawl as cli_crawl
    from backend.cli import ingest as cli_ingest
    from backend.cli import search_node as cli_search_node
    from backend.cli import stack as cli_stack

    cli_crawl.register(sub)
    cli_chatbot.register(sub)
    cli_chat.register(sub)
    cli_ingest.register(sub)
    cli_analysis.register(sub)
    cli_access.register(sub)
    cli_api.register(sub)
    cli_search_node.register(sub)
    cli_stack.register(sub)
    x = sub.add_parser("up", help="ingest the sample corpus, start the API and the dashboard")
    x.add_argument("--address", default="127.0.0.1")
    x.add_argument("--port", type=int, default=8501)
    x.add_argument("--no-samples", action="store_true")
    x.add_argument("--no-api", action="store_true", help="start the dashboard only")
    x.add_argument("--api-port", type=int, help="port of the API (default RAGSCOPE_API_PORT)")
    x.add_argument("--local-model", nargs="?", const="qwen2.5-1.5b", metavar="NAME",
                   help="install (once) and select a local model (default qwen2.5-1.5b) and "
                        "answer with it (chat provider `local`)")
    x.set_defaults(fn=cmd_up)
    x = sub.add_parser("unlock-user", help="lift a user name's sign-in lock")
    x.add_argument("name")
    x.set_defaults(fn=cmd_unlock_user)
    x = sub.add_parser("settings", help="list every setting with default and help")
    x.add_argument("--markdown", action="store_true")
    x.set_defaults(fn=cmd_settings)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = TerminalGuard.over(out), TerminalGuard.over(err)
    try:
        code = _run(args)
        out.flush()  # here, not at interpreter exit, so that a closed pipe is caught below
        return code
    except BrokenPipeError:  # `show X | head`: the reader left; no traceback, quiet exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, out.fileno())  # Python's final flush must not fail again
        return 141  # 128 + SIGPIPE, as a shell tool ends
    finally:
        sys.stdout, sys.stderr = out, err


def _run(args) -> int:
    from backend.security.private_files import private_umask

    try:
        with private_umask():  # nothing the command (or `up`'s dashboard) writes is readable
            return args.fn(args)  # by other users: see docs/security.md
    except RagscopeError as e:
        print(f"error: {safe_text(e)}", file=sys.stderr)
        return 2
    except ValueError as e:  # settings validation and similar bad input
        print(f"error: {safe_text(e)}", file=sys.stderr)
        return 2
