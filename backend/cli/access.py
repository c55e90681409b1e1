"""Knowledge-base and access-group commands of `python -m backend`; `register(subparsers)`
adds them to the main parser (the logic is backend/security/acl.py; the rule docs/security.md):

    kb list                                   knowledge bases, their collections and grants
    kb create NAME [--description TEXT]
    kb delete NAME                            only an empty one, never the default
    kb assign COLLECTION KB                   move a collection into another knowledge base
    group list                                groups, their grants and members
    group create NAME [--all-users] [--description TEXT]
    group delete NAME
    group all-users GROUP on|off              every dashboard user is a member (or not)
    group grant GROUP KB read|write
    group revoke GROUP KB
    group add GROUP user|principal NAME
    group remove GROUP user|principal NAME
    access NAME [--principal]                 what a user or principal may read and write

Changes need the admin role (the operator has it; `--as USER` applies USER's role)."""
from __future__ import annotations

import argparse

from backend.store.acl_models import MEMBER_KINDS, PERMISSIONS


def _ctx(a):
    from backend.cli.common import _rs, actor_of

    rs = _rs()
    return rs, actor_of(a, rs)


def cmd_kb(a) -> int:
    from backend.security import acl

    rs, actor = _ctx(a)
    if a.kb_cmd == "list":
        from backend.security.access import scope_of

        for kb in acl.knowledge_bases(rs, scope_of(rs, actor)):
            grants = ", ".join(f"{g}:{p}" for g, p in kb.grants.items()) or "-"
            print(f"{kb.name}\t{len(kb.collections)} collections, {kb.documents} documents"
                  f"\tgrants: {grants}")
            for c in kb.collections:
                print(f"  {c.name}\t{c.documents} documents")
    elif a.kb_cmd == "create":
        name = acl.create_knowledge_base(rs, actor, a.name, a.description)
        print(f"created knowledge base {name}")
    elif a.kb_cmd == "delete":
        acl.delete_knowledge_base(rs, actor, a.name)
        print(f"deleted knowledge base {a.name}")
    elif a.kb_cmd == "assign":
        acl.assign_collection(rs, actor, a.collection, a.kb)
        print(f"collection {a.collection} is now in knowledge base {a.kb}")
    return 0


def cmd_group(a) -> int:
    from backend.security import access, acl

    rs, actor = _ctx(a)
    if a.group_cmd == "list":
        access.require(actor, "manage_access")
        for g in acl.groups(rs):
            grants = ", ".join(f"{kb}:{p}" for kb, p in g.grants.items()) or "-"
            members = ", ".join(f"{k}:{n}" for k, n in g.members) or "-"
            print(f"{g.name}{' (all users)' if g.all_users else ''}\tgrants: {grants}"
                  f"\tmembers: {members}")
    elif a.group_cmd == "create":
        acl.create_group(rs, actor, a.name, a.description, all_users=a.all_users)
        print(f"created access group {a.name}")
    elif a.group_cmd == "delete":
        acl.delete_group(rs, actor, a.name)
        print(f"deleted access group {a.name}")
    elif a.group_cmd == "all-users":
        acl.set_all_users(rs, actor, a.group, a.value == "on")
        print(f"group {a.group}: all users {a.value}")
    elif a.group_cmd == "grant":
        acl.grant(rs, actor, a.group, a.kb, a.permission)
        print(f"group {a.group}: {a.permission} on knowledge base {a.kb}")
    elif a.group_cmd == "revoke":
        acl.revoke(rs, actor, a.group, a.kb)
        print(f"group {a.group}: no access to knowledge base {a.kb}")
    elif a.group_cmd == "add":
        acl.add_member(rs, actor, a.group, a.kind, a.name)
        print(f"group {a.group}: {a.kind} {a.name} added")
    elif a.group_cmd == "remove":
        acl.remove_member(rs, actor, a.group, a.kind, a.name)
        print(f"group {a.group}: {a.kind} {a.name} removed")
    return 0


def cmd_access(a) -> int:
    from backend.security import access, acl

    rs, actor = _ctx(a)
    access.require(actor, "manage_access")
    report = acl.effective_access(rs, "principal" if a.principal else "user", a.name,
                                  role=a.role)
    print(f"{report.kind} {report.name} ({report.role}): groups "
          f"{', '.join(report.groups) or '-'}")
    if report.scope.unrestricted:
        print("  reads and writes every collection (admin)")
        return 0
    for c in report.collections:
        mode = "write" if report.scope.can_write(c.name) else "read"
        print(f"  {mode:<5} {c.name}\t(knowledge base {c.knowledge_base}, {c.documents} documents)")
    if not report.collections:
        print("  no collection")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    kb = subparsers.add_parser("kb", help="knowledge bases: list, create, delete, assign")
    ks = kb.add_subparsers(dest="kb_cmd", required=True)
    ks.add_parser("list", help="knowledge bases with collections and grants")
    x = ks.add_parser("create", help="create a knowledge base")
    x.add_argument("name")
    x.add_argument("--description", default="")
    x = ks.add_parser("delete", help="delete an empty knowledge base")
    x.add_argument("name")
    x = ks.add_parser("assign", help="move a collection into a knowledge base")
    x.add_argument("collection")
    x.add_argument("kb")
    kb.set_defaults(fn=cmd_kb)

    g = subparsers.add_parser("group", help="access groups: grants and members")
    gs = g.add_subparsers(dest="group_cmd", required=True)
    gs.add_parser("list", help="groups with grants and members")
    x = gs.add_parser("create", help="create an access group")
    x.add_argument("name")
    x.add_argument("--description", default="")
    x.add_argument("--all-users", action="store_true",
                   help="every dashboard user is a member")
    x = gs.add_parser("delete", help="delete an access group")
    x.add_argument("name")
    x = gs.add_parser("all-users", help="make every dashboard user a member, or not")
    x.add_argument("group")
    x.add_argument("value", choices=["on", "off"])
    x = gs.add_parser("grant", help="give a group read or write on a knowledge base")
    x.add_argument("group")
    x.add_argument("kb")
    x.add_argument("permission", choices=PERMISSIONS)
    x = gs.add_parser("revoke", help="take a group's grant on a knowledge base away")
    x.add_argument("group")
    x.add_argument("kb")
    for name, verb in (("add", "add a member"), ("remove", "remove a member")):
        x = gs.add_parser(name, help=verb)
        x.add_argument("group")
        x.add_argument("kind", choices=MEMBER_KINDS)
        x.add_argument("name")
    g.set_defaults(fn=cmd_group)

    x = subparsers.add_parser("access", help="what a user or principal may read and write")
    x.add_argument("name")
    x.add_argument("--principal", action="store_true", help="NAME is an API principal")
    x.add_argument("--role", help="the principal's role (default: viewer); users: from the "
                                  "users file")
    x.set_defaults(fn=cmd_access)
