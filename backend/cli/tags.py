"""`python -m backend tags list|add|remove|set`: tags on documents (docs/tags.md), as the
operator or, with `--as USER`, as that dashboard user (its role and access groups apply:
a document outside them is "not found", a viewer may not change tags)."""
from __future__ import annotations

import json

from backend.cli import common
from backend.security.display import safe_text


def _doc(a, rs) -> int:
    from backend.security import access

    return access.resolve_document(rs, a.doc, scope=common.scope_of(a, rs))


def _print(v, as_json: bool) -> None:
    if as_json:
        print(json.dumps({"document_id": v.document_id, "tags": v.names,
                          "suggestions": v.suggestions, "changed": v.changed},
                         ensure_ascii=False))
        return
    print(f"document {v.document_id}: {safe_text(', '.join(v.names)) or '(no tags)'}")
    if v.suggestions:
        print(f"  suggested: {safe_text(', '.join(v.suggestions))}")


def cmd_list(a) -> int:
    from backend.services import tags

    rs = common._rs()
    actor = common.actor_of(a, rs)
    if a.doc:
        _print(tags.get(rs, actor, _doc(a, rs), scope=common.scope_of(a, rs)), a.json)
        return 0
    rows = tags.vocabulary(rs, actor, scope=common.scope_of(a, rs))
    if a.json:
        print(json.dumps([{"tag": n, "documents": c} for n, c in rows], ensure_ascii=False))
        return 0
    for name, n in rows:
        print(f"{n:>5}  {safe_text(name)}")
    print(f"{len(rows)} tags")
    return 0


def _change(a, fn) -> int:
    rs = common._rs()
    v = fn(rs, common.actor_of(a, rs), _doc(a, rs))
    if not a.json and v.changed:
        print(f"{a.cmd_verb}: {safe_text(', '.join(v.changed))}")
    _print(v, a.json)
    return 0


def cmd_add(a) -> int:
    from backend.services import tags

    a.cmd_verb = "added"
    if a.suggested:
        return _change(a, lambda rs, actor, d: tags.accept_suggestions(rs, actor, d))
    if not a.tags:
        from backend.errors import TagError

        raise TagError("tags: name at least one tag, or --suggested")
    return _change(a, lambda rs, actor, d: tags.add(rs, actor, d, a.tags))


def cmd_remove(a) -> int:
    from backend.services import tags

    a.cmd_verb = "removed"
    return _change(a, lambda rs, actor, d: tags.remove(rs, actor, d, a.tags))


def cmd_set(a) -> int:
    from backend.services import tags

    a.cmd_verb = "now"
    return _change(a, lambda rs, actor, d: tags.replace(rs, actor, d, a.tags))


def register(sub) -> None:
    t = sub.add_parser("tags", help="tags on documents: list, add, remove, set")
    ts = t.add_subparsers(dest="tags_cmd", required=True)
    x = ts.add_parser("list", help="every tag with its document count, or one document's "
                      "tags and suggestions")
    x.add_argument("doc", nargs="?", help="document id, title or file name")
    x.add_argument("--json", action="store_true")
    x.set_defaults(fn=cmd_list)
    x = ts.add_parser("add", help="add tags to a document")
    x.add_argument("doc", help="document id, title or file name")
    x.add_argument("tags", nargs="*", metavar="TAG")
    x.add_argument("--suggested", action="store_true",
                   help="accept every current suggestion (from its type and traits)")
    x.add_argument("--json", action="store_true")
    x.set_defaults(fn=cmd_add)
    x = ts.add_parser("remove", help="remove tags from a document (any spelling)")
    x.add_argument("doc")
    x.add_argument("tags", nargs="+", metavar="TAG")
    x.add_argument("--json", action="store_true")
    x.set_defaults(fn=cmd_remove)
    x = ts.add_parser("set", help="replace a document's tags (none: remove all)")
    x.add_argument("doc")
    x.add_argument("tags", nargs="*", metavar="TAG")
    x.add_argument("--json", action="store_true")
    x.set_defaults(fn=cmd_set)
