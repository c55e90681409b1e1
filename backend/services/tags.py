"""Tags on documents for every front door (dashboard, HTTP API, CLI, MCP): list, add,
remove, replace and suggest. Reads need the document to be in the caller's scope (NotFound
otherwise, the same as a missing one); changes need the editor role and write access to
every collection the document is in (document_actions.require_writable_document).
Suggestions come from the active version's classification: the primary document type's label
and category and its traits (docs/tags.md)."""
from __future__ import annotations

from dataclasses import dataclass, field

from backend.ingest import doctypes
from backend.security import access
from backend.security.access import Actor, Scope
from backend.services.container import Ragscope
from backend.services.document_actions import require_writable_document
from backend.store import tags as store_tags
from backend.store.models import Document

# traits (backend/ingest/classify.py traits_of) that say something a reader filters by;
# the OCR quality and versioning traits say nothing about the content and are left out
TRAIT_TAGS = {
    "has_tables": "tables",
    "has_code_blocks": "code",
    "has_references": "references",
    "has_agenda": "agenda",
    "has_action_items": "action items",
    "has_deadlines": "deadlines",
    "has_api_endpoints": "API",
    "has_config_keys": "configuration",
    "is_ocr": "scanned",
    "is_multilingual": "multilingual",
}
GENERIC_TYPES = ("generic_text", "generic")  # "Generic text" says nothing


@dataclass
class TagOut:
    name: str
    source: str
    created_by: str


@dataclass
class TagsView:
    """One document's tags and the suggestions it does not carry yet."""

    document_id: int
    tags: list[TagOut] = field(default_factory=list)
    suggestions: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)  # what the last action added/removed

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.tags]


def _suggest(rs: Ragscope, doc: Document) -> list[str]:
    types = {t.name: t for t in doctypes.load(rs.store)}
    v = doc.versions and next((x for x in doc.versions if x.id == doc.active_version_id), None)
    c = dict((v.classification if v is not None else None) or {})
    out: list[str] = []
    primary = (v.primary_type if v is not None else None) or doc.doc_type
    t = types.get(primary)
    if t is not None and primary not in GENERIC_TYPES:  # secondary types are left out: on
        out.append(t.label)  # the sample corpus they named "Book" for a status report
        if t.category and t.category != "general":
            out.append(t.category)
    out += [TRAIT_TAGS[tr] for tr in c.get("traits", []) if tr in TRAIT_TAGS]
    return out


def _view(rs: Ragscope, s, doc: Document, changed: list[str] | None = None) -> TagsView:
    rows = store_tags.tags_of(s, doc.id)
    have = {t.key for t in rows}
    sugg = [n for k, n in store_tags.normalise_all(_suggest(rs, doc)).items() if k not in have]
    return TagsView(doc.id, [TagOut(t.name, t.source, t.created_by) for t in rows], sugg,
                    list(changed or []))


def get(rs: Ragscope, actor: Actor | None, doc_id: int, *, scope: Scope | None = None) -> TagsView:
    """The document's tags and suggestions; NotFound outside the actor's scope."""
    scope = scope or access.scope_of(rs, actor)
    with rs.store.session() as s:
        return _view(rs, s, access.require_document(s, scope, int(doc_id)))


def _change(rs: Ragscope, actor: Actor | None, doc_id: int, fn) -> TagsView:
    actor = require_writable_document(rs, actor, int(doc_id), "edit_document")
    with rs.store.session() as s:
        doc = s.get(Document, int(doc_id))
        changed = fn(s, doc.id, actor.username)
        return _view(rs, s, doc, changed)


def add(rs: Ragscope, actor: Actor | None, doc_id: int, names: list[str], *,
        source: str = "user") -> TagsView:
    """Add tags (`source="suggestion"`: accepted suggestions); a bad tag adds none."""
    return _change(rs, actor, doc_id, lambda s, d, by: store_tags.add(
        s, d, names, by=by, source=source))


def remove(rs: Ragscope, actor: Actor | None, doc_id: int, names: list[str]) -> TagsView:
    return _change(rs, actor, doc_id, lambda s, d, by: store_tags.remove(s, d, names))


def replace(rs: Ragscope, actor: Actor | None, doc_id: int, names: list[str]) -> TagsView:
    """The document's tags become exactly `names`."""
    return _change(rs, actor, doc_id, lambda s, d, by: store_tags.replace(s, d, names, by=by))


def accept_suggestions(rs: Ragscope, actor: Actor | None, doc_id: int,
                       names: list[str] | None = None) -> TagsView:
    """One click: the named suggestions (all current ones when None) become tags."""
    wanted = get(rs, actor, doc_id).suggestions if names is None else names
    return add(rs, actor, doc_id, wanted, source="suggestion")


def vocabulary(rs: Ragscope, actor: Actor | None, *,
               scope: Scope | None = None) -> list[tuple[str, int]]:
    """(tag, documents) of every tag on documents the actor may read, most used first:
    the choices of the dashboard's tag filters."""
    scope = scope or access.scope_of(rs, actor)
    with rs.store.session() as s:
        ids = None
        if not scope.unrestricted:
            from sqlalchemy import select

            ids = list(s.scalars(access.visible_documents(select(Document.id), scope)))
        return store_tags.counts(s, ids)


def split_names(text: str) -> list[str]:
    """Tags typed into one field, comma-separated (a tag may contain spaces)."""
    return [t for t in (x.strip() for x in (text or "").split(",")) if t]


@dataclass
class BatchOutcome:
    document_id: int
    changed: list[str]
    error: str | None = None


def change_many(rs: Ragscope, actor: Actor | None, doc_ids: list[int], names: list[str], *,
                remove_them: bool = False) -> list[BatchOutcome]:
    """Add (or remove) the same tags on several documents (the explorer). The tags are
    validated once, before anything changes (TagError); then a document the actor may not
    change is reported in its outcome and the others go on."""
    from backend.errors import RagscopeError

    if not names:
        from backend.errors import TagError

        raise TagError("tags: name at least one tag")
    store_tags.normalise_all(names)
    out = []
    for d in doc_ids:
        try:
            v = (remove if remove_them else add)(rs, actor, int(d), names)
            out.append(BatchOutcome(int(d), v.changed))
        except RagscopeError as e:
            out.append(BatchOutcome(int(d), [], str(e)))
    return out
