"""Ingestion commands beyond `ingest` (issue 14); `register(subparsers)` adds them:

    ingest-git URL_OR_PATH --collection C [--branch B] [--subpath P] [--force]
    git-sources                                 repositories synchronised, their commit
    reclassify (--all | DOC) [--dry-run]       classify again; re-chunk what changed profile
    doc-types [--json]                          the document-type registry
    set-title DOC (TITLE | --reset)             a title of your own (kept by later ingests)
    set-profile DOC (PROFILE | --default)       another processing profile for one document

Errors are RagscopeError subclasses; the main CLI prints them as one line (exit code 2).
With `--as USER` they act as that user (backend/cli/main.py): set-title/set-profile need write on
the document, ingest-git on the collection, reclassify the admin role."""
from __future__ import annotations

import argparse
import json
import sys

from backend.security.display import safe_text
from backend.errors import RagscopeError


def _ingestor():
    from backend.cli.common import _ingestor as make

    return make()


def cmd_ingest_git(a) -> int:
    from tqdm import tqdm

    from backend.security.acl import writable_collection
    from backend.cli.common import actor_of
    from backend.ingest.git_source import GitSync

    from backend.security.access import scope_of

    ing = _ingestor()
    actor = actor_of(a, ing.rs)
    collection = writable_collection(ing.rs, actor, a.collection, None,
                                     action="upload")  # --as USER: one USER may write
    sync = GitSync(ing, a.source, collection=collection, branch=a.branch, subpath=a.subpath,
                   scope=scope_of(ing.rs, actor))
    bar = tqdm(unit="file", disable=a.quiet, file=sys.stderr,
               bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}]{postfix}")

    def progress(p):  # an IngestProgress: files, chunks embedded, rate, ETA
        bar.total = p.files_total
        if p.outcome is not None:
            bar.update(1)
        bar.set_postfix_str(p.summary().split(", ", 1)[-1], refresh=p.outcome is None)

    rep = sync.run(force=a.force, on_progress=progress)
    bar.close()
    if rep.up_to_date:
        print(f"up to date at {rep.commit[:12]} (nothing changed since the last sync; "
              "--force reads every file again)")
        return 0
    for e in rep.events:
        if e.outcome in ("failed", "refused", "skipped"):
            print(f"{e.outcome.upper()} {safe_text(e.path)}: {safe_text(e.reason)}", file=sys.stderr)
    counts = ", ".join(f"{n} {k}" for k, n in sorted(rep.counts().items())) or "no files"
    since = f" (was {rep.previous[:12]})" if rep.previous else ""
    print(f"commit {rep.commit[:12]}{since}: {len(rep.events)} files: {counts}")
    return 0 if rep.ok else 1


def cmd_git_sources(a) -> int:
    from backend.cli.common import _rs
    from backend.ingest.git_source import list_sources

    rs = _rs()
    try:
        rows = list_sources(rs.store)
    finally:
        rs.close()
    if not rows:
        print("no Git repositories synchronised yet (python -m backend ingest-git)")
        return 0
    for r in rows:
        where = (f" --branch {r['branch']}" if r["branch"] != "HEAD" else "") \
            + (f" --subpath {r['subpath']}" if r["subpath"] else "")
        synced = r["synced_at"].strftime("%Y-%m-%d %H:%M") if r["synced_at"] else "never"
        print(f"{r['id']:>3} {r['url']}{where} -> {r['collection']}: "
              f"commit {r['commit'] or '-'}, synced {synced}")
    return 0


def cmd_reclassify(a) -> int:
    from tqdm import tqdm

    from backend.security import access
    from backend.cli.common import _ingestor as make
    from backend.cli.common import actor_of

    if not a.all and not a.doc:
        raise RagscopeError("name a document or give --all")
    ing = make()
    access.require(actor_of(a, ing.rs), "reindex")  # --as USER: USER must be an admin
    bar = tqdm(unit="doc", disable=a.quiet, file=sys.stderr)

    def progress(done, total, label):
        bar.total = total
        bar.n = done
        bar.refresh()

    rep = ing.reclassify(None if a.all else a.doc, dry_run=a.dry_run, on_progress=progress)
    bar.close()
    for doc_id, old, new in rep.changed_type:
        print(f"document {doc_id}: {old} -> {new}")
    for err in rep.failed:
        print(f"FAILED {err}", file=sys.stderr)
    print(("would change: " if a.dry_run else "") + rep.summary())
    return 1 if rep.failed else 0


def cmd_doc_types(a) -> int:
    from backend.cli.common import _rs
    from backend.ingest import doctypes

    rs = _rs()
    try:
        types = doctypes.load(rs.store)
    finally:
        rs.close()
    if a.json:
        print(json.dumps([t.__dict__ for t in types], ensure_ascii=False, indent=2))
        return 0
    print(f"{'name':<22} {'profile':<20} {'prio':>4} {'on':<3} label")
    for t in types:
        print(f"{t.name:<22} {t.default_profile:<20} {t.priority:>4} "
              f"{'yes' if t.enabled else 'no':<3} {t.label}")
    return 0


def _doc_and_actor(a, rs):
    """The document DOC names, among those the invocation's actor may read (operator, or
    `--as USER`: backend/cli/main.py), and that actor."""
    from backend.security.access import scope_of
    from backend.cli.common import actor_of
    from backend.security.access import resolve_document

    actor = actor_of(a, rs)
    return resolve_document(rs, a.doc, scope=scope_of(rs, actor)), actor


def cmd_set_title(a) -> int:
    from backend.services import classification

    ing = _ingestor()
    doc_id, actor = _doc_and_actor(a, ing.rs)
    if a.reset:
        classification.reset_title(ing.rs, doc_id, actor)
        print(f"document {doc_id}: title chosen automatically again")
        return 0
    if not a.title:
        raise RagscopeError("give the new title or --reset")
    classification.set_title(ing.rs, doc_id, a.title, actor)
    print(f"document {doc_id}: title set (kept by later ingests and reclassification)")
    return 0


def cmd_set_profile(a) -> int:
    from backend.services import classification

    if not a.profile and not a.default:
        raise RagscopeError("give a profile or --default")
    ing = _ingestor()
    doc_id, actor = _doc_and_actor(a, ing.rs)
    print(classification.set_profile(ing.rs, doc_id, None if a.default else a.profile, actor))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    from backend.ingest.profiles import PROFILES

    x = sub.add_parser("ingest-git", help="ingest (or re-sync) a Git repository")
    x.add_argument("source", metavar="URL_OR_PATH")
    x.add_argument("--collection", "-c", required=True)
    x.add_argument("--branch", "-b", help="branch to read (default: the default branch)")
    x.add_argument("--subpath", help="only files below this folder of the repository")
    x.add_argument("--force", action="store_true",
                   help="read every file again even if the commit did not change")
    x.add_argument("--quiet", "-q", action="store_true")
    x.set_defaults(fn=cmd_ingest_git)
    x = sub.add_parser("git-sources", help="list the Git repositories synchronised and their "
                       "last commit")
    x.set_defaults(fn=cmd_git_sources)
    x = sub.add_parser("reclassify", help="classify documents again (backfill), re-chunk "
                       "those whose profile changed")
    x.add_argument("doc", nargs="?", help="document id, title or file name")
    x.add_argument("--all", action="store_true", help="every document's active version")
    x.add_argument("--dry-run", action="store_true", help="report what would change")
    x.add_argument("--quiet", "-q", action="store_true")
    x.set_defaults(fn=cmd_reclassify)
    x = sub.add_parser("doc-types", help="list the document-type registry")
    x.add_argument("--json", action="store_true")
    x.set_defaults(fn=cmd_doc_types)
    x = sub.add_parser("set-title", help="give a document a title of your own")
    x.add_argument("doc")
    x.add_argument("title", nargs="?")
    x.add_argument("--reset", action="store_true", help="choose the title automatically again")
    x.set_defaults(fn=cmd_set_title)
    x = sub.add_parser("set-profile", help="give a document another processing profile")
    x.add_argument("doc")
    x.add_argument("profile", nargs="?", choices=sorted(PROFILES))
    x.add_argument("--default", action="store_true", help="back to its type's profile")
    x.set_defaults(fn=cmd_set_profile)
