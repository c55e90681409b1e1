"""Store and index commands of `python -m backend`: reindex, check (store and both indexes
agree, read back), collections, status. `register(subparsers)` adds them to the main parser."""
from __future__ import annotations

import json
import sys

from backend.cli import common


def cmd_reindex(a) -> int:
    from tqdm import tqdm

    bar = tqdm(unit="chunk", file=sys.stderr, disable=a.quiet)

    def progress(done, total):
        bar.total = total
        bar.n = done
        bar.refresh()

    from backend.services import document_actions

    rs = common._rs()
    res = document_actions.reindex(rs, common.actor_of(a, rs), on_progress=progress)
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

    ing = common._ingestor()
    access.require(common.actor_of(a, ing.rs), "reindex")
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

    rs = common._rs()
    for c in acl.collections(rs, common.scope_of(a, rs)):
        print(f"{c.name}\t{c.documents} documents\tknowledge base {c.knowledge_base}")
    return 0


def cmd_status(a) -> int:
    """Counts of what the actor may read; index metadata for an unrestricted actor only."""
    from backend.services import system
    from backend.retrieval import dictionary

    rs = common._rs()
    st = system.system_status(rs, scope=common.scope_of(a, rs))
    info = {"counts": st.counts,
            "index_meta": {m: x and {"backend": x["backend"], "params": x["params"],
                                     "chunks": x["chunks"]} for m, x in st.index_meta.items()}}
    info["dictionary"] = dictionary.status(rs.settings.dictionary_path)
    from backend.services.admin_config import domain_rules_status

    info["domain_rules"] = domain_rules_status(rs)  # a bad edit: "ok": false and the error
    print(json.dumps(info, indent=2, default=str))
    return 0


def register(sub) -> None:
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
