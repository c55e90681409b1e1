"""Managing knowledge bases, access groups, grants and memberships (the admin page and
`python -m backend kb|group ...` call these), and choosing the collection an ingest, upload
or crawl writes into. Every change needs the `manage_access` action (admins); the scope
these rows produce is computed in backend/security/access.py (`scope_of`); the rule is in
docs/security.md.

Bad input raises AccessConfigError (empty or too long names, duplicate names, unknown
permission or member kind, deleting a knowledge base that still holds collections or the
default one) or NotFound (unknown knowledge base, group, collection or member). Admins are
never restricted by groups, so no change here can lock an admin out."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError

from backend.security import auth
from backend.security.access import Actor, Scope, require, scope_of
from backend.errors import AccessConfigError, NotFound
from backend.store import repo
from backend.store.acl_models import (
    MEMBER_KINDS,
    PERMISSIONS,
    AccessGrant,
    AccessGroup,
    AccessMember,
    KnowledgeBase,
)
from backend.store.models import Collection, CollectionDocument

NAME_MAX = 200
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass
class CollectionInfo:
    name: str
    knowledge_base: str
    documents: int


@dataclass
class KnowledgeBaseInfo:
    name: str
    description: str
    collections: list[CollectionInfo] = field(default_factory=list)
    grants: dict[str, str] = field(default_factory=dict)  # group -> read | write

    @property
    def documents(self) -> int:
        return sum(c.documents for c in self.collections)


@dataclass
class GroupInfo:
    name: str
    description: str
    all_users: bool
    grants: dict[str, str] = field(default_factory=dict)  # knowledge base -> read | write
    members: list[tuple[str, str]] = field(default_factory=list)  # (kind, name)


def _name(value: str | None, what: str) -> str:
    name = " ".join((value or "").split())
    if not name:
        raise AccessConfigError(f"{what} name must not be empty")
    if len(name) > NAME_MAX:
        raise AccessConfigError(f"{what} name is {len(name)} characters long; at most "
                                f"{NAME_MAX} are allowed")
    if _CONTROL.search(name):
        raise AccessConfigError(f"{what} name must not contain control characters")
    return name


def _admin(actor: Actor | None) -> None:
    require(actor, "manage_access")


def _kb(s, name: str) -> KnowledgeBase:
    kb = s.scalar(select(KnowledgeBase).where(KnowledgeBase.name == name))
    if kb is None:
        known = ", ".join(s.scalars(select(KnowledgeBase.name).order_by(KnowledgeBase.name)))
        raise NotFound(f"unknown knowledge base '{name}' (known: {known or 'none'})")
    return kb


def _group(s, name: str) -> AccessGroup:
    g = s.scalar(select(AccessGroup).where(AccessGroup.name == name))
    if g is None:
        known = ", ".join(s.scalars(select(AccessGroup.name).order_by(AccessGroup.name)))
        raise NotFound(f"unknown access group '{name}' (known: {known or 'none'})")
    return g


# ---- reading -----------------------------------------------------------------------------


def collections(rs, scope: Scope) -> list[CollectionInfo]:
    """The collections the scope may read, with their knowledge base and document count."""
    with rs.store.session() as s:
        q = (select(Collection.name, KnowledgeBase.name, func.count(CollectionDocument.document_id))
             .join(KnowledgeBase, KnowledgeBase.id == Collection.knowledge_base_id)
             .outerjoin(CollectionDocument, CollectionDocument.collection_id == Collection.id)
             .group_by(Collection.id, Collection.name, KnowledgeBase.name)
             .order_by(Collection.name))
        if scope.readable is not None:
            q = q.where(Collection.name.in_(sorted(scope.readable)))
        return [CollectionInfo(c, kb, n) for c, kb, n in s.execute(q)]


def knowledge_bases(rs, scope: Scope) -> list[KnowledgeBaseInfo]:
    """Knowledge bases the scope may read, with their collections; grants only for an
    unrestricted scope (who else may read is not a reader's business)."""
    with rs.store.session() as s:
        kbs = {kb.name: KnowledgeBaseInfo(kb.name, kb.description)
               for kb in s.scalars(select(KnowledgeBase).order_by(KnowledgeBase.name))
               if scope.can_read_kb(kb.name)}
        if scope.unrestricted:
            for g, kb, perm in s.execute(
                    select(AccessGroup.name, KnowledgeBase.name, AccessGrant.permission)
                    .join(AccessGrant, AccessGrant.group_id == AccessGroup.id)
                    .join(KnowledgeBase, KnowledgeBase.id == AccessGrant.knowledge_base_id)
                    .order_by(AccessGroup.name)):
                kbs[kb].grants[g] = perm
    for c in collections(rs, scope):
        if c.knowledge_base in kbs:
            kbs[c.knowledge_base].collections.append(c)
    return list(kbs.values())


def knowledge_base_names(rs) -> list[str]:
    with rs.store.session() as s:
        return list(s.scalars(select(KnowledgeBase.name).order_by(KnowledgeBase.name)))


def groups(rs) -> list[GroupInfo]:
    with rs.store.session() as s:
        out = {g.id: GroupInfo(g.name, g.description, bool(g.all_users))
               for g in s.scalars(select(AccessGroup).order_by(AccessGroup.name))}
        for gid, kb, perm in s.execute(
                select(AccessGrant.group_id, KnowledgeBase.name, AccessGrant.permission)
                .join(KnowledgeBase, KnowledgeBase.id == AccessGrant.knowledge_base_id)
                .order_by(KnowledgeBase.name)):
            out[gid].grants[kb] = perm
        for m in s.scalars(select(AccessMember).order_by(AccessMember.member_kind,
                                                         AccessMember.member_name)):
            out[m.group_id].members.append((m.member_kind, m.member_name))
    return list(out.values())


def groups_of(rs, kind: str, name: str) -> list[str]:
    """The groups a user or principal belongs to (named, or through `all_users`)."""
    return [g.name for g in groups(rs)
            if (kind, name) in g.members or (g.all_users and kind == "user")]


@dataclass
class EffectiveAccess:
    kind: str
    name: str
    role: str
    groups: list[str]
    scope: Scope
    collections: list[CollectionInfo]


def effective_access(rs, kind: str, name: str, *, role: str | None = None) -> EffectiveAccess:
    """What a user (role from the users file) or a principal (`role`, default viewer) may
    read and write now: its groups, its scope and the readable collections."""
    kind, name = _member(rs, kind, name)
    if kind == "user":
        user = auth.UserStore(auth.AuthPaths.under(rs.settings.data_dir)).get(name)
        role = user.role
    role = role or "viewer"
    if role not in auth.ROLES:
        raise AccessConfigError(f"role must be one of {', '.join(auth.ROLES)}, not '{role}'")
    scope = scope_of(rs, Actor(name, role, kind))
    return EffectiveAccess(kind, name, role, groups_of(rs, kind, name), scope,
                           collections(rs, scope))


# ---- knowledge bases -------------------------------------------------------------------


def create_knowledge_base(rs, actor: Actor | None, name: str, description: str = "") -> str:
    _admin(actor)
    name = _name(name, "knowledge base")
    try:
        with rs.store.session() as s:
            if s.scalar(select(KnowledgeBase.id).where(KnowledgeBase.name == name)):
                raise AccessConfigError(f"a knowledge base named '{name}' exists already")
            s.add(KnowledgeBase(name=name, description=(description or "").strip()))
    except IntegrityError as e:  # created at the same moment elsewhere
        raise AccessConfigError(f"a knowledge base named '{name}' exists already") from e
    return name


def delete_knowledge_base(rs, actor: Actor | None, name: str) -> None:
    """Only an empty one, and never the default one (new collections go there)."""
    _admin(actor)
    if name == rs.settings.default_knowledge_base:
        raise AccessConfigError(f"'{name}' is the default knowledge base "
                                "(RAGSCOPE_DEFAULT_KNOWLEDGE_BASE); it cannot be deleted")
    with rs.store.session() as s:
        kb = _kb(s, name)
        held = list(s.scalars(select(Collection.name).where(
            Collection.knowledge_base_id == kb.id).order_by(Collection.name)))
        if held:
            raise AccessConfigError(f"knowledge base '{name}' still holds collection(s) "
                                    f"{', '.join(held)}; move them to another one first")
        s.execute(delete(AccessGrant).where(AccessGrant.knowledge_base_id == kb.id))
        s.delete(kb)


def assign_collection(rs, actor: Actor | None, collection: str, knowledge_base: str) -> None:
    """Move a collection (with all its documents) into another knowledge base."""
    _admin(actor)
    with rs.store.session() as s:
        c = repo.get_collection(s, collection)
        c.knowledge_base_id = _kb(s, knowledge_base).id


def writable_collection(rs, actor: Actor | None, name: str | None,
                        knowledge_base: str | None = None, *, action: str = "upload",
                        strict: bool = True, create: bool = True) -> str:
    """The collection an ingest, upload or crawl of `actor` writes into, checked before
    anything is written: `name` (default: RAGSCOPE_DEFAULT_COLLECTION) must be writable
    for the actor; a new one is created in `knowledge_base` (default:
    RAGSCOPE_DEFAULT_KNOWLEDGE_BASE), which the actor must be allowed to write. An
    existing collection stays where it is; naming another knowledge base for it is an
    error when `strict` (the CLI), ignored otherwise (the upload form, whose knowledge-base
    field is for new collections). A collection the actor cannot read is reported as
    unknown. `create` False: only check; the ingest creates the collection with the first
    file it stores (`Ingestor.ingest_many(knowledge_base=...)`), so a request refused later
    (an index mismatch, every file refused) leaves no empty collection behind."""
    require(actor, action)
    scope = scope_of(rs, actor)
    name = _name(name or rs.settings.default_collection, "collection")
    kb_name = _name(knowledge_base, "knowledge base") if knowledge_base else None
    with rs.store.session() as s:
        c = s.scalar(select(Collection).where(Collection.name == name))
        if c is not None:
            if not scope.can_read(name):
                scope.collections([name])  # raises NotFound like an unknown collection
            current = s.get(KnowledgeBase, c.knowledge_base_id).name
            if strict and kb_name and kb_name != current:
                raise AccessConfigError(f"collection '{name}' belongs to knowledge base "
                                        f"'{current}', not '{kb_name}'")
            if not scope.can_write(name):
                raise auth.PermissionDenied(f"{actor.username} may read but not change "
                                            f"collection '{name}' (knowledge base "
                                            f"'{current}')")
            return name
        kb_name = kb_name or rs.settings.default_knowledge_base
        kb = s.scalar(select(KnowledgeBase).where(KnowledgeBase.name == kb_name))
        if kb is None or not scope.can_read_kb(kb_name):
            if kb is None and kb_name == rs.settings.default_knowledge_base:
                if create:  # else made with the collection
                    kb = repo.get_or_create_knowledge_base(s, kb_name)
            else:
                known = sorted(n for n in s.scalars(select(KnowledgeBase.name))
                               if scope.can_read_kb(n))
                raise NotFound(f"unknown knowledge base '{kb_name}' (known: "
                               f"{', '.join(known) or 'none'})")
        if not scope.can_write_kb(kb_name):
            raise auth.PermissionDenied(f"{actor.username} may not add collections to "
                                        f"knowledge base '{kb_name}'")
        if create:
            repo.get_or_create_collection(s, name, knowledge_base=kb_name)
    return name


def version_target(rs, actor: Actor | None, ref: int | str) -> int:
    """The document a forced "new version of REF" (upload form, `ingest --new-version-of`)
    goes to, checked before anything is stored: REF (id, title, file name or source URI)
    among the documents the actor may read (NotFound otherwise, as for a missing one), in
    at least one collection the actor may write (PermissionDenied otherwise)."""
    from backend.security.access import resolve_document

    require(actor, "upload")
    scope = scope_of(rs, actor)
    doc_id = resolve_document(rs, ref, scope=scope)
    with rs.store.session() as s:
        names = repo.document_collections(s, doc_id)
    if scope.writable is not None and not any(scope.can_write(c) for c in names):
        raise auth.PermissionDenied(f"{actor.username} may read but not change document "
                                    f"{doc_id} (collections: {', '.join(names) or 'none'})")
    return doc_id


# ---- groups --------------------------------------------------------------------------------


def create_group(rs, actor: Actor | None, name: str, description: str = "", *,
                 all_users: bool = False) -> str:
    _admin(actor)
    name = _name(name, "access group")
    try:
        with rs.store.session() as s:
            if s.scalar(select(AccessGroup.id).where(AccessGroup.name == name)):
                raise AccessConfigError(f"an access group named '{name}' exists already")
            s.add(AccessGroup(name=name, description=(description or "").strip(),
                              all_users=bool(all_users)))
    except IntegrityError as e:
        raise AccessConfigError(f"an access group named '{name}' exists already") from e
    return name


def delete_group(rs, actor: Actor | None, name: str) -> None:
    _admin(actor)
    with rs.store.session() as s:
        g = _group(s, name)
        s.execute(delete(AccessMember).where(AccessMember.group_id == g.id))
        s.execute(delete(AccessGrant).where(AccessGrant.group_id == g.id))
        s.delete(g)


def set_all_users(rs, actor: Actor | None, group: str, all_users: bool) -> None:
    _admin(actor)
    with rs.store.session() as s:
        _group(s, group).all_users = bool(all_users)


def grant(rs, actor: Actor | None, group: str, knowledge_base: str, permission: str) -> None:
    """Give `group` read or write on a knowledge base (replacing what it had there)."""
    _admin(actor)
    if permission not in PERMISSIONS:
        raise AccessConfigError(f"permission must be one of {', '.join(PERMISSIONS)}, "
                                f"not '{permission}'")
    with rs.store.session() as s:
        g, kb = _group(s, group), _kb(s, knowledge_base)
        row = s.get(AccessGrant, (g.id, kb.id))
        if row is None:
            s.add(AccessGrant(group_id=g.id, knowledge_base_id=kb.id, permission=permission))
        else:
            row.permission = permission


def revoke(rs, actor: Actor | None, group: str, knowledge_base: str) -> None:
    _admin(actor)
    with rs.store.session() as s:
        g, kb = _group(s, group), _kb(s, knowledge_base)
        row = s.get(AccessGrant, (g.id, kb.id))
        if row is None:
            raise NotFound(f"group '{group}' has no grant on knowledge base '{knowledge_base}'")
        s.delete(row)


def _member(rs, kind: str, name: str) -> tuple[str, str]:
    if kind not in MEMBER_KINDS:
        raise AccessConfigError(f"member kind must be one of {', '.join(MEMBER_KINDS)}, "
                                f"not '{kind}'")
    name = _name(name, kind)
    if kind == "user":
        users = auth.UserStore(auth.AuthPaths.under(rs.settings.data_dir))
        if users.get(name) is None:
            raise NotFound(f"unknown user '{name}'")
    return kind, name


def add_member(rs, actor: Actor | None, group: str, kind: str, name: str) -> None:
    """Put a dashboard user (`kind="user"`, must exist in the users file) or an API
    principal (`"principal"`) into a group; already a member: no change."""
    _admin(actor)
    kind, name = _member(rs, kind, name)
    with rs.store.session() as s:
        g = _group(s, group)
        if s.get(AccessMember, (g.id, kind, name)) is None:
            s.add(AccessMember(group_id=g.id, member_kind=kind, member_name=name))


def remove_member(rs, actor: Actor | None, group: str, kind: str, name: str) -> None:
    _admin(actor)
    with rs.store.session() as s:
        g = _group(s, group)
        row = s.get(AccessMember, (g.id, kind, name))
        if row is None:
            raise NotFound(f"{kind} '{name}' is not a member of group '{group}'")
        s.delete(row)
