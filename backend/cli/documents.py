"""Document commands of `python -m backend`: ingest, list, show, original, delete, activate.
`register(subparsers)` adds them to the main parser (backend/cli/main.py)."""
from __future__ import annotations

import sys
from pathlib import Path

from backend.cli import common
from backend.security.display import safe_text
from backend.errors import RagscopeError


def cmd_ingest(a) -> int:
    from tqdm import tqdm

    from backend.security.acl import writable_collection

    ing = common._ingestor()
    actor = common.actor_of(a, ing.rs)
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
                                identity=identity, scope=common.scope_of(a, ing.rs),
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

    rs = common._rs()
    scope = common.scope_of(a, rs)
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

    rs = common._rs()
    scope = common.scope_of(a, rs)
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

    rs = common._rs()
    scope = common.scope_of(a, rs)
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

    rs = common._rs()
    actor = common.actor_of(a, rs)
    doc = access.resolve_document(rs, a.doc, scope=common.scope_of(a, rs))
    doc_id = document_actions.delete_document(rs, doc, actor, purge_answers=a.purge_answers)
    print(f"deleted document {doc_id}" + (" and the chat answers that drew on it"
                                          if a.purge_answers else ""))
    return 0


def cmd_activate(a) -> int:
    from backend.services import document_actions

    rs = common._rs()
    document_actions.activate_version(rs, a.version_id, common.actor_of(a, rs))
    print(f"version {a.version_id} is now active")
    return 0


def register(sub) -> None:
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
