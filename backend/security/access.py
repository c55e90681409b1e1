"""Who is acting, and what they may read and write: the caller type and the scope that every
backend action takes.

An `Actor` is resolved from the users file at the moment of the action (never kept from an
earlier page run): a disabled user, an ended session or an unknown name resolves to None,
a demoted editor resolves as a viewer. Every action that changes something calls
`require(actor, action)` itself, so the order of checks on a page cannot matter.
Kinds: "user" (a dashboard user), "principal" (an API principal; the API resolves it from
its token table) and "system" (the CLI operator and the evaluation gate: unrestricted).

ACL before retrieval: `scope_of(rs, actor)` computes once which collections the actor may
read and write (`Scope`), from the knowledge bases its access groups grant
(backend/store/acl_models.py). Every read path of the service layer takes that Scope and
passes it down *before* anything is retrieved: as the collection filter of both indexes
(backend/retrieval), as a filter of every listing, count and facet, and as a check on
every id (`document_visible`, `version_visible`): an id outside the scope raises the same
NotFound as an id that does not exist, so ids do not leak. The rule (docs/security.md):

* admins and system actors: unrestricted (`Scope.readable is None`);
* everyone else reads the collections of every knowledge base a group of theirs grants
  `read` or `write`, and writes (as far as the role allows changes at all: not viewers) the
  collections of knowledge bases granted `write`;
* a user is a member of the groups that name them and of every `all_users` group (the
  default group `everyone`); a principal only of the groups that name it;
* a document is visible when it is in at least one readable collection."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from backend.security import auth
from backend.errors import NotFound
from backend.security.sessions import Session, validate

ACTOR_KINDS = ("user", "principal", "system")


NO_ACCESS = ("You have no access to any collection — ask an admin to add you to an access "
             "group (Access page).")


@dataclass(frozen=True)
class Actor:
    username: str
    role: str
    kind: str = "user"  # "user" | "principal" | "system"

    def __post_init__(self):
        if self.kind not in ACTOR_KINDS:
            raise ValueError(f"actor kind must be one of {ACTOR_KINDS}, not {self.kind!r}")

    def can(self, action: str) -> bool:
        return auth.can(self.role, action)

    @classmethod
    def system(cls, name: str = "cli") -> "Actor":
        """The operator of the CLI (or the evaluation gate): admin rights, no group limits."""
        return cls(name, "admin", "system")

    @classmethod
    def principal(cls, name: str, role: str) -> "Actor":
        return cls(name, role, "principal")

    def trace_owner(self):
        """Whom the traces of this actor's retrievals belong to."""
        from backend.retrieval.types import TraceOwner

        return TraceOwner(self.username, self.kind)


def chat_user(actor: Actor) -> str:
    """Whose chat sessions an actor's are: a dashboard user's own name; an API principal's
    `api:<name>` (user names cannot contain ':', so the two never meet)."""
    return actor.username if getattr(actor, "kind", "user") == "user" else f"api:{actor.username}"


def resolve(users: auth.UserStore, session: Session | None) -> Actor | None:
    """The actor of a current session, with the role the users file gives it now."""
    user = validate(users, session)
    return None if user is None else Actor(user.username, user.role)


def require(actor: Actor | None, action: str) -> Actor:
    """Raise PermissionDenied unless there is an actor and its role allows the action."""
    if actor is None:
        raise auth.PermissionDenied(f"'{action}' needs a signed-in user; your session has "
                                    "ended, sign in again")
    if not actor.can(action):
        raise auth.PermissionDenied(f"'{action}' needs the {auth.ACTIONS[action]} role; "
                                    f"{actor.username} is {actor.role}")
    return actor


# ---- scope ----------------------------------------------------------------------------


def _names(values: Iterable[str] | None) -> frozenset[str] | None:
    return None if values is None else frozenset(values)


@dataclass(frozen=True)
class Scope:
    """What an actor may read and write, by collection and knowledge-base name. None means
    unrestricted (admins, system actors); an empty set means nothing. Frozen and hashable:
    pages pass it into st.cache_data functions as an argument."""

    readable: frozenset[str] | None
    writable: frozenset[str] | None
    readable_kbs: frozenset[str] | None = None
    writable_kbs: frozenset[str] | None = None

    @classmethod
    def everything(cls) -> "Scope":
        return cls(None, None, None, None)

    @classmethod
    def nothing(cls) -> "Scope":
        return cls(frozenset(), frozenset(), frozenset(), frozenset())

    @classmethod
    def of(cls, readable: Iterable[str], writable: Iterable[str] = (),
           readable_kbs: Iterable[str] = (), writable_kbs: Iterable[str] = ()) -> "Scope":
        return cls(frozenset(readable), frozenset(writable), frozenset(readable_kbs),
                   frozenset(writable_kbs))

    @property
    def unrestricted(self) -> bool:
        return self.readable is None

    @property
    def reads_nothing(self) -> bool:
        """No readable collection at all: pages and searches say so (`NO_ACCESS`) instead
        of "nothing matches", which would send the user looking for a wrong filter."""
        return self.readable is not None and not self.readable

    def can_read(self, collection: str) -> bool:
        return self.readable is None or collection in self.readable

    def can_write(self, collection: str) -> bool:
        return self.writable is None or collection in self.writable

    def can_read_kb(self, kb: str) -> bool:
        return self.readable_kbs is None or kb in self.readable_kbs

    def can_write_kb(self, kb: str) -> bool:
        return self.writable_kbs is None or kb in self.writable_kbs

    def collections(self, requested: Sequence[str] | None = None) -> list[str] | None:
        """The collection filter to pass down: None (no restriction: unrestricted scope and
        nothing requested) or a list (possibly empty: nothing may be read). A requested
        collection outside the scope raises the NotFound an unknown one raises, naming
        only readable collections."""
        requested = [c for c in requested or [] if c] or None
        if self.readable is None:
            return requested
        if requested is None:
            return sorted(self.readable)
        for c in requested:
            if c not in self.readable:
                raise NotFound(f"unknown collection '{c}' (known: "
                               f"{', '.join(sorted(self.readable)) or 'none'})")
        return list(dict.fromkeys(requested))

    def only_readable(self, collections: Iterable[str]) -> list[str]:
        """Those of `collections` the scope may read (in their order)."""
        return [c for c in collections if self.can_read(c)]


def scope_of(rs, actor: Actor | None) -> Scope:
    """The actor's scope as the store has it now: computed from the store (one query for the
    groups, one for the collections), or the one this process computed under the store's
    current ACL generation (backend/security/scope_cache.py). None (no signed-in actor)
    reads nothing."""
    if actor is None:
        return Scope.nothing()
    if actor.kind == "system" or auth.has_role(actor.role, "admin"):
        return Scope.everything()
    from backend.security import scope_cache

    return scope_cache.for_store(rs.store).get(
        (actor.kind, actor.username, actor.role), lambda: _read_scope(rs, actor))


def _read_scope(rs, actor: Actor) -> Scope:
    """The scope of a restricted actor, read from the store."""
    from sqlalchemy import or_, select

    from backend.store.acl_models import AccessGrant, AccessGroup, AccessMember, KnowledgeBase
    from backend.store.models import Collection

    member = (select(AccessMember.group_id)
              .where(AccessMember.member_kind == actor.kind,
                     AccessMember.member_name == actor.username))
    groups = AccessGroup.id.in_(member)
    if actor.kind == "user":
        groups = or_(groups, AccessGroup.all_users.is_(True))
    may_write = auth.has_role(actor.role, "editor")
    with rs.store.session() as s:
        grants: dict[int, tuple[str, bool]] = {}
        for kb_id, kb_name, perm in s.execute(
                select(KnowledgeBase.id, KnowledgeBase.name, AccessGrant.permission)
                .join(AccessGrant, AccessGrant.knowledge_base_id == KnowledgeBase.id)
                .join(AccessGroup, AccessGroup.id == AccessGrant.group_id).where(groups)):
            w = grants.get(kb_id, (kb_name, False))[1] or perm == "write"
            grants[kb_id] = (kb_name, w)
        colls = list(s.execute(select(Collection.name, Collection.knowledge_base_id)
                               .where(Collection.knowledge_base_id.in_(list(grants))))) \
            if grants else []
    w_kbs = {k for k, (_, w) in grants.items() if w and may_write}
    return Scope.of(readable=(c for c, _ in colls),
                    writable=(c for c, kb in colls if kb in w_kbs),
                    readable_kbs=(n for n, _ in grants.values()),
                    writable_kbs=(grants[k][0] for k in w_kbs))


def collection_scope(rs, collection: str) -> Scope:
    """What every reader of `collection` reads: the collections of its knowledge base (of
    RAGSCOPE_DEFAULT_KNOWLEDGE_BASE while it does not exist yet). The scope of work done
    for a collection with no caller at hand (a crawl, a watched folder, a chatbot's build):
    content reused within it is shown to no one who could not read it already."""
    from sqlalchemy import select

    from backend.store.acl_models import KnowledgeBase
    from backend.store.models import Collection

    with rs.store.session() as s:
        kb_id = s.scalar(select(Collection.knowledge_base_id).where(Collection.name == collection))
        if kb_id is None:
            kb_id = s.scalar(select(KnowledgeBase.id).where(
                KnowledgeBase.name == rs.settings.default_knowledge_base))
        kb = s.get(KnowledgeBase, kb_id) if kb_id is not None else None
        names = list(s.scalars(select(Collection.name).where(
            Collection.knowledge_base_id == kb_id))) if kb_id is not None else []
    kbs = [kb.name] if kb is not None else []
    return Scope.of(readable=[*names, collection], writable=[*names, collection],
                    readable_kbs=kbs, writable_kbs=kbs)


# ---- ids checked against a scope (NotFound, never PermissionDenied) ----------------------


def visible_document_ids(s, scope: Scope, ids: Iterable[int]) -> set[int]:
    """Which of `ids` are documents the scope may read (that exist)."""
    from sqlalchemy import select

    from backend.store.models import Collection, CollectionDocument, Document

    ids = sorted({int(i) for i in ids})
    out: set[int] = set()
    for i in range(0, len(ids), 500):
        part = ids[i:i + 500]
        if scope.readable is None:
            q = select(Document.id).where(Document.id.in_(part))
        else:
            q = (select(CollectionDocument.document_id).distinct()
                 .join(Collection, Collection.id == CollectionDocument.collection_id)
                 .where(CollectionDocument.document_id.in_(part),
                        Collection.name.in_(sorted(scope.readable))))
        out.update(s.scalars(q))
    return out


def document_visible(s, scope: Scope, document_id: int) -> bool:
    return int(document_id) in visible_document_ids(s, scope, [document_id])


def require_document(s, scope: Scope, document_id: int):
    """The Document row, or NotFound (the same for a missing and an invisible one)."""
    from backend.store.models import Document

    doc = s.get(Document, int(document_id))
    if doc is None or not document_visible(s, scope, doc.id):
        raise NotFound(f"document {document_id} not found")
    return doc


def require_version(s, scope: Scope, version_id: int):
    """The DocumentVersion row, or NotFound (the same for a missing and an invisible one)."""
    from backend.store.models import DocumentVersion

    v = s.get(DocumentVersion, int(version_id))
    if v is None or not document_visible(s, scope, v.document_id):
        raise NotFound(f"document version {version_id} not found")
    return v


# ---- queries restricted to a scope ----------------------------------------------------


def visible_documents(q, scope: Scope, id_col=None):
    """`q` restricted to documents in the scope's readable collections (`id_col`: the
    column holding the document id, default `Document.id`)."""
    from sqlalchemy import select

    from backend.store.models import Collection, CollectionDocument, Document

    id_col = Document.id if id_col is None else id_col
    if scope.readable is None:
        return q
    return q.where(id_col.in_(
        select(CollectionDocument.document_id)
        .join(Collection, Collection.id == CollectionDocument.collection_id)
        .where(Collection.name.in_(sorted(scope.readable)))))


def resolve_document(rs, ref: int | str, *, scope: Scope) -> int:
    """A document id from an id or an exact title, file name or source URI, among the
    documents the scope may read (the CLI's DOC argument); NotFound otherwise."""
    from sqlalchemy import or_, select

    from backend.store.models import Document

    ref = str(ref).strip()
    with rs.store.session() as s:
        if ref.isdigit():
            return require_document(s, scope, int(ref)).id
        q = visible_documents(select(Document.id).where(or_(
            Document.title == ref, Document.filename == ref, Document.source_uri == ref)),
            scope).order_by(Document.id).limit(1)
        doc_id = s.scalar(q)
    if doc_id is None:
        raise NotFound(f"document '{ref}' not found")
    return doc_id


def scoped_counts(s, scope: Scope) -> dict[str, int]:
    """`repo.counts` over the documents the scope may read."""
    from sqlalchemy import func, select

    from backend.store import repo
    from backend.store.models import Chunk, Document, DocumentVersion, Section

    if scope.unrestricted:
        return repo.counts(s)
    docs = visible_documents(select(Document.id), scope).subquery()
    versions = select(DocumentVersion.id).where(DocumentVersion.document_id.in_(
        select(docs.c.id)))
    active = (select(func.count(Chunk.id))
              .join(DocumentVersion, DocumentVersion.id == Chunk.version_id)
              .where(DocumentVersion.is_active.is_(True), DocumentVersion.status == "indexed",
                     Chunk.document_id.in_(select(docs.c.id))))
    return {
        "collections": len(scope.readable or ()),
        "documents": s.scalar(select(func.count()).select_from(docs)) or 0,
        "versions": s.scalar(select(func.count()).select_from(versions.subquery())) or 0,
        "failed_versions": s.scalar(select(func.count()).select_from(
            versions.where(DocumentVersion.status == "failed").subquery())) or 0,
        "active_chunks": s.scalar(active) or 0,
        "sections": s.scalar(select(func.count(Section.id)).where(
            Section.version_id.in_(versions))) or 0,
    }
